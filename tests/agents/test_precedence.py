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
        # a mask last: only the comparison is parenthesised
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
        # where the operators mean what Python says: a bit test, a set union
        "m = df[df.n & 1 == 0]",
        "print('a' in s1 | s2)",
    ],
)
def test_code_that_is_not_the_slip_is_left_alone(code: str) -> None:
    assert precedence_fix(FAILED, code) is None


def test_only_the_slips_error_on_its_own_line_is_rewritten() -> None:
    chain = "n = (df.a > 1 & df.b < 2).sum()"
    assert precedence_fix(ExecutionResult(stdout="3\n"), chain) is None  # (it ran)
    other = CellError(type="KeyError", message="'c'")
    assert precedence_fix(ExecutionResult(error=other), chain) is None  # (another error)
    trace = (
        'Traceback (most recent call last):\n  File "<cell-1>", line 2, in <module>\n    y = z\n'
    )
    elsewhere = CellError(type="TypeError", message=FAILED.error.message, traceback=trace)  # type: ignore[union-attr]
    assert precedence_fix(ExecutionResult(error=elsewhere), f"{chain}\ny = z") is None
    here = trace.replace("y = z", chain).replace("line 2", "line 1")
    on_it = CellError(type="TypeError", message=FAILED.error.message, traceback=here)  # type: ignore[union-attr]
    assert precedence_fix(ExecutionResult(error=on_it), f"{chain}\ny = z") is not None


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
