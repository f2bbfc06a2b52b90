"""The count or total of a label the code found but never printed (``label_value``): fresh16
asked for the payment method of most sales *and* its number of sales; the model's cell
printed ``payment_counts.idxmax()`` alone, re-ran it three times, and the step limit came
with no value for the count. A note that names the line printing it (and the code the agent
runs if the model re-sends the cell instead) closes that gap."""

from __future__ import annotations

import re
from collections.abc import Sequence

from codeact.agents._candidate import CellRun
from codeact.agents._placeholders import required_placeholders

#: ``label = series.idxmax()`` (or idxmin, or ``series.index[0]`` of a sorted series), one line
_LABEL = re.compile(
    r"^[ \t]*(?P<label>[A-Za-z_]\w*)\s*=\s*(?P<series>[A-Za-z_]\w*(?:\[[^\]\n]*\])?)"
    r"\s*\.\s*(?:idxmax\(\s*\)|idxmin\(\s*\)|index\s*\[\s*0\s*\])\s*$",
    re.MULTILINE,
)


#: How the series was made: counted (``value_counts()``, ``size()``, ``count()``) or summed.
_KINDS = re.compile(r"\.(value_counts|size|count|sum)\(")
#: The question's words for each kind.
_COUNTED = r"\bhow many\b|\bnumber of\b|\bcount\b"
_ASKED = {"value_counts": _COUNTED, "size": _COUNTED, "count": _COUNTED}
_ASKED["sum"] = r"\btotal\b|\bsum\b|\bhow much\b"


def label_value(question: str, cells: Sequence[CellRun], missing: Sequence[str]) -> str | None:
    """``print(series[label])`` when the question asks for more than one value, exactly one
    of them (``missing``) has no printed value, and the last successful cell found a label as
    the top (or bottom) of a named series without printing the series' value for it; else
    None."""
    wanted = required_placeholders(question)
    if len(missing) != 1 or len(wanted) < 2 or missing[0] == wanted[0]:
        return None  # (the label is asked first: "which ..., and how many")
    ok = [c for c in cells if c.error is None]
    if not ok or len([ln for ln in ok[-1].stdout.splitlines() if ln.strip()]) > 1:
        return None  # (it printed more than the label: the value may be there)
    code = ok[-1].code
    found = list(_LABEL.finditer(code))
    if len(found) != 1:
        return None
    label, series = found[0].group("label"), found[0].group("series")
    made = re.search(rf"^\s*{re.escape(series)}\s*=(.*)$", code, re.M)
    kind = _KINDS.search(made.group(1)) if made else None
    if kind is None or not re.search(_ASKED[kind.group(1)], question, re.I):
        return None  # (a count asked as a count, a total as a total: not a mean's label)
    printed = rf"print\([^\n]*{re.escape(series)}\s*(?:\[|\.\s*(?:max|min|iloc|loc)\b)"
    if re.search(printed, code):
        return None
    return f"print({series}[{label}])"


def label_value_hint(
    question: str, cells: Sequence[CellRun], missing: Sequence[str]
) -> tuple[str, str | None]:
    """What the model is told to print for the missing value, and the last successful cell
    with that line added (what the agent runs when the model re-sends a cell instead); ``("",
    None)`` when ``label_value`` finds nothing."""
    line = label_value(question, cells, missing)
    if line is None:
        return "", None
    code = [c for c in cells if c.error is None][-1].code
    note = (
        f" Your last cell found the label but printed no value for @{missing[0]}: add "
        f"{line} to it and run it."
    )
    return note, f"{code.rstrip()}\n{line}"
