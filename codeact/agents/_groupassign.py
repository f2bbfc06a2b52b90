"""A group's aggregate assigned to a column of the frame it groups (fresh16:
``df['month_total'] = df.groupby('month')['Total'].sum().round(2)``): pandas matches the
groups' labels ('March', ...) with the rows' (0, 1, ...), so the column comes out all NaN and
the cell's ``max()`` printed nan. The cell ran without an error, so the model answered from
nothing. It is run again with ``.transform('sum')``, which gives each row its group's value
(``group_assign_fix``)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from codeact.agents._unusedfix import failing_lineno, safe_to_repeat
from codeact.executors.base import ExecutionResult

_AGGS = "sum|mean|median|count|size|min|max|std|var|nunique|first|last|prod"
#: ``frame['c'] = frame.groupby(...)[...].agg()`` (or ``.agg('agg')``), at the top level
_ASSIGN = re.compile(
    r"^(?P<head>(?P<frame>[A-Za-z_]\w*)\s*\[\s*(['\"])[^'\"\n]+\3\s*\]\s*=\s*(?P=frame)\s*\."
    r"\s*groupby\((?:[^()\n]|\([^()\n]*\))*\)(?:\s*\[[^\]\n]+\])?\s*\.\s*)"
    rf"(?:(?P<agg>{_AGGS})\(\s*\)|agg\(\s*(?P<q>['\"])(?P<named>{_AGGS})(?P=q)\s*\))"
    r"(?=(?:\s*\.\s*round\([^()\n]*\))?\s*(?:#.*)?$)",  # (nothing after it but a rounding)
    re.MULTILINE,
)


@dataclass(frozen=True)
class GroupAssignFix:
    """A cell re-run with its group aggregates assigned to columns made per-row."""

    code: str
    lines: tuple[str, ...]

    def note(self) -> str:
        """What the model (and the transcript) is told about the re-run."""
        shown = "; ".join(f"`{line.strip()}`" for line in self.lines)
        return (
            "Your cell assigned a groupby result (one value per group, labelled by the group) "
            "to a column of the table it grouped (one row per record): pandas matched those "
            "labels with the row numbers, so the column was all NaN. I re-ran your cell with "
            f".transform(...), which gives each row its group's value: {shown}. To find the "
            "top group, keep the grouped result as its own Series (totals = "
            "df.groupby(key)[col].sum(); print(totals.idxmax(), totals.max())). Output of the "
            "re-run:"
        )


def group_assign_fix(code: str, result: ExecutionResult) -> GroupAssignFix | None:
    """The cell with each ``frame['c'] = frame.groupby(...)[...].agg()`` made
    ``.transform('agg')``, when it has one, the cell ran (or failed after that line: an empty
    selection of the NaN column) and the whole cell can run again; else None."""
    found = _ASSIGN.search(code)
    if found is None:
        return None
    if result.error is not None:
        failing = failing_lineno(result.error.traceback)
        if failing is None or failing <= code.count("\n", 0, found.start()) + 1:
            return None
    end = f'File "<cell>", line {len(code.splitlines()) + 1}'
    if not safe_to_repeat(code, end):
        return None

    def made(m: re.Match[str]) -> str:
        return f"{m.group('head')}transform({(m.group('agg') or m.group('named'))!r})"

    fixed = _ASSIGN.sub(made, code)
    changed = tuple(line for line in fixed.splitlines() if line not in code.splitlines())
    return GroupAssignFix(code=fixed, lines=changed)
