"""Every value of a text column, when the files note shows them all (its folded list,
"the values are ...", or all of its few distinct values as examples)."""

from __future__ import annotations

import re

#: The files note's whole list of a column's values, folded: "(folded, the values are 'a', 'b')".
_FOLDED_LIST = re.compile(r"folded, the values are ((?:'[^'\n]*'(?:, )?)+)")
#: A column's few values, all shown: "5 distinct values, e.g. 'Forst', ..." (five of them).
_ALL_SHOWN = re.compile(r"\b(\d+) distinct values, e\.g\. (.*)$")


def all_values(kind: str) -> set[str]:
    """Every value of a text column, folded (case and outer spaces), when the note's
    description ``kind`` shows them all; else none."""
    listed = _FOLDED_LIST.search(kind)
    if listed:
        return {v.strip().lower() for v in re.findall(r"'([^'\n]*)'", listed.group(1))}
    shown = _ALL_SHOWN.search(kind)
    values = re.findall(r"'([^'\n]*)'", shown.group(2)) if shown else []
    if shown and len(values) == int(shown.group(1)):
        return {v.strip().lower() for v in values}
    return set()
