"""Day-first dates tested as text (``_textdates``): fresh16 (blind) counted May's sales with
``df['ordered_at'].str.contains('05/2024')`` on dates all written '01/05/2024 08:09' (140,
right) and was sent back; it then counted the whole year (540)."""

from __future__ import annotations

import contextlib
import io

import pytest

from codeact.agents._textdates import text_date_problem
from codeact.agents.code import describe_files

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

ROWS = "Sale,ordered_at\n" + "".join(
    f"S{i},{i % 28 + 1:02d}/{i % 5 + 3:02d}/2024 {8 + i % 9:02d}:{i % 60:02d}\n" for i in range(60)
)
NOTE = describe_files({"s.csv": ROWS.encode()})
QUESTION = f"Question: How many sales were made in May 2024?\n\n{NOTE}"
READ = "import pandas as pd\ndf = pd.read_csv('s.csv')\n"


def _printed(code: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(code.replace("'s.csv'", "io.BytesIO(DATA)"), {"io": io, "DATA": ROWS.encode()})
    return out.getvalue().strip()


def test_a_text_test_keeping_exactly_one_month_or_year_is_left_alone() -> None:
    assert "day first" in NOTE
    month = READ + "print(df['ordered_at'].str.contains('05/2024').sum())"
    assert _printed(month) == str(sum(1 for i in range(60) if i % 5 + 3 == 5))
    assert text_date_problem(QUESTION, month) is None
    year = READ + "print(df[df['ordered_at'].str.contains('2024')]['Sale'].count())"
    assert text_date_problem(QUESTION, year) is None
    # fresh17 (blind): dates written with hyphens, '05-03-2024', one month matched the same way
    dashed = ROWS.replace("/", "-")
    asked = f"Question: How many sales were made in May 2024?\n\n{describe_files({'s.csv': dashed.encode()})}"
    assert text_date_problem(asked, month.replace("05/2024", "05-2024")) is None
    assert text_date_problem(asked, month.replace("05/2024", "2024-05")) is not None


def test_text_tests_that_keep_other_days_or_order_the_text_are_sent_back() -> None:
    for code in (
        "print(df['ordered_at'].str.contains('05/').sum())",  # (the 5th of every month too)
        "print(df['ordered_at'].str.startswith('05').sum())",  # (a day, in every month)
        "print((df['ordered_at'] > '15/05/2024').sum())",  # (ordered as text)
        "print(df['ordered_at'].str.contains('05/2024').sum(), df['ordered_at'].min())",
        "print(df['ordered_at'].str.endswith('05/2024').sum())",  # (the values end with a time)
        "print(df['ordered_at'].str.contains('05/2024$').sum())",
    ):
        assert "dates written day first" in (text_date_problem(QUESTION, READ + code) or ""), code
    # dates written two ways: a text test misses the other form, whatever it keeps
    both = ROWS.replace("01/03/2024", "2024-03-01").replace("02/04/2024", "2024-04-02")
    two = f"Question: How many sales were made in May 2024?\n\n{describe_files({'s.csv': both.encode()})}"
    assert "written two ways" in two
    month = READ + "print(df['ordered_at'].str.contains('05/2024').sum())"
    assert text_date_problem(two, month) is not None


def test_a_reading_of_dates_written_two_ways_that_misses_one_is_made_the_notes() -> None:
    """fresh16 (blind): ``pd.to_datetime(df[' Delivered On'], errors='coerce')`` on dates
    written '2024-03-09' and '05.03.2024' read the day-first ones month first."""
    both = ROWS.replace("01/03/2024", "2024-03-01").replace("/", ".")
    files = {"s.csv": both.encode()}
    question = f"Question: How many sales were made in May 2024?\n\n{describe_files(files)}"
    cell = (
        READ + "df['ordered_at'] = pd.to_datetime(df['ordered_at'], errors='coerce')\n"
        "print((df['ordered_at'].dt.month == 5).sum())"
    )
    problem = text_date_problem(question, cell)
    assert problem is not None and problem.code is not None
    assert "format='mixed', dayfirst=True" in problem.code
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(problem.code.replace("'s.csv'", "io.BytesIO(DATA)"), {"io": io, "DATA": both.encode()})
    assert out.getvalue().strip() == str(sum(1 for i in range(60) if i % 5 + 3 == 5))


@pytest.mark.anyio
async def test_a_reading_that_fails_on_the_other_form_is_re_run_with_the_notes() -> None:
    """fresh16 (blind): ``pd.to_datetime(df[' Delivered On'], dayfirst=True)`` failed on
    '2024-03-09' among '05.03.2024' dates, and the model never got past it."""
    from tests.helpers import run_one_cell

    both = ROWS.replace("01/03/2024", "2024-03-01").replace("/", ".")
    files = {"s.csv": both.encode()}
    question = f"Question: How many sales were made in May 2024?\n\n{describe_files(files)}"
    cell = (
        READ + "df['ordered_at'] = pd.to_datetime(df['ordered_at'], dayfirst=True)\n"
        "print((df['ordered_at'].dt.month == 5).sum())"
    )
    result = await run_one_cell(files, cell, question)
    content = str(result.tool_output.content)
    assert "holds dates written more than one way" in content, content
    assert content.rstrip().endswith(str(sum(1 for i in range(60) if i % 5 + 3 == 5)))


def test_a_text_test_of_dates_written_two_ways_is_made_the_test_on_the_dates() -> None:
    """fresh16 (after this pass's tuning): ``.str.contains('2024-06')`` on deliveries written
    '2024-06-05' and '05.06.2024' missed the dotted ones (61 for 114) and had no code."""
    both = ROWS.replace("01/03/2024", "2024-03-01").replace("/", ".")
    both = "".join(  # (every other May date written ISO: '2024-05-03', '08.05.2024')
        line.replace(".05.2024", "-05").replace(
            line.split(",")[1][:2] + "-05", "2024-05-" + line.split(",")[1][:2]
        )
        if i % 2 and ".05.2024" in line
        else line
        for i, line in enumerate(both.splitlines(keepends=True))
    )
    files = {"s.csv": both.encode()}
    question = f"Question: How many sales were made in May 2024?\n\n{describe_files(files)}"
    assert "written two ways" in question
    cell = READ + "print(df['ordered_at'].str.contains('2024-05').sum())"
    problem = text_date_problem(question, cell)
    assert problem is not None and problem.code is not None, problem
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(problem.code.replace("'s.csv'", "io.BytesIO(DATA)"), {"io": io, "DATA": both.encode()})
    assert out.getvalue().strip() == str(sum(1 for i in range(60) if i % 5 + 3 == 5))
