"""Dates written back as text with ``.dt.strftime`` and then tested for text no date written
that way holds (``_datetext``): fresh12 (blind) counted 'Mar 2024' in '%Y-%m-%d' text five
times over, printing 0 each time. The fix runs and gives the right count."""

from __future__ import annotations

import contextlib
import io

import pytest

from codeact.agents._datetext import strftime_problem
from codeact.agents.validators import AnswerCandidate, ModelRetry, rules_validator
from tests.agents.test_rules import candidate, check

DATA = "Ref,Listed\n" + "".join(
    f'{i},"{m} {d}, {y}"\n'
    for i, (m, d, y) in enumerate(
        [("Mar", 5, 2024), ("Feb", 2, 2024), ("Mar", 30, 2024), ("Mar", 9, 2023)] * 3
    )
)
CELL = (
    "import io\nimport pandas as pd\ndf = pd.read_csv(io.StringIO(DATA))\n"
    "df['Listed'] = pd.to_datetime(df['Listed'], format='mixed')\n"
    "df['Listed'] = df['Listed'].dt.strftime('%Y-%m-%d')\n"
    "print((df[df['Listed'].str.contains('Mar 2024')]['Ref'].count(), "
    "df[df['Listed'].str.contains('Mar 2024')]['Ref'].unique()))\n"
)


