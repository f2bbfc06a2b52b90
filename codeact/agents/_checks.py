"""Rules on the answer's sense (see ``_rules``): a share outside 0 to 100 %, and "more than k
standard deviations from the mean" counted on one side only."""

from __future__ import annotations

import re

from codeact.agents._notecols import named_number_columns, task_text
from codeact.agents._placeholders import TOKEN
from codeact.agents._problem import Problem, problem_of
from codeact.agents._trace import as_decimal

_SHARE = re.compile(r"\b(?:share|percent(?:age)?|proportion|fraction)\b|%", re.I)
_DEVIATIONS = re.compile(
    r"(\d+(?:\.\d+)?)\s+(?:standard deviations?|std|sigmas?)\s+(?:away\s+)?from\s+the\s+mean",
    re.I,
)
_ONE_SIDE = re.compile(r"\b(?:above|below|higher|lower|greater|less|over|under)\b", re.I)
_BOTH_SIDES = re.compile(r"\babs\b|\.abs\(|\||\bnot\b.*between|~\s*\w+.*between", re.S)


def share_problem(question: str, answer: str) -> str | None:
    """The question asks for a share (a percentage, a proportion) and a value of the answer
    is above 100 or below 0: the numerator is not a part of the denominator (a total of
    another quantity, say units, divides a revenue)."""
    if not _SHARE.search(task_text(question)):
        return None
    for name, value in TOKEN.findall(answer):
        number = as_decimal(value.strip().rstrip("%"))
        if number is not None and (number > 100 or number < 0):
            return (
                f"@{name}[{value.strip()}] cannot be a share: a share is between 0 and 100 % "
                "(or 0 and 1). The part and the total must be the same quantity computed the "
                "same way, for example part = (sub['a'] * sub['b']).sum() and total = "
                "(df['a'] * df['b']).sum(), then part / total * 100. Print the result, then "
                "answer."
            )
    return None


def deviation_problem(question: str, code: str) -> Problem | None:
    """ "More than k standard deviations from the mean" counts both sides of the mean; code
    comparing one side only (no ``abs``) undercounts."""
    task = task_text(question)
    m = _DEVIATIONS.search(task)
    if m is None or _ONE_SIDE.search(task[max(0, m.start() - 40) : m.end()]):
        return None
    if "std" not in code or _BOTH_SIDES.search(code):
        return None
    if not re.search(r"[<>]", code):
        return None
    k = m.group(1)
    columns = named_number_columns(question)
    column = columns[0] if columns else None
    example = (
        f"s = df[{column!r}]; print(((s - s.mean()).abs() > {k} * s.std()).sum())"
        if column
        else None
    )
    return problem_of(
        f"More than {k} standard deviations from the mean counts both sides of the mean: "
        f"compare the distance, for example ((s - s.mean()).abs() > {k} * s.std()).sum(), "
        "not only values above it. Print the result, then answer.",
        example,
    )
