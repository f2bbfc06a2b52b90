"""A rule's note to the model (``Problem``), shared by the rule modules (``_rules``,
``_groups``, ``_checks``), and which notes a run has been told (``first_time``)."""

from __future__ import annotations

import re
from collections import OrderedDict


class Problem(str):
    """A rule's note to the model; ``code`` the runnable example it gives, if any (``df``
    standing for the table: the agent runs it when the model re-runs its old cell instead);
    ``answer`` the answer to give instead when the model cannot be sent back (stale values)."""

    code: str | None = None
    answer: str | None = None


def problem_of(text: str, code: str | None = None) -> Problem:
    """A note with its runnable example (none when the example still has a placeholder)."""
    problem = Problem(text)
    problem.code = code if code and "'COLUMN'" not in code else None
    return problem


#: Rules already applied, by (rule, the run's first cell): the cell objects are the run's own,
#: so each run is told at most once per rule (bounded; oldest forgotten first).
_TOLD: OrderedDict[tuple[str, int], object] = OrderedDict()
_TOLD_MAX = 512


def first_time(rule: str, first_cell: object, problem: str = "") -> bool:
    """Whether ``rule`` may speak for this run (its first cell): once per subject (the first
    quoted name of its note: the case of 'Channel', then of 'Status'), at most twice."""
    subject = re.search(r"'([^'\n]{1,40})'", problem)
    key = (f"{rule}|{subject.group(1) if subject else ''}", id(first_cell))
    if key in _TOLD and _TOLD[key] is first_cell:
        return False
    told = [k for k, c in _TOLD.items() if c is first_cell and k[0].split("|")[0] == rule]
    if len(told) >= 2:
        return False
    _TOLD[key] = first_cell
    while len(_TOLD) > _TOLD_MAX:
        _TOLD.popitem(last=False)
    return True
