"""Issue 29, twenty-second pass: notes whose runnable code starts from what the model's own
cell built (held-out ord_best_month summed units when told a template with '<value>')."""

from __future__ import annotations

import pytest

from codeact.agents._monthfix import month_sum_code
from codeact.agents.validators import AnswerCandidate, CellRun, ModelRetry, rules_validator
from tests.helpers import exec_with_files, question_of

ORDERS = b"date,units,unit_price,discount\n" + b"".join(
    f"2024-{m:02d}-{d:02d},{u},{p},{disc}\n".encode()
    for m, d, u, p, disc in [
        (1, 3, 2, 10.0, 0.0),
        (1, 9, 50, 1.0, 0.1),
        (2, 4, 1, 400.0, 0.0),
        (3, 5, 9, 5.0, 0.0),
        (3, 6, 8, 5.0, 0.5),
    ]
)
CELL = (
    "import pandas as pd\n"
    "orders = pd.read_csv('orders.csv')\n"
    "orders['date'] = pd.to_datetime(orders['date'])\n"
    "orders['month'] = orders['date'].dt.month\n"
    "revenue = orders['units'] * orders['unit_price'] * (1 - orders['discount'])\n"
    "max_month = revenue.idxmax()\n"
    "print(f'@month[{max_month}] @revenue[{round(revenue.max(), 2)}]')\n"
)


def _sent_back(
    files: dict[str, bytes], question: str, name: str, cell: str, said: str
) -> tuple[str, str]:
    """What ``cell`` prints, and what the runnable code of the note it gets for answering
    ``@name[<that>]`` prints; the note must say ``said``."""
    (printed,) = exec_with_files(files, cell)
    told = _told(question, f"@{name}[{printed.strip()}]", cell, printed)
    assert told is not None and said in str(told), told
    assert told.code is not None
    (fixed,) = exec_with_files(files, told.code)
    return printed.strip(), fixed.strip()


def _told(question: str, answer: str, code: str, stdout: str) -> ModelRetry | None:
    cell = CellRun(code=code, stdout=stdout)
    try:
        rules_validator()(AnswerCandidate(text=answer, question=question, cells=(cell,)))
    except ModelRetry as exc:
        return exc
    return None


def test_a_row_label_as_the_month_gets_code_adding_the_cells_own_series_up_by_month() -> None:
    files = {"orders.csv": ORDERS}
    question = question_of(
        "In which month was revenue (units times unit price, less the discount) highest?",
        "@month[month_number] @revenue[total rounded to 2 decimals]",
        files,
    )
    (printed,) = exec_with_files(files, CELL)
    assert printed.strip() == "@month[2] @revenue[400.0]"  # (row 2 happens to be February)
    bigger = ORDERS + b"2024-03-09,1,1.0,0.0\n" * 700  # (row labels past 12)
    cell = CELL.replace("max_month = revenue.idxmax()", "max_month = revenue.idxmax() + 700")
    told = _told(question, "@month[702] @revenue[400.0]", cell, "@month[702] @revenue[400.0]")
    assert told is not None and "@month[702] is no month" in str(told)
    assert told.code == (
        "s = revenue.groupby(orders['month']).sum()\nprint(s.idxmax(), round(s.max(), 2))"
    )
    assert "revenue.groupby(orders['month']).sum()" in str(told)  # (named in the note too)
    (ran,) = exec_with_files({"orders.csv": bigger}, cell + "\n" + told.code)
    assert ran.split()[-2:] == ["3", "765.0"]  # (March: 45 + 20 + 700 * 1)


@pytest.mark.parametrize(
    ("cell", "expected"),
    [
        # a column of the table, the month from the parsed dates
        (
            "df = pd.read_csv('o.csv')\ndf['date'] = pd.to_datetime(df['date'])\n"
            "df['rev'] = df['a'] * df['b']\nprint(df['rev'].idxmax())",
            "s = df['rev'].groupby(df['date'].dt.month).sum()\n"
            "print(s.idxmax(), round(s.max(), 2))",
        ),
        # the smallest month
        (
            "df['m'] = df['d'].dt.month\nx = df['a'] * 2\nprint(x.idxmin())",
            "s = x.groupby(df['m']).sum()\nprint(s.idxmin(), round(s.min(), 2))",
        ),
        # already grouped: nothing to add up again
        ("df['m'] = df['d'].dt.month\nx = df.groupby('m')['a'].sum()\nprint(x.idxmax())", None),
        # no month in the code
        ("x = df['a'] * 2\nprint(x.idxmax())", None),
        ("not python (", None),
    ],
)
def test_month_sum_code_reads_the_cells_series_and_month(cell: str, expected: str | None) -> None:
    assert month_sum_code(cell) == expected


