"""The files note on a European export (fresh17, a garage's job cards, read blind): amounts
``€1.045,71`` and ``EUR 1816,66``, mileage ``180.640 km`` beside bare ``45210``, dates
``3 Jan 2024`` beside ``04-01-2024``, mechanics ``T04``, ``T-4`` and ``4``. The note said
"text" of all four; each now says what they are, and its conversion gives the numbers."""

from __future__ import annotations

import io
import re

import pandas as pd
import pytest

from codeact.agents.code import describe_files

INVOICES = ["€1.045,71", "EUR 1816,66", "€109,66", "1.234,50 €", "€12", "EUR 88,00"]
MILES = ["180.640 km", "45210", "88.871 km", "-", "unknown", "9.005 km", "120.000 km", "7.250 km"]
COLLECTED = ["3 Jan 2024", "04-01-2024", "-", "unknown", "13-02-2024", "1 Mar 2024", "02-03-2024"]
TECHS = ["T04", "T-4", "4", "t09", "T09", "T12", "12", "t03"]
ROWS = 24
CSV = "Job,Invoice,Mileage,Date Collected ,Tech\n" + "".join(
    f'J{i},"{INVOICES[i % 6]}",{MILES[i % 8]},{COLLECTED[i % 7]},{TECHS[i % 8]}\n'
    for i in range(ROWS)
)
NOTE = describe_files({"g.csv": CSV.encode()})


def _converted(column: str, start: str) -> list[object]:
    """What the note's code for ``column`` (from ``start`` to the next ', e.g.') gives."""
    line = next(ln for ln in NOTE.splitlines() if ln.strip().startswith(f"- {column!r}"))
    code = line[line.index(start) :].split(", e.g.")[0].removeprefix("convert with ")
    df = pd.read_csv(io.StringIO(CSV))
    return list(eval(code, {"pd": pd, "df": df}))


def test_european_amounts_are_named_and_read() -> None:
    assert "written the European way" in NOTE
    got = _converted("Invoice", "convert with df")
    assert got[:6] == [1045.71, 1816.66, 109.66, 1234.5, 12.0, 88.0]


def test_dotted_thousands_with_a_unit_beside_bare_numbers_are_read() -> None:
    assert "a dot between thousands ('180.640 km' is 180640)" in NOTE
    got = _converted("Mileage", "pd.to_numeric(")
    assert got[:3] == [180640, 45210, 88871] and all(pd.isna(got[i]) for i in (3, 4)), got
    # a column whose dotted numbers have other decimals keeps its decimal point
    other = describe_files({"k.csv": ("d\n" + "".join(f"{i}.5 km\n" for i in range(9))).encode()})
    assert "thousands" not in other and "[^\\d.-]" in other


def test_dates_written_with_month_names_and_day_first_numbers_are_read() -> None:
    line = next(ln for ln in NOTE.splitlines() if "'Date Collected '" in ln)
    assert "written two ways ('3 Jan 2024' and '04-01-2024'), day first" in line
    code = re.search(r"pd\.to_datetime\(df\['Date Collected '\][^)]*\)", line)
    assert code is not None and "errors='coerce'" in code.group(0), line
    df = pd.read_csv(io.StringIO(CSV))
    got = eval(code.group(0), {"pd": pd, "df": df})
    assert [str(d.date()) if pd.notna(d) else None for d in got[:5]] == [
        "2024-01-03", "2024-01-04", None, None, "2024-02-13"
    ]  # fmt: skip


def test_plain_numbers_among_prefixed_codes_are_the_same_codes() -> None:
    line = next(ln for ln in NOTE.splitlines() if "'Tech'" in ln)
    assert "codes written several ways" in line and "4 codes" in line, line


