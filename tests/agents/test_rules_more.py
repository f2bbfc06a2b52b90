"""The rules added from the held-out transcripts of the 1.5B model: grouping by the asked
column (not by date after picking one group by hand), the period computed (not a variable
named ``monthly_``), aggregates of separate columns multiplied, shares above 100 %, one-sided
deviations from the mean, one row per group printed as one value, and rules checked when the
model re-runs a cell instead of answering."""

from __future__ import annotations

import pytest

from codeact import CodeActAgent, RestrictedExecutor
from codeact.agents.code import describe_files
from codeact.agents.validators import AnswerCandidate, CellRun, ModelRetry, rules_validator
from codeact.events import ToolCallResult
from codeact.llms import ScriptedLLM
from tests.agents.test_rules import candidate
from tests.agents.test_rules import check as check_candidate
from tests.helpers import collect

WEATHER = b"date,city,temp_c\n" + b"".join(
    f"2023-0{1 + i % 3}-0{1 + i % 7},{c},{t}\n".encode()
    for i, (c, t) in enumerate([("Lyon", -3.0), ("Graz", 20.5), ("Lyon", 36.4), ("Oslo", 4.0)] * 4)
)


def check(question: str, code: str, text: str = "@x[1]", stdout: str = "1") -> str | None:
    return check_candidate(candidate(question, code, text, stdout))


def test_grouping_by_date_after_picking_one_group_by_hand_is_sent_back() -> None:
    q = "Which city has the largest difference between its highest and lowest temperature? "
    q += "Answer as @city[name] @range[value].\n\n" + describe_files({"w.csv": WEATHER})
    by_hand = (
        "lyon = df[df['city'] == 'Lyon']\n"
        "lyon['r'] = lyon.groupby('date')['temp_c'].transform(lambda x: x.max() - x.min())"
    )
    said = check(q, by_hand) or ""
    assert "never groups by 'city' (it groups by something else)" in said, said
    assert "df.groupby('city')['temp_c'].agg(lambda x: x.max() - x.min())" in said
    assert check(q, "s = df.groupby('city')['temp_c'].agg(lambda x: x.max() - x.min())") is None
    assert check(q, "for c in df['city'].unique():\n    print(c)") is None


@pytest.mark.parametrize(
    ("code", "flagged"),
    [
        ("monthly_rain = df.groupby('DATE')['RAIN'].sum()\nprint(monthly_rain.idxmax())", True),
        ("df['m'] = df['DATE'].str[:7]\nprint(df.groupby('m')['RAIN'].sum())", False),
        ("s = df.groupby(\n    df['DATE'].dt.month\n)['RAIN'].sum()", False),
        ("df['month'] = df['DATE'].dt.month\ns = df.groupby('month')['RAIN'].sum()", False),
        ("s = df.resample('ME', on='DATE')['RAIN'].sum()", False),
        ("s = df.resample('D', on='DATE')['RAIN'].sum()\nm = s.idxmax().strftime('%m')", True),
    ],
)
def test_the_month_must_be_what_the_code_groups_by(code: str, flagged: bool) -> None:
    q = "Which month has the highest total rain? Answer as @month[m] @month_rain[value]."
    said = check(q, code) or ""
    assert ("never groups by month" in said) is flagged, said


def test_the_period_note_carries_the_codes_own_grouping_by_the_asked_unit() -> None:
    q = "Which month has the highest total rain? Answer as @month[m] @month_rain[value]."
    code = "monthly = df.groupby('DATE')[' RAIN'].sum()\nprint(monthly.idxmax())"
    c = AnswerCandidate(text="@month[1] @month_rain[2]", question=q, cells=(CellRun(code=code),))
    with pytest.raises(ModelRetry) as told:
        rules_validator()(c)
    assert told.value.code == (
        "import pandas as pd\n"
        "s = df.groupby(pd.to_datetime(df['DATE']).dt.month)[' RAIN'].sum(); "
        "print(s.idxmax(), s.max())"
    )


