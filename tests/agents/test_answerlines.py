"""A cell ending with its answer written as code (``_answerlines``): fresh12 (blind) ended a
cell with ``@price_per_m2[round(df_price_per_m2.iloc[0, 1], 2)]``, a SyntaxError, and sent the
same cell four times. The agent re-runs it with the line printed (an expression of the cell's
names) or left out (a written value: never printed as if computed)."""

from __future__ import annotations

import pytest

from codeact._execution import CellError, ExecutionResult
from codeact.agents._answerlines import answer_line_fix
from tests.agents.test_colfix import CSV, READ
from tests.helpers import run_one_cell

pytestmark = [pytest.mark.anyio, pytest.mark.filterwarnings("ignore::UserWarning")]

FAILED = ExecutionResult(error=CellError(type="SyntaxError", message="invalid syntax"))


async def test_an_answer_line_in_a_cell_is_printed_with_its_computed_value() -> None:
    question = "What is the top wind speed? Answer as @top[value]."
    cell = f"{READ}top = df[' WINDSPEED'].max()\n@top[round(top, 2)]"
    result = await run_one_cell({"w.csv": CSV}, cell, question, "@top[4.5]")
    content = result.tool_output.content
    assert not result.tool_output.is_error, content
    assert 'printed print(f"@top[{round(top, 2)}]")' in content
    assert content.rstrip().endswith("@top[4.5]")


def test_written_values_are_left_out_and_other_failures_left_alone() -> None:
    code = "x = 2\n@a[x * 3] @b[Cathedral Quarter]\n@c[5178.28]"
    fix = answer_line_fix(FAILED, code)
    assert fix is not None
    assert fix.code == 'x = 2\nprint(f"@a[{x * 3}]")\npass'
    assert "left out @b[Cathedral Quarter], @c[5178.28] (no value your cell computes)" in fix.note()
    # review: a bare word, the format's own placeholder and nan are written values too; a
    # format spec in braces, tokens split by a comma and a trailing comment are read
    words = answer_line_fix(FAILED, "mean = 2.5\n@city[Porto] @n[v] @m[nan]")
    assert words is not None and words.code == "mean = 2.5\npass"
    spec = answer_line_fix(FAILED, "mean = 2.5\nn = 3\n@mean[{mean:.2f}], @n[n]  # the answer")
    assert spec is not None and spec.code.endswith('print(f"@mean[{mean}] @n[{n}]")')
    # a decorator stays; a cell that ran, or failed otherwise, is not touched
    decorated = "import functools\n@functools.lru_cache\ndef f():\n    return 1\n@a[f()]"
    assert "@functools.lru_cache\ndef f()" in (answer_line_fix(FAILED, decorated) or fix).code
    assert answer_line_fix(ExecutionResult(stdout="1"), code) is None
    other = ExecutionResult(error=CellError(type="NameError", message="name 'x' is not defined"))
    assert answer_line_fix(other, code) is None
    # a cell with another syntax error left after the fix is left to the model
    assert answer_line_fix(FAILED, "x = (\n@a[x]") is None


async def test_a_placeholder_word_after_a_value_named_like_the_answer_prints_that_value() -> None:
    """fresh16 (blind): ``big_sales = df[df['Qty'] > 40]`` then ``@big_sales[big_sales_value]``:
    the line was left out, nothing printed, and the model echoed the note (which quoted the
    code tag) four times."""
    question = "How many readings had a wind speed over 4? Answer as @windy[windy_value]."
    cell = f"{READ}windy = df[df[' WINDSPEED'] > 4]\n@windy[windy_value]"
    result = await run_one_cell({"w.csv": CSV}, cell, question, "@windy[1]")
    content = str(result.tool_output.content)
    assert "<execute>" not in content
    expected = sum(1 for v in CSV.decode().splitlines()[1:] if float(v.split(",")[1]) > 4)
    assert content.rstrip().endswith(f"@windy[{expected}]"), content
    # a number named like the answer is printed as it is; a written value is still left out
    fix = answer_line_fix(FAILED, "n = 3\n@n[n_value] @city[Porto]", "How many rows?")
    assert fix is not None and fix.code == (
        "n = 3\nn = len(n) if hasattr(n, 'columns') else n\nprint(f\"@n[{n}]\")"
    )
    # review: not a count, a one-row table is not its length; a token with quotes beside it
    other = answer_line_fix(FAILED, 't = 3\n@t[t_value] @s[df["Qty"].sum()]', "Which product?")
    assert other is not None and "len(" not in other.code


def test_a_long_line_of_unclosed_tokens_is_read_in_one_pass() -> None:
    """review: a nested regex took exponential time on a line of tokens left unclosed (22
    tokens: 1 s, doubling with each); the scanner reads it once."""
    line = "x = 1\n" + "@total[x] " * 400 + "@total["
    assert answer_line_fix(FAILED, line) is None


async def test_a_printed_placeholder_word_is_followed_by_the_value_the_cell_computed() -> None:
    """fresh13 (after its tuning): ``late = ...`` then ``print("@late_next_day[late_next_day_
    value]")``, the format's own placeholder word printed as text, six cells in a row: no
    value ever reached the answer. The print of the value the cell bound runs after it."""
    question = (
        "Question: What is the top wind speed?\nFormat: @top[top_value] where top_value is a "
        "float. Answer as @top[value]."
    )
    cell = f"{READ}top = df[' WINDSPEED'].max()\nprint('@top[top_value]')"
    result = await run_one_cell({"w.csv": CSV}, cell, question, "@top[4.5]")
    content = result.tool_output.content
    assert not result.tool_output.is_error, content
    assert 'I ran print(f"@top[{top}]") after it' in content
    assert content.rstrip().endswith("@top[4.5]"), content


def test_placeholder_prints_need_a_bound_value_and_a_written_text() -> None:
    from codeact.agents._answerlines import placeholder_print_fix

    question = "Question: How many?\nFormat: @late[late_value] where late_value is an integer."
    printed = ExecutionResult(stdout="@late[late_value]\n")
    fix = placeholder_print_fix(question, printed, "late = 33\nprint('@late[late_value]')")
    assert fix is not None and fix.code == 'print(f"@late[{late}]")'
    # a word the cell binds is printed itself; a value that is a word, an f-string's own
    # output, a failed cell, or nothing bound: left alone
    named = placeholder_print_fix(
        question, ExecutionResult(stdout="@late[n]\n"), "n = 3\nprint('@late[n]')"
    )
    assert named is not None and named.code == 'print(f"@late[{n}]")'
    for stdout, code in (
        ("@late[Eastfield]\n", "late = 3\nprint('@late[Eastfield]')"),
        ("@late[late_value]\n", "late_value = 'x'\nlate = 3\nprint(f'@late[{late_value}]')"),
        ("@late[late_value]\n", "print('@late[late_value]')"),
    ):
        assert placeholder_print_fix(question, ExecutionResult(stdout=stdout), code) is None, code
    failed = ExecutionResult(stdout="@late[late_value]\n", error=FAILED.error)
    assert placeholder_print_fix(question, failed, "late = 3\nprint('@late[late_value]')") is None
