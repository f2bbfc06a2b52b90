"""A call given a keyword argument it does not take (``_keywordfix``): fresh14 (blind)
wrote ``df['Fine'].str.extract(r'£(\\d+\\.\\d+)', regex=True)`` and rewrote everything else
instead of dropping ``regex=True``."""

from __future__ import annotations

import pytest

from codeact._execution import CellError, ExecutionResult
from codeact.agents._keywordfix import keyword_fix
from tests.helpers import run_one_cell

pytestmark = [pytest.mark.anyio, pytest.mark.filterwarnings("ignore::UserWarning")]

FILES = {"f.csv": b"Ref,Fine\nA,\xc2\xa31.40\nB,none\nC,\xc2\xa32.10\n"}


async def test_the_keyword_a_call_does_not_take_is_left_out_and_the_cell_re_run() -> None:
    cell = (
        "import pandas as pd\ndf = pd.read_csv('f.csv')\n"
        "print(df['Fine'].str.extract(r'£(\\d+\\.\\d+)', regex=True)[0].astype(float).sum())"
    )
    result = await run_one_cell(FILES, cell, "Question: Total fines?")
    content = str(result.tool_output.content)
    assert "extract() takes no regex= argument" in content
    assert content.rstrip().endswith("3.5"), content


def test_only_the_named_calls_keyword_on_the_failing_line_goes() -> None:
    trace = 'File "<cell-1>", line 2, in <module>\nTypeError: ...'
    message = "StringMethods.extract() got an unexpected keyword argument 'regex'"
    failed = ExecutionResult(error=CellError(type="TypeError", message=message, traceback=trace))
    code = "x = s.str.replace('a', 'b', regex=True)\ny = s.str.extract(r'(\\d)', regex=True)"
    fix = keyword_fix(failed, code)
    assert fix is not None
    assert fix.code == "x = s.str.replace('a', 'b', regex=True)\ny = s.str.extract(r'(\\d)')"
    other = ExecutionResult(error=CellError(type="TypeError", message="bad", traceback=trace))
    assert keyword_fix(other, code) is None
    assert keyword_fix(failed, "x = 1\ny = s.str.extract(r'(\\d)')") is None  # (nothing to drop)


async def test_a_text_that_is_no_regular_expression_is_searched_as_written() -> None:
    files = {"t.csv": b"Txn,Amount,Tickets\nA,($45.00),2\nB,$12.50,1\nC,($9.00),3\nD,$7.00,4\n"}
    cell = (
        "import pandas as pd\ndf = pd.read_csv('t.csv')\n"
        "print(df[df['Amount'].str.contains('($')]['Tickets'].sum())"
    )
    result = await run_one_cell(files, cell, "Question: How many tickets were refunded?")
    content = str(result.tool_output.content)
    assert "I re-ran your cell with regex=False" in content
    assert content.rstrip().endswith("5"), content


def test_only_a_literal_that_does_not_compile_gets_regex_false() -> None:
    from codeact.agents._keywordfix import regex_fix

    trace = 'File "<cell-1>", line 2, in <module>\nre.error: ...'
    failed = ExecutionResult(
        error=CellError(type="error", message="missing ), unterminated subpattern", traceback=trace)
    )
    code = "a = s.str.contains(r'^\\d+$')\nb = s.str.contains(r'^\\d+') & s.str.contains('($')"
    fix = regex_fix(failed, code)
    assert fix is not None
    assert fix.code.splitlines()[1] == (
        "b = s.str.contains(r'^\\d+') & s.str.contains('($', regex=False)"
    )
    assert regex_fix(failed, "a = 1\nb = s.str.contains('(x)')") is None  # (a regex)


async def test_dates_made_python_dates_then_read_with_dt_are_re_run_normalized() -> None:
    files = {"s.csv": b"Txn,showDate\nA,3/9/2024\nB,3/10/2024\nC,3/11/2024\nD,3/16/2024\n"}
    cell = (
        "import pandas as pd\ndf = pd.read_csv('s.csv')\n"
        "df['showDate'] = pd.to_datetime(df['showDate'], format='%m/%d/%Y')\n"
        "df['showDate'] = df['showDate'].dt.date\n"
        "print(df['showDate'].dt.strftime('%A').isin(['Saturday', 'Sunday']).sum())"
    )
    result = await run_one_cell(files, cell, "Question: How many weekend sales?")
    content = str(result.tool_output.content)
    assert "re-ran your cell with .dt.normalize() in its place" in content, content
    assert content.rstrip().endswith("3"), content


async def test_a_misspelt_name_the_cell_defines_is_re_run_spelt_as_defined() -> None:
    files = {"d.csv": b"Docket,Status\n30001,C\n30002,V\n30001,C\n30003,C\n"}
    cell = (
        "import pandas as pd\ndf = pd.read_csv('d.csv')\ndockets = df['Docket'].tolist()\n"
        "print(len(doockets) - len(set(dockets)))"
    )
    result = await run_one_cell(files, cell, "Question: How many dockets repeat?")
    content = str(result.tool_output.content)
    assert "I re-ran your cell with 'dockets' in its place" in content, content
    assert content.rstrip().endswith("1"), content
    # a name with two near spellings, or none, is left failing
    from codeact.agents._keywordfix import name_fix

    trace = 'File "<cell-1>", line 3, in <module>\nNameError: ...'
    failed = ExecutionResult(
        error=CellError(type="NameError", message="name 'totl' is not defined", traceback=trace)
    )
    assert name_fix(failed, "total = 1\ntotal2 = 2\nprint(totl)") is None
    assert name_fix(failed, "count = 1\nx = 2\nprint(totl)") is None  # (nothing near)