TEMPS = {"Lyon": [-2.1, 37.3, 10.0], "Porto": [8.0, 30.5, 12.0], "Graz": [-5.0, 25.0, 3.0]}
WEATHER = b"date,city,temp_c\n" + b"".join(
    f"2023-0{k + 1}-01,{city},{t}\n".encode()
    for city, temps in TEMPS.items()
    for k, t in enumerate(temps)
)
RANGE_QUESTION = (
    "Which city had the largest difference between its highest and lowest temperature?",
    "@city[city_name] @range[difference rounded to one decimal]",
)
BY_DATE = (
    "import pandas as pd\ndf = pd.read_csv('weather.csv')\n"
    "s = df.groupby('date')['temp_c'].agg(lambda x: x.max() - x.min())\n"
    "print(s.idxmax(), s.max())"
)


async def _range_run(replies: list[str]) -> tuple[list[str], str]:
    from codeact.agents._answers import command_line_options
    from tests.helpers import run_scripted

    question = question_of(*RANGE_QUESTION, {"weather.csv": WEATHER})
    validators = command_line_options(None, require_execution=True)["answer_validators"]
    results, llm = await run_scripted({"weather.csv": WEATHER}, question, replies, validators)
    return results, llm.requests[-1].messages[-1].text


@pytest.mark.anyio
@pytest.mark.filterwarnings("ignore::UserWarning")
async def test_a_model_answering_in_words_again_after_a_note_gets_the_notes_code_run() -> None:
    """held-out wea_temp_range: grouped by date, then told twice (groups by city, with code)
    and answered 'Lyon ... 0.0' in words each time; the note's code never ran."""
    words = "The city is Lyon and the difference is 0.0.\n@city[2023-02-01] @range[0.0]"
    # (the first answer's date traces: the cell printed it; 0.0 is what the model makes up)
    results, seen = await _range_run(
        [f"<execute>\n{BY_DATE}\n</execute>", words, words, "@city[Lyon] @range[39.4]"]
    )
    assert len(results) == 2, results  # (its own cell, then the note's code the agent ran)
    assert results[1].startswith("Note: ") and "so I ran the code the note suggests" in results[1]
    assert "groupby('city')" in results[1]
    assert "Lyon 39.4" in results[1]  # (the note's code computed the asked range)
    assert "Lyon 39.4" in seen  # (what the model read before its last answer)


@pytest.mark.anyio
@pytest.mark.filterwarnings("ignore::UserWarning")
async def test_a_model_running_code_after_the_note_is_not_taken_over() -> None:
    fixed = BY_DATE.replace("groupby('date')", "groupby('city')")
    results, _ = await _range_run(
        [
            f"<execute>\n{BY_DATE}\n</execute>",
            "@city[2023-02-01] @range[0.0]",
            f"<execute>\n{fixed}\n</execute>",
            "@city[Lyon] @range[39.4]",
        ]
    )
    assert len(results) == 2 and not any("so I ran" in r for r in results), results
    assert "Lyon 39.4" in results[1]


SHOPS = b"shop,rating\n" + b"".join(
    f"s{i},{r}\n".encode() for i, r in enumerate([4.5, "", 2.0, 3.0, "", 1.5, 4.0, 3.0])
)
FILLED_COPY = (
    "import pandas as pd\nshops = pd.read_csv('shops.csv')\n"
    "shops_with_ratings = shops.dropna(subset=['rating'])\n"
    "median_rating = shops_with_ratings['rating'].median()\n"
    "shops['rating'] = shops['rating'].fillna(median_rating)\n"
    "print(shops_with_ratings['rating'].mean())\n"
)


