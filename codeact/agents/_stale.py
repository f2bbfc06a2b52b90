"""The stale-values rule: the answer's values come only from cells whose code breaks a rule
(one overall mean where the question compares groups), while another cell, whose code breaks
none, printed other values for every asked name — the 1.5B model answering from its first,
flawed cell after a fixed one (its own, or the suggestion the agent ran) printed the answer.

The model is told once (``stale_values_note``); an answer that still carries the stale values
once it was told, or that comes when no step is left to tell it, takes the values of the cell
that computes what the question asks (``settled_answer``), with a line saying so."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from codeact.agents._candidate import CellRun
from codeact.agents._placeholders import required_placeholders, templates
from codeact.agents._problem import Problem, problem_of
from codeact.agents._trace import best_traced_values, computed_texts, given_values, traces

#: The first line of an answer whose stale values were replaced by the agent.
SETTLED_PREFIX = (
    "(The answer's values come from the cell that computes what the question asks; the model "
    "answered with the values of a cell that does not.)"
)


def stale_values(
    question: str, answer: str, cells: Sequence[CellRun], passes: Callable[[str], bool]
) -> tuple[dict[str, str], dict[str, str]] | None:
    """``(given, better)`` when no cell the answer's values come from ``passes`` the rules
    and a cell that does (the latest such cell) printed other values for every asked name;
    else None."""
    wanted = required_placeholders(question)
    ok = [c for c in cells if c.error is None]
    if not wanted or len(ok) < 2:
        return None
    given = given_values(answer, templates(question))
    if not given or set(given) < set(wanted):
        return None
    sources = [c for c in ok if all(traces(v, computed_texts([c])) for v in given.values())]
    if not sources or any(passes(c.code) for c in sources):
        return None
    for cell in reversed(ok):
        if cell in sources or not passes(cell.code):
            continue
        other = best_traced_values(question, [cell])
        if set(other) == set(wanted) and any(other[n] != given.get(n) for n in wanted):
            return {n: given[n] for n in wanted}, {n: other[n] for n in wanted}
    return None


def stale_values_note(
    question: str, answer: str, cells: Sequence[CellRun], passes: Callable[[str], bool]
) -> tuple[str, str] | None:
    """The note to the model and the settled answer (see ``settled_answer``), or None."""
    found = stale_values(question, answer, cells, passes)
    if found is None:
        return None
    given, better = found
    said = " ".join(f"@{n}[{v}]" for n, v in given.items())
    printed = " ".join(f"@{n}[{v}]" for n, v in better.items())
    note = (
        f"Your answer {said} comes from a cell that does not compute what the question "
        f"asks (see the earlier note), but a later cell printed {printed}. Answer with "
        "the values of the cell that computes what the question asks."
    )
    return note, _settled(answer, better)


def settled_answer(
    question: str, answer: str, cells: Sequence[CellRun], passes: Callable[[str], bool]
) -> str | None:
    """The answer with the values of the cell that computes what the question asks in place
    of stale ones, under a line saying so; None when the answer's values are not stale."""
    found = stale_values(question, answer, cells, passes)
    return None if found is None else _settled(answer, found[1])


def _settled(answer: str, better: dict[str, str]) -> str:
    text = answer
    for name, value in better.items():
        token = f"@{name}[{value}]"
        pattern = re.compile(rf"@{re.escape(name)}\[[^\]\n]*\]")
        found = pattern.search(text)
        text = (
            f"{text[: found.start()]}{token}{text[found.end() :]}" if found else f"{text}\n{token}"
        )
    return f"{SETTLED_PREFIX}\n{text.strip()}"


def stale_problem(found: tuple[str, str] | None) -> Problem | None:
    """``stale_values_note``'s note as a rule's problem, carrying the answer it settles on."""
    if found is None:
        return None
    problem = problem_of(found[0])
    problem.answer = found[1]
    return problem
