"""The rules on which rows a computation counts, asked after the duplicates rule (``_rules``):
repeats counted with their first copy, total rows left in, a filter the cell contradicts,
rows dropped for values missing in columns nothing uses, missing ones looked for by words,
percentages made fractions then compared as percent."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from codeact.agents._contradict import contradiction_problem
from codeact.agents._dropna import extra_dropna_problem
from codeact.agents._isinna import isin_marker_problem
from codeact.agents._pctfix import fraction_compare_problem
from codeact.agents._repeats import keep_all_problem
from codeact.agents._totals import totals_problem


def row_rules(question: str, code: str) -> Iterator[tuple[str, Callable[[], str | None]]]:
    """Each rule's name and how to ask it of ``code``, in the order they are told."""
    yield "keep all", lambda: keep_all_problem(question, code)
    yield "totals", lambda: totals_problem(question, code)
    yield "contradiction", lambda: contradiction_problem(question, code)
    yield "extra dropna", lambda: extra_dropna_problem(question, code)
    yield "isin marker", lambda: isin_marker_problem(question, code)
    yield "fraction compare", lambda: fraction_compare_problem(question, code)
