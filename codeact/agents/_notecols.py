"""What the question and its files note say about the data: the task text without the answer
format, the columns the note lists (text columns of a few values, number columns), the column
a value belongs to, and the column and aggregate a question names — for the rules
(``_rules.py``) and the recovery notes (``_recover.py``)."""

from __future__ import annotations

import ast
import re

from codeact._parse import parse_source
from codeact.agents._placeholders import TOKEN

#: A threshold the question names ("more than 90000", "after 2019"; not a clock time such as
#: "after 6:00 PM" or "after 6 PM", which the code compares as an hour).
_NUMBER = r"(-?\d(?:[\d,]*\d)?(?:\.\d+)?)(?!\d|,\d|\.\d|:\d|\s*[ap]\.?m\b)"
THRESHOLD = re.compile(
    r"\b(?:more|greater|higher|larger|less|fewer|lower|smaller|younger|older|earlier|later)"
    rf"\s+than\s+{_NUMBER}|\b(?:at least|at most|above|below|over|under"
    rf"|exceed(?:s|ing)?|before|after|since)\s+(?:the year\s+)?{_NUMBER}",
    re.IGNORECASE,
)


#: The files note's conversion of numbers stored as text with signs or codes ('€14.20',
#: '22.00 EUR'): ``df[name]....astype(float)``.
TEXT_NUMBER_CONVERSION = re.compile(
    r"numbers stored as text with .*?: convert with (df\[.*?\.astype\(float\))"
)

#: Where the files note (``describe_files``) starts in a prompt.
NOTE_HEAD = "\n\nFiles in the working directory"
_FORMAT_PART = re.compile(r"^\s*(?:Format|Your final answer|Your answer)\b.*$", re.I | re.M)


def question_without_note(question: str) -> str:
    """The question as asked, without the files note ``codeact run`` appends to it."""
    return question.partition(NOTE_HEAD)[0]


def task_text(question: str) -> str:
    """The question without its answer-format parts and files note (their quotes and numbers
    are about the format, not the computation): format lines, and each line from its first
    placeholder on."""
    text = _FORMAT_PART.sub("", question_without_note(question))
    lines = []
    for line in text.splitlines():
        token = TOKEN.search(line)
        lines.append(line[: token.start()] if token else line)
    return "\n".join(lines)


_NOTE_TEXT_COLUMN = re.compile(r"^  - '.*?': text, .*?e\.g\. (.*)$", re.M)
_READ_AS_OTHER = re.compile(r": text, (?:[^:]*?, )?(?:numbers |dates |times |durations )")


def category_values(question: str) -> list[str]:
    """The example values of text columns that the files note lists (``'HR'``, ``'Porto'``),
    not of text the note reads as numbers, dates or times (``'£0.00'``, ``'21 days'``)."""
    out: dict[str, None] = {}
    for m in _NOTE_TEXT_COLUMN.finditer(question.partition(NOTE_HEAD)[2]):
        if _READ_AS_OTHER.search(m.group(0)):
            continue
        out |= dict.fromkeys(quoted_values(m.group(1), 2, 40))
    return list(out)


def quoted_values(text: str, shortest: int, longest: int) -> list[str]:
    """The texts in single quotes in ``text``, read in pairs of quotes (``'0', 'FALSE'`` is
    ``0`` and ``FALSE``, not the ``, `` between them), of ``shortest`` to ``longest``
    characters."""
    return [v for v in re.findall(r"'([^'\n]*)'", text) if shortest <= len(v) <= longest]


def column_of_value(question: str, value: str, *, fold: bool = False) -> str | None:
    """The text column whose example values in the files note include ``value`` (in any
    case with ``fold``)."""
    for name, kind in note_column_kinds(question):
        if not CATEGORY.match(kind):
            continue
        if f"{value!r}" in kind or (fold and re.search(rf"'{re.escape(value)}'", kind, re.I)):
            return name
    return None


