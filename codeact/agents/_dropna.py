"""Rows dropped for a value missing in a column nothing uses (fresh20: ``df.dropna(subset=
['Volume', 'OG (°P)', 'ABV', 'Brewhouse Time', 'QC', 'Packaged', 'Package', 'Cost (Kč)'])``
before adding up the Volume: every batch not yet checked or packaged went too). The 1.5B model
"cleans" a table before it computes; a row missing a value the answer never reads is still a
row. The cell is sent back, and the runnable code drops rows only on the columns it uses.
"""

from __future__ import annotations

import re

from codeact.agents._notecols import note_column_kinds, past_conversions, task_text, uses_column
from codeact.agents._problem import Problem, problem_of
from codeact.agents._totals import totals_left_empty

#: ``.dropna(subset=[...])`` (its list, as written).
_SUBSET = re.compile(r"\.dropna\(\s*subset\s*=\s*\[(?P<names>[^\]\n]*)\]\s*(?:,\s*)?\)")
_QUOTED = re.compile(r"'([^'\n]*)'|\"([^\"\n]*)\"")


def _bare(name: str) -> str:
    """A column's name as a question writes it: lower case, without its unit in brackets
    (``'Cost (Kč)'``: ``'cost'``)."""
    return re.sub(r"\s*[(\[][^)\]]*[)\]]", "", name).strip().lower() or name.strip().lower()


def extra_dropna_problem(question: str, code: str) -> Problem | None:
    """A ``dropna(subset=[...])`` listing columns of the files note that no other line of the
    code uses (their in-place conversions aside) and the question never names: those rows
    are dropped for nothing. The fix keeps the used columns in the list (or leaves the call
    out when none is)."""
    m = _SUBSET.search(code)
    if m is None:
        return None
    listed = [a or b for a, b in _QUOTED.findall(m.group("names"))]
    columns = {name for name, _kind in note_column_kinds(question)}
    task = task_text(question).lower()
    rest = code[: m.start()] + code[m.end() :]
    blank = totals_left_empty(question)  # (dropped where empty: the total rows go)
    unused = [
        n
        for n in listed
        if n in columns
        and n not in blank
        and not uses_column(past_conversions(rest, n), n)
        and not re.search(rf"(?<!\w){re.escape(_bare(n))}(?!\w)", task)
    ]
    if not unused:
        return None
    kept = [n for n in listed if n not in unused]
    if kept:
        fixed = code[: m.start()] + f".dropna(subset={kept!r})" + code[m.end() :]
    else:
        line = re.compile(rf"^(\w+)\s*=\s*\1{re.escape(m.group(0))}\s*$", re.M)
        fixed = line.sub("", code) if line.search(code) else rest
    shown = ", ".join(repr(n) for n in unused)
    return problem_of(
        f"Your code drops the rows missing a value in {shown} (dropna(subset=...)), but "
        "nothing else in it uses those columns and the question does not ask about them: a row "
        "missing a value there still counts. Drop rows only on the columns you compute with; "
        "run your code again, print the result, then answer.",
        fixed,
    )
