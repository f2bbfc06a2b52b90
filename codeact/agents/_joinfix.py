"""A merge on a key one side does not have yet, when the files note says how to make it: the
1.5B model merges ``listings.merge(areas, on='District')`` although ``District`` is only
``areas.csv``'s; the note's "Keys inside codes" line gives the cut that makes it from
``Postcode``, but the model repeats the failing cell (fresh12: KeyError three times). The cell
is run again with the note's line made on the frame read from the file holding the codes,
just before the merge, when what ran before the merge is safe to repeat. And a rule
(``join_case_problem``): a merge on keys the note says are written in another case in one
file, never folded."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from codeact.agents._colvalues import cuts_lead, lead_cut
from codeact.agents._notecols import (
    file_columns,
    read_once,
    uses_column,
)
from codeact.agents._problem import Problem, problem_of
from codeact.agents._unusedfix import failing_lineno, safe_to_repeat, shown_lines
from codeact.agents._zeros import ZeroKeyFix, zero_key_fix
from codeact.executors.base import ExecutionResult

#: The files note's line for a key inside another file's codes (``_prefixkeys``).
_INSIDE = re.compile(
    r"^- Keys inside codes: '([^'\n]+)' of '[^'\n]+' .*?is part of '([^'\n]+)' of '([^'\n]+)' "
    r".*?Cut it out, then join: (df\[.*?); then df\.merge",
    re.M,
)


@dataclass(frozen=True)
class JoinKeyFix:
    """A failed merge re-run with the key made first, as the files note says."""

    code: str
    line: str

    def note(self) -> str:
        """What the model (and the transcript) is told about the re-run."""
        return (
            "Your cell failed: it merges on a key one table does not have yet. I re-ran your "
            f"cell with `{self.line}` before the merge, as the files note says; make the key "
            "yourself from now on. Output of the re-run:"
        )


def join_key_fix(question: str, result: ExecutionResult, code: str) -> JoinKeyFix | None:
    """The cell with the note's key line on the frame read from the file holding the codes,
    put just before the failing merge, when it failed with ``KeyError`` on that key at a
    line that merges, the frame never gets the key itself, and what ran before the merge can
    run again; None otherwise."""
    error = result.error
    if error is None or error.type != "KeyError":
        return None
    number = failing_lineno(error.traceback)
    lines = code.splitlines()
    if number is None or not 0 < number <= len(lines) or "merge(" not in lines[number - 1]:
        return None
    failing = lines[number - 1]
    for key, codes, file, made in _INSIDE.findall(question):
        if repr(key) not in error.message or key not in failing:
            continue
        read = re.search(
            rf"^\s*(\w+)\s*=\s*pd\.read_\w+\(\s*(['\"]){re.escape(file)}\2", code, re.M
        )
        if read is None:
            continue
        frame = read.group(1)
        if re.search(rf"\b{frame}\s*\[\s*['\"]{re.escape(key)}['\"]\s*\]\s*=", code):
            continue  # (the model made the key: its own way failed otherwise)
        merged = rf"\b{frame}\s*\.\s*merge\(|\bpd\.merge\(\s*{frame}\b"
        rebuilt = rf"^\s*{frame}\s*=(?!\s*{frame}\s*(?:\.|\[(?!\s*\[)))"  # (df = df[...] keeps it)
        if not re.search(merged, failing) or len(re.findall(rebuilt, code, re.M)) > 1:
            continue  # (another frame merged, or this one rebuilt since it was read)
        if re.search(rf"\b{frame}\s*\[\s*['\"]{re.escape(codes)}['\"]\s*\]\s*=", code):
            continue  # (the codes changed by the cell: the note's cut may not fit them)
        if read.start() > sum(len(ln) + 1 for ln in lines[: number - 1]):
            continue  # (read after the merge: not the frame it merges)
        if not safe_to_repeat(code, error.traceback):
            return None
        indent = failing[: len(failing) - len(failing.lstrip())]
        line = made.replace("df[", f"{frame}[")
        fixed = "\n".join([*lines[: number - 1], f"{indent}{line}", *lines[number - 1 :]])
        return JoinKeyFix(code=fixed, line=line)
    return None


#: The files note's line for keys written in another case (``_joinkeys``): the two columns,
#: their files and the fold.
_OTHER_CASE = re.compile(
    r"^- Keys written in other case(?: and with a leading '(\w+)')?: ('[^'\n]*') of '([^'\n]+)' "
    r".*? is ('[^'\n]*') of '([^'\n]+)' \(e\.g\. ('[^'\n]*'|\"[^\"\n]*\")\)\. "
    r"Join on the folded keys: df\[.*?\]\.str\.strip\(\)\.str\.(upper|lower)\(\)",
    re.M,
)


def _quoted_as(code: str, name: str) -> list[str]:
    """The lines of ``code`` naming column ``name`` in a text, as written or stripped and in
    any case (``'Driver'`` after ``df.columns.str.strip()``)."""
    want = name.strip().casefold()
    return [
        ln
        for ln in code.splitlines()
        if any(t.strip().casefold() == want for t in re.findall(r"['\"]([^'\"\n]+)['\"]", ln))
    ]


def _folds(code: str, frame: str, column: str) -> bool:
    """Whether ``code`` folds the case of ``frame``'s ``column`` (or a frame's made from it)."""
    ref = rf"\[\s*['\"]{re.escape(column)}['\"]\s*\][^\n]*\.(?:upper|lower|casefold)\("
    return any(re.search(rf"\b{f}\s*{ref}", code) for f in {frame, *_made_from(code, frame)})


def _made_from(code: str, frame: str) -> list[str]:
    """Names given a frame made from ``frame`` (``m = df.merge(...)``, ``s = df[...]``)."""
    return re.findall(rf"^\s*(\w+)\s*=\s*(?:pd\.merge\(\s*)?{frame}\b", code, re.M)


def join_case_problem(question: str, code: str) -> Problem | None:
    """A merge on keys the files note says are written in another case in one file (``'d07
    '`` is ``'D07'``) by code that never folds them: the rows written otherwise match nothing
    and drop out of the join. The note's fold; as code (run when the model re-runs a cell),
    the cell with each key folded right after its file is read."""
    if "merge(" not in code and ".join(" not in code:
        return None
    for lead, quoted_a, file_a, quoted_b, file_b, b_example, case in _OTHER_CASE.findall(question):
        col_a, col_b = ast.literal_eval(quoted_a), ast.literal_eval(quoted_b)
        merges = [ln for ln in _quoted_as(code, col_a) if "merge(" in ln or ".join(" in ln]
        uses = _quoted_as(code, col_a) + _quoted_as(code, col_b)
        folded = any(re.search(r"\.(?:upper|lower|casefold)\(", ln) for ln in uses)
        read = [read_once(code.splitlines(), f) for f in (file_a, file_b)]
        example = ast.literal_eval(b_example)
        odd_b = example != getattr(example, case)()  # ('Loch Seil': the key table's case too)
        if folded and odd_b and read[0] and read[1]:  # (both sides to fold: one alone drops rows)
            folded = _folds(code, read[0][1], col_a) and _folds(code, read[1][1], col_b)
        cut = not lead or cuts_lead(code, lead)
        if not merges or (folded and cut):
            continue
        fold = f".str.strip().str.{case}()"
        strip = lead_cut(lead) if lead else ""
        lines = code.splitlines()
        for file, col, more in ((file_a, col_a, strip), (file_b, col_b, "")):
            found = read_once(lines, file)
            if found is None:
                lines = []  # (a file not read here, or read twice: no code)
                break
            at, frame = found
            lines.insert(at + 1, f"{frame}[{col!r}] = {frame}[{col!r}]{fold}{more}")
        return problem_of(
            f"The keys {col_a!r} of {file_a!r} are written in other case "
            + (f"and with a leading {lead!r} " if lead else "")
            + f"than {col_b!r} of {file_b!r} (see the files note), and your code merges them "
            "as written: the rows written otherwise match nothing and drop out of the join. "
            f"Fold both first (df[{col_a!r}]{fold}{strip} in {file_a!r} and "
            f"df[{col_b!r}]{fold} in {file_b!r}), "
            "then merge; run your code again, print the result, then answer.",
            "\n".join(lines) or None,
        )
    return None


#: The files note's line for codes whose number is another file's key (``_joinkeys``).
_WRITTEN_DIFFERENTLY = re.compile(
    r"^- Keys written differently: ('[^'\n]*') of '([^'\n]+)' .*?Join on the number: "
    r"(df\[.*?\]\.str\.extract\(r'\(\\d\+\)'\)\[0\]\.astype\(int\))",
    re.M,
)
#: pandas refusing to merge text keys with number keys.
_MIXED_KEYS = re.compile(
    r"trying to merge on (?:object|str\w*) and int\d* columns|on int\d* and (?:object|str)"
)


@dataclass(frozen=True)
class NumberKeyFix:
    """A failed merge of codes with numbers re-run with the codes' number taken first."""

    code: str
    line: str

    def note(self) -> str:
        """What the model (and the transcript) is told about the re-run."""
        return (
            "Your cell failed: it merges codes written as text with numbers. I re-ran your "
            f"cell with `{self.line}` right after the file is read, as the files note says "
            "(join on the number); do so yourself from now on. Output of the re-run:"
        )


def number_key_fix(
    question: str, result: ExecutionResult, code: str
) -> NumberKeyFix | ZeroKeyFix | None:
    """The cell with the note's number line on the codes column, right after the frame is
    read from its file, when a merge failed on text keys against number keys and what ran
    before can run again (fresh14: 'M-0042' in one file, 42 in the other)."""
    error = result.error
    if error is None or not _MIXED_KEYS.search(error.message):
        return None
    if not safe_to_repeat(code, error.traceback):
        return None
    for quoted, file, made in _WRITTEN_DIFFERENTLY.findall(question):
        column = ast.literal_eval(quoted)
        lines = code.splitlines()
        found = read_once(lines, file)
        if found is None or re.search(r"\.str\.extract\(r?['\"]\(\\d\+\)", code):
            continue  # (not read here, read twice, or the model takes a number out itself)
        at, frame = found
        line = f"{frame}[{column!r}] = {made.replace('df[', f'{frame}[')}"
        return NumberKeyFix(code="\n".join([*lines[: at + 1], line, *lines[at + 1 :]]), line=line)
    return zero_key_fix(question, result, code)  # (ids with leading zeros read one way each)


#: The parts of a "Keys written differently" line: the two columns and files, each side's
#: number (the second only when both sides hold codes).
_NUMBER = (  # (the code's digits, or a number padded with zeros: '08441', 'CASH' for none)
    r"(?:df\[[^\n]*?\]\.str\.extract\(r'\(\\d\+\)'\)\[0\]\.astype\(int\)"
    r"|pd\.to_numeric\(df\[[^\n]*?\], errors='coerce'\))"
)
_DIFFERENT_PAIR = re.compile(
    r"- Keys written differently: (?P<a>'[^'\n]*') of '(?P<file_a>[^'\n]+)' .*? is "
    r"(?P<b>'[^'\n]*') of '(?P<file_b>[^'\n]+)' .*?Join on the number: "
    rf"(?P<made>{_NUMBER})(?: in '[^'\n]+' and (?P<made_b>{_NUMBER}) in )?"
)
#: A merge call's two frames: ``a.merge(b, ...)`` or ``pd.merge(a, b, ...)``.
_MERGE_FRAMES = re.compile(r"\bpd\.merge\(\s*(\w+)\s*,\s*(\w+)\b|\b(\w+)\s*\.\s*merge\(\s*(\w+)\b")
#: ``on='X'`` or ``on=['X']`` in a merge call.
_ON = re.compile(r"\bon\s*=\s*(\[\s*)?(['\"])([^'\"\n]+)\2(?(1)\s*\])")


@dataclass(frozen=True)
class OnKeyFix:
    """A merge ``on=`` a name only one side has, re-run naming each side's key."""

    code: str
    lines: tuple[str, ...]

    def note(self) -> str:
        """What the model (and the transcript) is told about the re-run."""
        return (
            "Your cell failed: it merges on a name only one table has (the files note says "
            "which columns hold the same keys). I re-ran your cell with "
            + shown_lines(self.lines)
            + "; name each side's key yourself from now on. Output of the re-run:"
        )


def key_pairs(question: str) -> list[tuple[str, str, str, str, list[str]]]:
    """The files note's pairs of key columns named differently: (column, file, column, file,
    lines that make the keys match, with ``df`` for the first file's frame and ``other`` for
    the second's); keys in other case first (the fold keeps each code whole)."""
    pairs: list[tuple[str, str, str, str, list[str]]] = []
    for lead, quoted_a, file_a, quoted_b, file_b, _b, case in _OTHER_CASE.findall(question):
        col_a, col_b = ast.literal_eval(quoted_a), ast.literal_eval(quoted_b)
        fold = f".str.strip().str.{case}()"
        strip = lead_cut(lead) if lead else ""
        folds = [
            f"df[{col_a!r}] = df[{col_a!r}]{fold}{strip}",
            f"other[{col_b!r}] = other[{col_b!r}]{fold}",
        ]
        pairs.append((col_a, file_a, col_b, file_b, folds))
    for line in re.findall(r"^- Keys written differently: .*$", question, re.M):
        found = _DIFFERENT_PAIR.match(line)
        if found is None:
            continue
        col_a, col_b = ast.literal_eval(found["a"]), ast.literal_eval(found["b"])
        made = [f"df[{col_a!r}] = {found['made']}"]
        if found["made_b"]:  # (codes on both sides: each side's number)
            made.append(f"other[{col_b!r}] = {found['made_b'].replace('df[', 'other[')}")
        pairs.append((col_a, found["file_a"], col_b, found["file_b"], made))
    return [p for p in pairs if p[0] != p[2]]


def on_frames(line: str, frame: str, other: str) -> str:
    """A note's line with ``df`` made ``frame`` and ``other`` made ``other``."""
    return re.sub(r"\b(df|other)\[", lambda m: f"{frame if m[1] == 'df' else other}[", line)


@dataclass(frozen=True)
class _Paired:
    """Two frames a cell read from the files a note's key line pairs, before line ``number``."""

    key_a: str
    key_b: str
    frame_a: str
    frame_b: str
    added: list[str]  # (the note's lines that make the keys match, for these frames)
    fixed: list[str]  # (the cell's lines with them, each right after its frame's read)


def _paired(
    question: str, code: str, traceback: str, frames: set[str], named: str
) -> _Paired | None:
    """The note's pair of keys whose files the cell read, once each, into ``frames`` before
    its failing line, neither frame built again since, what ran before safe to repeat, and
    ``named`` one of the pair's names (any name when empty); None otherwise."""
    number = failing_lineno(traceback)
    lines = code.splitlines()
    if number is None or not 0 < number <= len(lines):
        return None
    for col_a, file_a, col_b, file_b, made in key_pairs(question):
        if named and named.strip().casefold() not in (col_a.casefold(), col_b.casefold()):
            continue
        read_a, read_b = read_once(lines, file_a), read_once(lines, file_b)
        if read_a is None or read_b is None or frames != {read_a[1], read_b[1]}:
            continue
        if max(read_a[0], read_b[0]) >= number - 1 or not safe_to_repeat(code, traceback):
            return None
        before = "\n".join(lines[: number - 1])
        if any(len(re.findall(rf"^{f}\s*=", before, re.M)) > 1 for f in frames):
            return None  # (a frame built again since its read: not the file's columns)
        added = [on_frames(ln, read_a[1], read_b[1]) for ln in made]
        if keys_made(before, col_a, col_b):
            added = []  # (the model makes the keys match its own way)
        fixed = [*lines]
        placed = [(read_a[0] if ln.startswith(f"{read_a[1]}[") else read_b[0], ln) for ln in added]
        for at, ln in sorted(placed, key=lambda p: -p[0]):  # (each right after its read)
            fixed.insert(at + 1, ln)
        return _Paired(col_a, col_b, read_a[1], read_b[1], added, fixed)
    return None


def on_key_fix(question: str, result: ExecutionResult, code: str) -> OnKeyFix | None:
    """The cell with the failing merge's ``on='X'`` made ``left_on=..., right_on=...`` (and
    the note's line that makes the keys match, right after the file is read), when a merge
    of the two frames read from the files the note pairs failed with ``KeyError`` on one of
    the pair's names and what ran before can run again (fresh14: ``on='Member'`` with
    ``Member No`` on the other side, three times in one run)."""
    error = result.error
    if error is None or error.type != "KeyError":
        return None
    number = failing_lineno(error.traceback) or 0
    lines = code.splitlines()
    failing = lines[number - 1] if 0 < number <= len(lines) else ""
    on, frames = _ON.search(failing), _MERGE_FRAMES.search(failing)
    if on is None or frames is None or on.group(3) not in error.message:
        return None
    left, right = [f for f in frames.groups() if f is not None]
    pair = _paired(question, code, error.traceback, {left, right}, on.group(3))
    if pair is None:
        return None
    keys = (pair.key_a, pair.key_b) if left == pair.frame_a else (pair.key_b, pair.key_a)
    named = f"left_on={keys[0]!r}, right_on={keys[1]!r}"
    at = number - 1 + len(pair.added)
    pair.fixed[at] = failing[: on.start()] + named + failing[on.end() :]
    return OnKeyFix(code="\n".join(pair.fixed), lines=(*pair.added, pair.fixed[at].strip()))


#: ``a[b['col'] ...]``: rows of one frame picked by a test on another frame's column.
_OTHER_MASK = re.compile(r"\b(\w+)\s*\[\s*\(?\s*(\w+)\s*\[\s*['\"]")


@dataclass(frozen=True)
class MaskJoinFix:
    """A failed pick of one table's rows by another table's column, re-run on the join."""

    code: str
    lines: tuple[str, ...]

    def note(self) -> str:
        """What the model (and the transcript) is told about the re-run."""
        return (
            "Your cell failed: it picks rows of one table by a test on another table's "
            "column, and the two tables' rows do not line up. I re-ran your cell with the "
            "tables joined first on the keys the files note gives: "
            + shown_lines(self.lines)
            + "; join before you filter from now on. Output of the re-run:"
        )


def mask_join_fix(question: str, result: ExecutionResult, code: str) -> MaskJoinFix | None:
    """The cell with the two frames joined (the note's keys) right after both are read, and
    the failing line's test on the other frame's column made on the joined one, when picking
    one frame's rows by a test on another frame failed (``Unalignable boolean Series``;
    fresh14: ``loans[members['Age Band'] == '60+']``, three times in one run), the two are
    the files the note pairs and share no other column."""
    error = result.error
    if error is None or "Unalignable boolean Series" not in error.message:
        return None
    number = failing_lineno(error.traceback) or 0
    lines = code.splitlines()
    failing = lines[number - 1] if 0 < number <= len(lines) else ""
    found = _OTHER_MASK.search(failing)
    if found is None or found.group(1) == found.group(2):
        return None
    rows, other = found.group(1), found.group(2)
    pair = _paired(question, code, error.traceback, {rows, other}, "")
    if pair is None:
        return None
    columns = file_columns(question)
    shared = [c for cs in columns.values() for c in cs if c not in (pair.key_a, pair.key_b)]
    if len(shared) != len(set(shared)):
        return None  # (a column in both files: the join would rename it)
    keys = (pair.key_a, pair.key_b) if rows == pair.frame_a else (pair.key_b, pair.key_a)
    join = f"{rows} = {rows}.merge({other}, left_on={keys[0]!r}, right_on={keys[1]!r}, how='left')"
    at = number - 1 + len(pair.added)
    pair.fixed[at] = re.sub(rf"\b{other}\s*\[", f"{rows}[", failing)
    reads = [i for i, ln in enumerate(pair.fixed[:at]) if re.match(rf"({rows}|{other})\s*=", ln)]
    keyed = [i for i, ln in enumerate(pair.fixed[:at]) if ln in pair.added]
    pair.fixed.insert(max(reads + keyed) + 1, join)
    return MaskJoinFix(
        code="\n".join(pair.fixed), lines=(*pair.added, join, pair.fixed[at + 1].strip())
    )


def keys_made(code: str, *keys: str) -> bool:
    """Whether ``code`` makes one of the key columns ``keys`` match its own way (a number
    taken out, the case folded) on a line naming it."""
    return any(
        uses_column(ln, key) and re.search(r"\.str\.(?:extract|upper|lower)\(", ln)
        for ln in code.splitlines()
        for key in keys
    )
