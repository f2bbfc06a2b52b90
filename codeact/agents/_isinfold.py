"""Membership tests on text written several ways. The 1.5B model tests a column with
``.isin([...])`` of the folded spellings it was told about but on the text as written
(fresh17: ``df['make'].isin(['vw', 'volkswagen'])`` kept 27 of 132 Volkswagen jobs, the rows
written 'VW', 'Volkswagen' and 'vw ' fell out). These helpers find such tests and write them
on the folded text, with the values folded the same way; the case and alias rules use them
for their runnable code."""

from __future__ import annotations

import ast
import re

from codeact.agents._cellforms import squeeze
from codeact.agents._colvalues import without_lead
from codeact.agents._notecols import name_pattern

#: The folds a test may already apply before ``.isin`` (a fix replaces them).
_FOLD_CALLS = r"(?:\.str\.(?:strip|lower|upper|casefold)\(\))*"
#: Case, outer spaces and the spaces, underscores and hyphens inside taken out.
SQUEEZE_FOLD = ".str.strip().str.lower().str.replace(r'[\\s_-]+', '', regex=True)"


def _ref(name: str) -> str:
    """``df['name']`` as group 1 (its quote is group 2)."""
    return rf"(\w+\s*\[\s*(['\"])(?:{name_pattern(name)})\2\s*\])"


def _texts(literal: str) -> list[str] | None:
    """The strings of a list or tuple literal, or None when it holds anything else."""
    try:
        values = ast.literal_eval(literal)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    if not isinstance(values, list | tuple) or not values:
        return None
    return list(values) if all(isinstance(v, str) for v in values) else None


def _folded_before(code: str, name: str, at: int) -> bool:
    """Whether a line before ``at`` sets the column to its own folded text
    (``df['make'] = df['make'].str.strip().str.lower()``)."""
    same = rf"\w+\s*\[\s*['\"](?:{name_pattern(name)})['\"]\s*\]"
    folds = r"\.(?:str\.)?(?:lower|upper|casefold|title|capitalize)\("
    through = r"\w+\s*\[\s*[A-Za-z_]\w*\s*\]"  # (a loop over columns: df[c] = df[c]...)
    line = rf"^\s*(?:{same}\s*=\s*{same}|{through}\s*=\s*{through})[^\n]*{folds}"
    return any(m.start() < at for m in re.finditer(line, code, re.M))


def unfolded_isin(code: str, name: str) -> list[re.Match[str]]:
    """Each ``df[name].isin([...])`` of text values that tests the column as written (no
    case folding on it, nor on an earlier line setting it): group 1 the column, group 3 the
    folds it has (strip only), group 4 the literal."""
    test = re.compile(rf"{_ref(name)}({_FOLD_CALLS})\s*\.isin\(\s*(\[[^\]\n]*\]|\([^)\n]*\))\s*\)")
    found = []
    for m in test.finditer(code):
        if re.search(r"lower|upper|casefold|title", m.group(3)) or _texts(m.group(4)) is None:
            continue
        if not _folded_before(code, name, m.start()):
            found.append(m)
    return found


def fold_isin(code: str, name: str, fold: str, inner: bool) -> str:
    """``code`` with each unfolded ``.isin`` on column ``name`` testing ``fold`` of the column
    against its values folded the same way (``squeeze`` when the spellings differ inside)."""
    for m in reversed(unfolded_isin(code, name)):
        values = [folded_value(v, fold, inner) for v in _texts(m.group(4)) or []]
        test = f"{m.group(1)}{fold}.isin({[*dict.fromkeys(values)]!r})"
        code = code[: m.start()] + test + code[m.end() :]
    return code


def with_alias(code: str, name: str, alias: str, value: str) -> str | None:
    """``code`` with its tests of column ``name`` against ``alias`` alone (``== 'VW'``,
    ``.isin(['VW'])``) made tests of the squeezed text against both spellings, or None when
    no test was found to rewrite."""
    both = [*dict.fromkeys((squeeze(alias), squeeze(value)))]
    said = re.escape(alias.strip())
    compare = re.compile(rf"{_ref(name)}({_FOLD_CALLS})\s*(==|!=)\s*(['\"])\s*{said}\s*\5", re.I)
    fixed = compare.sub(
        lambda c: f"{'~' * (c.group(4) == '!=')}{c.group(1)}{SQUEEZE_FOLD}.isin({both!r})", code
    )
    listed = rf"\.isin\(\s*\[\s*(['\"])\s*{said}\s*\4\s*\]\s*\)"
    member = re.compile(rf"{_ref(name)}({_FOLD_CALLS})\s*{listed}", re.I)
    fixed = member.sub(lambda c: f"{c.group(1)}{SQUEEZE_FOLD}.isin({both!r})", fixed)
    return fixed if fixed != code else None


def folded_compare(c: re.Match[str], *, fold: str, inner: bool) -> str:
    """A comparison ``df[name] == value`` (group 1 the column, 3 the operator, 5 the value)
    made on ``fold`` of the column, with the value folded the same way."""
    return f"{c.group(1)}{fold} {c.group(3)} {folded_value(c.group(5), fold, inner)!r}"


def folded_value(value: str, fold: str, inner: bool) -> str:
    """``value`` folded as ``fold`` folds the column: case and outer spaces, the spaces and
    hyphens inside with ``inner``, a leading word the fold takes away (``'^mv\\s+'``)."""
    if inner:
        return squeeze(value)
    lead = re.search(r"\.str\.replace\(r'\^(\w+)\\s\+'", fold)
    return without_lead(value, lead[1]).lower() if lead else value.strip().lower()
