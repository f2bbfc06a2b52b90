"""A call given a keyword argument it does not take (fresh14: ``.str.extract(r'£(\\d+)',
regex=True)``, ``.str.replace`` 's keyword carried over): the 1.5B model reads the error as
a problem with the data and rewrites everything else. The cell is run again with that one
keyword argument left out of the failing line's calls of that name (``keyword_fix``).

Likewise a text searched for that is no regular expression (fresh18: ``.str.contains('($')``
for refunds written ``($45.00)``: ``missing ), unterminated subpattern``): the cell is run
again with ``regex=False`` on that call (``regex_fix``); and ``.dt`` on a column an earlier
line made Python dates (``.dt.date``) is re-run with ``.dt.normalize()`` there
(``date_objects_fix``); a name the cell misspells (``doockets`` for its ``dockets``) is
re-run spelt as defined (``name_fix``)."""

from __future__ import annotations

import ast
import difflib
import io
import re
import tokenize
from dataclasses import dataclass

from codeact._parse import parse_source
from codeact.agents._unusedfix import repeatable_failure
from codeact.executors.base import ExecutionResult

_UNEXPECTED = re.compile(r"(\w+)\(\) got an unexpected keyword argument '(\w+)'")


@dataclass(frozen=True)
class KeywordFix:
    """A failed cell re-run without the keyword argument its call does not take."""

    code: str
    call: str
    keyword: str

    def note(self) -> str:
        """What the model (and the transcript) is told about the re-run."""
        return (
            f"Your cell failed: {self.call}() takes no {self.keyword}= argument. I re-ran your "
            f"cell without it on that line. Output of the re-run:"
        )


def keyword_fix(result: ExecutionResult, code: str) -> KeywordFix | None:
    """The cell without ``keyword=...`` in the failing line's calls of the function the error
    names, when that is the only change and what ran before can run again."""
    error = result.error
    found = _UNEXPECTED.search(error.message) if error is not None else None
    if error is None or found is None:
        return None
    call, keyword = found.group(1), found.group(2)
    failing = repeatable_failure(code, error.traceback)
    if failing is None:
        return None
    number, lines = failing
    argument = rf"\s*,\s*{re.escape(keyword)}\s*=\s*(?:'[^'\n]*'|\"[^\"\n]*\"|[\w.]+)(?=\s*[,)])"
    pattern = re.compile(rf"(\b{re.escape(call)}\((?:[^()\n]|\([^()\n]*\))*?){argument}")
    fixed = pattern.sub(r"\1", lines[number - 1])
    if fixed == lines[number - 1]:
        return None
    lines[number - 1] = fixed
    return KeywordFix(code="\n".join(lines), call=call, keyword=keyword)


#: ``.str.contains('($')``: a text searched for as written, its first argument a literal.
_CONTAINS = re.compile(
    r"""\.str\.contains\(\s*(r?(?:'[^'\n]*'|"[^"\n]*"))(?P<rest>\s*(?:,[^()\n]*)?)\)"""
)


@dataclass(frozen=True)
class RegexFix:
    """A failed cell re-run with ``regex=False`` in a ``.str.contains`` whose text is no
    regular expression (``'($'``: the 1.5B model searches for refunds written ``($45.00)``)."""

    code: str
    text: str

    def note(self) -> str:
        """What the model (and the transcript) is told about the re-run."""
        return (
            f"Your cell failed: .str.contains({self.text}) reads its text as a regular "
            "expression, and that text is not one. I re-ran your cell with regex=False there "
            "(the text searched for as written). Output of the re-run:"
        )


def regex_fix(result: ExecutionResult, code: str) -> RegexFix | None:
    """The cell with ``regex=False`` added to the failing line's ``.str.contains`` calls
    whose literal text does not compile as a regular expression (``re.error``)."""
    error = result.error
    if error is None or error.type not in ("error", "PatternError"):
        return None
    failing = repeatable_failure(code, error.traceback)
    if failing is None:
        return None
    number, lines = failing
    line, broken = lines[number - 1], []
    for m in _CONTAINS.finditer(line):
        try:
            re.compile(ast.literal_eval(m.group(1)))
        except re.error:
            broken.append(m)
        except (ValueError, SyntaxError):
            continue
    if not broken:
        return None
    for m in reversed(broken):
        rest = m.group("rest")
        if re.search(r"\bregex\s*=", rest):  # (regex=True written: made False)
            rest = re.sub(r"\bregex\s*=\s*\w+", "regex=False", rest)
        elif re.match(r"\s*,\s*(?![A-Za-z_]\w*\s*=)\S", rest):
            return None  # (a second argument given by position: not guessed)
        else:
            rest = f", regex=False{rest}"
        line = f"{line[: m.end(1)]}{rest}{line[m.end('rest') :]}"
    lines[number - 1] = line
    return RegexFix(code="\n".join(lines), text=broken[0].group(1))


