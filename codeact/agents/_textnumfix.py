"""Numbers (or dates) stored as text that a cell never converts (fresh14: ``'£1.40'`` fines
summed as text, then ``'str' object has no attribute 'round'``; return dates subtracted as
text): the 1.5B model is told how the files note converts the column and writes the same cell
again. The cell is run again with the note's conversion right after the file is read
(``text_number_fix``), and the rule that sends a successful cell back for numbers stored as
text (``_datarules.text_number_problem``) carries the same code. And the rule for gaps the
question says mean none (``empty_zero_problem``): filled after the conversion."""

from __future__ import annotations

import re
from dataclasses import dataclass

from codeact.agents._notecols import (
    column_ref,
    file_columns,
    note_column_kinds,
    note_columns,
    read_once,
    task_text,
    uses_column,
)
from codeact.agents._problem import Problem, problem_of
from codeact.agents._unusedcols import COLUMN_SET
from codeact.agents._unusedfix import failing_lineno, safe_to_repeat, shown_lines
from codeact.executors.base import ExecutionResult

#: Errors of arithmetic, comparison or rounding on text.
_TEXT_FAILS = re.compile(
    r"unsupported operand type\(s\)|can only concatenate str|not supported between instances "
    r"of 'str'|could not convert string to float|Could not convert .* to numeric"
    r"|'str' object has no attribute '(?:round|is_integer|item)'|type str doesn't define __round"
    r"|dtype '(?:str|string|object)' does not support"
    r"|cannot subtract DatetimeArray|Can only use \.dt accessor|between instances of 'Timestamp'"
)
#: The note's conversion of a column written with signs.
_CONVERT = re.compile(
    r"convert with (pd\.to_numeric\(df\[.*?errors='coerce'\)|df\[.*?astype\(float\))"
)
#: The note's reading of dates stored as text.
_DATE_READ = re.compile(r": (pd\.to_datetime\(df\[[^\n]*?)(?:, e\.g\. |$)")
#: Text tests on a column (numbers there would break them).
_TEXT_TESTS = r"(?:startswith|endswith|contains|match|len|split|slice|extract)"
#: What makes numbers (or dates) of a column on one line.
_NUMERIC = re.compile(r"to_numeric|to_datetime|\.astype\(\s*['\"]?(?:float|int)|\bfloat\(|\bint\(")
#: What converts a column on one line: the note's ways and the model's own.
_CONVERTS = re.compile(
    r"to_numeric|to_datetime|\.astype\(|\.str\.replace|\.replace\(|\bfloat\(|\bint\(|\.apply\(|\.map\("
)


def converts_column(code: str, name: str) -> bool:
    """Whether ``code`` converts column ``name`` its own way (a conversion on a line naming
    it, or a read with ``thousands=``)."""
    lines = [ln for ln in code.splitlines() if uses_column(ln, name)]
    return any(_CONVERTS.search(ln) for ln in lines) or "thousands" in code


def _conversion(kind: str, name: str, frame: str) -> str | None:
    """The note's conversion of column ``name`` of ``frame`` (numbers or dates stored as
    text), or None."""
    dated = _DATE_READ.search(kind) if "dates" in kind else None
    if dated is not None and dated.group(1).count("(") == dated.group(1).count(")"):
        return dated.group(1).replace("df[", f"{frame}[")
    if "dates as text: pd.to_datetime() them" in kind:  # (one way of writing them all)
        return f"pd.to_datetime({frame}[{name!r}], errors='coerce')"
    if not re.search(r"numbers stored as text|numbers with a unit|amounts stored as text", kind):
        return None  # (fresh17: '180.640 km', '€1.045,71': a unit's or a European conversion)
    written = _CONVERT.search(kind)
    if written is not None:
        return written.group(1).replace("df[", f"{frame}[")
    if "',' separators" in kind:
        return f"pd.to_numeric({frame}[{name!r}].str.replace(',', ''), errors='coerce')"
    return None


