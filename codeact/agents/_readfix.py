"""A cell that read a file with the wrong separator: ``pd.read_csv('ledger.csv')`` of a file
the files note says is separated by ``';'`` (with decimal commas) gives one column named
``'entry_no;date;...'``, and every column the cell then names is a ``KeyError`` the 1.5B model
does not get past. A file with title lines above its header, read from its first line, gives
columns named after the title. The cell is run again, once, with the read call the note gives
(``sep=';', decimal=',', thousands='.'``, ``skiprows=2``); the model is told what was
changed. A unit rule lives here too: a column with a unit converted by hand to NaN (the
several-units rule is ``_mixedunits``)."""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial

from codeact.agents._notecols import file_columns
from codeact.agents._problem import Problem, problem_of
from codeact.agents._unusedfix import safe_to_repeat
from codeact.executors.base import ExecutionResult

#: ``pd.read_csv('name.csv'`` + the rest of the call's arguments (one level of parentheses).
READ_CALL = re.compile(r"(\bpd\.read_csv\(\s*(['\"])([^'\"\n]+)\2)((?:[^()\n]|\([^()\n]*\))*)\)")
_HOW = re.compile(
    r"(?:separated by '[^']+'|below \d+ title lines?|the header row repeated on \d+ lines?)"
    r"[^\n]*? \(read with pd\.read_csv\(path, (.*?)\)\)\. Columns"
)
#: The arguments of a read that already says how to split lines or where the header is.
_OWN = {
    "sep": r"\b(?:sep|delimiter|delim_whitespace)\s*=",
    "skiprows": r"\b(?:skiprows|header)\s*=",
}


def note_read_arguments(question: str, name: str) -> str | None:
    """The ``read_csv`` arguments the files note gives for file ``name`` (``sep=';',
    decimal=','``, ``skiprows=2``), or None when the note gives none (a comma-separated file
    with its header on the first line)."""
    head = question.find(f"- {name!r} (")
    if head < 0:
        return None
    end = question.find("\n- '", head + 1)
    m = _HOW.search(question, head, end if end >= 0 else len(question))
    return m.group(1) if m else None


#: Why a read with pandas' defaults failed, by the argument the re-run added.
_WHY = {
    "no skiprows": "the file has its header on its first line, so skiprows= dropped it and "
    "a row of data became the header",
    "sep=": "the file is not comma-separated, so read_csv read each line as one column",
    "skiprows=": "the file has title lines above its header, so read_csv took a title for "
    "the header",
    "skiprows=[": "the file repeats its header row inside the data, so read_csv kept those "
    "rows as records and read every column as text",
}


@dataclass(frozen=True)
class ReadFix:
    """A failed cell with its ``read_csv`` calls given the note's read arguments."""

    code: str
    reads: tuple[str, ...]
    #: The arguments added (``sep=';'``, ``skiprows=2``).
    added: tuple[str, ...]

    def note(self) -> str:
        """What the model (and the transcript) is told about the re-run."""
        why = " and ".join(
            reason
            for key, reason in _WHY.items()
            if any(a.startswith(key) and not a.startswith(f"{key}[") for a in self.added)
        )
        why = f"{why} (see the files note)"
        return (
            f"Your cell failed: {why}. I re-ran your cell with {'; '.join(self.reads)}; read "
            "it that way from now on. Output of the re-run:"
        )


def separator_fix(question: str, result: ExecutionResult, code: str) -> ReadFix | None:
    """The cell with the note's read arguments (separator, decimal mark, title lines to
    skip) added to each read of a file the note gives them for, when the cell failed and
    reads one without them (``sep=``; ``skiprows=`` or ``header=``); None otherwise."""
    if result.error is None:
        return None
    out, reads, added = _with_note_reads(question, code)
    if not reads:
        out, reads = stray_skips(question, code)
        added = ["no skiprows"] * bool(reads)
    return ReadFix(code=out, reads=tuple(reads), added=tuple(added)) if reads else None