def spoken_forms(name: str) -> set[str]:
    """How a question may say a column's name: as is, with spaces for underscores, plural
    or singular (``salary``: ``salaries``; ``fares``: ``fare``)."""
    bare = name.strip().replace("_", " ")
    forms = {bare, name.strip()}
    if bare.endswith("y") and bare[-2:-1] not in "aeiou":
        forms.add(bare[:-1] + "ies")
    elif bare.endswith("s"):
        forms.add(bare[:-1])
    else:
        forms.add(bare + "s")
    return forms


def named_number_columns(question: str, *, exclude: str | None = None) -> list[str]:
    """The number columns of the files note the question names (in any ``spoken_forms``)."""
    task = task_text(question)
    return [
        n
        for n in note_columns(question, numeric=True)
        if n != exclude
        and any(
            re.search(rf"(?<![\w'\"]){re.escape(w)}(?![\w'\"])", task, re.I)
            for w in spoken_forms(n)
        )
    ]


#: The aggregate a question's words name, for one column (first match wins).
_ONE_AGG = (
    (r"standard deviation|std", "std()"),
    (r"variance", "var()"),
    (r"average|mean", "mean()"),
    (r"median", "median()"),
    (r"total|sum", "sum()"),
    (r"highest|largest|maximum|max", "max()"),
    (r"lowest|smallest|minimum|min", "min()"),
)


def compute_on(question: str, frame: str, *, exclude: str | None = None) -> str | None:
    """``frame[column].agg()`` for the number column and aggregate the question names (or
    ``len(frame)`` for "how many"), None when it names no such pair."""
    task = task_text(question)
    if THRESHOLD.search(task) or len(category_values_named(question)) > 1:
        return None  # (more filters to apply: the rows alone are a safe example)
    columns = named_number_columns(question, exclude=exclude)
    agg = next((a for w, a in _ONE_AGG if re.search(rf"\b(?:{w})\b", task, re.I)), None)
    if len(columns) == 1 and agg is not None:  # (several: a formula of them, not guessed)
        return f"{frame}[{columns[0]!r}].{agg}"
    if not columns and re.search(r"\bhow many\b|\bnumber of\b", task, re.I):
        return f"len({frame})"
    return None


def category_values_named(question: str) -> list[str]:
    task = task_text(question)
    return [
        v for v in category_values(question) if re.search(rf"(?<!\w){re.escape(v)}(?!\w)", task)
    ]


NOTE_COLUMN = re.compile(
    r"^  - ('(?:[^'\\\n]|\\.)*'|\"[^\"\n]*\")(?: \(mind the spaces in the name\))?: (.*)$", re.M
)


CATEGORY = re.compile(r"text, (?:\d+ missing(?: \((?:[^()]|\(\))*\))?, )?\d+ distinct values")


_NUMERIC = re.compile(r"^(?:int64|float64)\b|numbers stored as text")


def note_columns(question: str, *, categories: bool = False, numeric: bool = False) -> list[str]:
    """The column names the files note lists (quoted there, spaces and all); with
    ``categories`` only text columns of a few distinct values (not ids, dates, numbers), with
    ``numeric`` only numbers (also numbers stored as text)."""
    out: dict[str, None] = {}
    for name, kind in note_column_kinds(question):
        if categories and not CATEGORY.match(kind):
            continue
        if numeric and not _NUMERIC.search(kind):
            continue
        if len(name.strip()) >= 3:
            out[name] = None
    return list(out)


def note_column_kinds(question: str) -> list[tuple[str, str]]:
    """Each column the files note lists: its name (spaces and all) and the note's description
    of it (``'text, 5 distinct values, e.g. ...'``, ``'int64, e.g. ...'``)."""
    out = []
    for quoted, kind in NOTE_COLUMN.findall(question.partition(NOTE_HEAD)[2]):
        try:
            name = ast.literal_eval(quoted)
        except (ValueError, SyntaxError):
            continue
        if isinstance(name, str):
            out.append((name, kind))
    return out


