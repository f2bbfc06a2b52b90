"""Afternoon hours read as morning ones. The question says "after 9 PM" and the 1.5B model
compares the minutes since midnight with ``9 * 60`` (fresh18: every showing after nine in
the morning, 636 transactions for 92) or ``.dt.hour`` with ``9``. The rule sends such a
cell back with the hour on a 24-hour clock, and its code compares with that."""

from __future__ import annotations

import re

from codeact.agents._notecols import task_text, without_comments
from codeact.agents._problem import Problem, problem_of

#: "9 PM", "9:00 pm", "1 p.m." in the question (not inside quotes: those show how the data
#: is written).
_PM = re.compile(r"(?<![\d:'])(\d{1,2})(?::([0-5]\d))?\s*p\.?\s?m\b\.?", re.I)


def _uses(code: str, hour: int) -> list[tuple[str, str]]:
    """The comparisons in ``code`` with ``hour`` as a morning hour, each with what it should
    be: ``9 * 60`` (and ``9 * 60 + 30``), ``.dt.hour > 9``."""
    later = hour + 12
    forms = [  # (not a bare 540: a duration of 540 minutes is no time of day)
        (rf"(?<![\w.]){hour}\s*\*\s*60(?![\d.])", f"{later} * 60"),
        (rf"(\.hour\)?\s*[<>]=?\s*){hour}(?![\d.:])", rf"\g<1>{later}"),
    ]
    return [(p, r) for p, r in forms if re.search(p, code)]


def pm_problem(question: str, code: str) -> Problem | None:
    """An afternoon time of the question ("after 9 PM") that the code compares as the
    morning's (``9 * 60``, ``.dt.hour > 9``) and never as the 24-hour clock's (21)."""
    task = re.sub(r"'[^'\n]*'", "''", task_text(question))
    live = without_comments(code)
    if re.search(r"\bpm\b|%p|%I", live, re.I):
        return None  # (the code reads the 12-hour clock itself: 'PM' tested, '1:00 PM' parsed)
    for m in _PM.finditer(task):
        hour, minute = int(m.group(1)), int(m.group(2) or 0)
        if not 1 <= hour <= 11:
            continue
        later = hour + 12
        if re.search(rf"(?<![\d.]){later}(?![\d.])|(?<![\d.]){later * 60 + minute}(?![\d.])", live):
            continue  # (the 24-hour clock's hour is there)
        found = _uses(live, hour)
        if not found:
            continue
        fixed = code
        for pattern, made in found:
            fixed = re.sub(pattern, made, fixed)
        said = m.group(0).strip()
        return problem_of(
            f"The question says {said!r}, which is {later}:{minute:02d} on a 24-hour clock "
            f"({later * 60 + minute} minutes after midnight), but your code compares with "
            f"{hour}, the morning's hour. Compare with {later} (hours) or {later} * 60"
            f"{f' + {minute}' if minute else ''} (minutes); run your code again, print the "
            "result, then answer.",
            fixed,
        )
    return None