@pytest.mark.parametrize(
    "fill",
    [
        "shops['rating'] = shops['rating'].fillna(median_rating)",
        "shops['rating'].fillna(median_rating, inplace=True)",
    ],
)
def test_a_mean_read_from_a_copy_that_dropped_the_filled_rows_is_sent_back(fill: str) -> None:
    """held-out dab_filled_mean: filled shops, printed the mean of shops_with_ratings (2.964
    for 2.969)."""

    files = {"shops.csv": SHOPS}
    question = question_of(
        "Fill the missing ratings with the median rating, then give the mean rating.",
        "Median of the known ratings; then the mean of all shops. "
        "@filled_mean[mean rounded to 3 decimals]",
        files,
    )
    cell = FILLED_COPY.replace("shops['rating'] = shops['rating'].fillna(median_rating)", fill)
    (printed,) = exec_with_files(files, cell)
    assert printed.strip() == "3.0"  # (the six known ratings: 18 / 6)
    told = _told(question, "@filled_mean[3.000]", cell, printed)
    assert told is not None and "reads shops_with_ratings, which dropped" in str(told)
    assert told.code is not None
    (fixed,) = exec_with_files(files, told.code)
    assert fixed.strip() == "3.0"  # (the median is 3.0: the filled mean stays 3.0 here)
    shifted = SHOPS.replace(b"s7,3.0", b"s7,5.0")  # (median 3.5 now, the known mean 3.333)
    (wrong,) = exec_with_files({"shops.csv": shifted}, cell)
    (right,) = exec_with_files({"shops.csv": shifted}, told.code)
    assert round(float(wrong), 3) == 3.333 and round(float(right), 3) == 3.375
    # not asked to fill; read from the filled frame; the copy made again after the fill
    skip = question.replace("Fill the missing ratings with the median rating, then give", "Give")
    own = cell.replace("print(shops_with_ratings['rating']", "print(shops['rating']")
    again = cell.replace("print(", "shops_with_ratings = shops.dropna()\nprint(")
    for asked, code in ((skip, cell), (question, own), (question, again)):
        assert "which dropped" not in str(_told(asked, "@filled_mean[3.000]", code, printed))


RAIN_CELL = (
    "import pandas as pd\ndf = pd.read_csv('stations.csv')\n"
    "df['DATE'] = pd.to_datetime(df['DATE'])\n"
    "monthly_rain = df.groupby(df['DATE'].dt.month)['RAIN'].sum().reset_index()\n"
    "highest_rain_month = monthly_rain.loc[monthly_rain['RAIN'].idxmax(), 'DATE'].month\n"
    "highest_rain = monthly_rain.loc[monthly_rain['RAIN'].idxmax(), 'RAIN']\n"
    'print(f"@month[{highest_rain_month}] @month_rain[{highest_rain:.1f}]")'
)


@pytest.mark.anyio
@pytest.mark.filterwarnings("ignore::UserWarning")
async def test_a_month_number_asked_for_its_month_is_re_run_without_it() -> None:
    """held-out dab_month_rain: ' RAIN' fixed, then ``.loc[i, 'DATE'].month`` of a table
    grouped by ``.dt.month`` failed ('numpy.int32' object has no attribute 'month') and the
    model looped on it to the step limit."""
    from tests.helpers import run_one_cell

    rain = {(2, 1): 5.5, (2, 2): 7.0, (3, 1): 4.0, (3, 2): 1.5, (4, 3): 6.0}
    rows = "".join(f"2022-0{m}-0{d},A,{r}\n" for (m, d), r in rain.items())
    files = {"stations.csv": f"DATE,STATION, RAIN\n{rows}".encode()}
    question = question_of(
        "In which month (1-12) was the total rain highest, and how much fell?",
        "@month[month_number] @month_rain[rain rounded to 1 decimal]",
        files,
    )
    result = await run_one_cell(files, RAIN_CELL, question)
    out = str(result.tool_output.content)
    assert "without .month on that line" in out, out
    assert "@month[2] @month_rain[12.5]" in out, out
    assert not result.tool_output.is_error


def test_the_date_part_fix_keeps_dt_and_calls() -> None:
    from codeact.agents._monthfix import date_part_fix
    from codeact.executors.base import ExecutionError, ExecutionResult

    code = (
        "t = df.groupby(df['d'].dt.month).sum()\n"
        "m = t.loc[0, 'd'].month + s.dt.month.max() + x.month()"
    )
    tb = 'Traceback (most recent call last):\n  File "<cell>", line 2, in <module>\n'
    error = ExecutionError(
        type="AttributeError", message="'int' object has no attribute 'month'", traceback=tb
    )
    fix = date_part_fix(ExecutionResult(error=error), code)
    assert fix is not None
    assert fix.code.splitlines()[1] == "m = t.loc[0, 'd'] + s.dt.month.max() + x.month()"
    other = error.model_copy(update={"message": "'str' object has no attribute 'month'"})
    assert date_part_fix(ExecutionResult(error=other), code) is None


def _numbered(column: str, values: list[str]) -> bytes:
    """A CSV of ``values`` under ``column``, each row numbered in ``No`` (values quoted)."""
    return (f"No,{column}\n" + "".join(f'{i},"{v}"\n' for i, v in enumerate(values))).encode()


def _note(text: str, name: str = "t.csv") -> str:
    from codeact.agents.code import describe_files

    return describe_files({name: text.encode()})


