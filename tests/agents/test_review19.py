"""A helper's review of the nineteenth pass (fresh17 and fresh18 tuning): each finding, run
to confirm it, as a test. Most are right cells a new rule sent back, or runnable fixes that
turned right code wrong; each assertion fails on the code before its fix."""

from __future__ import annotations

import io

import pandas as pd
import pytest

from codeact.agents.code import describe_files
from tests.helpers import exec_with_files, question_of


def test_pm_rule_leaves_other_numbers_and_12_hour_code_alone() -> None:
    from codeact.agents._pmtimes import pm_problem

    starts = ["1:15 PM", "9:40 AM", "2:05 PM", "11:30 AM"]
    rows = "Call,Start,Duration\n" + "".join(
        f"C{i},{starts[i % 4]},{30 + i * 7}\n" for i in range(12)
    )
    files = {"c.csv": rows.encode()}
    question = question_of(
        "How many calls that started after 1 PM lasted more than 60 minutes?", "", files
    )
    read = "import pandas as pd\ndf = pd.read_csv('c.csv')\n"
    parsed = (
        read + "t = pd.to_datetime(df['Start'], format='%I:%M %p')\n"
        "print(((t.dt.time > pd.to_datetime('1:00 PM').time()) & (df['Duration'] > 60)).sum())"
    )
    assert pm_problem(question, parsed) is None  # (a bare 60 is a duration, not 1 PM)
    twelve = (
        read + "pm = df['Start'].str.contains('PM')\n"
        "hour = df['Start'].str.extract(r'^(\\d+):')[0].astype(int)\n"
        "print((pm & (hour >= 1) & (df['Duration'] > 60)).sum())"
    )
    assert pm_problem(question, twelve) is None  # (the 12-hour clock read as such)


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        ("the Amount is positive for sales and negative for refunds. Add up the Tickets of "
         "the refunds (not the sales).", "refunds"),
        ("Sales and refunds are both listed: for a sale the Amount is positive, for a refund "
         "negative. Add up the Tickets, excluding the refunds.", "sales"),
    ],
)  # fmt: skip
def test_the_sign_of_the_rows_left_out_is_read_in_their_own_clause(said: str, kept: str) -> None:
    from codeact.agents._signs import sign_problem

    amounts = ["$723.90", "-$45.00", "$18.50", "-$12.00", "$99.95"]
    rows = "Txn,Amount,Tickets\n" + "".join(
        f'T{i},"{amounts[i % 5]}",{i % 4 + 1}\n' for i in range(20)
    )
    files = {"t.csv": rows.encode()}
    cell = "import pandas as pd\ndf = pd.read_csv('t.csv')\nprint(df['Tickets'].sum())"
    problem = sign_problem(question_of("Tickets?", said, files), cell)
    refunds = sum(i % 4 + 1 for i in range(20) if i % 5 in (1, 3))
    sales = sum(i % 4 + 1 for i in range(20)) - refunds
    assert problem is not None
    assert exec_with_files(files, problem.code or "") == [
        str(refunds if kept == "refunds" else sales)
    ]


def test_amounts_in_parentheses_without_signs_are_converted_by_the_fix() -> None:
    from codeact.agents._signs import sign_problem

    amounts = ["723.90", "(45.00)", "1,234.50", "(12.00) ", "99.95"]
    rows = "Txn,Amount,Tickets\n" + "".join(
        f'T{i},"{amounts[i % 5]}",{i % 4 + 1}\n' for i in range(20)
    )
    files = {"t.csv": rows.encode()}
    said = "Every row is a sale (its Amount is positive) or a refund (negative). Count sales (not the refunds)."
    cell = "import pandas as pd\ndf = pd.read_csv('t.csv')\nprint(df['Tickets'].sum())"
    problem = sign_problem(question_of("Tickets?", said, files), cell)
    assert problem is not None
    want = sum(i % 4 + 1 for i in range(20) if i % 5 not in (1, 3))
    assert exec_with_files(files, problem.code or "") == [str(want)]


