"""Rules on how the data is written (``_datarules``), each from the files note: missing values
written as words pandas reads as NaN, one value in several cases and spacings, empty values
the question says are zero, durations as text; the note lines that carry them; and the filter
rule leaving alone values quoted to describe a column. Cells from transcripts of the 1.5B
model; every runnable fix is run here and gives the right answer."""

from __future__ import annotations

import contextlib
import io
import re

import pandas as pd
import pytest

from codeact.agents._checks import asked_text, share_problem
from codeact.agents._convhint import conversion_hint
from codeact.agents._datarules import (
    case_problem,
    duration_problem,
    marker_problem,
    text_number_problem,
)
from codeact.agents._filters import filter_problem
from codeact.agents._textdates import text_date_problem
from codeact.agents._textnumfix import empty_zero_problem
from codeact.agents.code import describe_files
from tests.agents.test_rules import candidate
from tests.agents.test_rules import check as check_candidate

SHOP = (
    b"order_id,category,qty,price,discount,wait,weight,bp,smoker\n"
    b"1,Books,2,10.0,0.5,1h 25m,70.5,120,yes\n"
    b"2, books,1,20.0,,40m,n/a,-,No\n"
    b"3,BOOKS,3,5.0,0.1,2h,80.0,130,YES\n"
    b"4,Games,1,50.0,,15m,n/a,140,no\n"
    b"5,games ,2,25.0,0.2,1h 5m,90.0,125,No\n"
    b"6,Toys,4,7.5,,30m,65.0,110,no\n"
    b"7,Toys,1,12.0,,3h 10m,75.5,115,no\n"
    b"8,Games,2,30.0,0.3,50m,88.0,150,yes\n"
    b"9,Toys,1,9.0,,20m,72.0,118,no\n"
    b"10,Books,5,4.0,,10m,68.0,121,no\n"
    b"11,Toys,2,6.0,,5m,71.0,119,no\n"
    b"12,Games,1,45.0,,45m,77.0,129,no\n"
)
NOTE = describe_files({"shop.csv": SHOP})
READ = "import pandas as pd\ndf = pd.read_csv('shop.csv')\n"


def ask(text: str) -> str:
    return f"Question: {text}\nFormat: @x[x_value] where x_value is a number.\n\n{NOTE}"


