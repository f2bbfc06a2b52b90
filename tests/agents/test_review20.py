"""A helper's review of the twentieth pass (fresh18 and fresh19 tuning): each finding, run
to confirm it, as a test. Each assertion fails on the code before its fix (889a422 or
earlier)."""

from __future__ import annotations

import ast

import pytest

from codeact.agents._candidate import AnswerCandidate as AC
from codeact.agents._rules import check_rules
from codeact.agents.validators import CellRun
from tests.agents.test_fresh18_misses import FILMS
from tests.helpers import exec_with_files, question_of, run_one_cell
from tests.helpers import rule_note as said


def first_problem(question: str, code: str):
    return check_rules(AC(text="@x[1]", question=question, cells=(CellRun(code=code, stdout="1"),)))


AMOUNTS = ["$723.90", "$45.00", "$18.50", "$1,234.50", "$1,020.00", "$99.95", "$88.10"]
SALES = (
    "Txn,Amount,Status,Tickets\n"
    + "".join(f'T{i},"{AMOUNTS[i % 7]}",{"AB"[i % 2]},{1 + i % 4}\n' for i in range(30))
    + 'T1,"$45.00",B,2\n'
)  # (one repeated row)
SALES_FILES = {"t.csv": SALES.encode()}
SALES_READ = "import pandas as pd\ndf = pd.read_csv('t.csv')\n"


# 1. unlisted(): df[['Amount', ...]].sum() on text no longer sent back (regression)
def test_text_numbers_summed_through_a_column_list_are_still_sent_back() -> None:
    q = question_of(
        "What is the total Amount and the total Tickets?", "Add up Amount and Tickets.", SALES_FILES
    )
    code = SALES_READ + "print(df[['Amount', 'Tickets']].sum())"  # (concatenates the '$' texts)
    told = said(q, code)
    assert told is not None and "numbers stored as text" in told


# 2. without_unused_conversions(): a rule's runnable code loses a conversion that matters
def test_dedup_fix_keeps_a_conversion_used_only_in_a_column_list() -> None:
    q = question_of(
        "What is the total Amount of each Status?",
        "Drop the exact duplicate rows first.",
        SALES_FILES,
    )
    code = SALES_READ + (
        "df['Amount'] = df['Amount'].str.replace(r'[\\$,]', '', regex=True).astype(float)\n"
        "print(df.groupby('Status')[['Amount']].sum())"
    )
    p = first_problem(q, code)
    assert p is not None and p.code is not None
    assert "astype(float)" in p.code  # (now dropped: the fix sums '$723.90$18.50...')


def test_dedup_fix_keeps_a_coercion_that_dropna_subset_relies_on() -> None:
    csv = "Docket,Fee\n" + "".join(
        f"D{i},{['12.50', 'waived', '30.00', '7.25'][i % 4]}\n" for i in range(20)
    )
    files = {"w.csv": (csv + "D1,waived\n").encode()}
    q = question_of("How many dockets paid a Fee?", "Drop the exact duplicate rows first.", files)
    code = (
        "import pandas as pd\ndf = pd.read_csv('w.csv')\n"
        "df['Fee'] = pd.to_numeric(df['Fee'], errors='coerce')  # words become NaN\n"
        "df = df.dropna(subset=['Fee'])\nprint(len(df))"
    )
    p = first_problem(q, code)
    assert p is not None and p.code is not None
    assert exec_with_files(files, p.code)[0] == "15"  # (now 20: the 'waived' rows count)


# 3. dedup_problem: a question that forbids dropping duplicates
def test_do_not_remove_duplicates_is_no_order_to_drop_them() -> None:
    q = question_of(
        "How many tickets were sold?",
        "Do not remove duplicate rows: each row is a separate sale.",
        SALES_FILES,
    )
    assert said(q, SALES_READ + "print(df['Tickets'].sum())") is None


# 4. one_way_problem: both forms read (the plain minutes by '(\d+)', no 'min' literal)
FILM_READ = "import pandas as pd\nimport numpy as np\ndf = pd.read_csv('films.csv')\n"