def uses_column(code: str, name: str) -> bool:
    """True when ``code`` names the column as a string (``'units'``, spaces stripped or
    not) or an attribute (``df.units``); a variable such as ``units_sold`` does not count."""
    quoted = "|".join(re.escape(n) for n in dict.fromkeys((name, name.strip())))
    if re.search(rf"(['\"])\s*(?:{quoted})\s*\1", code, re.I):
        return True
    bare = name.strip()
    return bare.isidentifier() and re.search(rf"\.{re.escape(bare)}(?!\w)", code, re.I) is not None


def frame_names(code: str) -> list[str]:
    """Top-level names ``code`` assigns a table to, in order: ``pd.read_csv(...)``, rows
    selected with a comparison (``df[df.a == 'x']``, ``.loc[...]``), ``.query(...)``,
    ``.dropna(...)``, ``.copy()``."""
    try:
        tree = parse_source(code)
    except SyntaxError:
        return []
    out: list[str] = []
    for node in tree.body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
            continue
        target, value = node.targets[0], node.value
        if isinstance(target, ast.Name) and _makes_frame(value):
            out.append(target.id)
    return out


def _makes_frame(value: ast.expr) -> bool:
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
        return value.func.attr in {"read_csv", "query", "dropna", "copy", "read_excel"}
    if isinstance(value, ast.Subscript):
        selects = isinstance(value.value, ast.Attribute) and value.value.attr == "loc"
        return selects or any(isinstance(n, ast.Compare) for n in ast.walk(value.slice))
    return False


def compute_example(question: str, code: str) -> str:
    """``print(rows['column'].agg())`` on the last table ``code`` made, when the question
    names one number column and an aggregate (``compute_on``) and the code already selects
    the values the question names; else ''."""
    frames = frame_names(code)
    low = code.lower()
    if not frames or any(v.lower() not in low for v in category_values_named(question)):
        return ""
    measure = compute_on(question, frames[-1])
    return f"print({measure})" if measure else ""


#: A list of column names (``subset=['Account', 'Read Date']``, ``df[['a', 'b']]``).
_NAME_LIST = re.compile(
    r"(?:subset\s*=\s*|\[)\[\s*(?:(['\"])[^'\"\n]*\1\s*,\s*)*(['\"])[^'\"\n]*\2\s*,?\s*\]"
)


def unlisted(code: str) -> str:
    """``code`` without its lists of columns to drop duplicates by (``subset=[...]``) or to
    select (``df[['a', 'b']]``): a column listed there is neither compared nor grouped (a
    ``groupby([...])`` list is kept: grouping is a use)."""
    return _NAME_LIST.sub("[]", code)


def file_columns(question: str) -> dict[str, list[str]]:
    """The columns the files note lists, by file name, in the note's order."""
    out: dict[str, list[str]] = {}
    for section in re.split(r"\n- (?='|\")", question.partition(NOTE_HEAD)[2])[1:]:
        quoted = re.match(r"('(?:[^'\\\n]|\\.)*'|\"[^\"\n]*\")", section)
        if quoted is None:
            continue
        try:
            name = ast.literal_eval(quoted.group(1))
        except (ValueError, SyntaxError):
            continue
        kinds = note_column_kinds(f"{NOTE_HEAD}\n{section}")
        out[name] = [column for column, _ in kinds]
    return out


#: Words before a list of columns (``with its Area, Zone and Flood Risk``; ``empty in A, B, C``)
_LIST_HEAD = r"(?:with (?:its|their)|(?:the )?columns?|fields?|:|(?:empty|blank|missing) in)\s+"