def stray_skips(question: str, code: str) -> tuple[str, list[str]]:
    """``code`` with ``skiprows=N`` taken out of each read of a file whose header the files
    note shows on its first line (fresh23: vessels.csv read with the crossings' skiprows=2,
    its header and first rows lost), and the new calls."""
    reads: list[str] = []

    def fixed(m: re.Match[str]) -> str:
        name, rest = m.group(3), m.group(4)
        skip = re.search(r",\s*skiprows\s*=\s*\d+\s*(?=,|$)", rest)
        noted = note_read_arguments(question, name) is None and _header_first(question, name)
        if skip is None or not noted or re.search(r"\b(?:header|names)\s*=", rest):
            return m.group(0)
        reads.append(f"{m.group(1)}{rest[: skip.start()]}{rest[skip.end() :]})")
        return reads[-1]

    return READ_CALL.sub(fixed, code), reads


def _header_first(question: str, name: str) -> bool:
    """Whether the files note shows file ``name``'s first line as its header: every column it
    lists, named in that line."""
    head = question.find(f"- {name!r} (")
    first = re.match(r"[^\n]*\n```\n([^\n]*)", question[head:]) if head >= 0 else None
    columns = file_columns(question).get(name, [])
    return first is not None and bool(columns) and all(c.strip() and c in first[1] for c in columns)


def title_problem(question: str, code: str) -> Problem | None:
    """A cell that ran reading a file with title lines above its header from its first line
    (no ``skiprows=`` or ``header=``): a title is the header, the real header a row, the
    columns ``'Unnamed: 3'``. Sent back with the note's read call in its place."""
    out, reads, added = _with_note_reads(question, code, only="skiprows")
    if not reads and (stray := stray_skips(question, code))[1]:
        return problem_of(
            "The file has its header on its first line (see the files note): skiprows= drops "
            "the header and the first rows, and a row of data becomes the header. Read it "
            f"with {'; '.join(stray[1])}, print the result, then answer.",
            stray[0],
        )
    if not reads or _read_right_later(question, code):
        return None
    if all(a.startswith("skiprows=[") for a in added if a.startswith("skiprows=")):
        names = {c for columns in file_columns(question).values() for c in columns}
        tests = re.findall(r"(?:[!=]=|\.isin\(\s*\[?|\.str\.\w+\()\s*(['\"])(.*?)\1", code)
        if any(text in names for _, text in tests):
            return None  # (the code leaves them out itself: a value tested against a name)
        return problem_of(
            "The file repeats its header row inside the data (see the files note): read as it "
            "is, those rows are records and every column is text. Read it with "
            f"{'; '.join(reads)}, print the result, then answer.",
            out,
        )
    return problem_of(
        "The file has title lines above its header (see the files note): read from its "
        "first line, a title becomes the header and every column is wrong. Read it with "
        f"{'; '.join(reads)}, print the result, then answer.",
        out,
    )


def _read_right_later(question: str, code: str) -> bool:
    """Whether the last read of each file the code reads plainly (a look first) already has
    the note's read arguments: its result is what the answer came from."""
    last: dict[str, str] = {}
    for m in READ_CALL.finditer(code):
        last[m.group(3)] = m.group(0)
    return bool(last) and all(
        not _with_note_reads(question, call, only="skiprows")[1] for call in last.values()
    )


def _with_note_reads(question: str, code: str, only: str = "") -> tuple[str, list[str], list[str]]:
    """``code`` with the note's read arguments each read lacks added to it (the separator
    with its decimal marks, the title lines to skip; with ``only``: reads that lack that
    one), the new calls and the arguments added."""
    reads: list[str] = []
    added: list[str] = []

    def fixed(m: re.Match[str]) -> str:
        rest = m.group(4)
        args = note_read_arguments(question, m.group(3)) or ""
        parts = re.findall(r"(\w+)=('[^']*'|\d+|\[[\d, ]*\])", args)
        lines = next((v for k, v in parts if k == "skiprows" and v[0] == "["), None)
        own = re.search(r",\s*skiprows\s*=\s*(\[[^\]\n]*\]|\d+)", rest) if lines else None
        if own and set(re.findall(r"\d+", own.group(1))) != set(re.findall(r"\d+", lines or "")):
            rest = rest[: own.start()] + rest[own.end() :]  # (the model's skiprows=1: a guess)
        missing = [  # (sep= goes with decimal= and thousands=; skiprows= with header=, but
            f"{k}={v}"  # header=None keeps a header repeated inside: fresh22)
            for k, v in parts
            if not re.search(
                r"\bskiprows\s*="
                if v[0] == "["
                else _OWN["skiprows" if k == "skiprows" else "sep"],
                rest,
            )
        ]
        if not missing or (only and not any(a.startswith(f"{only}=") for a in missing)):
            return m.group(0)
        if any(a.startswith("skiprows=[") for a in missing):  # (the header is the header:
            named = re.search(r"\bnames\s*=", rest)  # with names= given, header=0 says so)
            rest = re.sub(r",\s*header\s*=\s*(?:None|\d+)\b", ", header=0" if named else "", rest)
        call = f"{m.group(1)}, {', '.join(missing)}{rest})"
        reads.append(call)
        added.extend(missing)
        return call

    return READ_CALL.sub(fixed, code), reads, added