def test_both_duration_forms_read_without_the_word_min_is_not_one_way() -> None:
    q = question_of(
        "How many films run for more than 2 hours?",
        "Runtime is in hours and minutes ('2:05' is 2 hours 5 minutes) or in minutes ('125 min').",
        FILMS,
    )
    code = FILM_READ + (
        "is_clock = df['Runtime'].str.contains(':')\n"
        "hm = df['Runtime'].str.split(':', expand=True)\n"
        "plain = df['Runtime'].str.extract(r'(\\d+)')[0].astype(float)\n"
        "df['mins'] = np.where(is_clock, pd.to_numeric(hm[0], errors='coerce') * 60 + pd.to_numeric(hm[1], errors='coerce'), plain)\n"
        "print((df['mins'] > 120).sum())"
    )
    assert exec_with_files(FILMS, code) == ["4"]  # (right)
    assert said(q, code) is None


# 5. one_way_problem's code: hours and minutes read on two lines
def test_one_way_fix_does_not_put_minutes_in_the_hours_column() -> None:
    from codeact.agents._clockmins import one_way_problem

    q = question_of(
        "What is the mean Runtime in minutes?", "Runtime is '2:05' or '125 min'.", FILMS
    )
    code = FILM_READ + (
        "df['h'] = pd.to_numeric(df['Runtime'].str.split(':').str[0], errors='coerce')\n"
        "df['m'] = pd.to_numeric(df['Runtime'].str.split(':').str[1], errors='coerce')\n"
        "df['mins'] = df['h'] * 60 + df['m']\nprint(df['mins'].mean())"
    )
    p = one_way_problem(q, code)
    assert p is not None
    if p.code is not None:  # (now 7047.0: the whole minutes * 60 + m)
        assert float(exec_with_files(FILMS, p.code)[0]) == 114.25


# 6. hours_problem: an hours column compared in hours, minutes made for something else
def test_hours_compared_on_an_hours_column_is_no_minutes_slip() -> None:
    jobs = {
        "jobs.csv": (
            "Job,Hours\n"
            + "".join(f"J{i},{[1.5, 2.5, 3.0, 0.75, 2.0][i % 5]}\n" for i in range(20))
        ).encode()
    }
    q = question_of(
        "How many jobs took more than 2 hours?", "Count the jobs whose Hours is over 2.", jobs
    )
    code = "import pandas as pd\ndf = pd.read_csv('jobs.csv')\ndf['Minutes'] = df['Hours'] * 60\nprint((df['Hours'] > 2).sum())"
    assert said(q, code) is None


# 7. bool_column_problem: the frame read again in between
def test_bool_column_forgotten_when_the_frame_is_read_again() -> None:
    from codeact.agents._boolcol import bool_column_problem

    csv = "Job,Status,Hours\n" + "".join(f"J{i},{['Done', 'Open'][i % 2]},{i}\n" for i in range(10))
    q = question_of("How many hours were logged on done jobs?", "", {"j.csv": csv.encode()})
    code = (
        "import pandas as pd\ndf = pd.read_csv('j.csv')\n"
        "df['Status'] = df['Status'] == 'Done'\nprint(df['Status'].sum())\n"
        "df = pd.read_csv('j.csv')\nprint(df[df['Status'] == 'Done']['Hours'].sum())"
    )
    assert bool_column_problem(q, code) is None


# 8. bool_column_problem's code: a parenthesised test over two lines
def test_bool_column_fix_of_a_two_line_test_parses() -> None:
    from codeact.agents._boolcol import bool_column_problem

    files = {"t.csv": b"Txn,sales channel,Tickets\nA,Online,1\nB,web,2\nC,online ,3\n"}
    q = question_of("How many tickets were sold online?", "", files)
    code = (
        "import pandas as pd\ndf = pd.read_csv('t.csv')\n"
        "df['sales channel'] = (df['sales channel'].str.strip()\n    .str.lower() == 'online')\n"
        "print(df[df['sales channel'] == 'online']['Tickets'].sum())"
    )
    p = bool_column_problem(q, code)
    assert p is not None and p.code is not None
    ast.parse(p.code)  # (now IndentationError: the parentheses are dropped)