def test_aggregates_of_separate_columns_multiplied_are_sent_back_with_the_per_row_value() -> None:
    q = "In which month (1-12) was revenue highest? Answer as @month[value] @revenue[value]."
    code = (
        "orders['month'] = orders['date'].dt.month\n"
        "rev = orders.groupby('month')['units'].sum() * orders.groupby('month')['price'].mean()"
    )
    c = AnswerCandidate(text="@month[11] @revenue[5]", question=q, cells=(CellRun(code=code),))
    with pytest.raises(ModelRetry) as told:
        rules_validator()(c)
    assert "multiplies aggregates of separate columns" in str(told.value)
    assert told.value.code == (
        "df['value'] = df['units'] * df['price']; s = df.groupby('month')['value'].sum(); "
        "print(s.idxmax(), s.max())"
    )
    per_row = "orders['rev'] = orders['units'] * orders['price']\ns = orders.groupby('month')['rev'].sum()"
    assert check(q, per_row) is None


@pytest.mark.parametrize(
    ("question", "answer", "flagged"),
    [
        ("What share of revenue comes from the West, in percent?", "@share[586.1]", True),
        ("What percentage of orders are late?", "@pct[-3.5]", True),
        ("What share of revenue comes from the West, in percent?", "@share[19.9]", False),
        ("What proportion of orders are late?", "@p[0.42]", False),
        ("What is the total revenue of the West?", "@total[586.1]", False),  # (not a share)
    ],
)
def test_a_share_outside_0_to_100_is_sent_back(question: str, answer: str, flagged: bool) -> None:
    said = check(f"{question} Answer as {answer.split('[')[0]}[value].", "x = 1", answer) or ""
    assert ("cannot be a share" in said) is flagged, said


def test_deviations_from_the_mean_count_both_sides() -> None:
    note = describe_files({"w.csv": b"day,wind\n1,3.5\n2,9.0\n3,1.0\n4,4.0\n"})
    q = "How many readings have a wind more than 1.5 standard deviations from the mean? "
    q += f"Answer as @outliers[value].\n\n{note}"
    one_side = "t = df['wind'].mean() + 1.5 * df['wind'].std()\nprint(len(df[df['wind'] > t]))"
    said = check(q, one_side) or ""
    assert "counts both sides of the mean" in said, said
    both = "s = df['wind']\nprint(((s - s.mean()).abs() > 1.5 * s.std()).sum())"
    assert check(q, both) is None
    spaced = describe_files({"w.csv": b"day, WIND\n1,3.5\n2,9.0\n3,1.0\n4,4.0\n"})
    gusts = q.replace("a wind", "gusts").replace(note, spaced)  # (the column not named)
    with pytest.raises(ModelRetry) as told:
        rules_validator()(
            AnswerCandidate(
                text="@outliers[1]",
                question=gusts,
                cells=(CellRun(code=one_side.replace("'wind'", "'WIND'")),),
            )
        )
    assert told.value.code == "s = df[' WIND']; print(((s - s.mean()).abs() > 1.5 * s.std()).sum())"
    above = q.replace("from the mean", "above the mean")
    assert check(above, one_side) is None  # (one side asked: no complaint)


def test_one_row_per_group_printed_as_one_value_gets_the_group_comparison() -> None:
    q = "Which city has the largest difference between its highest and lowest temperature? "
    q += "Answer as @city[name] @range[value].\n\n" + describe_files({"w.csv": WEATHER})
    spread = "@city[628    Lyon\n657    Graz\nName: city, dtype: str] @range[39.4]\n"
    code = "i = df.groupby('city')['r'].idxmax()\nprint(f'@city[{df.loc[i, \"city\"]}]')"
    said = check(q, code, "@city[628] @range[39.4]", spread) or ""
    assert "one row per city group" in said, said
    assert "s = df.groupby('city')['temp_c'].agg(lambda x: x.max() - x.min())" in said


