"""A whole table averaged with its text columns in it (``_numericfix``): the failed cell is
re-run with ``numeric_only=True`` and prints what the line meant."""

from __future__ import annotations

import pytest

from codeact._execution import CellError, ExecutionResult
from codeact.agents._numericfix import numeric_fix
from tests.helpers import run_one_cell

WIDE = (
    b"Tariff,Name,Jan,Feb\nSTD,Standard,26.5,27.5\nFIX,Fixed 24,31.0,30.5\nEV,EV Saver,20.0,21.0\n"
)


def failed(line: str, message: str = "Could not convert 'STD' to numeric") -> ExecutionResult:
    trace = (
        f'Traceback (most recent call last):\n  File "<cell-1>", line 3\n    {line}\nTypeError: x'
    )
    return ExecutionResult(error=CellError(type="TypeError", message=message, traceback=trace))


@pytest.mark.parametrize(
    ("line", "fixed"),
    [
        ("m = df.mean(axis=1)", "m = df.mean(axis=1, numeric_only=True)"),
        ("print(df.sum())", "print(df.sum(numeric_only=True))"),
        ("m = df.mean(axis=1, )", "m = df.mean(axis=1, numeric_only=True)"),
        (
            "m = df.set_index('Tariff').mean(axis=1)",
            "m = df.set_index('Tariff').mean(axis=1, numeric_only=True)",
        ),
        # one column's mean is not a table's: left alone
        ("m = df['Name'].mean()", None),
        ("m = df.mean(numeric_only=False)", None),
    ],
)
def test_aggregates_of_a_whole_table_get_numeric_only(line: str, fixed: str | None) -> None:
    code = f"import pandas as pd\ndf = pd.read_csv('t.csv')\n{line}\nprint(m)"
    fix = numeric_fix(failed(line), code)
    assert (fix.line if fix else None) == fixed
    assert numeric_fix(failed(line, "division by zero"), code) is None


@pytest.mark.anyio
@pytest.mark.filterwarnings("ignore::UserWarning")
async def test_the_row_means_of_a_wide_table_are_re_run_over_its_numbers() -> None:
    cell = (
        "import pandas as pd\ndf = pd.read_csv('t.csv')\nm = df.mean(axis=1)\n"
        "print(df.loc[m.idxmax(), 'Tariff'], round(m.max(), 2))"
    )
    result = await run_one_cell({"t.csv": WIDE}, cell, "Dearest?", "@t[FIX]")
    said = str(result.tool_output.content)
    assert not result.tool_output.is_error, said
    assert "numeric_only=True" in said
    assert said.rstrip().endswith("FIX 30.75")


@pytest.mark.anyio
@pytest.mark.filterwarnings("ignore::UserWarning")
async def test_whole_numbers_asked_of_a_column_with_gaps_are_re_run_as_floats() -> None:
    """fresh14 (blind): ``df['Pages'].str.replace(',', '').astype(int)`` on page counts empty
    for DVDs failed ("cannot convert float NaN to integer"); the model then dropped the
    missing rows in a cell of its own and answered about DVDs."""
    from codeact.agents._numericfix import integer_fix

    data = b'Ref,Format,Pages\n1,Book,"1,024"\n2,DVD,\n3,Book,200\n4,Book,376\n'
    cell = (
        "import pandas as pd\ndf = pd.read_csv('p.csv')\n"
        "df['Pages'] = df['Pages'].str.replace(',', '').astype(int)\n"
        "print(df[df['Format'] == 'Book']['Pages'].mean())"
    )
    result = await run_one_cell({"p.csv": data}, cell, "What is the mean of Pages of books?")
    content = result.tool_output.content
    assert ".astype(float) in place of .astype(int)" in content, content
    assert content.rstrip().endswith("533.3333333333334"), content
    # another failure, or a line without astype(int): left alone
    line = "df['Pages'] = df['Pages'].fillna(0)"
    nan = "cannot convert float NaN to integer"
    assert integer_fix(failed(line, nan), f"{line}\nprint(1)") is None
    assert integer_fix(failed("x = df['P'].astype(int)"), "x = df['P'].astype(int)") is None
    fixed = integer_fix(failed("x = df['P'].astype('int64')", nan), "x = df['P'].astype('int64')")
    assert fixed is not None and fixed.code == "x = df['P'].astype(float)"