def test_keys_written_with_a_prefix_or_bare_join_on_the_number() -> None:
    """fresh17 (blind): 'T04', 't04', 'T-4' and '4' are mechanic T04 of mechanics.csv; the
    note said to join on the upper-cased keys, which drops the 'T-4' and '4' rows. The
    number joins them all; keys that differ only in case keep the folded join."""
    forms = ["T0{}", "t0{}", "T-{}", "{}"]
    jobs = "Job,Tech\n" + "".join(f"J{i},{forms[i % 4].format(i % 7 + 1)}\n" for i in range(56))
    staff = "Tech ID,Grade\n" + "".join(f"T0{n},G{n % 2}\n" for n in range(1, 8))
    files = {"jobs.csv": jobs.encode(), "staff.csv": staff.encode()}
    note = describe_files(files)
    assert "Join on the number: df['Tech'].str.extract" in note and "other case" not in note
    left, right = (pd.read_csv(io.StringIO(t)) for t in (jobs, staff))
    key = r"(\d+)"
    left["n"] = left["Tech"].str.extract(key)[0].astype(int)
    right["n"] = right["Tech ID"].str.extract(key)[0].astype(int)
    assert len(left.merge(right, on="n")) == 56
    cased = jobs.replace("T-", "T0").replace(",1\n", ",T01\n")
    for n in range(2, 8):
        cased = cased.replace(f",{n}\n", f",T0{n}\n")
    note = describe_files({"jobs.csv": cased.encode(), "staff.csv": staff.encode()})
    assert "Keys written in other case" in note and "Join on the number" not in note


@pytest.mark.anyio
@pytest.mark.filterwarnings("ignore::UserWarning")
async def test_a_cell_computing_with_km_or_euros_as_text_is_re_run_converted() -> None:
    """fresh17 (blind): ``df['Mileage'] > 150000`` on '180.640 km' failed, and the note's
    conversion was not run for a unit's numbers or European amounts (only for numbers stored
    as text): the model guessed at the cause three times."""
    from tests.helpers import run_one_cell

    question = f"Question: How many jobs were on cars past 100000 km?\n\n{NOTE}"
    cell = "import pandas as pd\ndf = pd.read_csv('g.csv')\nprint((df['Mileage'] > 100000).sum())"
    content = str((await run_one_cell({"g.csv": CSV.encode()}, cell, question)).tool_output.content)
    over = sum(1 for i in range(ROWS) if MILES[i % 8] in ("180.640 km", "120.000 km"))
    assert "the files note's conversion" in content and content.rstrip().endswith(str(over))
    euros = "import pandas as pd\ndf = pd.read_csv('g.csv')\nprint(round(df['Invoice'].sum(), 2))"
    content = str(
        (await run_one_cell({"g.csv": CSV.encode()}, euros, question)).tool_output.content
    )
    total = sum([1045.71, 1816.66, 109.66, 1234.5, 12.0, 88.0][i % 6] for i in range(ROWS))
    assert content.rstrip().endswith(str(round(total, 2))), content


def test_european_amounts_summed_as_text_are_sent_back_with_the_conversion() -> None:
    """fresh17 (tuned run): a repair total summed the Invoice text (a string of every amount
    run together), re-sent four times; the question's examples of how amounts are written
    ("'€1.234,50', '1.234,50 €' or 'EUR 1234,50' (without the dot) are all 1234.50 euros")
    were taken for a filter the code missed, so the note never said to convert."""
    from codeact.agents._filters import filter_problem
    from codeact.agents._rules import text_number_problem
    from tests.helpers import exec_with_files

    said = (
        "Invoice is what the job cost in euros, written the European way, with a dot between "
        "thousands and a decimal comma: '€1.234,50', '1.234,50 €' or 'EUR 1234,50' (without "
        "the dot) are all 1234.50 euros. Add up the Invoice."
    )
    question = f"Question: Total invoiced?\nConstraints: {said}\n\n{NOTE}"
    cell = "import pandas as pd\ndf = pd.read_csv('g.csv')\nprint(df['Invoice'].sum())"
    assert filter_problem(question, cell) is None
    problem = text_number_problem(question, cell)
    assert problem is not None and "str.replace(',', '.').astype(float)" in problem
    assert getattr(problem, "code", None) is not None
    total = round(sum([1045.71, 1816.66, 109.66, 1234.5, 12.0, 88.0]) * ROWS / 6, 2)
    assert [round(float(v), 2) for v in exec_with_files({"g.csv": CSV.encode()}, problem.code)] == [
        total
    ]
    # quoted without the numbers they are, the same amounts are filters
    asked = question.replace(" (without the dot) are all 1234.50 euros", "")
    assert filter_problem(asked, cell) is not None


