"""A group's aggregate assigned to a column of the table it groups (``_groupassign``):
fresh16's ``df['month_total'] = df.groupby('month')['Total'].sum()`` made the column all NaN
(the groups' labels matched against row numbers), the cell printed ``nan`` without an error,
and the model answered from nothing."""

from __future__ import annotations

import pytest

from codeact._execution import ExecutionResult
from codeact.agents._groupassign import group_assign_fix
from tests.helpers import run_one_cell

pytestmark = [pytest.mark.anyio, pytest.mark.filterwarnings("ignore::UserWarning")]

MONTHS = ["March", "April", "May", "May", "April", "May"]
TOTALS = [10.5, 20.25, 30.0, 5.5, 7.0, 1.0]
FILES = {
    "s.csv": (
        "Month,Total\n" + "".join(f"{m},{t}\n" for m, t in zip(MONTHS, TOTALS, strict=True))
    ).encode()
}
QUESTION = (
    "Question: Which month brought in the most, and how much?\n"
    "Format: @month[month_value] @month_total[month_total_value]"
)
CELL = (
    "import pandas as pd\ndf = pd.read_csv('s.csv')\n"
    "df['month_total'] = df.groupby('Month')['Total'].sum().round(2)\n"
    "print(df['month_total'].max())\n"
    "print(df.loc[df['month_total'] == df['month_total'].max(), 'Month'].iloc[0])"
)


async def test_the_cell_is_re_run_with_each_rows_group_value() -> None:
    """Here the cell failed after that line (``.iloc[0]`` of the empty selection)."""
    result = await run_one_cell(FILES, CELL, QUESTION)
    content = str(result.tool_output.content)
    assert "all NaN" in content and ".transform('sum').round(2)" in content, content
    assert content.rstrip().endswith("36.5\nMay"), content  # (May: 30 + 5.5 + 1)
    assert ".transform('sum')" in str(result.tool_kwargs.get("code")), result.tool_kwargs


def test_only_an_aggregate_assigned_to_the_grouped_table_that_can_run_again() -> None:
    ok = ExecutionResult()
    fix = group_assign_fix("import pandas as pd\nd = pd.read_csv('s.csv')\n"
                           "d['n'] = d.groupby(['a', 'b']).agg('size')\nprint(d)", ok)  # fmt: skip
    assert fix is not None and "d['n'] = d.groupby(['a', 'b']).transform('size')" in fix.code
    # already per row, a Series of its own, another table, or a table from an earlier cell
    for code in (
        CELL.replace(".sum()", ".transform('sum')"),
        CELL.replace("df['month_total'] =", "month_total ="),
        CELL.replace("df['month_total'] = df.", "df['month_total'] = other."),
        CELL.replace("df = pd.read_csv('s.csv')\n", "df['x'] = df['Total'] * 2\n"),
    ):
        assert group_assign_fix(code, ok) is None, code


async def test_a_cell_that_ran_is_re_run_but_not_one_failing_before_the_line() -> None:
    ran = CELL.replace(".iloc[0])", ".tolist())")
    content = str((await run_one_cell(FILES, ran, QUESTION)).tool_output.content)
    assert "all NaN" in content and content.rstrip().endswith("36.5\n['May', 'May', 'May']")
    before = CELL.replace("df['month_total'] =", "print(made_up)\ndf['month_total'] =", 1)
    content = str((await run_one_cell(FILES, before, QUESTION)).tool_output.content)
    assert "NameError" in content and "transform" not in content, content
