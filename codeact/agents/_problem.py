"""A rule's note to the model (``Problem``), shared by the rule modules (``_rules``,
``_groups``, ``_checks``)."""

from __future__ import annotations


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
