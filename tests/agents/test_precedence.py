"""Comparisons joined with ``&``/``|`` without parentheses (``_precedence``): the failed cell
is re-run with each comparison in parentheses, and its output is what the line meant."""

from __future__ import annotations

import pytest

from codeact._execution import CellError, ExecutionResult
from codeact.agents._precedence import precedence_fix
from tests.helpers import run_one_cell

FAILED = ExecutionResult(
    error=CellError(type="TypeError", message="unsupported operand type(s) for &: 'str' and 'bool'")
)


@pytest.mark.parametrize(
    ("code", "fixed"),
    [
        (  # the slip as a small model writes it
            "m = df[df['e'].str.upper() != 'TRUE' & df['e'] != '1']",
            "m = df[(df['e'].str.upper() != 'TRUE') & (df['e'] != '1')]",
        ),
        (
            "n = (df.a > 1 & df.b < 2 | df.c == 3).sum()",
            "n = ((df.a > 1) & (df.b < 2) | (df.c == 3)).sum()",
        ),
        # a mask first or last: only the comparison is parenthesised
        ("print(df[mask & df.b > 1])", "print(df[(mask) & (df.b > 1)])"),
        ("print(df[df.b > 1 | mask])", "print(df[(df.b > 1) | (mask)])"),
        # two chains on one line, each rewritten
        (
            "x = df[df.a == 1 & df.b == 2]; y = df[df.c < 3 | df.d > 4]",
            "x = df[(df.a == 1) & (df.b == 2)]; y = df[(df.c < 3) | (df.d > 4)]",
        ),
    ],
)
def test_comparison_chains_split_at_and_or_are_parenthesised(code: str, fixed: str) -> None:
    fix = precedence_fix(FAILED, code)
    assert fix is not None and fix.code == fixed
    assert fix.rewritten[0][0] in code and "& and | bind tighter" in fix.note()


@pytest.mark.parametrize(
    "code",
    [
        "m = df[(df.a != 'x') & (df.b != 'y')]",  # already right
        "m = df[df.a != ('x' & df.b)]",  # parenthesised as written: meant so
        "m = df[(df.a & df.b) > 1]",
        "m = df[df.a != 'x' & df.b & df.c != 'y']",  # a & b & c inside one link: not guessed
        "print(df.a.sum(",  # does not parse
    ],
)
def test_code_that_is_not_the_slip_is_left_alone(code: str) -> None:
    assert precedence_fix(FAILED, code) is None


def test_a_cell_that_ran_is_never_rewritten() -> None:
    assert precedence_fix(ExecutionResult(stdout="3\n"), "n = (df.a > 1 & df.b < 2).sum()") is None


@pytest.mark.anyio
@pytest.mark.filterwarnings("ignore::UserWarning")
async def test_the_failed_cell_is_re_run_with_parentheses_and_the_model_sees_the_count() -> None:
    data = b"id,Estimated\n" + b"".join(
        b"%d,%s\n" % (i, [b"yes", b"TRUE", b"no", b"1", b"0"][i % 5]) for i in range(20)
    )
    cell = (
        "import pandas as pd\ndf = pd.read_csv('m.csv')\n"
        "e = df['Estimated'].astype(str).str.upper()\n"
        "print(len(df[e != 'TRUE' & e != '1']))"
    )
    result = await run_one_cell({"m.csv": data}, cell, "How many?", "@n[12]")
    said = str(result.tool_output.content)
    assert "I re-ran your cell" in said and "(e != 'TRUE') & (e != '1')" in said
    assert "12" in said.split("Output of the re-run:")[1]
    assert not result.tool_output.is_error
