"""Repeats of an earlier row counted with ``keep=False``: every copy counts, the first too.

"How many rows of the export are repeats of an earlier row?" asks for the later copies only:
a docket written twice is one repeat. ``df.duplicated(keep=False)`` marks both copies, so the
count comes out twice as large (fresh19: 36 for 18). The default ``keep='first'`` marks only
the later ones (``keep='last'`` gives the same count). A question that counts every copy
("rows that appear more than once, all of their copies") is left alone: there ``keep=False``
is right.
"""

from __future__ import annotations

import re

from codeact.agents._notecols import task_text
from codeact.agents._problem import Problem, problem_of

#: "repeats of an earlier row", "a duplicate of a previous row", "copies after the first",
#: "not counting the first", "extra copies", "repeat an earlier one".
_LATER_COPIES = re.compile(
    r"\b(?:repeats?|repeating|duplicates?|copies|cop(?:y|ies)\s+of)\s+(?:of\s+)?(?:an?\s+|the\s+)?"
    r"(?:earlier|previous|preceding|prior)\b"
    r"|\brepeat(?:s|ed)?\s+(?:an?\s+)?(?:earlier|previous|preceding|prior)\b"
    r"|\b(?:extra|surplus|redundant|superfluous)\s+(?:copies|rows|duplicates|entries)\b",
    re.I,
)
#: "not counting the first copy", "after the first": said of copies only in a sentence that
#: speaks of them ("orders placed after the first of March" is a date).
_BUT_FIRST = re.compile(
    r"\b(?:after|beyond|besides|other\s+than|not\s+counting)\s+(?:the|its|their)\s+first\b", re.I
)
_COPIES = re.compile(r"\b(?:cop(?:y|ies)|duplicat\w*|repeat\w*|twice|again)\b", re.I)
#: A count made of the marks on the same line (``.sum()``, ``len(``, ``.shape``, ``.count()``).
_COUNTED = re.compile(r"\.sum\(\)|\blen\(|\.shape\b|\.count\(\)|\.value_counts\(")
#: The question counts every copy itself ("all copies", "both copies", "every copy").
_EVERY_COPY = re.compile(
    r"\b(?:all|both|every|each)\s+(?:of\s+(?:the|their|its)\s+)?(?:cop(?:y|ies)|occurrences?)\b"
    r"|\bincluding\s+(?:the|its|their)\s+first\b",
    re.I,
)
#: ``keep=False`` inside a ``duplicated(...)`` call.
_KEEP_ALL = re.compile(r"(\.duplicated\([^()\n]*?\bkeep\s*=\s*)False\b")


def keep_all_problem(question: str, code: str) -> Problem | None:
    """The question counts the repeats of an earlier row (the later copies), and the code marks
    duplicates with ``keep=False``, which marks the first copy too. The fix marks only the
    later copies (``keep='first'``)."""
    task = task_text(question)
    sentences = re.split(r"(?<=[.?!])\s+", task)
    later = _LATER_COPIES.search(task) or any(
        _BUT_FIRST.search(t) and _COPIES.search(t) for t in sentences
    )
    if not later or _EVERY_COPY.search(task):
        return None
    lines = [ln for ln in code.splitlines() if _KEEP_ALL.search(ln)]
    if not any(_COUNTED.search(ln) and "drop_duplicates" not in ln for ln in lines):
        return None  # (the marks shown, or kept to count otherwise: len(d) - len(d.drop_...))
    fixed = _KEEP_ALL.sub(r"\1'first'", code)
    return problem_of(
        "The question counts the rows that repeat an earlier row (the later copies only), but "
        "your code marks duplicates with keep=False, which marks the first copy of each row "
        "too, so every repeated row counts twice. Use df.duplicated() (keep='first', the "
        "default: only the later copies are marked); run your code again, print the result, "
        "then answer.",
        fixed,
    )