def run(code: str, name: str = "shop.csv", data: bytes = SHOP) -> str:
    """What ``code`` prints, reading ``data`` where it reads the file ``name``."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(code.replace(repr(name), "io.BytesIO(DATA)"), {"io": io, "DATA": data})
    return out.getvalue().strip()


def test_the_note_says_how_each_messy_column_is_written() -> None:
    assert (
        "'category': text, 6 distinct values as written, 3 ignoring case and spaces: compare "
        "df['category'].str.strip().str.lower() == 'books'" in NOTE
    )
    assert "'weight': float64, 2 missing (written 'n/a' in the file: pandas reads them" in NOTE
    assert (
        "'bp': text, numbers stored as text, 1 values '-' standing for no number: convert "
        "with pd.to_numeric(df['bp'], errors='coerce')" in NOTE
    )
    assert "'wait': text, durations as text: pd.to_timedelta(df['wait'])" in NOTE
    assert "'discount': float64, 8 missing, e.g." in NOTE  # (empty cells: no words to name)
    plain = describe_files({"p.csv": b"a,b\nx,1\ny,2\nx,3\n"})
    assert "'a': text, 2 distinct values, e.g. 'x', 'y'" in plain
    # a column of words with many non-numbers is text, not numbers with a marker
    words = describe_files({"w.csv": b"a,b\n1,x\nfoo,y\nbar,z\n"})
    assert "numbers stored as text" not in words
    # signs or words for "no value" may stand in for many values (ratings '?' for half the rows)
    rows = [str(i % 5 + 1) for i in range(12)] + ["?", "-"] * 5 + ["unknown"] * 2
    rated = "r,rating\n" + "".join(f"{i},{v}\n" for i, v in enumerate(rows))
    note = describe_files({"r.csv": rated.encode()})
    assert "12 values '-' and '?' and 'unknown' standing for no number" in note
    got = pd.to_numeric(pd.read_csv(io.StringIO(rated))["rating"], errors="coerce")
    assert got.notna().sum() == 12 and got.sum() == 33
    # but a word that is no "no value" word, as often as the numbers: a text column
    mixed = "a,b\n" + "".join(
        f"{i},{v}\n" for i, v in enumerate(["1", "2", "3", "4", "5"] + ["low"] * 5)
    )
    assert "numbers stored as text" not in describe_files({"m.csv": mixed.encode()})


def test_comparing_with_a_word_pandas_reads_as_missing_is_fixed_with_isna() -> None:
    code = f"{READ}n = df[df['weight'] == 'n/a'].shape[0]\nprint(n)"
    assert run(code) == "0"  # the model's cell: finds nothing
    problem = marker_problem(ask("How many orders have no weight?"), code)
    assert problem is not None and "pandas reads 'n/a' in the file as a missing value" in problem
    assert problem.code is not None and "df['weight'].isna()" in problem.code
    assert run(problem.code) == "2"
    other = marker_problem("", f"{READ}print((df.weight != '').sum())")
    assert other is not None and other.code is not None and "df.weight.notna()" in other.code
    assert marker_problem("", f"{READ}print(df[df['weight'].isna()].shape[0])") is None
    raw = "df = pd.read_csv('shop.csv', keep_default_na=False)\nprint((df.weight == 'n/a').sum())"
    assert marker_problem("", raw) is None  # read as written: the comparison is right
    # fresh16 (blind): the gaps filled with the word first, then compared with it: right
    filled = (
        f"{READ}df['weight'] = df['weight'].fillna('n/a')\nprint((df['weight'] == 'n/a').sum())"
    )
    assert run(filled) == "2" and marker_problem("", filled) is None
    # review: another column's gaps filled is not this one's
    other = f"{READ}df['w2'] = df['weight'].fillna('n/a')\nprint((df['weight'] == 'n/a').sum())"
    assert marker_problem("", other) is not None
    whole = f"{READ}df = df.fillna('n/a')\nprint((df['weight'] == 'n/a').sum())"
    assert marker_problem("", whole) is None


def test_one_value_in_several_cases_is_compared_folded() -> None:
    q = ask("How many orders are in the Books category?")
    code = f"{READ}print(df[df['category'] == 'Books'].shape[0])"
    problem = case_problem(q, code)
    assert problem is not None and "written in several cases and spacings" in problem
    assert problem.code is not None
    assert "df['category'].str.strip().str.lower() == 'books'" in problem.code
    # fresh17: the spellings masked into one value first, then compared with it: right
    masked = code.replace(
        "print(",
        "df['category'] = df['category'].mask(df['category'].str.strip().str.lower()"
        " == 'books', 'Books')\nprint(",
    )
    assert run(masked) == "4" and case_problem(q, masked) is None
    assert case_problem(q, masked.replace("== 'Books']", "== 'Toys']")) is not None
    # fresh17: the note's example took the column's first value, and the model copied it
    toys = case_problem(ask("How many Toys orders?"), code.replace("'Books'", "'Toys'"))
    assert toys is not None and "e.g. df['category'].str.strip().str.lower() == 'toys'" in toys
    assert run(problem.code) == "4"
    counted = f"{READ}print(df['category'].value_counts()['Books'])"
    told = case_problem(q, counted)
    assert told is not None and told.code is None  # (no comparison to rewrite: the note says how)
    assert (
        case_problem(q, code.replace("== 'Books'", ".str.lower().str.strip() == 'books'")) is None
    )
    assert case_problem(ask("How many Toys orders?"), f"{READ}print((df.qty > 1).sum())") is None
    assert "several cases" in (check_candidate(candidate(q, code)) or "")
    # listed with other columns to drop duplicates, the column is neither compared nor grouped
    listed = f"{READ}df = df.drop_duplicates(subset=['category', 'qty'])\nprint(len(df))"
    assert case_problem(q, listed) is None
    grouped = f"{READ}print(df.groupby(['category', 'qty']).size())"
    assert case_problem(q, grouped) is not None  # (grouping is a use: the spellings split)


def test_an_empty_value_the_question_says_is_zero_is_filled() -> None:
    q = ask(
        "What is the total revenue?\nConstraints: revenue is qty * price * (1 - discount); an "
        "empty discount means no discount."
    )
    code = f"{READ}print(round((df['qty'] * df['price'] * (1 - df['discount'])).sum(), 2))"
    assert run(code) == "105.5"  # the rows without a discount dropped out
    problem = empty_zero_problem(q, code)
    assert problem is not None and "'empty discount means no'" in problem
    assert problem.code is not None
    assert "df['discount'] = df['discount'].fillna(0)" in problem.code
    assert run(problem.code) == "303.5"
    filled = code.replace("df['discount']", "df['discount'].fillna(0)")
    assert empty_zero_problem(q, filled) is None
    assert empty_zero_problem(ask("What is the total revenue?"), code) is None


def test_durations_as_text_are_read_with_to_timedelta() -> None:
    q = ask("What is the mean wait in minutes?")
    code = f"{READ}w = df['wait'].str.extract(r'(\\d+)h')[0].astype(float) * 60\nprint(w.mean())"
    problem = duration_problem(q, code)
    assert problem is not None and "pd.to_timedelta(df['wait']).dt.total_seconds() / 60" in problem
    fixed = f"{READ}print(round((pd.to_timedelta(df['wait']).dt.total_seconds() / 60).mean(), 2))"
    assert duration_problem(q, fixed) is None
    assert run(fixed) == "56.25"
    # a failed cell using the column gets the note's conversion as a hint
    assert "read it with pd.to_timedelta(df['wait']).dt.total_seconds() / 60" in (
        conversion_hint(q, code)
    )
    assert "pd.to_numeric(df['bp'], errors='coerce')" in conversion_hint(q, "df['bp'].max()")
    assert conversion_hint(q, "df['qty'].max()") == ""


def test_numbers_with_a_marker_get_the_to_numeric_conversion() -> None:
    q = ask("What is the highest bp?")
    code = f"{READ}df = df[df['bp'] != '-']\nprint(df['bp'].max())"
    assert "pd.to_numeric(df['bp'], errors='coerce')" in (check_candidate(candidate(q, code)) or "")


@pytest.mark.parametrize(
    ("text", "flagged"),
    [
        # values quoted to say how a column is written, the code using one of them
        (
            "How many smokers? The smoker column holds 'yes' or 'no' in any case; count 'yes'.",
            False,
        ),
        ("How many Books orders? Names vary ('Books', ' books', 'BOOKS'): ignore case.", False),
        # a value quoted with what it reads as
        ("Mean cost? Numbers are European ('1.234,56' is 1234.56, a qty '2.350' is 2350).", False),
        ("Mean wait? Wait Time holds text such as '1h 25m' (85 minutes) or '40m'.", False),
        # a legend: code reading one side of it has read the other
        (
            "How many smokers? Smoker is written several ways: 'yes', 'Yes' and '1' mean a "
            "smoker; 'no', 'No' and '0' mean a non-smoker.",
            False,
        ),
        # alternatives the question filters on: each must be used
        ("How many orders are in 'Games' or 'Toys'?", True),
        ("How many smokers? 'Y' means a smoker. Count those in 'Toys'.", True),
    ],
)
def test_values_quoted_to_describe_a_column_are_not_filters(text: str, flagged: bool) -> None:
    code = "print((df['smoker'].str.lower() == 'yes').sum(), (df.category == 'books').sum())"
    code += " # games" if "Games" in text else ""
    assert (filter_problem(ask(text), code) is not None) is flagged


def test_a_percentage_in_the_constraints_does_not_make_the_question_a_share() -> None:
    q = ask("What is the total revenue?\nConstraints: discount is a fraction (0.15 means 15% off).")
    assert "15%" not in asked_text(q)
    assert share_problem(q, "@x[44747.46]") is None
    share = ask("What percentage of orders are Books?\nConstraints: use every order.")
    assert share_problem(share, "@x[250]") is not None


TOTAL_ROW = (
    "How many loans are from the Science section?\nConstraints: The last row of the file is a "
    "summary line (Loan ID 'TOTAL'), not a loan: leave it out. Count rows whose Section is "
    "'Science'."
)


@pytest.mark.parametrize(
    ("text", "code", "flagged"),
    [
        # the code's own condition never meets the summary row
        (TOTAL_ROW, "print((df[df['Section'] == 'Science']).shape[0])", False),
        (TOTAL_ROW, "print(df.dropna(subset=['Section']).Section.eq('Science').sum())", False),
        # a sum over every row counts the summary row too: the question's exclusion is missed
        (
            TOTAL_ROW.replace("Count rows whose Section is 'Science'.", ""),
            "print(df.Fine.sum())",
            True,
        ),
        # values the question filters out (not a row that is not data) must be applied
        ("How many orders, except 'Cancelled' ones?", "print(df[df.amount > 0].shape[0])", True),
        (
            "How many orders over 100, excluding rows with status 'Cancelled'?",
            "print(df[df.amount > 100].shape[0])",
            True,
        ),
        # a filter quoted in the same sentence as the summary row is still a filter
        (
            "How many loans are from 'Science', excluding the 'TOTAL' summary row?",
            "print(df[df.Section != 'TOTAL'].shape[0])",
            True,
        ),
    ],
)
def test_a_summary_row_left_out_by_the_codes_own_condition_is_not_a_missed_filter(
    text: str, code: str, flagged: bool
) -> None:
    assert (filter_problem(ask(text), code) is not None) is flagged


GRADES = b"course,Final Score \n" + b"".join(
    b"%s,%s\n" % (b"STAT101" if i % 3 else b"LAW200", b"" if i % 7 == 0 else b"%.1f%%" % (50 + i))
    for i in range(1, 40)
)
GRADES_Q = (
    "Question: How many STAT101 records have a final score of at least 70%?\n"
    f"Format: @n[n_value] where n_value is an integer.\n\n{describe_files({'g.csv': GRADES})}"
)


@pytest.mark.parametrize(
    ("code", "flagged"),
    [
        # to_numeric alone on '67.5%' makes every value NaN: the count is 0
        ("s = pd.to_numeric(df['Final Score '], errors='coerce')\nprint((s >= 70).sum())", True),
        # the note's conversion (signs taken out first)
        (
            "s = df['Final Score '].str.replace(r'[%,\\s]', '', regex=True).astype(float)\n"
            "print((s >= 70).sum())",
            False,
        ),
        ("s = pd.to_numeric(df['Final Score '].str.rstrip('%'))\nprint((s >= 70).sum())", False),
        (
            "s = df['Final Score '].str.removesuffix('%').astype(float)\nprint((s >= 70).sum())",
            False,
        ),
        # another column converted, this one only counted: not a conversion of it
        (
            "df['course'].astype(str)\nprint(df['Final Score '].isna().sum())",
            False,
        ),
        # the columns' spaces stripped first: the column converted as it is all the same
        (
            "df.columns = df.columns.str.strip()\n"
            "print((pd.to_numeric(df['Final Score'], errors='coerce') >= 70).sum())",
            True,
        ),
        # never converted at all: the old message
        ("print(df['Final Score '].max())", True),
    ],
)
def test_numbers_with_signs_converted_without_taking_the_signs_out(
    code: str, flagged: bool
) -> None:
    assert "'%' signs" in GRADES_Q  # (the note says how the column is written)
    problem = text_number_problem(GRADES_Q, code)
    assert (problem is not None) is flagged
    if flagged and "to_numeric" in code:
        assert "to_numeric(df['Final Score" in (problem or "") and "gives NaN" in (problem or "")
        assert ".str.replace(r'[%,\\s]', '', regex=True).astype(float)" in (problem or "")


LOANS = (
    b"loan,out,returned\n"
    b"1,2024-03-02T10:15:00+01:00,05/03/2024\n"
    b"2,2024-03-30T18:40:00+01:00,2024-04-02\n"
    b"3,2024-04-06T09:05:00+02:00,\n"
    b"4,2024-04-07T23:30:00+02:00,2024-03-28\n"
    b"5,2024-03-16T11:00:00+01:00,19/03/2024\n"
    b"6,2024-03-20T14:00:00+01:00,02/04/2024\n"
    b"7,2024-03-05T12:00:00+01:00,2024-03-04\n"
)
LOANS_Q = (
    "Question: How many books were returned in March 2024?\n"
    f"Format: @n[n_value] where n_value is an integer.\n\n{describe_files({'l.csv': LOANS})}"
)


def run_loans(code: str) -> str:
    return run(code, "l.csv", LOANS)


def test_dates_written_two_ways_are_read_with_one_call() -> None:
    line = next(x for x in LOANS_Q.splitlines() if "'returned'" in x)
    assert "written two ways ('2024-04-02' and '05/03/2024'), day first" in line
    read = (
        "pd.to_datetime(df['returned'], format='ISO8601', errors='coerce').fillna("
        "pd.to_datetime(df['returned'], format='mixed', dayfirst=True, errors='coerce'))"
    )
    assert read in line
    month = f"import pandas as pd\ndf = pd.read_csv('l.csv')\nd = {read}\n"
    in_march = "print(((d.dt.year == 2024) & (d.dt.month == 3)).sum())"
    assert run_loans(month + in_march) == "4"
    # format='mixed' with dayfirst=True alone reads 2024-03-04 as 3 April (3): sent back
    mixed = month.replace(read, "pd.to_datetime(df['returned'], format='mixed', dayfirst=True)")
    assert run_loans(mixed + in_march) == "3"
    assert read in (text_date_problem(LOANS_Q, mixed + in_march) or "")
    # matching the text misses the day-first ones (2 instead of 4): sent back
    as_text = "import pandas as pd\ndf = pd.read_csv('l.csv')\n"
    as_text += "print(df['returned'].str.contains('2024-03').sum())"
    assert run_loans(as_text) == "2"
    assert read in (text_date_problem(LOANS_Q, as_text) or "")
    assert text_date_problem(LOANS_Q, month + "print(d.dt.month.eq(3).sum())") is None
    # finding the empty ones is not reading the dates
    assert text_date_problem(LOANS_Q, "print(df['returned'].isna().sum())") is None
    # one format for both forms: the ISO dates become NaT (2 instead of 3): sent back
    coerced = as_text.split("print")[0] + (
        "d = pd.to_datetime(df['returned'], dayfirst=True, errors='coerce')\n"
        "print(((d.dt.year == 2024) & (d.dt.month == 3)).sum())"
    )
    assert run_loans(coerced) == "2"
    assert read in (text_date_problem(LOANS_Q, coerced) or "")


def test_dates_written_two_ways_whose_order_is_unknown_get_no_order() -> None:
    data = b"d\n2024-04-02\n05/03/2024\n02/04/2024\n2024-05-01\n"
    line = describe_files({"u.csv": data}).splitlines()[-1]
    assert "written two ways" in line and "first" not in line
    assert "pd.to_datetime(df['d'], format='mixed')" in line


def test_times_with_different_offsets_are_read_as_utc_or_by_their_text() -> None:
    line = next(x for x in LOANS_Q.splitlines() if "'out'" in x)
    assert "different UTC offsets ('+01:00' and '+02:00')" in line
    assert "pd.to_datetime(df['out'], utc=True)" in line
    read = "import pandas as pd\ndf = pd.read_csv('l.csv')\n"
    local = "pd.to_datetime(df['out'].str[:10]).dt.day_of_week"
    assert local.split(").dt")[0].split("(", 1)[1] in line  # (the local date: the text)
    assert run_loans(read + f"print(({local} >= 5).sum())") == "5"  # 2, 16, 30 Mar; 6, 7 Apr
    # a failed cell using the column (.dt on text) gets the note's reading code
    failed = (
        read + "df = pd.read_csv('l.csv', parse_dates=['out'])\nprint(df['out'].dt.day_of_week)"
    )
    assert "read it with pd.to_datetime(df['out'], utc=True)" in conversion_hint(LOANS_Q, failed)


METER = b"Account;Read Date;Estimated\n" + b"".join(
    b"A%d;%02d.01.2024;%s\n" % (i % 7, i % 28 + 1, [b"yes", b"No", b"TRUE", b"0", b"1"][i % 5])
    for i in range(40)
)
METER_Q = (
    "Question: How many readings were estimated?\nConstraints: drop the exact duplicate rows "
    "first. Estimated is written in several ways: 'yes', 'Yes', 'TRUE' and '1' mean an "
    "estimated reading; 'no', 'No', 'FALSE' and '0' mean an actual one.\n"
    f"Format: @n[n_value] where n_value is an integer.\n\n{describe_files({'m.csv': METER})}"
)


def test_a_legend_of_values_and_a_date_column_listed_for_duplicates_are_not_problems() -> None:
    flags = "df['Estimated'].astype(str).str.strip().str.upper().isin(['TRUE', '1', 'YES'])"
    code = f"df = df.drop_duplicates(subset=['Account', 'Read Date', 'Estimated'])\nprint({flags}.sum())"
    assert check_candidate(candidate(METER_Q, code)) is None
    # the dates compared as text are still sent back, and a value named outside the legend
    # is still a filter the code must apply
    as_text = code.replace(".sum())", "[df['Read Date'] > '15.01.2024'].sum())")
    assert "dates written day first" in (check_candidate(candidate(METER_Q, as_text)) or "")
    asked = METER_Q.replace("How many readings", "How many 'No' readings of A1")
    assert "'No'" in (check_candidate(candidate(asked, code)) or "")


@pytest.mark.parametrize(
    ("text", "code", "flagged"),
    [
        # a quoted value that stands for a missing one, the code handling missing values
        ("Mean weight? A weight of 'n/a' means it was not taken.", "df.w.fillna(0).mean()", False),
        ("Mean weight? A weight of 'n/a' means it was not taken.", "df.w.mean()", True),
        (
            "Rides in Nantes? The station is written as in 'Bellecour, Lyon'.",
            "df.s.str.contains('Nantes')",
            False,
        ),
    ],
)
def test_quoted_values_that_show_missing_values_or_examples_are_not_filters(
    text: str, code: str, flagged: bool
) -> None:
    assert (filter_problem(ask(text), code) is not None) is flagged


def test_exact_duplicates_dropped_on_some_columns_only_are_sent_back() -> None:
    from codeact.agents._datarules import subset_problem

    some = "df = df.drop_duplicates(subset=['Account', 'Read Date'], keep='first')\nprint(len(df))"
    problem = subset_problem(METER_Q, some)
    assert problem is not None and "only Account, Read Date" in problem
    assert problem.code == "df = df.drop_duplicates(keep='first')\nprint(len(df))"
    every = some.replace("'Read Date']", "'Read Date', 'Estimated']")
    assert subset_problem(METER_Q, every) is None  # (every column listed)
    key = some.replace("['Account', 'Read Date']", "['Account']")
    assert subset_problem(METER_Q, key) is None  # (one key column: deliberate)
    own = METER_Q.replace(
        "drop the exact duplicate rows first",
        "drop rows with exactly the same Account and Read Date",
    )
    assert subset_problem(own, some) is None  # (the question's own columns)
    twice = some + "\nb = df.drop_duplicates(subset=['Account', 'Read Date'])"
    fixed = subset_problem(METER_Q, twice)
    assert fixed is not None and fixed.code is not None and fixed.code.count("subset=") == 1
    loose = METER_Q.replace("drop the exact duplicate rows first", "keep one reading per account")
    assert subset_problem(loose, some) is None  # (not asked for identical rows)


@pytest.mark.parametrize(
    ("text", "condition", "flagged"),
    [
        # a condition on a column and a value the question never mentions
        ("What is the mean score?", "df['Passed'] == 'Honours'", True),
        ("How many rows are duplicates?", "df['Passed'].str.upper() == 'HONOURS'", True),
        # named: the column, the value, or the word a code stands for
        ("What is the mean score of the students who passed?", "df['Passed'] == 'Honours'", False),
        ("What is the mean score of the 'Honours' records?", "df.Passed == 'Honours'", False),
        ("What is the mean score of women?", "df['sex'] == 'F'", False),
        ("What is the mean score of the men?", "df['sex'] == 'M'", False),
        # rows left out (a summary row) and yes/no flags are not judged
        ("What is the average loan amount?", "df['Passed'] != 'TOTAL'", False),
        ("How many employees have left?", "df['Passed'] == 'N'", False),
    ],
)
def test_a_condition_the_question_never_asked_for_is_sent_back(
    text: str, condition: str, flagged: bool
) -> None:
    from codeact.agents._extrafilters import extra_filter_problem

    code = f"sub = df[{condition}]\nprint(sub['score'].mean())"
    said = extra_filter_problem(ask(text), code, ["Passed", "sex", "score"])
    assert (said is not None) is flagged, said
    if flagged:
        assert "never mentions 'Passed'" in (said or "")


def test_the_rules_send_back_a_condition_nobody_asked_for() -> None:
    grades = describe_files({"g.csv": b"id,Passed,score\n1,Honours,70\n2,Fail,40\n3,Pass,90\n"})
    q = f"Question: What is the mean score?\nFormat: @m[m_value]\n\n{grades}"
    said = check_candidate(candidate(q, "print(df[df['Passed'] == 'Honours']['score'].mean())"))
    assert "never mentions 'Passed'" in (said or "")
    assert check_candidate(candidate(q, "print(df['score'].mean())")) is None


VISITS = b"Visit ID,Guest,Club\n" + b"".join(
    b"%d,%s,%s\n" % (i, [b"yes", b"no", b"no"][i % 3], [b"RIV", b"OLD"][i % 2]) for i in range(30)
)


@pytest.mark.parametrize(
    ("question", "flagged"),
    [
        # fresh11 (blind): both values defined by when each is written, one asked for
        ("How many visits were made with a guest?", None),
        # a value named outside the legend is still a filter
        ("How many visits to OLD were made with a guest?", "'OLD'"),
    ],
)
def test_values_defined_by_when_they_are_written_are_a_legend(
    question: str, flagged: str | None
) -> None:
    text = (
        f"Question: {question}\nConstraints: Guest is 'yes' when the member brought a guest "
        "and 'no' when not; count the visits whose Guest is 'yes'.\n"
        f"Format: @n[n_value] where n_value is an integer.\n\n{describe_files({'v.csv': VISITS})}"
    )
    code = "print(len(df[df['Guest'] == 'yes']))"
    problem = check_candidate(candidate(text, code)) or ""
    assert (flagged in problem) if flagged else problem == ""


def _missing_question(column: str, cycle: list[bytes], question: str, said: str) -> str:
    """A question over ``v.csv`` (20 rows of ``column`` cycling through ``cycle``) with its
    files note."""
    data = f"Ref,{column}\n".encode() + b"".join(
        b"%d,%s\n" % (i, cycle[i % len(cycle)]) for i in range(20)
    )
    return (
        f"Question: {question}\nConstraints: {said}\n"
        f"Format: @n[n_value] where n_value is an integer.\n\n{describe_files({'v.csv': data})}"
    )


def test_a_sign_the_question_says_marks_a_missing_value_gets_na_values() -> None:
    """fresh11 (blind): "A Check Out that is empty or '--:--' was not recorded; count those
    visits" — the code counted the empty ones with .isna()."""
    text = _missing_question(
        "Check Out",
        [b"7:03", b"", b"--:--", b"9:15"],
        "How many visits have no check-out time recorded?",
        "A Check Out that is empty or '--:--' was not recorded; count those visits.",
    )
    problem = check_candidate(candidate(text, "print(df['Check Out'].isna().sum())")) or ""
    assert "'--:--' marks a missing value" in problem
    assert "na_values=['--:--']" in problem
    read = "df = pd.read_csv('v.csv', na_values=['--:--'])\nprint(df['Check Out'].isna().sum())"
    assert check_candidate(candidate(text, read)) is None
    # a quoted word for none: converting with errors='coerce' handles it (fresh11 tuned:
    # 'not synced' sent back a right mean); not handled, it gets na_values too
    named = text.replace("'--:--' was not recorded", "'not synced' was not recorded")
    coerced = "print(pd.to_numeric(df['Check Out'], errors='coerce').isna().sum())"
    assert check_candidate(candidate(named, coerced)) is None
    plain = check_candidate(candidate(named, "print(df['Check Out'].isna().sum())")) or ""
    assert "na_values=['not synced']" in plain
    # a quoted value that is not said to be missing is still a filter
    other = text.replace("'--:--' was not recorded; count", "'--:--' was left at the desk; count")
    left = check_candidate(candidate(other, "print(df['Check Out'].isna().sum())")) or ""
    assert "The question names '--:--'" in left


