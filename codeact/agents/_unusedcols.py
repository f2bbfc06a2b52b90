"""Conversions of columns nothing uses, left out before the answer rules read a cell.

The 1.5B model often cleans every column of a table before it computes (fresh18: dates,
times, amounts and discounts converted for a count of sales channels). A rule about how a
column is read ("percentages written two ways", "numbers stored as text") then sends back a
cell whose answer never touches that column, and the model rewrites the conversion instead
of the computation. The rules read the cell without such lines: a line that only sets one
column from itself (or from nothing else) is dropped when no other line of the code uses
that column (a list of columns to drop duplicates by is no use: fresh19 listed them all).
"""

from __future__ import annotations

import re

from codeact._parse import parses
from codeact.agents._notecols import past_conversions, uses_column

#: ``.drop_duplicates(subset=[...])``: a list of columns rows are compared on, no use of them.
_DEDUP_LIST = re.compile(r"(\.drop_duplicates\(\s*subset\s*=\s*)\[[^\]\n]*\]")


def without_dedup_lists(code: str) -> str:
    """``code`` with each ``drop_duplicates(subset=[...])`` list emptied: naming a column
    there neither converts nor computes on it (fresh19 listed every column)."""
    return _DEDUP_LIST.sub(r"\1[]", code)


#: ``df['Discount'] = ...``: a line setting one column (its name, then what it is set to).
COLUMN_SET = re.compile(r"^\s*\w+\s*\[\s*(['\"])([^'\"\n]+)\1\s*\]\s*=(?!=)(.*)$", re.M)


def without_unused_conversions(code: str) -> str:
    """``code`` without the lines converting a column in place that no other line uses
    (comments left out too when any line is dropped); ``code`` itself when none is, or when
    dropping them would leave code that does not parse (a statement over several lines)."""
    out = code
    for name in dict.fromkeys(m.group(2) for m in COLUMN_SET.finditer(code)):
        rest = past_conversions(out, name)
        if rest != out and not uses_column(without_dedup_lists(rest), name) and parses(rest):
            out = rest
    return out
