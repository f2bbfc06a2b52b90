"""The review of issue 29's twenty-first pass (fbfb18c to the fresh20 rules): each test is a
finding a helper reproduced, and fails on the code before its fix."""

from __future__ import annotations

import io

import pandas as pd

from codeact.agents._clockmins import one_way_problem
from codeact.agents._contradict import contradiction_problem
from codeact.agents._datetext import year_problem
from codeact.agents._dropna import extra_dropna_problem
from codeact.agents._groups import period_problem
from codeact.agents._isinna import isin_marker_problem
from codeact.agents._money import spaced_hint
from codeact.agents._repeats import keep_all_problem
from codeact.agents._totals import totals_hint, totals_problem
from codeact.agents.code import describe_files
from tests.agents.test_brewery import FILES, READ, E
from tests.helpers import exec_with_files, question_of

COST = (
    "pd.to_numeric(df['Cost (Kč)'].str.replace(r'[^\\d,-]', '', regex=True).str.replace(',', '.'))"
)


def _line(note: str, column: str) -> str:
    return next(ln for ln in note.splitlines() if ln.strip().startswith(f"- {column!r}"))


def test_a_unit_word_ending_in_a_dot_is_no_crash_and_no_reading() -> None:
    note = describe_files({"f.csv": b"C\n1 234,5 ks.\n12,5 ks.\n2 000 ks.\n"})
    assert "convert with" not in _line(note, "C")


def test_phone_numbers_are_no_amounts() -> None:
    assert spaced_hint(["602 123 456", "777 888 999", "605 111 222"], "Contact") == ""
    assert spaced_hint(["602 123 456", "777 888 999"], "Phone") == ""
    assert spaced_hint(["+420 731 000 111", "+420 602 123 456"], "x") == ""


def test_a_comma_of_thousands_or_of_decimals_is_not_guessed() -> None:
    assert spaced_hint(["1,250", "2 500", "300"], "Amount") == ""


def test_amounts_beside_a_dash_for_none_are_read_with_coerce() -> None:
    hint = spaced_hint(["1 234,5 Kč", "-", "980,10"], "Cost")
    assert "'-' standing for no number" in hint and "errors='coerce'" in hint


def test_square_feet_with_spaced_thousands_keep_their_whole_unit() -> None:
    csv = "Area\n1 200 sq ft\n110 sq m\n95 sq m\n2 000 sq ft\n"
    line = _line(describe_files({"a.csv": csv.encode()}), "Area")
    scope = {"pd": pd, "df": pd.read_csv(io.StringIO(csv))}
    exec(line.split("as text: ")[1].split("; bring")[0].replace("; ", "\n"), scope)
    assert scope["unit"].tolist() == ["sq ft", "sq m", "sq m", "sq ft"]


def test_a_month_of_a_one_year_file_is_still_asked_for() -> None:
    question = question_of("How many batches were brewed in March 2023?", "Count them.", FILES)
    told = year_problem(question, READ + "print(len(df))")
    assert told is not None and "never uses that" in told


def test_one_year_in_another_date_column_does_not_speak_for_all() -> None:
    files = {
        "o.csv": b"Order,Date\n1,2022-05-01\n2,2023-02-01\n3,2023-03-01\n",
        "h.csv": b"Holiday,Day\nA,2023-01-01\nB,2023-12-25\nC,2023-05-01\n",
    }
    question = question_of("How many orders were placed in 2023?", "Count them.", files)
    code = "import pandas as pd\ndf = pd.read_csv('o.csv')\nprint(len(df))"
    assert year_problem(question, code) is not None


def test_one_year_in_the_rows_read_is_no_claim_for_a_longer_file() -> None:
    rows = "".join(f"{i},2023-06-01\n" for i in range(20_000)) + "20000,2024-01-02\n" * 10
    note = describe_files({"l.csv": ("Id,Date\n" + rows).encode()})
    assert "all in 2023" not in _line(note, "Date")


def test_the_end_of_each_month_is_still_a_period() -> None:
    question = question_of(
        "What was the total balance at the end of each month?", "Add up Balance.", FILES
    )
    told = period_problem(question, READ + "print(df.groupby('Batch No')['Volume'].count())")
    assert told is not None and "asks per month" in told


def test_the_note_leaves_out_sum_rows_but_not_summer_ale() -> None:
    beers = ["Summer Ale", "Summit IPA", "Lager"] * 4 + ["Sum", "Sum"]
    litres = [str(10 * (i + 1)) for i in range(12)] + ["100", "200"]
    hint = totals_hint(["Beer", "Litres", "Note"], [beers, litres, ["x"] * 12 + ["", ""]])
    df = pd.DataFrame({"Beer": beers, "Litres": litres})
    kept = eval(hint.split("leave them out first: df = ")[1], {"df": df})
    assert len(kept) == 12


def test_tasks_starting_with_sum_or_total_are_no_total_rows() -> None:
    tasks = ["Sum up survey results", "Total cost check", "Write report", "Email", "Plan", "Call"]
    status = ["", "", "done", "open", "done", "open"]
    assert totals_hint(["Task", "Status"], [tasks, status]) == ""


def test_total_rows_left_out_other_ways_are_not_sent_back() -> None:
    question = question_of("How much did the batches cost?", f"{E}. Add up the Cost.", FILES)
    for left in (
        "df = df[df['Brew Date'].notna()]\n",
        "df = df[~df['Batch No'].str.startswith(('Total', 'Sum'))]\n",
        "df = df.query(\"~`Batch No`.str.startswith('Total')\")\n",
        "df = df[~df.iloc[:, 0].str.startswith('Total')]\n",
        "df = df[df['Batch No'].str.match(r'\\d')]\n",
    ):
        assert totals_problem(question, READ + left + f"print({COST}.sum())") is None, left