def test_a_word_said_to_mean_not_measured_gets_na_values() -> None:
    """fresh12 (blind): "Floor Area is empty or 'n/k' when it was not measured; count those
    listings" — .isna() alone counted 39 of 61; the plain "names 'n/k'" note made the model
    count the 'n/k' rows alone (22)."""
    text = _missing_question(
        "Floor Area",
        [b"73 m\xc2\xb2", b"", b"n/k", b"527 sq ft"],
        "How many listings have no floor area recorded?",
        "Floor Area is empty or 'n/k' when it was not measured; count those listings.",
    )
    problem = check_candidate(candidate(text, "print(df['Floor Area'].isna().sum())")) or ""
    # (the files note calls 'n/k' a sign for no number: the rule on such signs speaks first,
    # with code making them missing after the read; see test_nomarks)
    assert "'n/k' in 'Floor Area' stands for no number" in problem
    assert ".isin(['n/k'])" in problem
    read = "df = pd.read_csv('v.csv', na_values=['n/k'])\nprint(df['Floor Area'].isna().sum())"
    assert check_candidate(candidate(text, read)) is None
    # the quoted value alone misses the empty ones (fresh12 tuned: 22 of 61)
    alone = "print((df['Floor Area'] == 'n/k').sum())"
    assert "counts the empty values too" in (check_candidate(candidate(text, alone)) or "")
    both = "print((df['Floor Area'].isna() | (df['Floor Area'] == 'n/k')).sum())"
    assert check_candidate(candidate(text, both)) is None
    # "when" followed by anything else is not a missing value: still a plain filter
    other = text.replace("when it was not measured", "when it was measured by hand")
    left = check_candidate(candidate(other, "print(df['Floor Area'].isna().sum())")) or ""
    assert "The question names 'n/k'" in left