@pytest.mark.anyio
async def test_a_re_run_cell_breaking_a_rule_gets_the_rule_and_its_code_runs() -> None:
    """The model re-runs its cell instead of answering: the rules are checked on it as on an
    answer, and the code the broken rule suggests runs in its place (told to the model)."""
    q = "In which month (1-12) was revenue highest? Answer as @month[value] @revenue[value]."
    cell = (
        "df = {'units': [1, 2], 'price': [3.0, 4.0], 'month': [1, 1]}\n"
        "class G:\n    def __init__(s, c): s.c = c\n    def sum(s): return sum(df[s.c])\n"
        "    def mean(s): return sum(df[s.c]) / len(df[s.c])\n"
        "class F(dict):\n    def groupby(s, k): return {c: G(c) for c in s}\n"
        "orders = F(df)\n"
        "rev = orders.groupby('month')['units'].sum() * orders.groupby('month')['price'].mean()\n"
        "print(rev)"
    )
    llm = ScriptedLLM(
        [
            f"<execute>\n{cell}\n</execute>",
            f"<execute>\n{cell}\n</execute>",
            "@month[1] @revenue[11.0]",
        ],
        function_calling=False,
    )
    agent = CodeActAgent(
        llm=llm, executor=lambda: RestrictedExecutor(), answer_validators=[rules_validator()]
    )
    events = await collect(agent.run(q))
    results = [e for e in events if isinstance(e, ToolCallResult)]
    assert len(results) == 2
    second = results[1].tool_output.content
    assert "you re-ran an earlier cell unchanged" in second, second
    assert "multiplies aggregates of separate columns" in second
    assert "df['value'] = df['units'] * df['price']" in results[1].tool_kwargs["code"]


def test_a_share_of_selected_rows_gets_the_total_computed_the_same_way() -> None:
    q = "What share of revenue comes from the West, in percent? Answer as @share[value]."
    code = (
        "west = orders[orders['region'] == 'West']\n"
        "rev = (west['units'] * west['price']).sum()\n"
        "share = rev / orders['units'].sum() * 100"
    )
    flawed = code.replace(
        "(west['units'] * west['price']).sum()", "west['units'] * west['price'].sum()"
    )
    cells = (CellRun(code=flawed), CellRun(code=code))  # (the later cell fixed the part)
    c = AnswerCandidate(text="@share[586.1]", question=q, cells=cells)
    with pytest.raises(ModelRetry) as told:
        rules_validator()(c)
    assert told.value.code == (
        "part = (west['units'] * west['price']).sum(); "
        "total = (orders['units'] * orders['price']).sum(); print(part / total * 100)"
    )


@pytest.mark.parametrize(
    ("answer", "flagged"),
    [
        ("@city[2023-01-01] @range[0.0]", True),
        ("@city[Paris] @range[3.0]", True),
        ("@city[Lyon] @range[39.4]", False),
        ("@city['graz'] @range[39.4]", False),  # (quotes and case aside)
        ("@best_city[Oslo] @range[3.0]", False),  # (listed)
        ("@day[2023-01-01] @range[3.0]", False),  # (not a text column's placeholder)
        ("@city[Lyon] @city_range[39.4]", False),  # (a number about the city, not a city)
    ],
)
def test_a_text_columns_placeholder_must_hold_one_of_its_values(answer: str, flagged: bool) -> None:
    q = "Which city has the largest difference between its highest and lowest temperature? "
    q += "Answer as @city[name] @range[value].\n\n" + describe_files({"w.csv": WEATHER})
    grouped = "s = df.groupby('city')['temp_c'].max()"
    c = AnswerCandidate(text=answer, question=q, cells=(CellRun(code=grouped, stdout=answer),))
    try:
        rules_validator()(c)
        said = ""
    except ModelRetry as exc:
        said, code = str(exc), exc.code
    assert ("is not a city" in said) is flagged, said
    if flagged:
        assert "'Lyon', 'Graz', 'Oslo'" in said
        assert code == (
            "s = df.groupby('city')['temp_c'].agg(lambda x: x.max() - x.min()); "
            "print(s.idxmax(), s.max())"
        )


@pytest.mark.anyio
async def test_values_carried_into_a_prose_answer_are_checked_by_the_rules_too() -> None:
    """``codeact run``'s validators: the model answers in prose, the placeholder check carries
    in the values its cell printed (a date as the city), and the rules then see them."""
    from codeact.agents._answers import command_line_options
    from codeact.events import AnswerRetry

    q = "Which city has the largest difference between its highest and lowest temperature? "
    q += "Answer as @city[name] @range[value].\n\n" + describe_files({"w.csv": WEATHER})
    cell = (
        "from itertools import groupby\ndf = {'city': ['Lyon'], 'temp_c': [1.0]}\n"
        "ranges = {c: 0.0 for c, _ in groupby(df['city'])}\nprint('@city[2023-01-01] @range[0.0]')"
    )
    llm = ScriptedLLM(
        [f"<execute>\n{cell}\n</execute>", "The city is Lyon.", "@city[Lyon] @range[39.4]"],
        function_calling=False,
    )
    options = command_line_options(llm, require_execution=True)
    agent = CodeActAgent(llm=llm, executor=lambda: RestrictedExecutor(), **options)
    events = await collect(agent.run(q))
    retries = [e.message for e in events if isinstance(e, AnswerRetry)]
    assert any("@city[2023-01-01] is not a city" in m for m in retries), retries


