"""The stale-values rule: the answer's values come only from cells whose code breaks a rule
(one overall mean where the question compares groups), while another cell, whose code breaks
none, printed other values for every asked name — the 1.5B model answering from its first,
flawed cell after a fixed one (its own, or the suggestion the agent ran) printed the answer."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from codeact.agents._candidate import CellRun
from codeact.agents._placeholders import required_placeholders, templates
from codeact.agents._trace import best_traced_values, computed_texts, given_values, traces


def stale_values_problem(
    question: str, answer: str, cells: Sequence[CellRun], passes: Callable[[str], bool]
) -> str | None:
    """The note when no cell the answer's values come from ``passes`` the rules and a cell
    that does printed other values for every asked name (the latest such cell); else None."""
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
            said = " ".join(f"@{n}[{given[n]}]" for n in wanted)
            better = " ".join(f"@{n}[{other[n]}]" for n in wanted)
            return (
                f"Your answer {said} comes from a cell that does not compute what the question "
                f"asks (see the earlier note), but a later cell printed {better}. Answer with "
                "the values of the cell that computes what the question asks."
            )
    return None