def converted_after_read(
    question: str, code: str, *, numeric: bool = False
) -> tuple[str, list[str]] | None:
    """``code`` with the note's conversion of each column of numbers stored as text that it
    uses and never converts, right after its file is read once (and the lines added); None
    when there is no such column or its file is not read exactly once at the top level.
    With ``numeric``, a clean-up of the text that never makes numbers of it (``.str.replace``
    alone, the cell failing on text in arithmetic) is no conversion."""
    lines = code.splitlines()
    files = file_columns(question)
    added: list[tuple[int, str]] = []
    for name, kind in note_column_kinds(question):
        if not uses_column(code, name):
            continue
        own = [ln for ln in lines if uses_column(ln, name)]
        if re.search(rf"{column_ref(name)}\s*\.str\s*(?:\.\s*{_TEXT_TESTS}\b|\[)", code):
            continue  # (tested as text too: numbers there would break those tests)
        # (cleaned as text only, with ``numeric``: converted below, the clean-up dropped after)
        text_only = not any(_NUMERIC.search(ln) for ln in own) and "thousands" not in code
        if converts_column(code, name) and not (numeric and text_only):
            continue  # (converted its own way: other rules judge that)
        holders = [f for f, columns in files.items() if name in columns]
        found = read_once(lines, holders[0]) if len(holders) == 1 else None
        made = _conversion(kind, name, found[1]) if found is not None else None
        if found is None or made is None:
            continue
        if "numbers" in kind and _none_is_zero(question, name):
            made += ".fillna(0)"  # ("Children is '0', '-' or empty when there were none")
        added.append((found[0], f"{found[1]}[{name!r}] = {made}"))
        if "numbers" in kind:  # (compared with a number as text: '0' is 0 once converted)
            column = rf"\b\w+\s*\[\s*(?P<q>['\"]){re.escape(name)}(?P=q)\s*\]\s*(?:[=!<>]=|[<>])\s*"
            number = rf"(?P<c>{column})(?P<n>['\"])(?P<v>-?\d+(?:\.\d+)?)(?P=n)"
            lines = [re.sub(number, r"\g<c>\g<v>", ln) for ln in lines]
    if not added:
        return None
    for at, line in sorted(added, key=lambda a: -a[0]):
        lines.insert(at + 1, line)
    return "\n".join(lines), [line for _, line in added]


#: A sentence saying a column's markers or gaps are zero ("... when there were none").
_NONE_IS_ZERO = re.compile(
    r"when there (?:is|are|was|were) (?:none|no \w+)|\bmeans? (?:no|none|0|zero)\b"
    r"|count(?:ed)? (?:them |it )?as (?:0|zero)",
    re.I,
)


def _none_is_zero(question: str, name: str) -> bool:
    """Whether a sentence of the question naming column ``name`` says its markers or gaps
    stand for zero."""
    return any(
        name.strip() in sentence and _NONE_IS_ZERO.search(sentence)
        for sentence in re.split(r"[.;]\s", task_text(question))
    )


def _raw_converted(question: str, code: str, line: str) -> tuple[str, list[str]] | None:
    """``code`` with the failing ``line``'s conversion of a column as it is written, or
    cleaned its own way (``loans['Fine'].astype(float)`` on ``'£0.00'``,
    ``.str.replace(...).astype(float)`` on ``'none'``) made the note's, or None."""
    for name, kind in note_column_kinds(question):
        raw = re.search(
            rf"\b(\w+)\[{re.escape(repr(name))}\](?:\.(?:str\.\w+|fillna)\([^()\n]*\))*"
            r"\.astype\(\s*['\"]?float\w*['\"]?\s*\)"
            rf"|\bpd\.to_numeric\(\s*(\w+)\[{re.escape(repr(name))}\]\s*(?:,[^()\n]*)?\)",
            line,
        )
        made = _conversion(kind, name, (raw.group(1) or raw.group(2))) if raw else None
        if raw is None or made is None or code.count(line) != 1:
            continue
        made += "".join(re.findall(r"\.fillna\([^()\n]*\)", raw.group(0)))  # (kept)
        fixed = line[: raw.start()] + made + line[raw.end() :]
        return code.replace(line, fixed), [fixed.strip()]
    return None