def in_column_list(task: str, start: int, end: int, columns: list[str]) -> bool:
    """``task[start:end]`` is one of three or more column names listed after ``_LIST_HEAD``,
    each perhaps with what it holds in brackets (``one row per member: Member No (the plain
    number), Branch and Joined``): the question says what a file holds, not what to report."""
    names = "|".join(re.escape(c.strip()) for c in sorted(columns, key=len, reverse=True))
    if not names:
        return False
    item = rf"(?:'(?:{names})'|(?:{names}))(?:\s*\([^()\n]*\))?"  # (quoted or not; what it holds)
    listed = rf"{_LIST_HEAD}({item}(?:\s*,\s*{item})+\s*,?\s+(?:and|or)\s+{item})(?!\w)"
    for m in re.finditer(listed, task, re.I):
        if not (m.start(1) <= start and end <= m.end(1)):
            continue
        head = re.split(r"[.?!;]\s", task[: m.start()])[-1]
        empty = re.match(r"(?:empty|blank|missing) in\b", m.group(0), re.I)
        files = r"\.(?:csv|tsv|txt|xlsx?|json)\b|\b(?:one|a|each) rows?\b"
        if empty or re.search(files, head, re.I):
            return True  # (the sentence says what a file holds, not what to report)
    return False


def in_column_name(question: str, task: str, start: int, end: int) -> bool:
    """``task[start:end]`` is part of a longer column name the question says there (``Sold`` in
    ``Sold Price``): the question names the column, not that value."""
    for name in note_columns(question):
        bare = name.strip()
        if len(bare) <= end - start:
            continue
        for m in re.finditer(rf"(?<!\w){re.escape(bare)}(?!\w)", task, re.I):
            if m.start() <= start and end <= m.end():
                return True
    return False


#: A frame used as a whole (every column): ``df.describe()``, ``df.mean(...)``, ``df.iloc[``.
_WHOLE_FRAME = re.compile(
    r"(?<![\w.\]\)'\"])([A-Za-z_]\w*)\s*\.\s*(?:describe|mean|median|sum|max|min|std|corr|agg|"
    r"aggregate|apply|to_numpy|values|iloc|loc)\b"
)
#: ``counts = df['Service'].value_counts()``: a name made from one column (any frame, grouped
#: or not), which its own ``.max()`` does not make a use of every column.
_FROM_COLUMN = r"^\s*{}\s*=\s*\w+\s*(?:\.\s*groupby\(.*?\)\s*)?\[\s*(['\"])(.+?)\1\s*\]"


def _other_column(code: str, var: str, name: str) -> bool:
    """Whether ``var`` is only ever made from one column other than ``name``."""
    made = re.findall(_FROM_COLUMN.format(re.escape(var)), code, re.M)
    assigned = re.findall(rf"^\s*{re.escape(var)}\s*=[^=]", code, re.M)
    return bool(made) and len(made) == len(assigned) and all(c != name for _q, c in made)


def without_comments(code: str) -> str:
    """``code`` with its comments left out (a ``#`` inside a quoted text stays): what a
    comment names is not used."""
    out = []
    for line in code.splitlines():
        quote = ""
        for i, ch in enumerate(line):
            if quote:
                quote = "" if ch == quote and line[i - 1] != "\\" else quote
            elif ch in "'\"":
                quote = ch
            elif ch == "#":
                line = line[:i]
                break
        out.append(line)
    return "\n".join(out)


def past_conversions(code: str, name: str) -> str:
    """``code`` without the lines that only rewrite column ``name`` in place (``df['Sold
    Price'] = df['Sold Price'].str.extract(...)``), nor comments: converting a column, or
    naming it in a comment, is not using it."""
    target = re.compile(rf"^\s*\w+\s*\[\s*(['\"]){re.escape(name)}\1\s*\]\s*=[^=]")
    if any(not _other_column(code, m.group(1), name) for m in _WHOLE_FRAME.finditer(code)):
        return code  # (the frame used as a whole: describe(), mean(numeric_only=True), iloc)
    return "\n".join(
        ln
        for ln in without_comments(code).splitlines()
        if (
            not target.match(ln)
            or ";" in ln  # (another statement on the line may use it)
            or any(n != name for _q, n in re.findall(r"\w\s*\[\s*(['\"])([^'\"\n]+)\1\s*\]", ln))
        )
    )