def test_comparing_a_number_column_with_its_word_for_none_is_not_a_text_comparison() -> None:
    """fresh12 (blind): Bedrooms is a number or 'Studio'; ``df['Bedrooms'] == 'Studio'``
    counted the 15 studios right and was sent back to convert the column (which then made
    every comparison with 'Studio' false: 0)."""
    data = b"Ref,Bedrooms\n" + b"".join(
        b"%d,%s\n" % (i, b"Studio" if i % 20 == 1 else b"%d" % (1 + i % 4)) for i in range(40)
    )
    text = (
        "Question: How many listings are studio flats?\nConstraints: Bedrooms is the number of "
        "bedrooms, or 'Studio' for a studio flat; count the listings whose Bedrooms is "
        "'Studio'.\nFormat: @n[n_value] where n_value is an integer.\n\n"
        f"{describe_files({'l.csv': data})}"
    )
    assert "'Studio' standing for no number" in text
    for code in (
        "print((df['Bedrooms'] == 'Studio').sum())",
        "print(df['Bedrooms'].str.strip().str.lower().isin(['studio']).sum())",
    ):
        assert text_number_problem(text, code) is None, code
    # a filter on other columns after the conversion: 'Studio' was made NaN, not missed
    # (fresh12 tuned: a right zone count was sent off to filter Type != 'Studio')
    coerced = (
        "df['Bedrooms'] = pd.to_numeric(df['Bedrooms'], errors='coerce')\n"
        "print((df['Bedrooms'] >= 3).sum())"
    )
    asked = text.replace("count the listings whose Bedrooms is 'Studio'", "count it as 0")
    assert check_candidate(candidate(asked, coerced)) is None
    plain = "print((df['Ref'] >= 3).sum())"  # (Bedrooms never converted: still a filter)
    assert "'Studio'" in (check_candidate(candidate(asked, plain)) or "")
    # review: NaN is not 0, so a test for 0 (or below) misses the studios; and coercing
    # another column does not deal with this one
    zero = coerced.replace(">= 3", "== 0")
    assert "'Studio'" in (check_candidate(candidate(asked, zero)) or "")
    other = "df['Ref'] = pd.to_numeric(df['Ref'], errors='coerce')\nprint(df['Bedrooms'])"
    assert "'Studio'" in (check_candidate(candidate(asked, other)) or "")
    # the column itself compared or summed as text is still sent back
    for code in (
        "print((df['Bedrooms'] >= '3').sum())",
        "s = df[df['Bedrooms'] != 'Studio']\nprint(s['Bedrooms'].max())",
        "print((df['Bedrooms'] == '3').sum(), (df['Bedrooms'] == 'Studio').sum())",
    ):
        assert "pd.to_numeric(df['Bedrooms'], errors='coerce')" in (
            text_number_problem(text, code) or ""
        ), code