@dataclass(frozen=True)
class TextNumberFix:
    """A failed cell re-run with its numbers stored as text converted the note's way."""

    code: str
    lines: tuple[str, ...]

    def note(self) -> str:
        """What the model (and the transcript) is told about the re-run."""
        return (
            "Your cell failed: it computes with numbers or dates stored as text. I re-ran your "
            "cell "
            "with " + shown_lines(self.lines) + ", the files note's "
            "conversion; convert such columns that way yourself from now on. Output of the "
            "re-run:"
        )


def text_number_fix(question: str, result: ExecutionResult, code: str) -> TextNumberFix | None:
    """The cell with the note's conversions after the reads, when it failed on text in
    arithmetic, a comparison or a rounding, the failing line's column (or the cell, when
    the line names none) was never converted, and what ran before can run again."""
    error = result.error
    if error is None or not _TEXT_FAILS.search(error.message):
        return None
    number = failing_lineno(error.traceback)
    lines = code.splitlines()
    line = lines[number - 1] if number is not None and 0 < number <= len(lines) else ""
    converted = _raw_converted(question, code, line) or converted_after_read(
        question, code, numeric=True
    )
    if converted is None or not safe_to_repeat(code, error.traceback):
        return None
    named = [n for n, _ in note_column_kinds(question) if uses_column(line, n)]
    if named and not any(f"[{n!r}]" in ln for n in named for ln in converted[1]):
        return None  # (the failing line's column is not one the note converts)
    return TextNumberFix(code=converted[0], lines=tuple(converted[1]))


def filled_conversions(code: str, name: str) -> str | None:
    """``code`` with ``.fillna(0)`` after each ``pd.to_numeric(...)`` of column ``name``
    (its words for none and its gaps become 0 where the question says they mean none), or
    None when it converts the column no such way."""
    out, at, found = [], 0, False
    for m in re.finditer(r"pd\.to_numeric\(", code):
        depth, end = 0, m.end() - 1
        for end in range(m.end() - 1, len(code)):  # (the call's closing bracket)
            depth += {"(": 1, ")": -1}.get(code[end], 0)
            if depth == 0:
                break
        call = code[m.start() : end + 1]
        if depth or not uses_column(call, name) or m.start() < at:
            continue
        out += [code[at : end + 1], ".fillna(0)"]
        at, found = end + 1, True
    return "".join([*out, code[at:]]) if found else None


#: "an empty discount means no discount", "a missing bonus counts as 0".
_EMPTY_MEANS = re.compile(
    r"\b(?:empty|missing|blank)\s+(\w[\w ]{0,30}?)\s+(?:all\s+)?(?:means?|counts? as|is|are)\s+"
    r"(?:no\b|0\b|zero\b)",
    re.I,
)


def empty_zero_problem(question: str, code: str) -> Problem | None:
    """The question says an empty value stands for zero (``an empty discount means no
    discount``) and code uses that column without filling it: the NaN rows drop out of sums
    and means, or make the arithmetic NaN. The fix fills it with 0 right after the read, or
    for numbers stored as text right after their conversion (there only a mean, median or
    count is told: the words for none become gaps too, and a sum or a test skips them)."""
    task = task_text(question)
    for m in _EMPTY_MEANS.finditer(task):
        said = m.group(1).strip().lower()
        name = next((n for n in note_columns(question) if n.strip().lower() == said), None)
        if name is None or not uses_column(code, name) or "fillna" in code:
            continue
        read = re.search(r"^([ \t]*)(\w+)\s*=\s*pd\.read_\w+\(.*$", code, re.M)
        fill = f"df[{name!r}] = df[{name!r}].fillna(0)"
        fixed = filled_conversions(code, name)  # (numbers as text: filled once converted)
        listed = fixed is not None or re.search(r"\ball\s+mean\b|\bare\b", m.group(0))
        if listed and not re.search(r"\.(?:mean|median|std)\(", code):
            continue  # (words for none and gaps, summed or compared: they change nothing)
        if fixed is not None:
            fill = f"pd.to_numeric(...).fillna(0) for {name!r}"
        elif read is not None:
            frame = read.group(2)
            fill = f"{frame}[{name!r}] = {frame}[{name!r}].fillna(0)"
            fixed = code[: read.end()] + f"\n{read.group(1)}{fill}" + code[read.end() :]
        return problem_of(
            f"The question says {m.group(0)!r}, but your code leaves those values missing "
            "(NaN): they drop out of sums and means and make arithmetic NaN. Fill them first: "
            f"{fill}; run your code again, print the result, then answer.",
            fixed,
        )
    return None


