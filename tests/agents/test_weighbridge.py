"""A weighbridge export (fresh19, read after its blind run): dates written two ways
(``'07-Mar-2024'`` beside ``'2024/03/07'``), weights in kilograms or tonnes inside the value,
fees with a comma between thousands in some rows, repeated rows the question drops, and a net
weight defined from two columns. Each test fails on the code before its change."""

from __future__ import annotations

import io
import re

import pandas as pd
import pytest

from codeact.agents._dateforms import date_formats
from codeact.agents._rules import column_problem
from codeact.agents.code import describe_files
from tests.helpers import exec_with_files, question_of, run_one_cell
from tests.helpers import rule_note as said

DATES = ["07-Mar-2024", "2024/03/09", "11-Mar-2024", "2024/04/02", "30-Apr-2024"]
GROSS = ["12,480 kg", "16.2 t", "9.5 t", "15480 kg", "2,720 kg"]
TARE = ["2,000 kg", "2.1 t", "2200 kg"]
FEES = ['"1,234.50"', "30.40", "526.30", "1234.50", "12.00"]
ROWS = [
    f'{30000 + i:07d},{DATES[i % 5]},"{GROSS[i % 5]}","{TARE[i % 3]}",{FEES[i % 5]},'
    f"{'CV'[i % 7 == 0]}"
    for i in range(30)
]
ROWS += ROWS[:4]  # (the export repeats four dockets as identical rows)
CSV = "Docket No,Date,Gross,Tare,Fee (AUD),Status\n" + "\n".join(ROWS) + "\n"
FILES = {"w.csv": CSV.encode()}
NOTE = describe_files(FILES)
READ = "import pandas as pd\ndf = pd.read_csv('w.csv')\n"
EVERY = "The export repeats some dockets as identical rows: drop the exact duplicate rows first."
WEIGHTS = (
    "Gross and Tare are the weights of the vehicle with and without its load, in kilograms or "
    "tonnes ('12,480 kg' and '12.48 t'); a load's net weight is its Gross minus its Tare."
)


def _line(column: str) -> str:
    return next(ln for ln in NOTE.splitlines() if ln.strip().startswith(f"- {column!r}"))


def test_dates_written_in_two_formats_are_named_and_read_both_ways() -> None:
    line = _line("Date")
    assert "dates as text written two ways ('07-Mar-2024' and '2024/03/09'), day first" in line
    reading = line.split("day first: ", 1)[1].split(", e.g.")[0]
    got = eval(reading, {"pd": pd, "df": pd.read_csv(io.StringIO(CSV))})
    assert got.notna().all() and got.dt.month.tolist()[:5] == [3, 3, 3, 4, 4]
    # a day and a month that could be either are not guessed
    assert date_formats(["03/04/2024", "2024/03/09", "12/11/2024"]) is None
    assert date_formats(["13/04/2024", "2024/03/09"]) == ["%Y/%m/%d", "%d/%m/%Y"]
    assert date_formats(["07-Mar-2024", "11-Mar-2024"]) is None  # (one format: no such note)


def test_amounts_with_a_comma_between_thousands_in_some_rows_read_with_thousands() -> None:
    line = _line("Fee (AUD)")
    assert "numbers stored as text with ',' separators: read with thousands=','" in line
    assert "text with :" not in line


def test_weights_in_kilograms_and_tonnes_compared_with_tonnes_get_the_factor() -> None:
    question = question_of(
        "On how many visits did the loaded vehicle weigh more than 15 tonnes?",
        f"{EVERY} {WEIGHTS} Count the dockets whose Gross is more than 15 tonnes.",
        FILES,
    )
    code = (
        READ + "df = df.drop_duplicates()\n"
        "df['Gross'] = df['Gross'].str.extract(r'([\\d.,]+)')[0].str.replace(',', '')"
        ".astype(float)\nprint((df['Gross'] > 15).sum())"
    )
    told = said(question, code)
    assert told is not None and "value = value.where(unit != 'kg', value / 1000)" in told
    # (and the column rule does not ask for Tare, named only where net weight is defined)
    assert column_problem(question, code) is None
    from codeact.agents._mixedunits import mixed_units_problem

    problem = mixed_units_problem(question, code)
    assert problem is not None and problem.code is not None
    wanted = sum(g in ("16.2 t", "15480 kg") for g in GROSS * 6)
    assert exec_with_files(FILES, problem.code)[0].strip() == str(wanted)


def test_a_column_in_a_definition_counts_when_the_defined_term_is_asked() -> None:
    asked = question_of(
        "What is the total net weight?",
        f"{WEIGHTS} Add up the net weight of every docket.",
        FILES,
    )
    code = READ + "print(df['Gross'].str.extract(r'([\\d.]+)')[0].astype(float).sum())"
    told = column_problem(asked, code)
    assert told is not None and "'Tare'" in told