# 9. sign_problem's code: a conversion over two lines
def test_sign_fix_is_not_inserted_inside_a_two_line_conversion() -> None:
    from codeact.agents._signs import sign_problem

    files = {
        "t.csv": b'Txn,Amount ($),Tickets\nA,"($45.00)",2\nB,$12.50,1\nC,-$9.00,3\nD,$7.00,4\nE,$1.00,1\n'
    }
    q = question_of(
        "How many tickets were sold?",
        "Every row is a sale (its Amount is positive) or a refund (negative). Add up the Tickets of the sales (not the refunds).",
        files,
    )
    code = (
        "import pandas as pd\ndf = pd.read_csv('t.csv')\n"
        "df['Amount ($)'] = pd.to_numeric(df['Amount ($)'].str.strip().str.replace(r'^\\((.*)\\)$', r'-\\1', regex=True)\n"
        "                                 .str.replace(r'[\\$,\\s]', '', regex=True), errors='coerce')\n"
        "print(df['Tickets'].sum())"
    )
    p = sign_problem(q, code)
    assert p is not None and p.code is not None
    ast.parse(p.code)  # (now SyntaxError: the filter line splits the statement)


# 10. _dateforms.date_formats: month names with every day <= 12
def test_named_month_dates_need_no_day_over_12() -> None:
    from codeact.agents._dateforms import date_formats

    assert date_formats(["07-Mar-2024", "2024/03/09", "11-Mar-2024", "2024/04/02"]) == [
        "%d-%b-%Y",
        "%Y/%m/%d",
    ]


# 11. _dateforms.date_formats: both day-first and month-first present
def test_dates_written_both_day_first_and_month_first_get_no_single_reading() -> None:
    from codeact.agents._dateforms import date_formats

    # '03/04/2024' can't be read: the note must not call it 3 April ("day first")
    assert date_formats(["13/02/2024", "02/13/2024", "2024-02-05", "03/04/2024"]) is None


# 12. text_date_problem on the new two-format note: right readings sent back
from tests.agents.test_weighbridge import FILES as WB_FILES  # noqa: E402


def test_two_format_dates_read_in_the_other_order_are_not_sent_back() -> None:
    q = question_of(
        "How many dockets were weighed in April 2024?",
        "Drop the exact duplicate rows first.",
        WB_FILES,
    )
    rev = (
        "pd.to_datetime(df['Date'], format='%Y/%m/%d', errors='coerce')"
        ".fillna(pd.to_datetime(df['Date'], format='%d-%b-%Y', errors='coerce'))"
    )
    code = (
        f"import pandas as pd\ndf = pd.read_csv('w.csv').drop_duplicates()\ndf['Date'] = {rev}\n"
        "print(((df['Date'].dt.month == 4) & (df['Date'].dt.year == 2024)).sum())"
    )
    assert exec_with_files(WB_FILES, code) == ["12"]
    assert said(q, code) is None


def test_two_format_dates_read_into_another_frame_name_are_not_sent_back() -> None:
    q = question_of(
        "How many dockets were weighed in April 2024?",
        "Drop the exact duplicate rows first.",
        WB_FILES,
    )
    read = (
        "pd.to_datetime(data['Date'], format='%d-%b-%Y', errors='coerce')"
        ".fillna(pd.to_datetime(data['Date'], format='%Y/%m/%d', errors='coerce'))"
    )
    code = (
        f"import pandas as pd\ndata = pd.read_csv('w.csv').drop_duplicates()\ndata['Date'] = {read}\n"
        "print(((data['Date'].dt.month == 4) & (data['Date'].dt.year == 2024)).sum())"
    )
    assert said(q, code) is None


def test_year_first_dates_read_with_format_mixed_are_not_sent_back() -> None:
    days = ["2024/03/07", "2024.03.19", "2024/04/02", "2024.04.23"]
    files = {
        "y.csv": ("Docket,Date\n" + "".join(f"D{i},{days[i % 4]}\n" for i in range(20))).encode()
    }
    q = question_of("How many dockets in March 2024?", "Count them.", files)
    code = (
        "import pandas as pd\ndf = pd.read_csv('y.csv')\ndf['Date'] = pd.to_datetime(df['Date'], format='mixed')\n"
        "print(((df['Date'].dt.year == 2024) & (df['Date'].dt.month == 3)).sum())"
    )
    assert exec_with_files(files, code) == ["10"]
    assert said(q, code) is None