def masked_into(code: str, name: str) -> list[tuple[int, int, str]]:
    """Each line of ``code`` setting column ``name`` to a value where a test holds that names
    the value itself folded (``df['make'] = df['make'].mask(<folded>.isin(['vw',
    'volkswagen']), 'Volkswagen')``: every spelling made one): its span and that value."""
    mask = rf"{column_ref(name)}\s*=.*\.mask\(.*,\s*(['\"])([^'\"\n]+)\2\)\s*$"
    out = []
    for m in re.finditer(mask, code, re.M):
        low = m.group(3).strip().lower()
        folds = {low, re.sub(r"[\s_-]+", "", low)}
        test = m.group(0)  # (its test folds the text: strip and case, as the note says)
        if "strip(" not in test or not re.search(r"\.(?:lower|upper|casefold)\(", test):
            continue
        if any(re.search(rf"['\"]{re.escape(f)}['\"]", test) for f in folds):
            out.append((m.start(), m.end(), m.group(3)))
    return out


def name_pattern(name: str) -> str:
    """A column's name with or without its outer spaces, as a pattern (no groups)."""
    return "|".join(re.escape(n) for n in dict.fromkeys((name, name.strip())))


def column_ref(name: str) -> str:
    """A pattern for ``df['name']`` (any frame; the name with or without its outer spaces)."""
    return rf"\w+\s*\[\s*(['\"])(?:{name_pattern(name)})\1\s*\]"


def coerced_marker(question: str, value: str, code: str) -> bool:
    """``value`` is a word the files note says stands for no number in a column (``'Studio'``
    in Bedrooms) that ``code`` converts with ``errors='coerce'`` and never compares with 0 or
    below: the code dealt with it (rows of NaN, which no ``>`` keeps), not a missed filter."""
    for name, kind in note_column_kinds(question):
        listed = re.search(r"values ((?:'[^'\n]*'(?:,? and |, )?)+) standing for no number", kind)
        if listed is None or repr(value) not in listed.group(1):  # ("values '-' and 'k.A.'")
            continue
        column = column_ref(name)
        coerced = re.search(rf"to_numeric\(\s*{column}[^\n]*errors\s*=\s*['\"]coerce", code)
        # (NaN is not 0: "== 0", "< 2" or "!= 1" would miss the rows the word stands for)
        below = re.search(rf"{column}\s*(?:==|!=|<=?)", code)
        return coerced is not None and below is None
    return False


def read_once(lines: list[str], file: str) -> tuple[int, str] | None:
    """The line and frame of the one top-level ``frame = pd.read_csv('file' ...)`` of a cell,
    or None when the file is not read there, read more than once, or read over several
    lines."""
    read = re.compile(rf"^(\w+)\s*=\s*pd\.read_csv\(\s*['\"]{re.escape(file)}['\"][^\n]*$")
    found = [(i, m.group(1), ln) for i, ln in enumerate(lines) if (m := read.match(ln))]
    if len(found) != 1 or found[0][2].count("(") != found[0][2].count(")"):
        return None  # (a read over several lines: a line after its first would split it)
    return found[0][0], found[0][1]


def column_read(question: str, lines: list[str], name: str) -> tuple[int, str] | None:
    """The line and frame of the cell's one read of the file holding column ``name`` (when
    one file of the note has it): where a fix inserts a line about that column."""
    holders = [f for f, columns in file_columns(question).items() if name in columns]
    return read_once(lines, holders[0]) if len(holders) == 1 else None


def insert_after(code: str, at: int, line: str) -> str:
    """``code`` with ``line`` inserted after its line ``at`` (0-based)."""
    lines = code.splitlines()
    return "\n".join([*lines[: at + 1], line, *lines[at + 1 :]])
