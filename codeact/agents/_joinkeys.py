"""Keys written differently in two files: ``'AG-019'`` in one table's Agent column is ``19`` in
another's ``agent_id``. A merge on the columns as they are matches nothing (or fails on the
dtypes), and the small model does not see why; the files note says how to join them."""

from __future__ import annotations

import re

from codeact.agents._csvtable import Table
from codeact.agents._filenote import NA_STRINGS

KEY_ROWS = 5_000
MAX_COLUMNS = 60
#: A code: letters, an optional separator, then the number (``AG-019``, ``INC0001001``).
_CODE = re.compile(r"^([A-Za-z]+[-_ #]?)(\d+)$")
_WHOLE = re.compile(r"^\d+$")


def _columns(table: Table) -> dict[str, list[str]]:
    """The first ``KEY_ROWS`` present values of each of the first ``MAX_COLUMNS`` columns."""
    out = {}
    for name, values in zip(table.header[:MAX_COLUMNS], table.columns, strict=False):
        present = [v.strip() for v in values[:KEY_ROWS] if v.strip() not in NA_STRINGS]
        if present:
            out[name] = present
    return out


def _word(name: str) -> str:
    return re.sub(r"[^a-z]", "", name.lower())


def _linked(code_column: str, key_column: str) -> bool:
    """The names say the two hold the same thing (``Agent`` and ``agent_id``)."""
    code, key = _word(code_column), _word(key_column)
    return len(code) >= 2 and len(key) >= 2 and (code in key or key in code)


def key_hints(parsed: dict[str, Table]) -> list[str]:
    """For each code column of one file (one prefix, then a number) whose numbers are the
    values of another file's key column (whole numbers, each once) of a linked name
    (``Agent``, ``agent_id``): how to join the two."""
    tables = {name: _columns(table) for name, table in parsed.items()}
    keys = {  # (file, column): its whole numbers, for the columns that are keys
        (name, col): {int(v) for v in values}
        for name, columns in tables.items()
        for col, values in columns.items()
        if len(set(values)) == len(values) and all(_WHOLE.match(v) for v in values)
    }
    hints = []
    for a, columns in tables.items():
        for col, values in columns.items():
            found = [m for v in values if (m := _CODE.match(v))]
            if len(found) < len(values) or len({m.group(1) for m in found}) != 1:
                continue
            numbers = {int(m.group(2)) for m in found}
            for (b, key), wholes in keys.items():
                if b == a or not _linked(col, key):
                    continue
                small = min(len(numbers), len(wholes))
                if small >= 3 and len(numbers & wholes) >= 0.8 * small:
                    hints.append(
                        f"- Keys written differently: {col!r} of {a!r} (e.g. {values[0]!r}) is "
                        f"{key!r} of {b!r} (e.g. {int(found[0].group(2))}). Join on the number: "
                        f"df[{col!r}].str.extract(r'(\\d+)')[0].astype(int)"
                    )
    return hints
