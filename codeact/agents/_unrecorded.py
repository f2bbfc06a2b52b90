"""Values the question says stand for a missing one ("'n/a' means it was not taken",
"empty or 'n/k' when it was not measured", "'N/A', empty, '--' or 'null' if unrecorded"):
how the filter rule reads them, and the runnable code that reads the file with them as NaN
(split from ``_filters``)."""

from __future__ import annotations

import re

#: After a quoted value: that it stands for a missing one ("'n/a' means it was not taken").
MEANS_MISSING = re.compile(
    r"\s*(?:means?|stands? for|marks?)\s+(?:(?:it|that|the \w+)\s+(?:was|is|were)\s+)?"
    r"(?:missing|unknown|not (?:taken|measured|recorded|known|available|given)|no (?:value|data))",
    re.I,
)
#: After a quoted value: that rows written so have no value (``empty or '--:--' was not
#: recorded``, ``empty or 'n/k' when it was not measured``, ``'--' if unrecorded``).
_NOT_RECORDED = (
    r"\s*\)?\s*(?:(?:values?|entries|rows?|cells?)\s+)?(?:(?:when|if)\s+(?:it|they|the\s+\w+)\s+)?"
    r"(?:(?:was|were|is|are)\s+"
    r"(?:not (?:recorded|taken|measured|known|given|available)|missing|unknown)"
    r"|(?:means?|marks?) (?:missing|no value|none)"
    r"|(?:if|when)\s+(?:unrecorded|not recorded|missing|unknown))\b"
)
_SAID = re.compile(_NOT_RECORDED, re.I)
#: The same after the rest of a list ("'N/A', empty, '--' or 'null' if unrecorded": fresh18).
_LISTED = re.compile(
    r"(?:\s*(?:,|,?\s*or|,?\s*and)\s*(?:'[^'\n]*'|empty|blank))+" + _NOT_RECORDED, re.I
)
#: What a marker for no value looks like: no letters, or a word for none.
_MARKER = re.compile(r"[^A-Za-z]*|n/?[ak]|null|none|nil|nan|unknown|missing|not recorded", re.I)
#: An instruction to fill the gaps with the value, not a marker: "use 'Unknown' if missing".
_FILL = re.compile(r"\b(?:use|fill|replace|set|with|as)\b[^.;'\n]{0,30}$", re.I)
HANDLES_MISSING = re.compile(r"fillna|isna|notna|isnull|notnull|dropna|interpolate|na_values")


def not_recorded(task: str, start: int, end: int, value: str) -> bool:
    """Whether the question says the quoted ``value`` (at ``start``..``end`` of ``task``)
    marks rows with no value: said right after it, or after the rest of a list of markers
    (then only for a value that looks like one: "'High', 'Low' or empty when unknown" lists
    priorities); not an instruction to fill gaps with it."""
    if _FILL.search(task[max(0, start - 40) : start]):
        return False
    if _SAID.match(task, end):
        return True
    return bool(_MARKER.fullmatch(value.strip())) and _LISTED.match(task, end) is not None


def with_na_values(code: str, value: str) -> str | None:
    """``code`` with ``na_values=[value]`` in its one ``pd.read_csv`` call (fresh18: '--' for
    a booking time not recorded, 12 of 47 rows left out), or None."""
    reads = list(re.finditer(r"\bpd\.read_csv\(([^()\n]*)\)", code))
    if len(reads) != 1 or "na_values" in reads[0].group(1):
        return None
    m = reads[0]
    return f"{code[: m.end() - 1]}, na_values=[{value!r}]{code[m.end() - 1 :]}"