def test_rows_the_question_drops_as_duplicates_are_dropped_first() -> None:
    question = question_of(
        "How many dockets were voided?", f"{EVERY} Count the dockets whose Status is V.", FILES
    )
    code = READ + "print((df['Status'] == 'V').sum())"
    told = said(question, code)
    assert told is not None and "drop the duplicate rows first" in told
    from codeact.agents._datarules import dedup_problem

    problem = dedup_problem(question, code)
    assert problem is not None and problem.code is not None
    before, after = exec_with_files(FILES, code, problem.code)
    assert int(before) == int(after) + 1  # (docket 30000, voided, is one of the repeats)
    assert said(question, problem.code) is None
    distinct = READ + "print(df[df['Status'] == 'V']['Docket No'].nunique())"
    assert dedup_problem(question, distinct) is None  # (a distinct count drops them too)
    counted = question_of("How many rows repeat an earlier one?", "Count the copies.", FILES)
    assert said(counted, READ + "print(df.duplicated().sum())") is None


@pytest.mark.anyio
async def test_two_weight_columns_converted_as_plain_numbers_are_re_run_in_tonnes() -> None:
    question = question_of(
        "On how many visits did the loaded vehicle weigh more than 15 tonnes?",
        f"{WEIGHTS} Count the dockets whose Gross is more than 15 tonnes.",
        FILES,
    )
    cell = (
        READ + "df['Gross'] = df['Gross'].str.replace(',', '').astype(float)\n"
        "df['Tare'] = df['Tare'].str.replace(',', '').astype(float)\n"
        "df['Net'] = df['Gross'] - df['Tare']\nprint((df['Gross'] > 15).sum())"
    )
    result = await run_one_cell(FILES, cell, question)
    content = str(result.tool_output.content)
    assert "I re-ran your cell with the files note's reading" in content, content
    wanted = sum(GROSS[i % 5] in ("16.2 t", "15480 kg") for i in (*range(30), *range(4)))
    assert content.rstrip().endswith(str(wanted)), content


def test_account_numbers_padded_with_zeros_are_joined_on_the_number() -> None:
    accounts = [417, 1027, 8441, 5149, 686]
    dockets = "Docket,Acct,Fee\n" + "".join(
        f"D{i},{'CASH' if i % 3 == 0 else f'{accounts[i % 5]:05d}'},{10 + i}\n" for i in range(30)
    )
    table = "Account No,Business Name\n" + "".join(f"{a},Firm {a}\n" for a in accounts)
    files = {"d.csv": dockets.encode(), "a.csv": table.encode()}
    note = describe_files(files)
    hint = next(ln for ln in note.splitlines() if ln.startswith("- Keys written differently"))
    assert "'Acct' of 'd.csv'" in hint and "'CASH' for none" in hint
    assert "pd.to_numeric(df['Acct'], errors='coerce')" in hint
    code = (
        "import pandas as pd\nd = pd.read_csv('d.csv')\na = pd.read_csv('a.csv')\n"
        "d['key'] = pd.to_numeric(d['Acct'], errors='coerce')\n"
        "print(d.merge(a, left_on='key', right_on='Account No')['Fee'].sum())"
    )
    wanted = sum(10 + i for i in range(30) if i % 3)
    assert exec_with_files(files, code)[0].strip() == str(wanted)
    # numbers unpadded (pandas reads them as numbers) need no such line
    plain = re.sub(r",0+(\d)", r",\1", dockets)
    assert "Keys written differently" not in describe_files({**files, "d.csv": plain.encode()})


LEGEND = (
    "Status is a code: C is a completed docket, V a docket voided. Material is a code, in "
    "upper or lower case: MSW is general waste, CD construction and demolition waste, MET "
    "scrap metal."
)
KINDS = "Docket,Material,Status,On Site,Fee\n" + "".join(
    f'D{i},{["MSW", "cd", "MET", "CD "][i % 4]},{"CV"[i % 5 == 0]},{10 + i}m,"1,{i:03d}.50"\n'
    for i in range(24)
)
KIND_FILES = {"k.csv": KINDS.encode()}


def test_codes_a_legend_explains_are_no_filters_and_listed_columns_no_uses() -> None:
    from codeact.agents._category import category_problem

    question = question_of(
        "How many completed loads were scrap metal?",
        f"{EVERY} {LEGEND} Count the completed dockets (Status C) whose Material is MET.",
        KIND_FILES,
    )
    code = (
        "import pandas as pd\ndf = pd.read_csv('k.csv')\n"
        "df = df.drop_duplicates(subset=['Docket', 'Material', 'Status', 'On Site', 'Fee'])\n"
        "print(((df['Status'] == 'C') & (df['Material'].str.strip().str.lower() == 'met')).sum())"
    )
    assert category_problem(question, code) is None  # (not 'CD', 'MSW' or 'V')
    assert said(question, code) is None  # (On Site and Fee only listed: no duration, no text)
    asked = question.replace("whose Material is MET", "whose Material is CD")
    told = category_problem(asked, code)
    assert told is not None and "'CD'" in told  # (asked outside the legend: a filter)