def test_a_failed_cell_reading_times_of_day_as_dates_gets_the_notes_minutes() -> None:
    """fresh11 (blind): pd.to_datetime on '7:05' / '--:--' failed three cells in a row."""
    data = b"Check In,Check Out\n" + b"".join(
        b"%d:%02d,%s\n" % (6 + i % 9, i, [b"8:15", b"--:--", b"", b"11:40"][i % 4])
        for i in range(20)
    )
    text = f"Question: Mean minutes?\n\n{describe_files({'v.csv': data})}"
    line = "df['Check Out'] = pd.to_datetime(df['Check Out'], format='mixed', dayfirst=True)"
    hint = conversion_hint(text, line, line)
    assert hint.startswith("'Check Out' holds times of day as text (see the files note)")
    assert (
        "pd.to_timedelta(df['Check Out'] + ':00', errors='coerce').dt.total_seconds() / 60" in hint
    )
    done = "m = pd.to_timedelta(df['Check Out'] + ':00', errors='coerce').dt.total_seconds() / 60"
    assert conversion_hint(text, done, line) == ""


def test_a_quoted_filter_before_words_about_missing_values_is_still_a_filter() -> None:
    """Review: "visits with Guest 'yes' have a Check Out that is missing" advised
    na_values=['yes']."""
    data = b"Guest,Check Out\n" + b"".join(
        b"%s,%s\n" % ([b"yes", b"no"][i % 2], [b"8:15", b""][i % 3 == 0]) for i in range(20)
    )
    text = (
        "Question: How many visits with Guest 'yes' have a Check Out that is missing?\n"
        f"Format: @n[n_value] where n_value is an integer.\n\n{describe_files({'v.csv': data})}"
    )
    problem = check_candidate(candidate(text, "print(df['Check Out'].isna().sum())")) or ""
    assert "The question names 'yes'" in problem and "na_values" not in problem


