"""More ways an export writes a column, for the files note (``codeact.agents._filenote``):
dates with month names (``17 Sep 2017``), several values in one cell (``2x Margherita; 1x
Cola``) and one value spelled several ways (``Uber Eats``, ``UberEats``, ``uber eats ``).
Each comes with the pandas call that reads it; the small model otherwise compares the text
as written, or parses it by hand."""

from __future__ import annotations

import re

_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"
#: ``17 Sep 2017``, ``17-Sep-2017``, ``17 September 2017``: the day first.
_DAY_MONTH = re.compile(rf"^\d{{1,2}}([ -]){_MONTH}\1\d{{4}}$", re.I)
#: ``Sep 17, 2017``, ``September 17 2017``: the month first.
_MONTH_DAY = re.compile(rf"^{_MONTH} \d{{1,2}},? \d{{4}}$", re.I)
_MAY = re.compile(r"\bmay\b", re.I)
#: One value of a list cell written as a quantity and a name (``2x Margherita``, ``3 x Tea``).
_QUANTITY = re.compile(r"^\d+\s?[xX]\s?\S.*$")
_COUNT = re.compile(r"^\d+\s?[xX]\s?")
LIST_SEPARATORS = ("; ", ";", " | ", "|")
#: What a spelling folds to: case, spaces, hyphens and underscores ignored.
_SQUEEZE = re.compile(r"[\s_-]+")


def month_name_dates(values: list[str], name: str) -> str:
    """The hint for a column of dates written with month names, or ``""``: the ``format``
    when every value is written one way, else pandas' per-value parsing."""
    column = f"df[{name!r}]"
    if all(_DAY_MONTH.match(v) for v in values):
        day_first = True
    elif all(_MONTH_DAY.match(v) for v in values):
        day_first = False
    else:
        return ""
    told = [v for v in values if not _MAY.search(v)] or values  # ('May' is short and long)
    forms = {_form(v, day_first=day_first) for v in told}
    form = next(iter(forms)) if len(forms) == 1 else "mixed"
    return f"dates with month names as text: pd.to_datetime({column}, format={form!r})"


def _form(value: str, *, day_first: bool) -> str:
    word = re.search(r"[A-Za-z]+\.?", value)
    month = "%b" if word is not None and len(word.group(0).rstrip(".")) == 3 else "%B"
    if word is not None and word.group(0).endswith("."):
        month += "."
    if day_first:
        sep = "-" if "-" in value else " "
        return f"%d{sep}{month}{sep}%Y"
    return f"{month} %d, %Y" if "," in value else f"{month} %d %Y"


def list_cells(values: list[str], name: str) -> str:
    """The hint for a column holding several values per cell (``'vpn; remote'``), or ``""``:
    how to get one row per value, and, when each value is a quantity and a name
    (``'2x Margherita'``), how to split the two."""
    for sep in LIST_SEPARATORS:
        several = [v for v in values if sep in v]
        if len(several) * 5 < len(values) or not several:
            continue
        parts = [p.strip() for v in values for p in v.split(sep.strip()) if p.strip()]
        names = {_COUNT.sub("", p) for p in parts}  # ('2x Cola' and '1x Cola': one value)
        if len(names) * 2 > len(parts) or any(len(p) > 40 for p in parts):
            return ""  # (free text with a separator in it, not a list)
        split = f"df[{name!r}].str.split({sep.strip()!r}).explode().str.strip()"
        hint = (
            f"several values in one cell, separated by {sep.strip()!r}: one row per value is "
            f"values = {split}"
        )
        if all(_QUANTITY.match(p) for p in parts):
            hint += (
                f"; each is a quantity and a name ({parts[0]!r}): parts = values.str.extract("
                r"r'(\d+)\s*[xX]\s*(.+)'), quantity = parts[0].astype(int), name = parts[1]"
            )
        return hint
    return ""


def squeeze(value: str) -> str:
    """``value`` with case, spaces, hyphens and underscores ignored (``'Uber Eats '`` and
    ``'uber-eats'`` are both ``'ubereats'``)."""
    return _SQUEEZE.sub("", value.lower())


def spelling_hint(present: list[str], name: str) -> str:
    """The hint for a column of few values, some written several ways, or ``""``: how many
    there are as written and folded, and the comparison that folds them. Case and outer
    spaces fold with ``.str.strip().str.lower()``; when spaces or hyphens inside the words
    differ too (``Uber Eats``, ``UberEats``), the comparison removes them as well."""
    stripped = [v.strip() for v in present]
    distinct = len(set(stripped))
    lowered = list(dict.fromkeys(v.lower() for v in stripped))
    squeezed = list(dict.fromkeys(squeeze(v) for v in stripped))
    column = f"df[{name!r}]"
    if len(squeezed) < len(lowered):
        return (
            f"{len(set(present))} distinct values as written, {len(squeezed)} ignoring case "
            f"and spaces (and hyphens): compare {column}.str.lower().str.replace(r'[\\s_-]', "
            f"'', regex=True) == {squeezed[0]!r}{_folded(squeezed)}"
        )
    if len(lowered) < distinct or any(v != v.strip() for v in present):
        return (
            f"{len(set(present))} distinct values as written, {len(lowered)} ignoring case and "
            f"spaces: compare {column}.str.strip().str.lower() == {lowered[0]!r}"
            f"{_folded(lowered)}"
        )
    return ""


def _folded(values: list[str]) -> str:
    """The values as the comparison folds them, when there are few."""
    if len(values) > 8:
        return ""
    return f" (folded, the values are {', '.join(repr(v) for v in values)})"
