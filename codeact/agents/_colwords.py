"""Where a column's name in a question does not ask for the column (see ``_rules``'s column
rule): a sentence about total rows the question leaves out, a clause defining a term the
question never uses, the name used as a verb for a value of another column ("the batches
packaged in kegs": Package is Keg, not the Packaged date), or words before it that make it no
column ("alcohol by volume")."""

from __future__ import annotations

import re

from codeact.agents._notecols import column_of_value
from codeact.agents._totals import about_total_rows

#: The word after a verb and its preposition: "packaged in kegs", "shipped by air".
_THEN = re.compile(r"\s+(?:in|into|as|by|on|via)\s+(?:an?\s+|the\s+)?([A-Za-z][\w-]*)")


#: Words before a column's name that do not ask for it ("a unit", "whatever their Status").
NOT_ASKED = (  # ("alcohol by volume": a strength; "hectolitres of beer": a substance)
    r"(?:\b(?:an?|one)|\bwhatever (?:their|its|the)|\bregardless of (?:their |its |the )?"
    r"|\b(?:alcohol|%|percent) by|\b(?:(?:hecto|milli)?lit(?:re|er)s|kilo(?:gram)?s|kg|tonnes"
    r"|bottles|cans|pints|barrels) of)\s*$"
)


#: "a load's net weight is its Gross minus its Tare": a term defined from columns.
_DEFINITION = re.compile(
    r"^\s*(?:(?:a|an|the|its|their)\s+)?(?:\w+'s\s+)?([a-z][\w ]{2,30}?)\s+(?:is|are)\s+"
    r"[^.;]*?\b(?:minus|plus|times|divided by)\b",
    re.I,
)


def _defines_unasked(task: str, start: int) -> bool:
    """``task[start:]`` lies in a clause defining a term from columns that the rest of the
    question never uses (fresh19: "a load's net weight is its Gross minus its Tare" in a
    question counting dockets by Gross alone does not ask for Tare)."""
    left = max(task.rfind(b, 0, start) + len(b) for b in (". ", "; ", "\n", ": "))
    m = _DEFINITION.match(task[max(left, 0) : start])
    return m is not None and task.lower().count(m.group(1).lower()) < 2


def named_aside(question: str, task: str, start: int, end: int, name: str) -> bool:
    """Whether the column ``name`` named at ``task[start:end]`` is named aside: in the
    sentence about total rows, in a clause defining an unused term, or as a verb whose
    object is a value of another column."""
    if about_total_rows(task, start) or _defines_unasked(task, start):
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