#: A sentence leaving the rows without a value out ("leave the bookings without a score out",
#: "skip missing values"): the gaps are not zeros.
_LEAVE_OUT = re.compile(r"\b(?:leave|leaving|skip\w*|ignor\w*|exclud\w*|drop\w*)\b", re.I)
_GAPS = re.compile(r"\b(?:without|missing|empty|blank|none|no value)\b", re.I)
_FILLED_ZERO = re.compile(r"\.fillna\(\s*0(?:\.0)?\s*\)")
#: Rows kept by their value being there: "the sales whose BOOKED AT was recorded".
_RECORDED = re.compile(
    r"\b(?:whose|where|with)\b[^.;]{0,40}?\b(?:was|were|is|are)\s+(?:recorded|given|known)\b", re.I
)


def _made_from(code: str, names: list[str]) -> list[str]:
    """The columns ``code`` sets from one of ``names`` (``df['days_ahead'] = (df['showDate']
    - df['BOOKED AT']).dt.days``): a gap in them is a gap in the column they come from."""
    return [
        m.group(2)
        for m in COLUMN_SET.finditer(code)
        if m.group(2) not in names
        and any(re.search(rf"\[\s*['\"]{re.escape(n)}['\"]\s*\]", m.group(3)) for n in names)
    ]


def gaps_filled_problem(question: str, code: str) -> Problem | None:
    """The question leaves the rows without a value out of a mean, and the code fills the
    gaps of that column with 0 first (fresh15: the mean review 3.67 for 8.24, the bookings
    without a score counted as 0). As code, the cell without the ``.fillna(0)`` that follow
    that column (others' fills stay)."""
    if not _FILLED_ZERO.search(code) or not re.search(r"\.(?:mean|median)\(", code):
        return None
    task = task_text(question)
    for sentence in re.split(r"[.;]\s|\n", task):
        left_out = _LEAVE_OUT.search(sentence) and _GAPS.search(sentence)
        if not left_out and not _RECORDED.search(sentence):  # ("whose BOOKED AT was recorded")
            continue
        if re.search(r"\bas (?:0|zero)\b|\bmeans? (?:no|none|0|zero)\b", sentence, re.I):
            continue  # ("count a missing Discount as 0": filled as asked)
        named = [
            n for n in note_columns(question) if re.search(rf"\b{re.escape(n.strip())}\b", sentence)
        ]
        named += _made_from(code, named)
        fixed = "\n".join(_unfilled(line, named) for line in code.splitlines())
        if not named or fixed == code:
            continue
        return problem_of(
            "The question says to leave the rows without a value out "
            f"({sentence.strip()[:120]!r}), but your code fills those gaps with 0 "
            "(.fillna(0)), so they count as zeros in the mean. Leave them missing (the mean "
            "skips NaN); run your code again, print the result, then answer.",
            fixed,
        )
    return None


def _unfilled(line: str, names: list[str]) -> str:
    """``line`` without each ``.fillna(0)`` whose nearest column before it is one of
    ``names`` (``pd.to_numeric(df['Review'], ...).fillna(0)``, ``df['Review'].fillna(0)``)."""
    out, at = [], 0
    for m in _FILLED_ZERO.finditer(line):
        columns = re.findall(r"\[\s*['\"]([^'\"\n]+)['\"]\s*\]", line[: m.start()])
        if columns and columns[-1] in names:
            out.append(line[at : m.start()])
            at = m.end()
    return "".join([*out, line[at:]])