def test_numbers_in_several_units_averaged_as_one_are_sent_back_with_the_factor() -> None:
    """fresh12 (blind): Floor Area is '73 m²', '85 sqm' or '527 sq ft' ("divide by 10.7639
    for square metres"); the model took the digits of every value and averaged them (309.39
    for 88.18)."""
    forms = ["{} m²", "{} sqm", "{}0 sq ft", "n/k", ""]
    data = "Ref,Floor Area\n" + "".join(f"{i},{forms[i % 5].format(60 + i)}\n" for i in range(40))
    areas = [60 + i if i % 5 < 2 else (60 + i) * 10 / 10.7639 for i in range(40) if i % 5 < 3]
    text = (
        "Question: What is the mean floor area of a listing, in square metres?\nConstraints: "
        "Floor Area is in square metres ('85 m²' or '85 sqm') or in square feet ('915 sq ft': "
        "divide by 10.7639 for square metres); it is empty or 'n/k' when it was not measured: "
        "leave those listings out.\nFormat: @mean_m2[v] where v is a float rounded to 2 "
        f"decimal places.\n\n{describe_files({'v.csv': data.encode()})}"
    )
    digits = (
        "df['Floor Area'] = df['Floor Area'].str.extract(r'([\\d.,]+)')[0].str.replace(',', '')\n"
        "df['Floor Area'] = pd.to_numeric(df['Floor Area'], errors='coerce')\n"
        "print(df['Floor Area'].mean())"
    )
    problem = check_candidate(candidate(text, digits)) or ""
    assert "written in several units" in problem
    assert "value = value.where(unit != 'sq ft', value / 10.7639)" in problem
    way = re.search(r"Take the unit too: (value = .*?\.str\.strip\(\));", problem)
    assert way is not None
    fixed = (
        "import pandas as pd\ndf = pd.read_csv(io.StringIO(DATA))\n"
        f"{way.group(1).replace('; ', chr(10))}\n"
        "value = value.where(unit != 'sq ft', value / 10.7639)\nprint(round(value.mean(), 2))"
    )
    assert check_candidate(candidate(text, fixed)) is None
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(fixed, {"io": io, "DATA": data})
    assert out.getvalue().strip() == f"{sum(areas) / len(areas):.2f}"
    # converted and left unused (the cell answers about another column): no unit needed
    other = digits.replace("print(df['Floor Area'].mean())", "print(len(df))")
    assert "several units" not in (check_candidate(candidate(text, other)) or "")
    # review: a look at the unit by another word counts; a comment or a name holding
    # 'unit' does not
    ft = digits.replace(
        "print(df['Floor Area'].mean())",
        "sqft = data_ft = df['Ref'] > 0\nft = df['Floor Area'].where(~df['Ref'].astype(str).str"
        ".contains('ft'))\nprint(ft.mean())",
    )
    assert "several units" not in (check_candidate(candidate(text, ft)) or "")
    noted = digits.replace("print(", "n_units = 3  # the unit\nprint(")
    assert "several units" in (check_candidate(candidate(text, noted)) or "")
    # counting the missing ones converts nothing: no unit needed
    count = "print(df['Floor Area'].isna().sum() + (df['Floor Area'] == 'n/k').sum())"
    assert "several units" not in (check_candidate(candidate(text, count)) or "")


def test_a_column_converted_again_after_its_clean_up_is_not_a_raw_conversion() -> None:
    """fresh12: ``df['Fee'] = df['Fee'].str.replace(...).astype(float)`` and later
    ``df['Fee'] = df['Fee'].astype(float)`` (harmless) was sent back as a raw conversion."""
    data = b"Ref,Fee\n" + b"".join(b"%d,%d.25%%\n" % (i, 1 + i % 2) for i in range(20))
    text = (
        "Question: What is the mean fee?\nConstraints: Fee is a percentage as text ('1.25%')."
        f"\nFormat: @fee[v]\n\n{describe_files({'f.csv': data})}"
    )
    clean = "df['Fee'] = df['Fee'].str.replace(r'[%,\\s]', '', regex=True).astype(float)\n"
    again = clean + "df['Fee'] = df['Fee'].astype(float)\nprint(df['Fee'].mean())"
    assert text_number_problem(text, again) is None
    raw = "df['Fee'] = df['Fee'].astype(float)\n" + clean + "print(df['Fee'].mean())"
    assert "holds numbers written with signs" in (text_number_problem(text, raw) or "")


def test_weights_in_grams_and_kilograms_averaged_as_one_are_sent_back() -> None:
    """review: the unit 'g' is in 'Weight' and 'groupby': the rule never fired for fresh13's
    weights; it looks for the unit as a word of a text in the code."""
    data = "Ref,Weight\n" + "".join(
        f"{i},{[f'{i}.5 kg', f'{i}50 g'][i % 2]}\n" for i in range(1, 30)
    )
    text = (
        "Question: What is the mean weight in kg?\nConstraints: Weight is in kg or g.\n"
        f"Format: @w[v]\n\n{describe_files({'w.csv': data.encode()})}"
    )
    digits = (
        "df['Weight'] = pd.to_numeric(df['Weight'].str.extract(r'([\\d.,]+)')[0], "
        "errors='coerce')\nprint(df.groupby('Ref')['Weight'].mean().mean())"
    )
    assert "several units" in (check_candidate(candidate(text, digits)) or "")
    grams = digits.replace("print(", "g = df['Weight'].where(True)\nkg = 'kg'\nprint(")
    assert check_candidate(candidate(text, grams)) is None