def _column_line(note: str, column: str) -> str:
    return next(line for line in note.splitlines() if line.startswith(f"  - {column!r}"))


def test_the_files_note_reads_indian_amounts_lakhs_and_nil_discounts() -> None:
    """fresh21's dealership export: '6,35,000' beside '635000' and '7.25 L' (lakh rupees);
    '₹ 7,17,747.73'; a discount of '21,000', '35000', 'Nil' or '-'."""
    import pandas as pd

    shown = ["6,35,000", "635000", "7.25 L", "12,50,000", "1.2 Cr", "8,10,500.50"] * 2
    paid = ["₹ 7,17,747.73", "7,98,556.68", "₹ 12,00,000", "650000.5"] * 3
    off = ["21,000", "35000", "Nil", "-", "12500", "0"] * 2
    rows = "".join(f'"{a}","{b}","{c}"\n' for a, b, c in zip(shown, paid, off, strict=True))
    text = "Ex-Showroom (₹),On-Road (₹),Discount (Rs)\n" + rows
    note = _note(text)
    frame = pd.read_csv(__import__("io").StringIO(text))
    for column, expected in [
        ("Ex-Showroom (₹)", [635000, 635000, 725000, 1250000, 12000000, 810500.5]),
        ("On-Road (₹)", [717747.73, 798556.68, 1200000, 650000.5]),
        ("Discount (Rs)", [21000, 35000, None, None, 12500, 0]),
    ]:
        line = _column_line(note, column)
        code = line.split("convert with ", 1)[1].split(", e.g.")[0].split("; ")[0]
        got = eval(code, {"pd": pd, "df": frame})  # (the note's own conversion, run)
        want = pd.Series(expected * (12 // len(expected)), dtype=float)
        pd.testing.assert_series_equal(got.reset_index(drop=True), want, check_names=False)
    assert "'L' = 1,00,000" in note and "'Cr' = 1,00,00,000" in note
    assert "'-' and 'Nil' standing for no number" in note
    # litres are no lakhs: a volume column with 'l' is not read as rupees
    volumes = "Volume\n" + "".join(f"{v}\n" for v in ["7.5 l", "12 l", "1,500", "800"] * 3)
    assert "1,00,000" not in _note(volumes)


def test_the_files_note_reads_12_hour_times_with_a_dash_ranges_and_repeated_rows() -> None:
    import pandas as pd

    times = ["12:05 PM", "05:30 pm", "11:00 AM", "-", "6:35 PM", "", "9:10 am"] * 2
    waits = [
        "3 - 5 wks",
        "3-5 weeks",
        "10-12 Weeks",
        "8-10 weeks",
        "2 to 4 weeks",
        "3-5 wks",
        "4-6 weeks",
    ] * 2
    rows = [f"{i},{t},{w}\n" for i, (t, w) in enumerate(zip(times, waits, strict=True))]
    text = "No,Delivery Time,Promised Wait\n" + "".join(rows + rows[:1])  # (row 0 twice)
    note = _note(text)
    clock = _column_line(note, "Delivery Time")
    assert "12-hour clock" in clock and "2 values '-' standing for no time" in clock
    frame = pd.read_csv(__import__("io").StringIO(text))
    wait = _column_line(note, "Promised Wait")
    code = wait.split("ends = ", 1)[1].split(" (ends[0]")[0]
    ends = eval(code, {"pd": pd, "df": frame})
    assert ends[1].tolist()[:7] == [5.0, 5.0, 12.0, 10.0, 4.0, 5.0, 6.0]
    assert "1 row repeats an earlier row exactly" in note
    # phone numbers are no ranges; a long table of few values repeats rows by chance
    phones = "Phone\n" + "".join(f"555-{1000 + i}\n" for i in range(12))
    assert "ranges as text" not in _note(phones)
    many = "a,b\n" + "x,1\ny,2\n" * 20
    assert "repeat" not in _note(many)


@pytest.mark.parametrize(
    ("said", "expected"),
    [
        (
            "Status was typed by hand in any case, some misspelt: Delivered (or 'Deliverd'), "
            "Cancelled (or 'Canceled'), or Pending.",
            [("Deliverd", "Delivered"), ("Canceled", "Cancelled")],
        ),
        (
            "Fuel is Petrol, Diesel, CNG or EV (electric, also written 'Electric'), in any case.",
            [("Electric", "EV")],
        ),
        # no sentence about how values are written: a parenthesis of examples
        ("Seating is 5 Seater (or '7 Seater' for the vans).", []),
        # another value of a list, not a spelling (review)
        ("Gender is written M or F (or 'Other').", []),
        ("Priority is typed as Low, Medium, High (or 'Critical').", []),
    ],
)
def test_aliases_said_in_parentheses_after_the_value(
    said: str, expected: list[tuple[str, str]]
) -> None:
    from codeact.agents._aliases import stated_aliases

    assert [(a, v) for a, v, _at in stated_aliases(said)] == expected


def test_a_fold_missing_a_misspelling_in_parentheses_gets_code_naming_it() -> None:
    """fresh21_cancelled_bookings: the folded 'cancelled' counted 51 of 72 ('Canceled')."""
    statuses = ["Cancelled", "Canceled", "cancelled ", "Delivered", "Deliverd", "Pending"] * 3
    files = {"b.csv": _numbered("Status", statuses)}
    question = question_of(
        "How many bookings were cancelled?",
        "Status was typed by hand in any case, some misspelt: Delivered (or 'Deliverd'), "
        "Cancelled (or 'Canceled'), or Pending. @cancelled[count]",
        files,
    )
    cell = (
        "import pandas as pd\ndf = pd.read_csv('b.csv')\n"
        "print((df['Status'].str.strip().str.lower() == 'cancelled').sum())"
    )
    said = "'Canceled' is Cancelled too"
    assert _sent_back(files, question, "cancelled", cell, said) == ("6", "9")


def test_a_list_quoted_alone_in_parentheses_shows_a_cells_form_not_a_filter() -> None:
    """fresh21_cng_models: "'Fuel Options' lists its fuels ('Petrol / CNG')" sent the right
    count (4, str.contains('CNG')) to 'Petrol / CNG' (3)."""
    from tests.helpers import rule_note

    fuels = ["Petrol / CNG", "Diesel", "Petrol / Diesel / CNG", "EV", "CNG"]
    files = {"m.csv": _numbered("Fuel Options", fuels)}
    said = "'Fuel Options' lists its fuels ('Petrol / CNG'). Count the models with CNG among them."
    question = question_of("How many models come with CNG?", said + " @cng[n]", files)
    cell = "import pandas as pd\ndf = pd.read_csv('m.csv')\nprint(df['Fuel Options'].str.contains('CNG').sum())"
    assert rule_note(question, cell) is None
    # after other words in the parenthesis it names a value to select
    named = question.replace("its fuels ('Petrol / CNG')", "its fuels (Fuel 'Petrol / CNG')")
    assert "names 'Petrol / CNG'" in str(rule_note(named, cell))


def test_the_answer_kept_when_no_retry_is_left_has_the_asked_decimals() -> None:
    """fresh21_median_wait_days: the rules still objected at the last retry, the answer
    '@median_wait_days[34.0]' was kept as given and graded wrong for 34.00."""
    from codeact.agents._atlimit import traced_fallback

    question = (
        'Question: What is the median wait?\nFormat: @median_wait_days[days] where "days" is a '
        "float rounded to 2 decimal places.\n"
    )
    cells = (CellRun(code="print(s.median())", stdout="34.0\n"),)
    kept = traced_fallback(
        AnswerCandidate(text="34.0\n@median_wait_days[34.0]", question=question, cells=cells)
    )
    assert "@median_wait_days[34.00]" in kept.text
    printed = (CellRun(code="print(s.median())", stdout="33.456\n"),)
    finer = traced_fallback(
        AnswerCandidate(text="@median_wait_days[33.5]", question=question, cells=printed)
    )
    assert "@median_wait_days[33.46]" in finer.text  # (re-rounded from the printed number)


def test_calendar_quarters_of_a_fiscal_year_starting_in_april_are_sent_back() -> None:
    """fresh21_top_quarter: "Q1 (April to June 2023), ... Q4 (January to March 2024)"."""

    days = ["2023-04-03", "2023-10-09", "2023-10-20", "2023-11-02", "2024-01-15", "2023-07-01"]
    files = {"b.csv": _numbered("Booked", days)}
    question = question_of(
        "In which quarter of the fiscal year were the most cars booked?",
        "The fiscal year's quarters: Q1 (April to June 2023), Q2 (July to September), Q3 "
        "(October to December), Q4 (January to March 2024). @quarter[Q1, Q2, Q3 or Q4]",
        files,
    )
    read = "import pandas as pd\ndf = pd.read_csv('b.csv')\nd = pd.to_datetime(df['Booked'])\n"
    for calendar in (
        "s = d.dt.quarter.value_counts()",
        "s = d.dt.to_period('Q').dt.quarter.value_counts()",
    ):
        cell = read + calendar + "\nprint(s.idxmax())"
        (printed,) = exec_with_files(files, cell)
        told = _told(question, f"@quarter[Q{printed.strip()}]", cell, printed)
        assert told is not None and "start in April" in str(told), calendar
        assert told.code is not None
        (fixed,) = exec_with_files(files, told.code)
        assert (printed.strip(), fixed.strip()) == ("4", "3"), calendar
    for shifted in (
        "s = ((d.dt.quarter - 2) % 4 + 1).value_counts()",
        "s = d.dt.quarter.map({1: 4, 2: 1, 3: 2, 4: 3}).value_counts()",
        "s = (((d.dt.month - 4) % 12) // 3 + 1).value_counts()",
    ):  # (review: code shifting the quarters itself computes the fiscal ones)
        cell = read + shifted + "\nprint(s.idxmax())"
        (printed,) = exec_with_files(files, cell)
        assert printed.strip() == "3", shifted
        assert "start in April" not in str(_told(question, "@quarter[Q3]", cell, "3")), shifted
    monthly = read + "m = d.dt.to_period('M')\nprint(m.dt.quarter.value_counts().idxmax())"
    told = _told(question, "@quarter[Q4]", monthly, "4")
    assert told is not None and told.code is None  # (no rewrite of a period's quarter)
    fiscal = read + "s = d.dt.to_period('Q-MAR').dt.quarter.value_counts()\nprint(s.idxmax())"
    assert "start in April" not in str(_told(question, "@quarter[Q3]", fiscal, "3"))
    calendar_year = question.replace("Q1 (April to June 2023)", "Q1 (January to March)")
    cell = read + "print(d.dt.quarter.value_counts().idxmax())"
    assert "start in" not in str(_told(calendar_year, "@quarter[Q4]", cell, "4"))


def test_an_extract_missing_forms_the_note_shows_is_sent_back_with_the_notes_conversion() -> None:
    """fresh21_diesel_mean_lakh: str.extract('(\\d+\\.\\d+)') kept only the '7.25 L' prices."""
    shown = ["6,35,000", "7.25 L", "635000", "12,50,000", "8.10 L", "9,00,000"] * 2
    files = {"p.csv": _numbered("Price (₹)", shown)}
    question = question_of("What is the mean price in rupees?", "@mean[value]", files)
    cell = (
        "import pandas as pd\ndf = pd.read_csv('p.csv')\n"
        "print(df['Price (₹)'].str.extract(r'(\\d+\\.\\d+)')[0].astype(float).mean())"
    )
    said = "finds no number in '6,35,000'"
    printed, fixed = _sent_back(files, question, "mean", cell, said)
    assert round(float(printed), 3) == 7.675 and round(float(fixed), 2) == 825833.33
    # a pattern finding a number in every example passes
    every = cell.replace("(\\d+\\.\\d+)", "([\\d.,]+)")
    assert "finds no number" not in str(_told(question, "@mean[1]", every, "1"))


@pytest.mark.anyio
@pytest.mark.filterwarnings("ignore::UserWarning")
async def test_a_row_label_asked_for_its_month_is_not_re_run_as_a_month() -> None:
    """Review: ``df['units'].idxmax().month`` fails on the row label; dropping ``.month``
    printed the label (10) as the month (11)."""
    from tests.helpers import run_one_cell

    units = [5, 3, 9, 2, 1, 4, 2, 8, 1, 2, 30, 1]
    rows = "".join(f"2024-{m:02d}-15,{u}\n" for m, u in enumerate(units, 1))
    files = {"sales.csv": ("date,units\n" + rows).encode()}
    question = question_of("In which month were the most units sold?", "@month[n]", files)
    cell = (
        "import pandas as pd\ndf = pd.read_csv('sales.csv')\ndf['date'] = pd.to_datetime(df['date'])\n"
        "best = df['units'].idxmax().month\nprint(f'@month[{best}]')"
    )
    out = str((await run_one_cell(files, cell, question)).tool_output.content)
    assert "without .month" not in out and "@month[10]" not in out, out


@pytest.mark.anyio
@pytest.mark.filterwarnings("ignore::UserWarning")
async def test_no_takeover_once_the_model_ran_a_cell_after_the_note() -> None:
    """Review: the model ran the note's code itself, then answered a value no cell printed
    twice; the agent re-ran the old note's code as if the model had ignored it."""
    fixed = BY_DATE.replace("groupby('date')", "groupby('city')")
    results, _ = await _range_run(
        [
            f"<execute>\n{BY_DATE}\n</execute>",
            "@city[2023-02-01] @range[0.0]",
            f"<execute>\n{fixed}\n</execute>",
            "@city[Lyon] @range[41.0]",
            "@city[Lyon] @range[41.0]",
            "@city[Lyon] @range[39.4]",
        ]
    )
    assert not any("so I ran the code" in r for r in results), results


def test_rounding_a_huge_value_keeps_it_instead_of_failing() -> None:
    from codeact.agents._atlimit import traced_fallback

    question = (
        'Question: Total?\nFormat: @total[t] where "t" is a float rounded to 2 decimal places.\n'
    )
    big = "1" * 30
    cells = (CellRun(code="print(t)", stdout=f"{big}\n"),)
    kept = traced_fallback(AnswerCandidate(text=f"@total[{big}]", question=question, cells=cells))
    assert f"@total[{big}]" in kept.text


def test_review_the_known_values_before_a_fill_and_other_frames_are_left_alone() -> None:
    """Review: "the mean before and after filling" reads the dropna copy on purpose; a count
    of the known ratings too; a Series of another frame's index gets no month code."""
    files = {"shops.csv": SHOPS}
    question = question_of(
        "Fill the missing ratings with the median rating. What was the mean rating before "
        "filling and after filling?",
        "@before[x] @after[y]",
        files,
    )
    both = FILLED_COPY.replace(
        "print(shops_with_ratings['rating'].mean())",
        "print(shops_with_ratings['rating'].mean(), shops['rating'].mean())",
    )
    assert "which dropped" not in str(_told(question, "@before[3.0] @after[3.0]", both, "3.0 3.0"))
    plain = question.replace(" before filling and after filling", " after filling")
    counted = FILLED_COPY.replace(".mean())", ".count())")
    assert "which dropped" not in str(_told(plain, "@after[6]", counted, "6"))
    other = (
        "df['month'] = df['date'].dt.month\nnorth = df[df['region'] == 'N'].reset_index(drop=True)\n"
        "units = north['units']\nprint(units.idxmax())"
    )
    assert month_sum_code(other) is None


def test_review_notes_that_must_not_appear() -> None:
    """Review: blank lines counted as repeated rows; a sales log without ids; scores, codes
    and mixed units read as ranges."""
    blank = "a,b\n" + "".join(f"{i},{i * 2}\n" for i in range(20)) + "\n\n\n"
    assert "repeat" not in _note(blank)
    sales = "date,product,qty\n" + "".join(
        f"2024-01-{1 + i % 28:02d},p{i % 10},{1 + i % 5}\n" for i in range(200)
    )
    assert "repeat" not in _note(sales)
    for values in (
        ["1 - 2", "0 - 0", "2 - 3", "1 - 1", "0 - 4", "3 - 3"],
        ["100-200 A", "200-300 B", "300-400 C", "100-200 D", "200-300 E", "400-500 A"],
        ["3-5 days", "2-3 weeks", "1-2 months", "3-5 days", "2-3 weeks", "1-2 months"],
    ):
        text = "x\n" + "".join(f"{v}\n" for v in values * 2)
        assert "ranges as text" not in _note(text), values


def test_review_a_value_with_a_slash_in_parentheses_is_still_a_filter() -> None:
    from tests.helpers import rule_note

    genres = ["Sci-Fi/Fantasy", "Sci-Fi", "Drama", "Sci-Fi/Fantasy", "Sci-Fi"]
    files = {"b.csv": _numbered("genre", genres)}
    question = question_of(
        "How many books have the genre ('Sci-Fi/Fantasy')?", "@books[count]", files
    )
    cell = "import pandas as pd\ndf = pd.read_csv('b.csv')\nprint(df['genre'].str.contains('Sci-Fi').sum())"
    assert "names 'Sci-Fi/Fantasy'" in str(rule_note(question, cell))


def test_values_listed_for_none_given_are_no_filter() -> None:
    """fresh21: "'Nil', '-', '0' or empty if none was given (count it as 0)" sent a right
    correlation to "the question names '0'"."""
    from tests.helpers import rule_note

    off = ["21,000", "Nil", "-", "0", "12,500", "35,000"] * 2
    files = {"d.csv": _numbered("Discount", off)}
    question = question_of(
        "What is the mean discount?",
        "Discount is in rupees, or 'Nil', '-', '0' or empty if none was given (count it as 0)."
        " @mean[value]",
        files,
    )
    cell = (
        "import pandas as pd\ndf = pd.read_csv('d.csv')\n"
        "print(pd.to_numeric(df['Discount'].str.replace(',', ''), errors='coerce').median())"
    )
    assert "0" not in cell and "names '0'" not in str(rule_note(question, cell))


def test_a_join_question_describing_the_other_file_asks_for_no_filter_or_column() -> None:
    """fresh21_seven_seater_lakh: "'Model / Variant' ... in title case or capitals ('Tara VXi',
    'TARA VXI CNG')", "Model (its name in capitals, 'TARA')", "Seating ('5 Seater' or '7
    Seater')" and a list of the other file's columns with quoted names were read as filters
    and an asked column; the right mean (15.24) was sent back four ways."""
    from tests.helpers import rule_note

    rows = [("Tara VXi", "2,00,000"), ("TARA LXI", "3,00,000"), ("Safar ZX", "9,00,000")] * 3
    bookings = "Model / Variant,On-Road\n" + "".join(f'{m},"{p}"\n' for m, p in rows)
    models = "Model,Segment,Seating,Fuel Options\nTARA,Hatchback,5 Seater,Petrol\nSAFAR,MPV,7 Seater,Diesel\n"
    files = {"b.csv": bookings.encode(), "m.csv": models.encode()}
    question = question_of(
        "What did a seven-seater cost on the road on average?",
        "'Model / Variant' is the model name and then its variant, in title case or capitals "
        "('Tara VXi', 'TARA VXI CNG'); the model is its first word. m.csv has one row per model: "
        "Model (its name in capitals, 'TARA'), Segment, Seating ('5 Seater' or '7 Seater') and "
        "'Fuel Options'. Take the mean On-Road of the bookings whose model's Seating is 7 Seater. "
        "@mean[value]",
        files,
    )
    cell = (
        "import pandas as pd\ndf = pd.read_csv('b.csv')\n"
        "df['Model'] = df['Model / Variant'].str.strip().str.upper().str.split().str[0]\n"
        "df = df.merge(pd.read_csv('m.csv'), on='Model')\ndf = df[df['Seating'] == '7 Seater']\n"
        "print(df['On-Road'].str.replace(',', '').astype(float).mean())"
    )
    (printed,) = exec_with_files(files, cell)
    assert printed.strip() == "900000.0"
    assert rule_note(question, cell) is None


def test_right_fresh21_style_cells_for_a_range_and_a_segment_pass() -> None:
    """fresh21: "(more than 84 days for '10-12 weeks')" illustrates the rule, and "Segment
    is SUV (not Compact SUV)" names a value to leave out; the right counts were sent back."""
    from tests.helpers import rule_note

    waits = ["10-12 weeks", "3 - 5 wks", "10 - 12 wks", "4-6 weeks"] * 3
    segments = ["SUV", "Compact SUV", "SUV", "MPV"] * 3
    rows = "".join(
        f"{i},{w},{s},{40 + 9 * i}\n" for i, (w, s) in enumerate(zip(waits, segments, strict=True))
    )
    files = {"b.csv": ("No,Promised Wait,Segment,Wait\n" + rows).encode()}
    question = question_of(
        "How many SUVs came later than their promised wait?",
        "'Promised Wait' is in weeks ('10-12 weeks', '10 - 12 wks'). Count the rows whose "
        "Segment is SUV (not Compact SUV) and whose Wait is more than 7 times the larger number "
        "of weeks (more than 84 days for '10-12 weeks'). @late[count]",
        files,
    )
    cell = (
        "import pandas as pd\ndf = pd.read_csv('b.csv')\n"
        "ends = df['Promised Wait'].str.extract(r'(\\d+)\\D+(\\d+)').astype(float)\n"
        "print(((df['Segment'] == 'SUV') & (df['Wait'] > ends[1] * 7)).sum())"
    )
    assert rule_note(question, cell) is None


def test_a_label_the_format_lists_is_found_in_a_printed_sentence() -> None:
    """fresh21_top_quarter (tuned): "... is Q3 with 192 bookings." printed, the answer at the
    limit had @bookings[192] and no quarter."""
    from codeact.agents._trace import best_traced_values

    question = (
        "Question: In which quarter were the most cars booked, and how many?\n"
        'Format: @quarter[quarter_label] where "quarter_label" is Q1, Q2, Q3 or Q4. '
        '@bookings[bookings_value] where "bookings_value" is an integer (the count).\n'
    )
    said = "The fiscal quarter with the most cars booked is Q3 with 192 bookings.\n"
    found = best_traced_values(question, [CellRun(code="print(...)", stdout=said)])
    assert found == {"quarter": "Q3", "bookings": "192"}
    both = "Q3 had 192 bookings, Q4 had 150.\n"  # (two listed values: none is picked)
    assert "quarter" not in best_traced_values(question, [CellRun(code="print(...)", stdout=both)])