def test_counting_folded_values_groups_and_the_example_counts_rows_of_the_folded_column() -> None:
    """fresh11 (blind): ``df['Activity'].str.strip().str.lower().value_counts()`` was sent back
    as never grouping, with an example summing the Visit ID column."""
    acts = ["yoga", "Gym Floor", " YOGA", "gym floor ", "Boxing", "Yoga"]
    data = "Visit ID,Activity,Minutes\n" + "".join(
        f"{52001 + i},{acts[i % 6]},{30 + i}\n" for i in range(30)
    )
    q = (
        "Question: Which activity had the most visits, and how many?\nConstraints: Count the "
        "visits of each activity.\nFormat: @activity[name] @visits[value]\n\n"
        + describe_files({"v.csv": data.encode()})
    )
    folded = "s = df['Activity'].str.strip().str.lower().value_counts()\nprint(s.idxmax())"
    assert check(q, folded) is None
    said = check(q, "print(df['Minutes'].max())") or ""
    assert "never groups by 'Activity'" in said
    assert "df.groupby(df['Activity'].str.strip().str.lower()).size()" in said, said
    assert "Visit ID" not in said


def test_a_column_named_only_in_the_clause_that_defines_it_is_not_asked_for() -> None:
    """fresh11 (blind): "Club is the club the visit was at" sent back a right count of
    Member Cards for never using Club."""
    data = "Visit,Club,Member Card\n" + "".join(
        f"{i},{['RIV', 'OLD'][i % 2]},{['RIV', 'OLD', 'NOR'][i % 3]}-{i % 5:04d}\n"
        for i in range(30)
    )
    said = (
        "Member Card is the member's home club code and their number at that club; Club is "
        "the club the visit was at. Count the different Member Cards."
    )
    q = (
        f"Question: How many different members checked in?\nConstraints: {said}\n"
        f"Format: @members[value]\n\n{describe_files({'v.csv': data.encode()})}"
    )
    assert check(q, "print(df['Member Card'].nunique())") is None
    asked = q.replace("Count the different Member Cards.", "Count the visits at each Club.")
    assert "'Club'" in (check(asked, "print(df['Member Card'].nunique())") or "")


def test_a_value_that_is_a_plain_word_is_a_filter_only_when_quoted() -> None:
    """fresh11 (tuned): "(no visit goes past midnight)" sent a right mean back to filter on
    Guest == 'no'."""
    data = "Ref,Guest,Minutes\n" + "".join(
        f"{i},{['yes', 'no', 'no'][i % 3]},{30 + i}\n" for i in range(30)
    )
    note = describe_files({"v.csv": data.encode()})
    q = (
        "Question: What is the mean duration of a visit?\nConstraints: a visit's duration is "
        f"Minutes (no visit goes past midnight).\nFormat: @mean[value]\n\n{note}"
    )
    assert check(q, "print(df['Minutes'].mean())") is None
    quoted = q.replace("(no visit goes past midnight)", "of the visits whose Guest is 'no'")
    assert "'no'" in (check(quoted, "print(df['Minutes'].mean())") or "")


@pytest.mark.parametrize(
    ("question", "flagged"),
    [
        ("What is the mean Hours of the tickets with Escalated No?", "'No'"),
        ("What is the mean Hours of the tickets in the Other category?", "'Other'"),
        ("What is the mean Hours of the tickets? No ticket is open.", None),
    ],
)
def test_a_plain_word_value_after_its_column_or_capitalised_is_still_a_filter(
    question: str, flagged: str | None
) -> None:
    """Review: 'Escalated No' and 'Other' (a category) were silenced with the plain words."""
    data = "Ref,Category,Escalated,Hours\n" + "".join(
        f"{i},{['Billing', 'Other', 'Tech'][i % 3]},{['Yes', 'No'][i % 2]},{i}\n" for i in range(30)
    )
    q = f"Question: {question}\nFormat: @mean[value]\n\n{describe_files({'t.csv': data.encode()})}"
    said = check(q, "print(df['Hours'].mean())") or ""
    assert (flagged in said) if flagged else said == "", said