#: pandas' error for ``.str`` on a column that already holds numbers.
_STR_ON_NUMBERS = "Can only use .str accessor with string values"
#: ``df['c'] = df['c'].str...``: a column made again from its own text.
_SELF_CONVERTED = re.compile(
    r"^\s*(\w+)\s*\[\s*(['\"])([^'\"\n]+)\2\s*\]\s*=\s*\1\s*\[\s*\2\3\2\s*\]\s*\.str\b"
)
_STR_CALL = re.compile(r"\.str\.(?:replace|strip|lstrip|rstrip)\((?:[^()]|\([^()]*\))*\)")
#: A text method called on one number inside ``.apply(lambda x: ...)``.
_NUMBER_TEXT = re.compile(r"'(?:float|int)' object has no attribute '(?:replace|strip|split)'")
#: ``df['c'] = df['c'].apply(...)``: a column made again from its own values one by one.
_SELF_APPLIED = re.compile(
    r"^\s*(\w+)\s*\[\s*(['\"])([^'\"\n]+)\2\s*\]\s*=\s*\1\s*\[\s*\2\3\2\s*\]\s*\.(?:apply|map)\("
)


@dataclass(frozen=True)
class ConversionFix:
    """A failed cell's code without the text clean-up (``.str.replace(',', '')``) that its
    failing line applies to a column already holding numbers."""

    code: str
    removed: tuple[str, ...]
    whole: bool = False  # (the line itself left out)

    def note(self) -> str:
        """What the model (and the transcript) is told about the re-run."""
        if self.whole:
            return (
                "Your cell failed: text methods (.str, .replace) apply only to text, and that "
                "column already holds numbers (your cell converted it before). I re-ran your "
                "cell without the line "
                f"`{self.removed[0]}`. Output of the re-run:"
            )
        return (
            "Your cell failed: .str applies only to text, and that column already holds "
            f"numbers. I re-ran your cell without {', '.join(dict.fromkeys(self.removed))} on "
            "that line; the column needs no conversion. Output of the re-run:"
        )


def conversion_fix(result: ExecutionResult, code: str) -> ConversionFix | None:
    """The cell without the ``.str`` text clean-up of its failing line, when that line failed
    because the column already holds numbers (the model converting numbers stored as text
    where there are none)."""
    error = result.error
    if error is not None and _NUMBER_TEXT.search(error.message):
        return _applied_fix(error.traceback, code)
    if error is None or _STR_ON_NUMBERS not in f"{error.message}\n{error.traceback}":
        return None
    number = failing_lineno(error.traceback)
    lines = code.splitlines()
    line = lines[number - 1] if number is not None and 0 < number <= len(lines) else ""
    removed = tuple(_STR_CALL.findall(line))
    if not line or code.count(line) != 1 or not (removed or _SELF_CONVERTED.match(line)):
        return None
    if not removed and _SELF_CONVERTED.match(line) and code.count(line) == 1:
        # (the column converted again from itself: it already holds numbers, the line goes)
        kept = [ln for ln in code.splitlines() if ln != line]
        return ConversionFix(code="\n".join(kept), removed=(line.strip(),), whole=True)
    return ConversionFix(code=code.replace(line, _STR_CALL.sub("", line)), removed=removed)


def _applied_fix(traceback: str, code: str) -> ConversionFix | None:
    """The cell without its failing line ``df['c'] = df['c'].apply(lambda x: float(x.replace(
    '$', '')))`` when an earlier line of the cell made that column numbers (fresh18: the
    amounts converted as the note says, then again one by one); a column of text with gaps
    (a float NaN among the texts) is left alone."""
    number = failing_lineno(traceback) or 0
    lines = code.splitlines()
    line = lines[number - 1] if 0 < number <= len(lines) else ""
    m = _SELF_APPLIED.match(line)
    if m is None or code.count(line) != 1:
        return None
    made = rf"^\s*{m.group(1)}\s*\[\s*(['\"]){re.escape(m.group(3))}\1\s*\]\s*=(?!=).*"
    before = "\n".join(lines[: number - 1])
    if not re.search(made + r"(?:astype\(\s*float|to_numeric)", before, re.M):
        return None
    kept = [ln for ln in lines if ln != line]
    return ConversionFix(code="\n".join(kept), removed=(line.strip(),), whole=True)