def test_no_runnable_code_when_the_read_leaves_the_label_column_out() -> None:
    question = question_of("How much did the batches cost?", f"{E}. Add up the Cost.", FILES)
    code = (
        "import pandas as pd\ndf = pd.read_csv('b.csv', usecols=['Cost (Kč)'])\n"
        f"print({COST}.sum())"
    )
    problem = totals_problem(question, code)
    assert problem is not None and problem.code is None


def test_a_dropna_that_leaves_the_totals_out_or_that_the_question_names_stays() -> None:
    question = question_of("How much did the batches cost?", f"{E}. Add up the Cost.", FILES)
    code = READ + "df = df.dropna(subset=['Brew Date'])\n" + f"print({COST}.sum())"
    assert extra_dropna_problem(question, code) is None
    asked = question_of("How many batches have a recorded cost?", "Count them.", FILES)
    counted = READ + "print(len(df.dropna(subset=['Cost (Kč)'])))"
    assert extra_dropna_problem(asked, counted) is None


def test_keep_false_kept_for_another_count_or_shown_is_left_alone() -> None:
    files = {"d.csv": b"a,b\n1,x\n1,x\n1,x\n2,y\n2,y\n3,z\n"}
    read = "import pandas as pd\ndf = pd.read_csv('d.csv')\n"
    question = question_of("How many rows repeat an earlier row?", "Count them.", files)
    both = read + "d = df[df.duplicated(keep=False)]\nprint(len(d) - len(d.drop_duplicates()))"
    assert exec_with_files(files, both) == ["3"] and keep_all_problem(question, both) is None
    shown = read + "print(df[df.duplicated(keep=False)])\nprint(df.duplicated().sum())"
    assert keep_all_problem(question, shown) is None
    dated = question_of(
        "How many orders were placed after the first of March?", "Count them.", files
    )
    assert keep_all_problem(dated, read + "print(df.duplicated(keep=False).sum())") is None


def test_hours_read_with_a_character_class_count_as_read() -> None:
    question = question_of("How many batches took more than 7 hours?", f"{E}. Count them.", FILES)
    t = "df['Brewhouse Time'].str.strip()"
    code = READ + (
        f"c = {t}.str.extract(r'^(\\d+):(\\d+)$').astype(float)\n"
        f"m = pd.to_numeric({t}.str.extract(r'^(\\d+) min$')[0])\n"
        f"h = pd.to_numeric({t}.str.extract(r'^([\\d,]+)\\s*[hH]$')[0].str.replace(',', '.')) * 60\n"
        "print(((c[0] * 60 + c[1]).add(m, fill_value=0).add(h, fill_value=0) > 420).sum())"
    )
    assert exec_with_files(FILES, code) == ["10"]  # (every way read: right)
    assert one_way_problem(question, code) is None


def test_words_put_back_before_isin_are_left_alone() -> None:
    files = {"q.csv": b"Id,QC\n1,OK\n2,n/a\n3,-\n4,\n"}
    code = (
        "import numpy as np\nimport pandas as pd\ndf = pd.read_csv('q.csv')\n"
        "df['QC'] = df['QC'].replace(np.nan, 'n/a')\nprint(df['QC'].isin(['-', 'n/a']).sum())"
    )
    assert exec_with_files(files, code) == ["3"] and isin_marker_problem("", code) is None


def test_a_frame_set_back_from_a_saved_copy_ends_the_contradiction() -> None:
    code = (
        "import pandas as pd\nraw = pd.read_csv('b.csv')\ndf = raw.copy()\n"
        "df = df[df['QC'] == 'OK']\nprint(len(df))\ndf = raw\nprint((df['QC'] == 'FAIL').sum())"
    )
    assert contradiction_problem("", code) is None


def test_czech_dates_of_one_format_are_read_day_first() -> None:
    csv = "D\n5. 3. 2023\n1. 12. 2023\n15. 12. 2023\n"
    line = _line(describe_files({"d.csv": csv.encode()}), "D")
    reading = line.split(": ", 2)[2].split(", e.g.")[0]
    got = eval(reading, {"pd": pd, "df": pd.read_csv(io.StringIO(csv))})
    assert got.dt.month.tolist() == [3, 12, 12]


def test_the_records_own_date_column_speaks_for_the_year() -> None:
    rows = "Batch,Brewed,Packaged\n1,2023-03-01,2023-04-01\n2,2023-12-01,2024-01-05\n"
    rows += "3,2023-06-01,2023-07-01\n"
    files = {"b.csv": rows.encode()}
    question = question_of("How many batches failed?", "Batches brewed in 2023. Count.", files)
    code = "import pandas as pd\ndf = pd.read_csv('b.csv')\nprint(len(df))"
    assert year_problem(question, code) is None  # (every Brewed date is of 2023)
    swapped = "Batch,Packaged,Brewed\n1,2023-04-01,2023-03-01\n2,2024-01-05,2023-12-01\n"
    swapped += "3,2023-07-01,2023-06-01\n"
    other = question_of(
        "How many batches failed?", "Batches packaged in 2023. Count.", {"b.csv": swapped.encode()}
    )
    assert year_problem(other, code) is not None