def test_units_rule_names_the_known_factor_and_reads_no_unit_in_a_printed_label() -> None:
    """fresh13 (after its tuning): the answer line ``print(f"@mean_kg[{mean_kg:.2f}]")`` was
    taken for a look at the unit 'kg' (1070.73 for 2.26); a question asking "in kilograms"
    of grams and kilograms gets the line that brings grams to kilograms."""
    forms = ["{}.5 kg", "{}50 g", '"1,{:03d} g"']
    data = "Ref,Weight\n" + "".join(f"{i},{forms[i % 3].format(i)}\n" for i in range(1, 30))
    text = (
        "Question: What is the mean weight of a parcel, in kilograms?\nConstraints: Weight is "
        f"in kg or g.\nFormat: @mean_kg[v]\n\n{describe_files({'w.csv': data.encode()})}"
    )
    digits = (
        "df['Weight'] = df['Weight'].str.extract(r'([\\d.,]+)')[0].str.replace(',', '')\n"
        "df['Weight'] = pd.to_numeric(df['Weight'])\nmean_kg = df['Weight'].mean()\n"
        'print(f"@mean_kg[{mean_kg:.2f}]")'
    )
    problem = check_candidate(candidate(text, digits)) or ""
    assert "value = value.where(unit != 'g', value / 1000)" in problem
    # asked in grams: kilograms times 1000; the data's own "in kg or g" does not count
    grams = text.replace("in kilograms?", "in grams?")
    problem = check_candidate(candidate(grams, digits)) or ""
    assert "value = value.where(unit != 'kg', value * 1000)" in problem
    labelled = digits.replace('print(f"@mean_kg[{mean_kg:.2f}]")', 'print("mean in kg:", mean_kg)')
    assert "several units" in (check_candidate(candidate(text, labelled)) or "")
    # a unit in a compared text is still a look at the unit
    looked = digits.replace("mean_kg = ", "kg = df['Weight'].where(df['Ref'] != 'kg')\nmean_kg = ")
    assert check_candidate(candidate(text, looked)) is None
    # the note's code (run when the model re-runs a cell): the cell's own conversions of the
    # column give way to the note's reading with the factor, "more than 5 kilograms" too
    from codeact.agents._mixedunits import mixed_units_problem

    read = "import pandas as pd\ndf = pd.read_csv(io.StringIO(DATA))\n"
    kilos = [
        float(f.format(i).strip('"').split()[0].replace(",", ""))
        for i in range(1, 30)
        for f in [forms[i % 3]]
    ]
    kilos = [k if i % 3 == 0 else k / 1000 for i, k in enumerate(kilos, start=1)]
    over = text.replace(
        "What is the mean weight of a parcel, in kilograms?",
        "How many parcels weigh more than 5 kilograms?",
    )
    for asked, cell, want in (
        (
            text,
            digits + "\ndf['Weight'] = df['Weight'] / 1000",
            f"@mean_kg[{sum(kilos) / len(kilos):.2f}]",
        ),
        (
            over,
            digits.replace("mean_kg = df['Weight'].mean()", "mean_kg = (df['Weight'] > 5).sum()"),
            f"@mean_kg[{sum(k > 5 for k in kilos)}.00]",
        ),
    ):
        fixed = getattr(mixed_units_problem(asked, read + cell), "code", None)
        assert fixed is not None and "value = value.where(unit != 'g', value / 1000)" in fixed
        assert "/ 1000\n" not in fixed.split("value / 1000)")[-1]  # (its own scaling left out)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(fixed, {"io": io, "DATA": data})
        assert out.getvalue().strip() == want, fixed
    # no code when the cell already names value or unit, or converts the column inside a block
    for cell in (
        "unit = 1\n" + digits,
        digits.replace("df['Weight'] = pd", "if True:\n    df['Weight'] = pd"),
    ):
        assert getattr(mixed_units_problem(text, read + cell), "code", None) is None, cell


@pytest.mark.anyio
@pytest.mark.filterwarnings("ignore::UserWarning")
async def test_a_unit_looked_at_after_the_column_became_numbers_is_re_run_with_the_note() -> None:
    """fresh13 (after its tuning), two questions: ``df['Weight'] = pd.to_numeric(...)`` then
    ``df['Weight'] = df['Weight'] * (1 if df['Weight'].str.endswith('g') else 1000)`` failed
    (.str on numbers) three times each. The cell runs with the note's reading and the factor
    in place of its conversions."""
    from tests.helpers import run_one_cell

    forms = ["{}.5 kg", "{}50 g"]
    data = "Ref,Weight\n" + "".join(f"{i},{forms[i % 2].format(i)}\n" for i in range(1, 21))
    kilos = [i + 0.5 if i % 2 == 0 else (i * 100 + 50) / 1000 for i in range(1, 21)]
    note = describe_files({"w.csv": data.encode()})
    question = f"Question: How many parcels weigh more than 5 kilograms?\n\n{note}"
    cell = (
        "import pandas as pd\ndf = pd.read_csv('w.csv')\n"
        "df['Weight'] = pd.to_numeric(df['Weight'].str.extract(r'([\\d.]+)')[0])\n"
        "df['Weight'] = df['Weight'] * (1 if df['Weight'].str.endswith('g') else 1000)\n"
        "print((df['Weight'] > 5).sum())"
    )
    result = await run_one_cell({"w.csv": data.encode()}, cell, question)
    content = result.tool_output.content
    assert "value = value.where(unit != 'g', value / 1000)" in content, content
    assert content.rstrip().endswith(str(sum(k > 5 for k in kilos))), content
    # no unit asked (no factor), or a failure elsewhere: left to the model
    from codeact._execution import CellError, ExecutionResult
    from codeact.agents._mixedunits import units_cell_fix

    tb = 'File "<cell-1>", line {}, in <module>'
    err = "Can only use .str accessor with string values, not floating"

    def failed(line: int) -> ExecutionResult:
        return ExecutionResult(
            error=CellError(type="AttributeError", message=err, traceback=tb.format(line))
        )

    assert units_cell_fix(question, failed(4), cell) is not None
    assert units_cell_fix(question.replace(" 5 kilograms", " 5"), failed(4), cell) is None
    assert units_cell_fix(question, failed(2), cell) is None  # (a line not using it)
    # fresh14 (blind): periods in days and weeks converted to text again and compared with
    # 14 ('>' not supported between 'str' and 'int'): the note's reading in days
    periods = ["7 days", "3 weeks", "21 days", "2 weeks"]
    rows = "Ref,Loan Period\n" + "".join(f"{i},{periods[i % 4]}\n" for i in range(20))
    asked = (
        "Question: How many loans had a loan period of more than two weeks?\nConstraints: "
        "Count the loans whose Loan Period is longer than 14 days.\n\n"
        f"{describe_files({'l.csv': rows.encode()})}"
    )
    garbled = (
        "import pandas as pd\ndf = pd.read_csv('l.csv')\n"
        "df['Loan Period'] = pd.to_numeric(df['Loan Period'].str.extract(r'(\\d+)')[0])\n"
        "df['Loan Period'] = df['Loan Period'].astype(str)\n"
        "print((df['Loan Period'] > 14).sum())"
    )
    result = await run_one_cell({"l.csv": rows.encode()}, garbled, asked)
    content = result.tool_output.content
    assert "after converting it its own way" in content, content
    assert content.rstrip().endswith("10"), content  # (21 days and 3 weeks: half of them)