#: The note's conversion of a column of numbers with a unit (``'1.178,3 kWh'``).
_UNIT_WAY = re.compile(
    r"numbers with a unit \(.*?\) as text(?:, [^:\n]*? standing for no number)?: convert with "
    r"(df\[(.*?)\].*?\.astype\(float\)|pd\.to_numeric\(df\[(.*?)\].*?errors='coerce'\))"
)  # (fresh23: '1,189 litres', '456 L' or '--', converted with pd.to_numeric)
#: A by-hand conversion of column ``{name}`` of some frame: its ``.str`` clean-ups, then
#: ``astype(float)`` (or ``pd.to_numeric`` of it).
_BY_HAND = (
    r"(\w+)\[\s*(['\"]){name}\2\s*\]((?:\s*\.\s*str\s*\.\s*\w+\((?:[^()\n]|\([^()\n]*\))*\))*)"
    r"\s*\.\s*astype\(\s*float\s*\)"
)


@dataclass(frozen=True)
class UnitFix:
    """A failed cell whose by-hand conversion of a column of numbers with a unit is
    replaced by the files note's conversion."""

    code: str
    column: str
    conversion: str

    def note(self) -> str:
        """What the model (and the transcript) is told about the re-run."""
        return (
            f"Your cell failed converting {self.column!r}, which holds numbers with a unit (see "
            f"the files note). I re-ran your cell with {self.conversion} in its place; convert "
            "it that way from now on. Output of the re-run:"
        )


def unit_fix(question: str, result: ExecutionResult, code: str) -> UnitFix | None:
    """The cell with each by-hand ``astype(float)`` of a column the note gives a unit
    conversion for replaced by that conversion, when the cell failed with a value that
    could not be converted; None otherwise."""
    error = result.error
    if error is None or "could not convert" not in error.message:
        return None
    for name, _, ours in _unit_ways(question):
        pattern = re.compile(_BY_HAND.format(name=re.escape(name)))
        found = pattern.search(code)
        if found is not None:
            return UnitFix(code=pattern.sub(ours, code), column=name, conversion=ours(found))
    return None


def _unit_ways(question: str) -> Iterator[tuple[str, str, Callable[[re.Match[str]], str]]]:
    """Each column the files note gives a unit conversion for, that conversion, and a
    function making it on the frame a match's first group names."""
    for m in _UNIT_WAY.finditer(question):
        conversion, quoted = m.group(1), m.group(2) or m.group(3)
        try:
            name = ast.literal_eval(quoted)
        except (ValueError, SyntaxError):
            continue

        def ours(hit: re.Match[str], way: str = conversion) -> str:
            return way.replace("df[", f"{hit.group(1)}[", 1)

        yield name, conversion, ours


#: ``pd.to_numeric(..., errors='coerce')`` of a column of some frame after its ``.str``
#: clean-ups: what does not convert becomes NaN without a word.
_TO_NUMERIC = (
    r"pd\.to_numeric\(\s*(\w+)\[\s*(['\"]){name}\2\s*\]"
    r"((?:\s*\.\s*str\s*\.\s*\w+\((?:[^()\n]|\([^()\n]*\))*\))*)"
    r"\s*,\s*errors\s*=\s*['\"]coerce['\"]\s*\)"
)