_DT_ON_OBJECTS = "Can only use .dt accessor with datetimelike values"


@dataclass(frozen=True)
class DateObjectsFix:
    """A failed cell re-run with ``.dt.normalize()`` in place of an earlier ``.dt.date``,
    which makes Python date objects that ``.dt`` can no longer read (fresh18: the show dates
    made dates, then ``.dt.strftime('%A')`` failed four times)."""

    code: str
    line: str

    def note(self) -> str:
        """What the model (and the transcript) is told about the re-run."""
        return (
            "Your cell failed: .dt.date makes plain Python dates, which .dt cannot read. I "
            f"re-ran your cell with .dt.normalize() in its place (`{self.line}`), which keeps "
            "datetimes at midnight. Output of the re-run:"
        )


def date_objects_fix(result: ExecutionResult, code: str) -> DateObjectsFix | None:
    """The cell with ``col = col.dt.date`` (on a line before the failing one, setting the
    column the failing line reads with ``.dt``) made ``col = col.dt.normalize()``."""
    error = result.error
    if error is None or _DT_ON_OBJECTS not in error.message:
        return None
    failing = repeatable_failure(code, error.traceback)
    if failing is None:
        return None
    number, lines = failing
    for at in range(number - 2, -1, -1):
        m = re.match(
            r"^(\s*)(\w+\s*\[\s*(['\"])[^'\"\n]+\3\s*\])\s*=\s*(.*)\.dt\.date\s*$", lines[at]
        )
        if m is None:
            continue
        column = re.escape(m.group(2).split("[", 1)[1].strip(" ]"))
        if not re.search(rf"\[\s*{column}\s*\]\s*\.dt\.", lines[number - 1]):
            return None
        lines[at] = f"{m.group(1)}{m.group(2)} = {m.group(4)}.dt.normalize()"
        return DateObjectsFix(code="\n".join(lines), line=lines[at].strip())
    return None


_UNDEFINED = re.compile(r"name '(\w+)' is not defined")


@dataclass(frozen=True)
class NameFix:
    """A failed cell re-run with a misspelt name written as the one the cell defined
    (fresh19: ``doockets`` for ``dockets``)."""

    code: str
    wrong: str
    right: str

    def note(self) -> str:
        """What the model (and the transcript) is told about the re-run."""
        return (
            f"Your cell failed: the name {self.wrong!r} is not defined; your cell defines "
            f"{self.right!r}. I re-ran your cell with {self.right!r} in its place. Output of "
            "the re-run:"
        )


def name_fix(result: ExecutionResult, code: str) -> NameFix | None:
    """The cell with a name it never defines (``NameError``) replaced by the one name the
    cell assigns that is spelt nearly the same, when what ran before can run again."""
    error = result.error
    found = _UNDEFINED.search(error.message) if error is not None else None
    if error is None or found is None or repeatable_failure(code, error.traceback) is None:
        return None
    try:
        tree = parse_source(code)
    except (SyntaxError, ValueError):
        return None
    defined = {
        n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }
    defined |= {
        a.arg
        for n in ast.walk(tree)
        if isinstance(n, ast.Lambda | ast.FunctionDef)
        for a in n.args.args
    }
    wrong = found.group(1)
    close = difflib.get_close_matches(wrong, sorted(defined), n=2, cutoff=0.8)
    if len(close) != 1 or len(wrong) < 4:
        return None
    tokens = _tokens(code)
    names = [  # (a name: not an attribute after '.', nor a keyword argument before '=')
        t
        for i, t in enumerate(tokens)
        if t.type == tokenize.NAME
        and t.string == wrong
        and (i == 0 or tokens[i - 1].string != ".")
        and (i + 1 == len(tokens) or tokens[i + 1].string != "=")
    ]
    lines = code.splitlines(keepends=True)
    for token in reversed(names):  # (identifiers only: never inside a text)
        row, col = token.start
        line = lines[row - 1]
        lines[row - 1] = line[:col] + close[0] + line[col + len(wrong) :]
    return NameFix(code="".join(lines), wrong=wrong, right=close[0]) if names else None


def _tokens(code: str) -> list[tokenize.TokenInfo]:
    try:
        return list(tokenize.generate_tokens(io.StringIO(code).readline))
    except (tokenize.TokenError, SyntaxError):
        return []