def test_times_dates_and_a_list_running_into_the_next_clause_are_no_other_spellings() -> None:
    from codeact.agents._aliases import stated_aliases

    assert stated_aliases("Runtime is also written '1:28' for 88 minutes.") == []
    assert stated_aliases("a Date is also written '2024-03-07' in newer rows.") == []
    said = (
        "Channel is Online, App or Box Office; Online is also written 'Web' and 'Mobile' means App."
    )
    assert [(a, v) for a, v, _ in stated_aliases(said)] == [("Web", "Online")]


def test_isin_on_text_folded_through_a_loop_or_title_case_is_left_alone() -> None:
    from codeact.agents._datarules import case_problem

    makes = ["VW", "Volkswagen", "vw ", "Ford", " volkswagen", "FORD", "Toyota", "toyota "]
    rows = "Job,make,model\n" + "".join(f"J{i},{makes[i % 8]},x\n" for i in range(40))
    files = {"g.csv": rows.encode()}
    question = question_of("How many Volkswagen jobs?", "make is in any case.", files)
    read = "import pandas as pd\ndf = pd.read_csv('g.csv')\n"
    loop = read + (
        "for c in ['make', 'model']:\n    df[c] = df[c].str.strip().str.lower()\n"
        "print(df['make'].isin(['vw', 'volkswagen']).sum())"
    )
    title = read + (
        "df['make'] = df['make'].str.strip().str.title()\n"
        "print(df['make'].isin(['Vw', 'Volkswagen']).sum())"
    )
    for cell in (loop, title):
        assert exec_with_files(files, cell) == ["20"]
        assert case_problem(question, cell) is None, cell


def test_a_test_of_the_masked_column_after_the_mask_is_a_filter() -> None:
    from codeact.agents._rules import category_problem

    types = ["Repair", "Repairs", "Service", "repair", "Service"]
    rows = "Ref,Job Type,Labour\n" + "".join(f"J{i},{types[i % 5]},{i}\n" for i in range(20))
    files = {"g.csv": rows.encode()}
    said = (
        "Job Type is Repair or Service; Repair is also written 'Repairs'. Over the jobs "
        "whose Job Type is Repair, take the mean Labour."
    )
    mask = (
        "import pandas as pd\ndf = pd.read_csv('g.csv')\ndf['Job Type'] = df['Job Type'].mask("
        "df['Job Type'].str.strip().str.lower().isin(['repairs', 'repair']), 'Repair')\n"
    )
    cell = mask + "print(df[df['Job Type'] != 'Service']['Labour'].mean())"
    assert category_problem(question_of("Mean Labour of repairs?", said, files), cell) is None


def test_european_amounts_cleaned_then_to_numeric_are_converted() -> None:
    from codeact.agents._rules import text_number_problem

    amounts = ["€1.234,50", "12,00 €", "€ 7,25", "1.000,00 €"]
    rows = "Txn,Amount\n" + "".join(f'T{i},"{amounts[i % 4]}"\n' for i in range(8))
    files = {"t.csv": rows.encode()}
    cell = (
        "import pandas as pd\ndf = pd.read_csv('t.csv')\n"
        "df['Amount'] = df['Amount'].str.replace('€', '').str.replace('.', '', regex=False)"
        ".str.replace(',', '.').str.strip()\n"
        "df['Amount'] = pd.to_numeric(df['Amount'])\nprint(df['Amount'].sum())"
    )
    assert exec_with_files(files, cell) == ["4507.5"]
    assert text_number_problem(question_of("Total?", "", files), cell) is None