def test_counting_a_boolean_test_of_a_column_is_not_grouping_by_it() -> None:
    """Review: ``.str.contains('yoga').value_counts()`` counts True and False."""
    acts = ["yoga", "Gym Floor", " YOGA", "gym floor ", "Boxing", "Yoga"]
    data = "Ref,Activity\n" + "".join(f"{i},{acts[i % 6]}\n" for i in range(30))
    q = (
        "Question: Which activity had the most visits?\nConstraints: Count the visits of each "
        f"activity.\nFormat: @activity[name]\n\n{describe_files({'v.csv': data.encode()})}"
    )
    from codeact.agents._groups import group_problem

    said = group_problem(q, "print(df['Activity'].str.contains('yoga').value_counts())") or ""
    assert "never groups by 'Activity'" in said
    assert group_problem(q, "print(df['Activity'].str.strip().str.lower().value_counts())") is None


def test_columns_listed_as_what_a_file_holds_are_not_each_asked_for() -> None:
    """fresh12 (blind): "areas.csv has one row per district with its Area, Zone and Flood
    Risk" sent back a right count (after the join, filtered on Flood Risk) for never using
    Area."""
    listings = "Ref,District,Status\n" + "".join(
        f"{i},KB{1 + i % 4},{['Sold', 'For Sale'][i % 2]}\n" for i in range(30)
    )
    areas = "District,Area,Zone,Flood Risk\n" + "".join(
        f"KB{n},{['Millbank', 'Riverside'][n % 2]},{n},{['Low', 'High'][n % 2]}\n"
        for n in range(1, 5)
    )
    note = describe_files({"l.csv": listings.encode(), "a.csv": areas.encode()})
    said = (
        "a.csv has one row per district (District) with its Area, Zone and Flood Risk; join "
        "each listing to its district. Count the sold listings whose Flood Risk is High."
    )
    q = f"Question: How many homes sold in high-risk districts?\nConstraints: {said}\n\n{note}"
    code = (
        "m = df.merge(pd.read_csv('a.csv'), on='District')\n"
        "print(len(m[(m['Flood Risk'] == 'High') & (m['Status'] == 'Sold')]))"
    )
    assert check(q, code) is None
    # the same columns asked for, not listed as what a file holds: each one must be used
    asked = q.replace("Count the sold listings", "Give the Area, Zone and Flood Risk of")
    assert "'Area'" in (check(asked, code) or "")
    # review: "with its" in a sentence about what to report is asked for too
    report = q.replace(
        "Count the sold listings whose Flood Risk is High.",
        "Name the district with the most sales, with its Area, Zone and Flood Risk.",
    )
    assert "'Area'" in (check(report, code) or "")
    # fresh14 (blind): listed after a colon, each with what it holds in brackets
    colon = q.replace(
        "with its Area, Zone and Flood Risk;",
        ": District, Area (the town it is in), Zone (1, 2 or 3) and Flood Risk (Low or High);",
    )
    assert check(colon, code) is None
    assert "'Area'" in (
        check(colon.replace("Count the sold listings", "Give the Area of"), code) or ""
    )


def test_a_file_of_one_row_per_named_thing_counts_them_by_its_rows() -> None:
    """fresh12 (blind): "areas.csv has one row per postcode district ... Count the districts
    whose Flood Risk is High" sent a right row count back for never using District."""
    areas = "District,Area,Flood Risk\n" + "".join(
        f"KB{n},{['Millbank', 'Riverside'][n % 2]},{['Low', 'High', 'Medium'][n % 3]}\n"
        for n in range(1, 13)
    )
    note = describe_files({"areas.csv": areas.encode()})
    said = (
        "areas.csv has one row per postcode district; Flood Risk is Low, Medium or High. Count "
        "the districts whose Flood Risk is High."
    )
    q = f"Question: How many postcode districts have a high flood risk?\nConstraints: {said}\n\n"
    code = "print((df['Flood Risk'] == 'High').sum())"
    assert check(q + note, code) is None
    # without the layout sentence, counting districts must use the column
    other = q.replace("has one row per postcode district", "names a postcode district")
    assert "'District'" in (check(other + note, code) or "")