def test_filling_the_gaps_of_amounts_as_text_is_no_sum() -> None:
    """fresh17 (tuned run): ``df['Invoice'] = df['Invoice'].fillna(0)`` in a cell computing
    a mileage median is no use of the amounts as numbers (the cell printed the answer)."""
    from codeact.agents._rules import text_number_problem

    question = f"Question: Median mileage?\nConstraints: Mileage is in km.\n\n{NOTE}"
    read = "import pandas as pd\ndf = pd.read_csv('g.csv')\n"
    filled = read + "df['Invoice'] = df['Invoice'].fillna(0)\nprint(len(df))"
    assert text_number_problem(question, filled) is None
    summed = filled + "\nprint(df['Invoice'].sum())"
    assert text_number_problem(question, summed) is not None


def test_dates_read_exactly_as_the_note_says_are_not_sent_back() -> None:
    """fresh17 (tuned run): a cell reading 'Date Collected ' with the note's own
    ``format='mixed', dayfirst=True`` (the dates are '3 Jan 2024' and '04-01-2024', no ISO
    form) printed the right median and was sent back to read them as dates."""
    from codeact.agents._textdates import text_date_problem

    line = next(ln for ln in NOTE.splitlines() if "'Date Collected '" in ln)
    read = line[line.index("pd.to_datetime(") :].split(", e.g.")[0]
    question = f"Question: Median stay?\nConstraints: Days kept.\n\n{NOTE}"
    cell = (
        "import pandas as pd\ndf = pd.read_csv('g.csv')\n"
        f"df['Date Collected '] = {read}\nprint(df['Date Collected '].max())"
    )
    assert text_date_problem(question, cell) is None
    unread = cell.replace(f"df['Date Collected '] = {read}\n", "")
    assert text_date_problem(question, unread) is not None


LABOUR_CSV = "Job,Type,Labour\n" + "".join(
    f'J{i},{["Service", "Repair"][i % 2]},"{["2,5 h", "150 min", "1 h"][i % 3]}"\n'
    for i in range(18)
)


@pytest.mark.parametrize(
    "asked",
    ["How many hours of labour went into service jobs?", "Mean labour of a service job, in hours?"],
)
def test_hours_and_minutes_on_a_filtered_frame_are_re_run_in_hours(asked: str) -> None:
    """fresh17 (tuned run): Labour ('2,5 h', '150 min') converted on a frame of the service
    jobs without its unit (50.19 hours for 2.03); "How many hours" named no unit to the rule
    and the frame, made from the one read, was not one it would rewrite: no runnable code."""
    from codeact.agents._mixedunits import mixed_units_problem
    from tests.helpers import exec_with_files

    files = {"l.csv": LABOUR_CSV.encode()}
    question = f"Question: {asked}\nConstraints: Labour is the time worked.\n\n"
    question += describe_files(files)
    total = "sum()" if asked.startswith("How many") else "mean()"
    cell = (
        "import pandas as pd\ndf = pd.read_csv('l.csv')\nservice = df[df['Type'] == 'Service']\n"
        "service['Labour'] = pd.to_numeric(service['Labour'].str.extract(r'([\\d.,]+)')[0]"
        ".str.replace('.', '').str.replace(',', '.'))\n"
        f"print(round(service['Labour'].{total}, 2))"
    )
    problem = mixed_units_problem(question, cell)
    assert problem is not None and problem.code is not None
    service = [[2.5, 2.5, 1.0][i % 3] for i in range(18) if i % 2 == 0]
    want = sum(service) if total == "sum()" else sum(service) / len(service)
    assert exec_with_files(files, problem.code) == [str(round(want, 2))]