# 13. _category._code_legend_positions: the legend's span runs past ';' into the filter
def test_a_filter_after_the_legend_in_the_same_sentence_is_still_a_filter() -> None:
    mat = ["MSW", "CD", "GW", "MSW", "CD"]
    files = {
        "m.csv": (
            "Docket,Material,Gross\n" + "".join(f"D{i},{mat[i % 5]},{10 + i}\n" for i in range(30))
        ).encode()
    }
    q = question_of(
        "How many loads were there?",
        "Material is a code: MSW is general waste, GW green waste, CD construction waste; count only the CD loads.",
        files,
    )
    told = said(q, "import pandas as pd\ndf = pd.read_csv('m.csv')\nprint(len(df))")
    assert told is not None and "'CD'" in told


# 14. _colwords._defines_unasked: a definition opening the Constraints line is not seen
def test_a_definition_first_in_the_constraints_does_not_ask_for_its_columns() -> None:
    csv = "Rego,Gross,Tare\n" + "".join(
        f"R{i % 4},{1000 + i * 37},{200 + i * 11}\n" for i in range(20)
    )
    files = {"v.csv": csv.encode()}
    q = question_of(
        "How many loads had a Gross over 1500?",
        "A load's net weight is its Gross minus its Tare.",
        files,
    )
    code = "import pandas as pd\ndf = pd.read_csv('v.csv')\nprint((df['Gross'] > 1500).sum())"
    assert said(q, code) is None  # (passes with "Count them. " before the definition)


SIGN_FILES = {"t.csv": b'Txn,Amount,Tickets\nA,"($45.00)",2\nB,$12.50,1\nC,-$9.00,3\nD,$7.00,4\n'}
SIGN_READ = "import pandas as pd\ndf = pd.read_csv('t.csv')\n"
SIGN_CONVERT = (
    "df['Amount'] = df['Amount'].str.strip().str.replace(r'^\\((.*)\\)$', r'-\\1', "
    "regex=True).str.replace(r'[\\$,\\s]', '', regex=True).astype(float)\n"
)


@pytest.mark.anyio
async def test_sign_text_fix_count_of_refunds_stays_python() -> None:
    # a count of refunds: .str.startswith('-').sum() -> "df['Amount'] < 0.sum()" (SyntaxError)
    cell = f"{SIGN_READ}{SIGN_CONVERT}print(df['Amount'].str.startswith('-').sum())"
    result = await run_one_cell(SIGN_FILES, cell, "Question: How many refunds?")
    content = str(result.tool_output.content)
    assert "I re-ran your cell testing the number instead" in content, content
    assert content.rstrip().endswith("2"), content


@pytest.mark.anyio
async def test_sign_text_fix_negated_test() -> None:
    cell = f"{SIGN_READ}{SIGN_CONVERT}print(df[~df['Amount'].str.startswith('-')]['Tickets'].sum())"
    result = await run_one_cell(SIGN_FILES, cell, "Question: How many tickets sold?")
    content = str(result.tool_output.content)
    assert "I re-ran your cell testing the number instead" in content, content
    assert content.rstrip().endswith("5"), content


FIX_FILES = {"t.csv": b"Txn,Amount,Type\nA,($45.00),x\nB,$12.50,x\nC,($9.00),y\n"}
FIX_READ = "import pandas as pd\ndf = pd.read_csv('t.csv')\n"


@pytest.mark.anyio
async def test_regex_fix_with_regex_true_already_written() -> None:
    # '.str.contains('($', regex=True)' -> "('($', regex=False, regex=True)": SyntaxError
    cell = f"{FIX_READ}print(df['Amount'].str.contains('($', regex=True).sum())"
    result = await run_one_cell(FIX_FILES, cell, "Question: How many refunds?")
    content = str(result.tool_output.content)
    assert "I re-ran your cell with regex=False" in content, content
    assert content.rstrip().endswith("2"), content


@pytest.mark.anyio
async def test_name_fix_renames_only_the_misspelt_variable() -> None:
    # NameError 'count' (the cell defines 'counts'): '.count()' the method must stay
    cell = (
        f"{FIX_READ}counts = df['Type'].value_counts()\n"
        "n = df['Type'].count()\n"
        "print(n, count.max())"
    )
    result = await run_one_cell(FIX_FILES, cell, "Question: ?")
    content = str(result.tool_output.content)
    assert "I re-ran your cell with 'counts'" in content, content
    assert content.rstrip().endswith("3 2"), content