def test_both_weight_columns_in_several_units_get_the_reading_in_the_rules_code() -> None:
    from codeact.agents._mixedunits import mixed_units_problem

    question = question_of(
        "What is the total net weight, in tonnes?",
        f"{WEIGHTS} Add up the net weight, in tonnes, of every docket.",
        FILES,
    )
    code = (
        READ + "df['Gross'] = df['Gross'].str.extract(r'([\\d.,]+)')[0].str.replace(',', '')"
        ".astype(float)\ndf['Tare'] = df['Tare'].str.extract(r'([\\d.,]+)')[0].str.replace(',',"
        " '').astype(float)\nprint(round((df['Gross'] - df['Tare']).sum(), 2))"
    )
    problem = mixed_units_problem(question, code)
    assert problem is not None and problem.code is not None
    assert problem.code.count("value = value.where(unit != 'kg', value / 1000)") == 2
    tonnes = {"12,480 kg": 12.48, "16.2 t": 16.2, "9.5 t": 9.5, "15480 kg": 15.48}
    tonnes |= {"2,720 kg": 2.72, "2,000 kg": 2.0, "2.1 t": 2.1, "2200 kg": 2.2}
    rows = (*range(30), *range(4))
    wanted = round(sum(tonnes[GROSS[i % 5]] - tonnes[TARE[i % 3]] for i in rows), 2)
    assert float(exec_with_files(FILES, problem.code)[0]) == wanted


@pytest.mark.anyio
async def test_a_cell_failing_to_read_dates_of_two_formats_is_re_run_with_the_notes_reading() -> (
    None
):
    question = question_of(
        "On which day of the week were the most loads brought in?",
        "Date is written '07-Mar-2024' or '2024/03/07'. Count the dockets of each weekday.",
        FILES,
    )
    cell = (
        READ + "df['Date'] = pd.to_datetime(df['Date'])\n"
        "print(df['Date'].dt.day_name().value_counts().idxmax())"
    )
    result = await run_one_cell(FILES, cell, question)
    content = str(result.tool_output.content)
    assert not result.tool_output.is_error, content
    days = pd.Series(
        pd.to_datetime([DATES[i % 5] for i in (*range(30), *range(4))], format="mixed")
    ).dt.day_name()
    assert content.rstrip().endswith(days.value_counts().idxmax()), content


def test_dates_of_two_year_first_formats_tested_as_text_are_sent_back() -> None:
    from codeact.agents._textdates import text_date_problem

    days = ["2024/03/07", "2024.03.19", "2024/04/02", "2024.04.23"]
    rows = "Docket,Date\n" + "".join(f"D{i},{days[i % 4]}\n" for i in range(20))
    files = {"y.csv": rows.encode()}
    assert "written two ways ('2024/03/07' and '2024.03.19'), year first" in describe_files(files)
    question = question_of("How many dockets in March 2024?", "Count them.", files)
    code = "import pandas as pd\ndf = pd.read_csv('y.csv')\nprint(df['Date'].str.contains('2024/03').sum())"
    problem = text_date_problem(question, code)
    assert problem is not None and "dates written year first" in problem


@pytest.mark.anyio
async def test_a_merge_on_padded_account_numbers_is_re_run_on_the_number() -> None:
    accounts = [417, 1027, 8441]
    dockets = "Docket,Acct,Fee\n" + "".join(
        f"D{i},{'CASH' if i % 4 == 0 else f'{accounts[i % 3]:05d}'},{10 + i}\n" for i in range(24)
    )
    table = "Account No,Type\n417,Builder\n1027,Landscaper\n8441,Builder\n"
    files = {"d.csv": dockets.encode(), "a.csv": table.encode()}
    question = question_of("How much did builders pay?", "Join each docket to its account.", files)
    cell = (
        "import pandas as pd\nd = pd.read_csv('d.csv')\na = pd.read_csv('a.csv')\n"
        "m = d.merge(a, on='Acct')\nprint(m[m['Type'] == 'Builder']['Fee'].sum())"
    )
    result = await run_one_cell(files, cell, question)
    content = str(result.tool_output.content)
    assert "left_on='Acct', right_on='Account No'" in content, content
    wanted = sum(10 + i for i in range(24) if i % 4 and accounts[i % 3] != 1027)
    assert content.rstrip().endswith(str(wanted)), content
