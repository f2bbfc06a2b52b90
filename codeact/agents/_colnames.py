"""Column names in a failed cell's code matched to a frame's real columns (``_colfix``): the
string literals of the code, the renames (spaces, case, punctuation) and the corrected code."""

from __future__ import annotations

import ast
import io
import json
import re
import tokenize
from collections.abc import Collection
from dataclasses import dataclass

from codeact._parse import parse_source


@dataclass(frozen=True)
class ColumnFix:
    """A failed cell's code with column names corrected, and what was changed."""

    code: str
    #: Each string literal's value as written → the real column name.
    renames: dict[str, str]

    def note(self) -> str:
        """What the model (and the transcript) is told about the re-run."""
        parts = [
            f"column {real!r} {_difference(wrong, real)}" for wrong, real in self.renames.items()
        ]
        names = ", ".join(repr(real) for real in self.renames.values())
        return (
            f"Your cell failed with a KeyError: {'; '.join(parts)}. I re-ran your cell with "
            f"{'that name' if len(self.renames) == 1 else 'those names'} ({names}) in place of "
            f"{', '.join(repr(w) for w in self.renames)}; use the exact names from now on. "
            "Output of the re-run:"
        )


def _difference(wrong: str, real: str) -> str:
    """How ``real`` differs from ``wrong``: spaces around it, case, punctuation."""
    ends = [
        side
        for side, real_end, wrong_end in (
            (
                "a leading",
                real[: len(real) - len(real.lstrip())],
                wrong[: len(wrong) - len(wrong.lstrip())],
            ),
            ("a trailing", real[len(real.rstrip()) :], wrong[len(wrong.rstrip()) :]),
        )
        if real_end != wrong_end
    ]
    spaces = f"{' and '.join(ends)} space" if ends else ""
    if real.strip().casefold() != wrong.strip().casefold():
        return "is spelt with other punctuation" + (" or spaces" if ends else "")
    case = "a different case" if real.strip() != wrong.strip() else ""
    return "has " + " and ".join(p for p in (spaces, case) if p)


def string_literals(code: str) -> list[tuple[int, int, str]]:
    """Each plain ``str`` literal of ``code``: its start and end offsets and its value."""
    starts = [0]
    for line in code.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    out = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(code).readline):
            if tok.type != tokenize.STRING:
                continue
            try:
                value = ast.literal_eval(tok.string)
            except (ValueError, SyntaxError):
                continue  # an f-string
            if isinstance(value, str):
                start = starts[tok.start[0] - 1] + tok.start[1]
                end = starts[tok.end[0] - 1] + tok.end[1]
                out.append((start, end, value))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return []
    return sorted(out + _fstring_literals(code, starts))


def _fstring_literals(code: str, starts: list[int]) -> list[tuple[int, int, str]]:
    """The plain ``str`` literals inside the expressions of f-strings (``f"{d.loc[i, 'A']}"``:
    ``'A'``), which tokenize leaves inside the f-string's one token."""
    try:
        tree = parse_source(code)
    except (SyntaxError, ValueError):
        return []
    lines = code.splitlines(keepends=True)
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.FormattedValue):
            continue
        for sub in ast.walk(node.value):
            if not (isinstance(sub, ast.Constant) and isinstance(sub.value, str)):
                continue
            if sub.end_lineno != sub.lineno or sub.end_col_offset is None:
                continue
            raw = lines[sub.lineno - 1].encode()  # (ast offsets count UTF-8 bytes)
            begin = len(raw[: sub.col_offset].decode(errors="replace"))
            end = len(raw[: sub.end_col_offset].decode(errors="replace"))
            segment = lines[sub.lineno - 1][begin:end]
            try:
                same = ast.literal_eval(segment) == sub.value
            except (ValueError, SyntaxError):
                same = False
            if same:
                at = starts[sub.lineno - 1]
                out.append((at + begin, at + end, sub.value))
    return out


def renames_for(code: str, columns: list[str], missing: Collection[str] = ()) -> dict[str, str]:
    """The literals of ``code`` that are not a column but match exactly one column when
    surrounding whitespace and case are ignored, each with that column; for the ``missing``
    names of a KeyError, also when spaces and punctuation are ignored (a value literal such
    as ``'email'`` is never made the column ``'E-mail'``)."""
    real = set(columns)
    out: dict[str, str] = {}
    for _, _, value in string_literals(code):
        if value in real or not value.strip():
            continue
        same = [c for c in columns if c.strip().casefold() == value.strip().casefold()]
        if not same and value in missing and len(_loose(value)) > 1:  # ('Mitglied-Nr': fresh22)
            same = [c for c in columns if _loose(c) == _loose(value)]
        if len(same) == 1:
            out[value] = same[0]
    return out


def _loose(name: str) -> str:
    """``name`` without case, spaces and punctuation (``'Mitglied-Nr.'``: ``'mitgliednr'``)."""
    return re.sub(r"[\W_]+", "", name.casefold())


def apply_renames(code: str, renames: dict[str, str]) -> str:
    """``code`` with every string literal whose value is renamed replaced by the real name."""
    pieces, last = [], 0
    for start, end, value in string_literals(code):
        if value in renames:
            pieces += [code[last:start], _quoted_like(code[start:end], renames[value])]
            last = end
    return "".join([*pieces, code[last:]])


def _quoted_like(literal: str, value: str) -> str:
    """``value`` as a literal in the quotes ``literal`` uses (inside an f-string the other
    quote would end it)."""
    if literal.lstrip("rRuU").startswith('"'):
        return json.dumps(value, ensure_ascii=False)
    return repr(value) if not repr(value).startswith('"') else json.dumps(value)