def _run(code: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(code, {"DATA": DATA})
    return out.getvalue()


def test_text_no_date_written_that_way_holds_is_sent_back_with_a_test_on_the_dates() -> None:
    assert _run(CELL).startswith("(np.int64(0)")  # (what the model saw)
    problem = strftime_problem("", CELL)
    assert problem is not None and problem.code is not None
    assert "looks for 'Mar 2024' in it" in str(problem)
    assert "(df['Listed'].dt.month == 3)" in str(problem)
    assert "strftime" not in problem.code
    assert _run(problem.code).startswith("(np.int64(6)")  # (6 listings in March 2024)
    # the rule runs among the others
    told = check(candidate("How many homes were listed in March 2024? @n[v]", CELL)) or ""
    assert "no value written that way holds" in told


def test_text_a_date_written_that_way_can_hold_is_left_alone() -> None:
    for text in ("2024-03", "-03-", "2024"):
        assert strftime_problem("", CELL.replace("Mar 2024", text)) is None, text
    same = CELL.replace(".str.contains('Mar 2024')", " == '2024-03-05'")
    assert strftime_problem("", same) is None
    # a day that does not exist in any year is not written either way
    never = CELL.replace(".str.contains('Mar 2024')", ".str.startswith('2024-13')")
    assert strftime_problem("", never) is not None


def test_a_text_used_again_gets_the_note_without_a_rewrite() -> None:
    # (the month text is grouped by later: leaving out the strftime line would change that)
    grouped = CELL + "print(df.groupby('Listed').size())\n"
    problem = strftime_problem("", grouped)
    assert problem is not None and problem.code is None
    assert "Leave out the strftime line" in str(problem)
    # no year named: the note says what to test, with no rewrite
    month = strftime_problem("", CELL.replace("Mar 2024", "March"))
    assert month is not None and month.code is None and "(.dt.year, .dt.month)" in str(month)


def test_a_year_the_question_limits_rows_to_must_be_used() -> None:
    """fresh12 (blind): "sold in 2024" counted the sales of every year (176 for 93)."""
    from codeact.agents._datetext import year_problem

    text = (
        "Question: How many homes in districts with a high flood risk were sold in 2024?\n"
        "Constraints: Sold Date is month first: '03/05/2024' is 5 March 2024; the export "
        "covers January 2023 to August 2024, made at the end of September 2024."
    )
    sold = "df = df[df['Status'] == 'Sold']\nprint(len(df))"
    problem = year_problem(text, sold) or ""
    assert "limits the rows to 2024 ('in 2024')" in problem
    assert year_problem(text, sold + "\nprint((df['Sold'].dt.year == 2024).sum())") is None
    # years that show how dates are written or what the file covers are not limits
    said = text.replace("were sold in 2024", "were sold")
    assert year_problem(said, sold) is None
    for asked in ("listed in March 2024", "listed in the first quarter of 2024"):
        assert "2024" in (year_problem(f"How many homes were {asked}?", sold) or "")
    told = check(candidate(text, sold)) or ""
    assert "never uses that year" in told
    # review: "out of 2000", what a file covers, "2024 pounds" and a year in a comment
    for said in (
        "Out of 2000 surveyed customers, how many were sold?",
        "The export lists the sales made in 2024 only. How many were sold?",
        "How many were sold in 2024 pounds?",
    ):
        assert year_problem(said, sold) is None, said
    assert year_problem(text, sold + "  # sold in 2024") is not None
    for asked in ("sold in Q1 2024", "sold in late 2024"):
        assert year_problem(asked, sold) is not None, asked


def test_a_column_named_in_a_comment_is_not_used() -> None:
    from codeact.agents._notecols import past_conversions

    code = (
        "# Convert the 'Floor Area' column to float\n"
        "df['Floor Area'] = pd.to_numeric(df['Floor Area'], errors='coerce')\n"
        "print(df['Sold Price'].sum())"
    )
    assert "Floor Area" not in past_conversions(code, "Floor Area")
    assert "Floor Area" in past_conversions(code + "\nprint(df['Floor Area'].max())", "Floor Area")
    # a '#' inside a text is not a comment
    from codeact.agents._notecols import without_comments

    assert without_comments("x = df['#id'].max()  # the 'top' id") == "x = df['#id'].max()  "


def test_iso_dates_mixed_with_month_names_get_one_reading() -> None:
    """fresh13 (blind): Date written '2024-03-05' and '5 Mar 2024' was noted as plain text."""
    import pandas as pd

    from codeact.agents.code import describe_files

    days = [f"2024-03-{d:02d}" if d % 2 else f"{d} Mar 2024" for d in range(1, 21)]
    note = describe_files(
        {"d.csv": ("Ref,Date\n" + "".join(f"{i},{d}\n" for i, d in enumerate(days))).encode()}
    )
    line = next(ln for ln in note.splitlines() if "'Date'" in ln)
    assert "written two ways ('2024-03-01' and '2 Mar 2024')" in line
    assert "pd.to_datetime(df['Date'], format='mixed')" in line
    read = pd.to_datetime(pd.Series(days), format="mixed")
    assert list(read.dt.day) == list(range(1, 21))
    # one form alone keeps its own line
    named = describe_files(
        {"n.csv": b"Ref,Date\n" + b"".join(b"%d,%d Mar 2024\n" % (i, i + 1) for i in range(9))}
    )
    assert "format='%d %b %Y'" in named


def test_review_regular_expressions_other_columns_and_unread_frames() -> None:
    """review: str.contains reads a regular expression ('^2024-03', '2024-03|2023-03') and
    case=False; a strftime into another column is not this rule's; a text the check cannot
    turn into a test on dates (a quarter, a regular expression) or a frame read in an earlier
    cell gets the note without a rewrite; blank lines are read once."""
    for text in ("^2024-03", "2024-03|2023-03"):
        assert strftime_problem("", CELL.replace("Mar 2024", text)) is None, text
    caseless = CELL.replace("'%Y-%m-%d'", "'%b %Y'").replace(
        "contains('Mar 2024')", "contains('mar 2024', case=False)"
    )
    assert strftime_problem("", caseless) is None
    other = CELL.replace("df['Listed'] = df['Listed'].dt", "df['Month'] = df['Listed'].dt")
    assert strftime_problem("", other.replace("df['Listed'].str", "df['Month'].str")) is None
    quarter = strftime_problem("", CELL.replace("Mar 2024", "Q1 2024"))
    assert quarter is not None and quarter.code is None
    earlier = CELL.replace("df = pd.read_csv(io.StringIO(DATA))\n", "")
    told = strftime_problem("", earlier)
    assert told is not None and told.code is None
    assert strftime_problem("", "\n" * 20_000 + CELL) is not None


def test_times_on_two_clocks_are_read_per_value_and_not_compared_as_text() -> None:
    """fresh13 (blind): Delivered '4:30 pm' or '16:30' (or 'n/a') was noted as plain text;
    ``df['Delivered'] > '18:00'`` counted 144 for 31 and was sent back for 'n/a' instead."""
    import io

    import pandas as pd

    from codeact.agents.code import describe_files

    times = ["4:30 pm", "16:30", "9:05 am", "12:40 pm", "n/a", "18:20", "7:15 pm", "11:59 am"]
    data = "Ref,Delivered\n" + "".join(f"{i},{times[i % 8]}\n" for i in range(40))
    note = describe_files({"d.csv": data.encode()})
    text = (
        "Question: How many parcels were delivered after 6 pm?\nConstraints: Delivered is on a "
        "12-hour clock ('9:05 am') or a 24-hour one ('16:30'); it is 'n/a' for a parcel that "
        f"was not delivered. Count those later than 18:00.\nFormat: @n[v]\n\n{note}"
    )
    line = next(ln for ln in note.splitlines() if "'Delivered'" in ln)
    assert "12-hour clock ('4:30 pm') or a 24-hour one ('16:30')" in line
    read = "df = pd.read_csv('d.csv')\n"
    told = check(candidate(text, read + "print((df['Delivered'] > '18:00').sum())")) or ""
    assert "holds times of day" in told and "t.dt.hour * 60 + t.dt.minute" in told
    way = (
        "t = pd.to_datetime(df['Delivered'], format='mixed', errors='coerce')\n"
        "print(((t.dt.hour * 60 + t.dt.minute) > 18 * 60).sum())"
    )
    assert check(candidate(text, read + way)) is None
    df = pd.read_csv(io.StringIO(data))
    t = pd.to_datetime(df["Delivered"], format="mixed", errors="coerce")
    assert ((t.dt.hour * 60 + t.dt.minute) > 18 * 60).sum() == 10  # (18:20 and 7:15 pm)
    # fresh13 (after its tuning): the model printed the minutes five times and answered the
    # text comparison's 144; the note names the comparison on minutes, and its code (run when
    # the model re-runs a cell) counts
    assert "(minutes > 1080 for df['Delivered'] > '18:00')" in told
    for cell, want in (
        ("print((df['Delivered'] > '18:00').sum())", "10"),
        ("late = df[df['Delivered'] >= '6:00 pm']\nprint(len(late))", "10"),
        (
            "print((df['Delivered'] > '18:00').sum(), (df['Delivered'] < '9:30').sum(), "
            "(df['Delivered'] > '12:00:30').sum())",
            "10 5 25",
        ),
    ):
        fixed = suggested(candidate(text, read + cell))
        assert fixed is not None, cell
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(fixed.replace("'d.csv'", "io.StringIO(DATA)"), {"io": io, "pd": pd, "DATA": data})
        assert out.getvalue().strip() == want, (cell, fixed)
    # no code when a comparison is not a time, sits in a block, or t is the model's own name
    for cell in (
        "print((df['Delivered'] > '18:00').sum(), (df['Delivered'] > 'noon').sum())",
        "if True:\n    print((df['Delivered'] > '18:00').sum())",
        "t = 5\nprint((df['Delivered'] > '18:00').sum())",
    ):
        told = check(candidate(text, read + cell)) or ""
        assert "holds times of day" in told
        assert suggested(candidate(text, read + cell)) is None, cell
    # dates written two ways, matched as text
    days = [f"2024-03-{d:02d}" if d % 2 else f"{d} Mar 2024" for d in range(1, 21)]
    rows = "Ref,Date\n" + "".join(f"{i},{d}\n" for i, d in enumerate(days))
    dated = f"Question: How many in March?\n\n{describe_files({'v.csv': rows.encode()})}"
    told = check(candidate(dated, "print(df['Date'].str.contains('Mar 2024').sum())")) or ""
    assert "holds dates written two ways" in told


def suggested(c: AnswerCandidate) -> str | None:
    """The code the rules' note suggests (the agent runs it when the model re-runs a cell)."""
    try:
        rules_validator()(c)
    except ModelRetry as exc:
        return exc.code
    return None


def test_dates_with_month_names_searched_for_text_they_cannot_hold_are_sent_back() -> None:
    """fresh12 (blind, after the focused note): ``df['Listed'].str.contains('Mar 2024')`` on
    dates written 'Mar 5, 2024' printed 0 and was answered."""
    from codeact.agents._datetext import date_text_problem
    from codeact.agents.code import describe_files

    days = [f"Mar {d}, 2024" if d % 3 else f"Feb {d}, 2024" for d in range(1, 25)]
    rows = "Ref,Listed\n" + "".join(f'{i},"{d}"\n' for i, d in enumerate(days))
    text = f"Question: How many in March 2024?\n\n{describe_files({'l.csv': rows.encode()})}"
    told = date_text_problem(text, "print(df['Listed'].str.contains('Mar 2024').sum())") or ""
    assert "holds dates written like 'Mar 1, 2024': no value holds 'Mar 2024'" in told
    assert "(df['Listed'].dt.month == 3)" in told
    # text that such dates can hold, or a cell that reads the dates, is left alone
    for fine in ("contains('Mar')", "contains(', 2024')", "contains('Mar 5, 2024')"):
        code = f"print(df['Listed'].str.{fine}.sum())"
        assert date_text_problem(text, code) is None, fine
    read = "df['Listed'] = pd.to_datetime(df['Listed'], format='mixed')\n"
    assert date_text_problem(text, read + "print(df['Listed'].dt.month.eq(3).sum())") is None
    assert "no value holds" in (
        check(candidate(text, "print(df['Listed'].str.contains('Mar 2024').sum())")) or ""
    )


def test_the_max_of_counts_made_from_another_column_is_no_use_of_every_column() -> None:
    """fresh13 (after its tuning): ``service_counts = df['Service'].value_counts()`` then
    ``service_counts.max()`` was taken for the whole frame in use, so a Weight converted and
    left unused sent a right top service back for its units (236 became 144)."""
    from codeact.agents._notecols import past_conversions

    code = (
        "df['Weight'] = pd.to_numeric(df['Weight'].str.extract(r'([\\d.]+)')[0])\n"
        "counts = df['Service'].value_counts()\nprint(counts.idxmax(), counts.max())"
    )
    assert "Weight" not in past_conversions(code, "Weight")
    # the frame itself, a frame filtered from it, or counts of the column: all use it
    for use in (
        "print(df.max())",
        "small = df[df['Service'] == 'x']\nprint(small.mean())",
        "counts = df['Weight'].value_counts()\nprint(counts.max())",
        "counts = df[['Service', 'Weight']]\nprint(counts.max())",
        "counts = df['Service'].value_counts()\ncounts = df\nprint(counts.max())",
    ):
        assert "Weight" in past_conversions(f"{code}\n{use}", "Weight"), use


@pytest.mark.anyio
@pytest.mark.filterwarnings("ignore::UserWarning")
async def test_a_text_test_on_a_column_read_as_dates_is_re_run_on_the_dates() -> None:
    """fresh13 (after its tuning): ``df['Date'] = pd.to_datetime(df['Date'], format='mixed')``
    then ``df[df['Date'].str.contains('2024-03')]`` failed (.str on dates); the model then
    dropped the reading and counted the ISO-written rows only (73 for 130)."""
    from tests.helpers import run_one_cell

    days = ["2024-03-05", "9 Mar 2024", "2024-04-01", "31 Mar 2024", "2023-03-07", "1 Feb 2024"]
    data = ("Ref,Date\n" + "".join(f"{i},{d}\n" for i, d in enumerate(days))).encode()
    cell = (
        "import pandas as pd\ndf = pd.read_csv('d.csv')\n"
        "df['Date'] = pd.to_datetime(df['Date'], format='mixed')\n"
        "march = df[df['Date'].str.contains('2024-03')]\nprint(len(march))"
    )
    result = await run_one_cell({"d.csv": data}, cell, "How many rows are of March 2024?")
    content = result.tool_output.content
    assert not result.tool_output.is_error, content
    assert "(df['Date'].dt.year == 2024) & (df['Date'].dt.month == 3)" in content
    assert content.rstrip().endswith("3"), content


def test_the_date_test_fix_leaves_other_failures_and_unread_columns_alone() -> None:
    from codeact._execution import CellError, ExecutionResult
    from codeact.agents._datetext import date_test_fix

    def failed(line: int) -> ExecutionResult:
        tb = f'Traceback (most recent call last):\n  File "<cell>", line {line}, in <module>\n'
        return ExecutionResult(
            error=CellError(
                type="AttributeError",
                message="Can only use .str accessor with string values!",
                traceback=tb,
            )
        )

    read = "df = pd.read_csv('d.csv')\ndf['Date'] = pd.to_datetime(df['Date'])\n"
    fix = date_test_fix(failed(3), read + "n = df['Date'].str.startswith('2024').sum()")
    assert fix is not None and fix.code.endswith("n = (df['Date'].dt.year == 2024).sum()")
    # a column never read as dates, a day the check cannot turn into a test, a regex
    for code in (
        "df = pd.read_csv('d.csv')\n\nn = df['Date'].str.contains('2024-03').sum()",
        read + "n = df['Date'].str.contains('2024-03-05').sum()",
        read + "n = df['Date'].str.contains('2024-0[34]').sum()",
    ):
        assert date_test_fix(failed(3), code) is None, code
    # an earlier line that must not run twice
    twice = "df = pd.read_csv('d.csv')\nrows.append(1)\ndf['Date'] = pd.to_datetime(df['Date'])\n"
    assert date_test_fix(failed(4), twice + "n = df['Date'].str.contains('2024').sum()") is None


@pytest.mark.anyio
@pytest.mark.filterwarnings("ignore::UserWarning")
async def test_a_long_cell_cut_off_at_its_last_line_is_told_to_be_short() -> None:
    """fresh13 (after its tuning): a 75-line cell converting every column was cut off by
    the reply's length limit mid-line (SyntaxError at its last line) and resent unchanged
    three times; the hint says so and names the columns the question needs."""
    from codeact.agents.code import describe_files
    from tests.helpers import run_one_cell

    data = "Ref,Date,Signed\n" + "".join(f"{i},2024-03-0{1 + i % 9},Y\n" for i in range(20))
    note = describe_files({"d.csv": data.encode()})
    question = f"Question: On which day of the week were the most rows dated by Date?\n\n{note}"
    body = "".join(f"df['s{i}'] = df['Signed'].replace('y', 'yes')\n" for i in range(30))
    cell = f"import pandas as pd\ndf = pd.read_csv('d.csv')\n{body}df['Signed'] = df['Sig"
    result = await run_one_cell({"d.csv": data.encode()}, cell, question)
    content = result.tool_output.content
    assert "Your cell was cut off at line 33" in content, content
    assert "(here: 'Date')" in content
    # a short cell, or one failing before its last line, is not cut off
    for other in ("x = (", f"x = (\n{body}y = 1"):
        result = await run_one_cell({"d.csv": data.encode()}, other, question)
        assert "cut off" not in result.tool_output.content, other


def test_a_column_named_in_another_columns_description_is_not_asked_for() -> None:
    """fresh14 (blind): "The 'Loan Date ' column (its header ends with a space) is the day the
    item was lent and RETURN DATE the day it came back" sent a right count of March loans
    (91) back to use RETURN DATE, which it only converted; the model then counted 89."""
    from codeact.agents._rules import column_problem
    from codeact.agents.code import describe_files

    rows = [f"{i},2024-0{1 + i % 4}-0{1 + i % 9},2024-0{1 + i % 4}-2{i % 9}" for i in range(30)]
    note = describe_files({"l.csv": ("Ref,Loan Date ,RETURN DATE\n" + "\n".join(rows)).encode()})
    text = (
        "Question: How many items were lent in March 2024?\nConstraints: The 'Loan Date ' "
        "column (its header ends with a space) is the day the item was lent and RETURN DATE the "
        "day it came back; both are written as YYYY-MM-DD. Count the loans whose Loan Date is "
        f"in March 2024.\nFormat: @n[v]\n\n{note}"
    )
    code = (
        "df['Loan Date '] = pd.to_datetime(df['Loan Date '])\n"
        "df['RETURN DATE'] = pd.to_datetime(df['RETURN DATE'])\n"
        "print((df['Loan Date '].dt.month == 3).sum())"
    )
    assert column_problem(text, code) is None
    # asked for in a sentence of its own, it must be used
    asked = text.replace(
        "Count the loans whose", "Count the loans whose RETURN DATE is in April and"
    )
    assert "'RETURN DATE'" in (column_problem(asked, code) or "")


def test_a_month_the_question_limits_rows_to_must_be_used_too() -> None:
    """fresh17 (tuned run): "brought in during May 2024" kept with
    ``.str.contains('2024')``: every month's labour (6933.25 hours for 43.75)."""
    from codeact.agents._datetext import year_problem

    text = "Question: How many hours did apprentices work on cars brought in during May 2024?"
    year_only = "may_jobs = df[df['DATE_IN'].str.contains('2024')]\nprint(len(may_jobs))"
    problem = year_problem(text, year_only) or ""
    assert "limits the rows to May 2024" in problem and "(d.dt.month == 5)" in problem
    for month in (
        "d = pd.to_datetime(df['DATE_IN'], dayfirst=True)\nm = d[(d.dt.year == 2024) & (d.dt.month == 5)]",
        "m = df[df['DATE_IN'].str.contains('05-2024')]",
        "d = pd.to_datetime(df['DATE_IN'])\nm = df[(d.dt.year == 2024) & (d.dt.month_name() == 'May')]",
        "m = df[df['DATE_IN'].str.contains('May 2024')]",
    ):
        assert year_problem(text, month) is None, month
    # no year in the code: the year's note, as before
    assert "never uses that year" in (year_problem(text, "print(len(df))") or "")