def unit_problem(question: str, code: str) -> Problem | None:
    """A column of numbers with a unit converted by hand (``pd.to_numeric(df['Consumption']
    .str.replace(',', '.'), errors='coerce')``: every value NaN, the sum 0 or NaN) in a cell
    that ran: sent back with the note's conversion in its place."""
    for name, conversion, ours in _unit_ways(question):
        # (only the silent way: a by-hand astype(float) that ran did convert every value)
        fixed = re.sub(_TO_NUMERIC.format(name=re.escape(name)), partial(_unless_ours, ours), code)
        if fixed != code:
            return problem_of(
                f"The column {name!r} holds numbers with a unit (see the files note), and your "
                f"code converts it another way: values that do not convert become NaN. Convert "
                f"it with {conversion}, print the result, then answer.",
                fixed,
            )
    return None


def _unless_ours(ours: Callable[[re.Match[str]], str], hit: re.Match[str]) -> str:
    """The note's conversion in place of ``hit``, unless ``hit`` takes the unit away itself
    (a negated class, ``[^0-9.]``, or an ``extract``: the note's way or one like it)."""
    own = hit.group(0) == ours(hit) or re.search(r"\[\^|\.extract\(", hit.group(0))
    return hit.group(0) if own else ours(hit)


_UNDEFINED = re.compile(r"name '(\w+)' is not defined")


@dataclass(frozen=True)
class LoadFix:
    """A failed cell that uses a table it never read, with the note's read call first."""

    code: str
    read: str

    def note(self) -> str:
        """What the model (and the transcript) is told about the re-run."""
        return (
            "Your cell failed: it uses a table no cell has read yet. I re-ran your cell with "
            f"{self.read} first; read the file yourself from now on. Output of the re-run:"
        )


def load_fix(question: str, result: ExecutionResult, code: str) -> LoadFix | None:
    """The cell with ``name = pd.read_csv(file, <the note's arguments>)`` put first, when it
    failed on ``name`` not being defined, uses it as a table (``name['col']``) and never
    assigns it, and the files note lists exactly one file holding the columns it names."""
    error = result.error
    m = _UNDEFINED.search(error.message) if error is not None else None
    if error is None or error.type != "NameError" or m is None:
        return None
    frame = m.group(1)
    if re.search(rf"^\s*{frame}\s*=", code, re.M) or not re.search(rf"\b{frame}\s*\[", code):
        return None
    named = set(re.findall(rf"\b{frame}\s*\[\s*['\"]([^'\"\n]+)['\"]\s*\]", code))
    if not named:
        return None  # (no column of a file named: not surely a table)
    files = [f for f, cols in file_columns(question).items() if named <= set(cols)]
    if len(files) != 1 or not files[0].lower().endswith((".csv", ".tsv", ".txt")):
        return None
    args = note_read_arguments(question, files[0])
    read = f"{frame} = pd.read_csv({files[0]!r}{', ' + args if args else ''})"
    return LoadFix(code=f"import pandas as pd\n{read}\n{code}", read=read)


#: The usual aliases, and the import that defines each.
_ALIASES = {"pd": "import pandas as pd", "np": "import numpy as np"}


@dataclass(frozen=True)
class AliasFix:
    """A failed cell that uses ``pd`` or ``np`` without importing it, with the import first."""

    code: str
    line: str

    def note(self) -> str:
        """What the model (and the transcript) is told about the re-run."""
        return (
            f"Your cell failed: it uses a module it never imported. I re-ran your cell with "
            f"`{self.line}` first; import what you use from now on. Output of the re-run:"
        )


def alias_fix(result: ExecutionResult, code: str) -> AliasFix | None:
    """The cell with ``import pandas as pd`` (or numpy's) put first, when it failed on that
    name not being defined."""
    error = result.error
    m = _UNDEFINED.search(error.message) if error is not None else None
    if error is None or error.type != "NameError" or m is None or m.group(1) not in _ALIASES:
        return None
    if not safe_to_repeat(code, error.traceback):
        return None  # (what ran before the failure would run twice: df['c'] /= 100)
    lines = [  # (every alias the cell uses and never imports, not only the first to fail)
        line
        for alias, line in _ALIASES.items()
        if re.search(rf"\b{alias}\.", code) and not re.search(rf"\bas\s+{alias}\b", code)
    ]
    return AliasFix(code="\n".join([*lines, code]), line="; ".join(lines)) if lines else None
