"""Where a column's name in a question does not ask for the column (see ``_rules``'s column
rule): a sentence about total rows the question leaves out, or the name used as a verb for a
value of another column ("the batches packaged in kegs": Package is Keg, not the Packaged
date)."""

from __future__ import annotations

import re

from codeact.agents._notecols import column_of_value
from codeact.agents._totals import about_total_rows

#: The word after a verb and its preposition: "packaged in kegs", "shipped by air".
_THEN = re.compile(r"\s+(?:in|into|as|by|on|via)\s+(?:an?\s+|the\s+)?([A-Za-z][\w-]*)")


def named_aside(question: str, task: str, start: int, end: int, name: str) -> bool:
    """Whether the column ``name`` named at ``task[start:end]`` is named aside: in the
    sentence about total rows, or as a verb whose object is a value of another column."""
    if about_total_rows(task, start):
        return True
    m = _THEN.match(task, end)
    if m is None:
        return False
    word = m.group(1)
    for form in dict.fromkeys((word, word.removesuffix("s"), word.removesuffix("es"))):
        column = column_of_value(question, form, fold=True)
        if column is not None and column != name:
            return True
    return False