def test_loan_periods_in_days_and_weeks_are_noted_and_brought_to_the_compared_unit() -> None:
    """fresh14 (blind): Loan Period '7 days', '3 weeks' or '21 days' was noted as ten distinct
    values ('weeks' is five letters) and ``pd.to_numeric(..., errors='coerce')`` compared
    the days alone with 14 (0 for 337). The question says "more than two weeks", its
    constraints "longer than 14 days": the unit of the number the code compares with wins."""
    from codeact.agents._mixedunits import mixed_units_problem

    periods = ["7 days", "3 weeks", "21 days", "1 week", "28 days", "2 weeks"]
    data = "Ref,Loan Period\n" + "".join(f"{i},{periods[i % 6]}\n" for i in range(36))
    note = describe_files({"l.csv": data.encode()})
    assert "numbers with units ('days' and 'week' and 'weeks') as text" in note
    text = (
        "Question: How many loans had a loan period of more than two weeks?\nConstraints: Loan "
        "Period is in weeks or in days ('3 weeks' and '21 days' are the same). Count the loans "
        f"whose Loan Period is longer than 14 days.\nFormat: @n[v]\n\n{note}"
    )
    cell = (
        "import pandas as pd\ndf = pd.read_csv(io.StringIO(DATA))\n"
        "df['Loan Period'] = pd.to_numeric(df['Loan Period'], errors='coerce')\n"
        "print((df['Loan Period'] > 14).sum())"
    )
    problem = mixed_units_problem(text, cell)
    assert problem is not None and problem.code is not None
    assert "value = value.where(unit != 'weeks', value * 7)" in problem
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(problem.code, {"io": io, "DATA": data})
    assert out.getvalue().strip() == "18"  # (21, 21 and 28 days of every six)
    # without the number in days, the question's "two weeks" asks for weeks
    weeks = text.replace(" Count the loans whose Loan Period is longer than 14 days.", "")
    assert "value = value.where(unit != 'days', value / 7)" in (
        mixed_units_problem(weeks, cell) or ""
    )


def test_the_decimal_point_taken_out_of_amounts_is_sent_back_and_a_quoted_amount_is_no_value() -> (
    None
):
    """fresh14 (blind): Fine '£1.40' (or 'none'): ``.str.replace('£', '').str.replace('.',
    '')`` added up 16865.00 in fines for 168.65, after "'£0', '£0.00', 'none' and an empty
    Fine all mean no fine" had been taken for a filter on '£0' (and '£0.00')."""
    from codeact.agents._datarules import decimal_point_problem

    fines = ["£1.40", "£0", "none", "", "£0.00", "£12.50", "none", "£3"]
    data = "Ref,Fine\n" + "".join(f"{i},{fines[i % 8]}\n" for i in range(40))
    text = (
        "Question: How much was charged in fines in total?\nConstraints: Fine is in pounds with "
        "a £ sign ('£1.40'); '£0', '£0.00', 'none' and an empty Fine all mean no fine (count "
        "them as 0). Add up the fines, in pounds.\nFormat: @total[v]\n\n"
        f"{describe_files({'f.csv': data.encode()})}"
    )
    cell = (
        "import pandas as pd\ndf = pd.read_csv(io.StringIO(DATA))\n"
        "df['Fine'] = df['Fine'].str.replace('£', '').str.replace('.', '').str.replace('none', '0')"
        ".astype(float)\nprint(round(df['Fine'].sum(), 2))"
    )
    told = check_candidate(candidate(text, cell)) or ""
    assert "takes the point out" in told, told
    problem = decimal_point_problem(text, cell)
    assert problem is not None and problem.code is not None
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(problem.code, {"io": io, "DATA": data})
    assert out.getvalue().strip() == str(5 * (1.4 + 12.5 + 3))
    # the amounts quoted as what means no fine are not filters; the right sum passes
    assert check_candidate(candidate(text, problem.code)) is None
    # numbers whose note reads dots as thousands ('1.234,5 kg'): the point is theirs to drop
    kilos = "Ref,Weight\n" + "".join(f'{i},"1.2{i % 10}0,5 kg"\n' for i in range(20))
    euro = f"Question: Total weight?\n\n{describe_files({'k.csv': kilos.encode()})}"
    dots = "print(df['Weight'].str.replace('.', '').str.replace(',', '.'))"
    assert decimal_point_problem(euro, dots) is None


def test_hours_and_minutes_get_the_factor_to_the_asked_unit() -> None:
    """fresh17 (blind): Labour '2,5 h' or '150 min', the mean asked in hours; the model took
    the number as written (91.90 for 2.03). Hours and minutes are known sizes of time now."""
    data = "Ref,Labour\n" + "".join(
        f'{i},"{[f"{i},5 h", f"{i * 30} min"][i % 2]}"\n' for i in range(1, 30)
    )
    text = (
        "Question: What is the mean labour time, in hours?\nConstraints: Labour is in hours "
        f"or minutes.\nFormat: @h[v]\n\n{describe_files({'l.csv': data.encode()})}"
    )
    digits = (
        "df['Labour'] = pd.to_numeric(df['Labour'].str.extract(r'([\\d.,]+)')[0]"
        ".str.replace(',', '.'), errors='coerce')\nprint(df['Labour'].mean())"
    )
    problem = check_candidate(candidate(text, digits)) or ""
    assert "value = value.where(unit != 'min', value / 60)" in problem, problem
    minutes = text.replace("in hours?", "in minutes?")
    problem = check_candidate(candidate(minutes, digits)) or ""
    assert "value = value.where(unit != 'h', value * 60)" in problem, problem