def test_a_re_sent_cell_runs_a_rule_s_code_once_only() -> None:
    from codeact.agents._candidate import CellRun
    from codeact.agents._rules import repeat_problem

    makes = ["VW", "Volkswagen", "vw ", "Ford", " volkswagen", "FORD"]
    rows = "Job,make\n" + "".join(f"J{i},{makes[i % 6]}\n" for i in range(24))
    question = question_of("How many Volkswagen jobs?", "", {"g.csv": rows.encode()})
    cell = (
        "import pandas as pd\ndf = pd.read_csv('g.csv')\n"
        "print(df['make'].isin(['VW', 'Volkswagen', 'vw ', ' volkswagen']).sum())"
    )
    cells = (CellRun(code=cell, stdout="16\n"),)
    told = [repeat_problem(question, cells, cell, "16\n") for _ in range(4)]
    assert sum(p is not None for p in told) <= 2 and told[-1] is None


def test_values_listed_before_when_unknown_get_no_na_values_code() -> None:
    from codeact.agents._filters import filter_problem

    rows = "Task,Priority\n" + "".join(f"K{i},{['High', 'Low', ''][i % 3]}\n" for i in range(12))
    files = {"k.csv": rows.encode()}
    cell = "import pandas as pd\ndf = pd.read_csv('k.csv')\nprint(df['Priority'].isna().sum())"
    for said in (
        "Priority is 'High', 'Low' or empty when unknown.",
        "Use the Priority 'High' if missing.",
    ):
        problem = filter_problem(question_of("How many have no priority?", said, files), cell)
        assert "marks a missing value" not in (problem or "") and not getattr(problem, "code", None)


@pytest.mark.parametrize(
    "asked",
    [
        "How many orders placed on '03/05/2024' are still open?",
        "How many orders of '$50' are still open?",
        "How many orders from 'Paris' or 'Lyon' are 3 items or more?",
    ],
)
def test_quoted_values_followed_by_a_verb_are_still_filters(asked: str) -> None:
    from codeact.agents._filters import filter_problem

    rows = "Order,Date,City,Total,Items\nO1,03/05/2024,Paris,$50,3\nO2,04/05/2024,Lyon,$20,1\n"
    files = {"o.csv": rows.encode()}
    cell = "import pandas as pd\ndf = pd.read_csv('o.csv')\nprint((df['Items'] >= 3).sum())"
    assert filter_problem(question_of(asked, "none.", files), cell) is not None


def test_note_conversions_take_spaces_and_any_case() -> None:
    amounts = ["$723.90", "($45.00) ", "-$18.50", '"$1,234.50"']
    rows = "Txn,Amount\n" + "".join(f"T{i},{amounts[i % 4]}\n" for i in range(8))
    note = describe_files({"t.csv": rows.encode()})
    line = next(ln for ln in note.splitlines() if "'Amount'" in ln)
    convert = line.split("convert with ")[1].split(", e.g.")[0]
    df = pd.read_csv(io.StringIO(rows))
    assert list(eval(convert, {"df": df}))[:4] == [723.9, -45.0, -18.5, 1234.5]
    films = "Film,Runtime\n1,1:28\n2,90 Min\n3,2:05 \n4,103 MIN\n"
    line = next(
        ln for ln in describe_files({"f.csv": films.encode()}).splitlines() if "'Runtime'" in ln
    )
    namespace = {"pd": pd, "df": pd.read_csv(io.StringIO(films))}
    exec(line[line.index("minutes = ") :].split(", e.g.")[0], namespace)
    assert list(namespace["minutes"]) == [88.0, 90.0, 125.0, 103.0]
    # a percentage with a thousands comma beside fractions: no crash
    odd = "Txn,D\n" + "".join(f"T{i},{['1,200%', '0.5', '20%', '3%'][i % 4]}\n" for i in range(8))
    assert "'D'" in describe_files({"d.csv": odd.encode()})


def test_two_unclosed_blocks_are_a_format_error_not_the_last_alone() -> None:
    from codeact.agents._blocks import parse_blocks

    blocks, problem = parse_blocks("<execute>\nprint(1)\n<execute>\nprint(2)\n")
    assert blocks == [] and problem is not None
