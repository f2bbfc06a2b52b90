"""The cheap rule validator: the asked period, the filters the question names, missing values,
each rule at most once per run, and how it sends a scripted model back."""

from __future__ import annotations

import pytest

from codeact import CodeActAgent, RestrictedExecutor
from codeact.agents.validators import AnswerCandidate, CellRun, ModelRetry, rules_validator
from codeact.events import AnswerRetry
from codeact.llms import ScriptedLLM
from tests.helpers import collect

MONTH = "In which month (1-12) was revenue highest? Answer as @month[value] @revenue[value]."


def candidate(question: str, code: str, text: str = "@x[1]", stdout: str = "1") -> AnswerCandidate:
    return AnswerCandidate(text=text, question=question, cells=(CellRun(code=code, stdout=stdout),))


def check(c: AnswerCandidate) -> str | None:
    try:
        rules_validator()(c)
    except ModelRetry as exc:
        return str(exc)
    return None


def test_grouping_by_day_when_the_question_asks_per_month_is_sent_back() -> None:
    by_day = "df.groupby(pd.to_datetime(df.date).dt.day).revenue.sum()"
    assert "asks per month" in (check(candidate(MONTH, by_day)) or "")
    assert (
        check(candidate(MONTH, "df.groupby(pd.to_datetime(df.date).dt.month).revenue.sum()"))
        is None
    )
    assert check(candidate(MONTH, "df.groupby(df.date.str[:7]).revenue.sum()")) is None
    assert (
        check(candidate("Total annual sales? Answer as @t[value].", "df.groupby('city').sum()"))
        is None
    )


@pytest.mark.parametrize(
    ("question", "code", "complaint"),
    [
        ("How many have status 'faulty'? Give @n[value].", "len(df)", "names 'faulty'"),
        ("How many have status 'faulty'? Give @n[value].", "(df.STATUS == 'faulty').sum()", None),
        ("How many earn more than 90000? Give @n[value].", "(df.salary > 9000).sum()", "90000"),
        ("How many earn more than 90,000? Give @n[value].", "(df.salary > 90_000).sum()", None),
        ("Shops opened before 2000? Give @n[value].", "(df.opened < 2000).sum()", None),
        ('How many? @n[n_value] where "n_value" is an integer.', "len(df)", None),
        (  # a quoted example of how values are written is not a filter
            "Mean attendance? The column holds text such as '93.5%'; read '93.5%' as 93.5. "
            "Give @m[value].",
            "df.att.str.rstrip('%').astype(float).mean()",
            None,
        ),
        ("Mean fare of trips paid 'by card'? Give @m[value].", "df.fare.mean()", "'by card'"),
        ("Fill missing ages with the median, then the mean. @m[value]", "df.age.mean()", "fill"),
        (
            "Fill missing ages with the median, then the mean. @m[value]",
            "a.fillna(a.median())",
            None,
        ),
    ],
)
def test_filters_and_missing_values(question: str, code: str, complaint: str | None) -> None:
    said = check(candidate(question, code))
    assert (said is None) if complaint is None else (complaint in (said or "")), said


def test_a_category_value_of_the_files_note_named_in_the_question_must_be_filtered() -> None:
    from codeact.agents.code import describe_files

    data = b"name,department,salary\n" + b"".join(
        f"e{i},{d},{50 + i}\n".encode() for i, d in enumerate(["HR", "Sales", "HR", "IT"])
    )
    q = "What is the std of salaries in HR? Answer as @std[value].\n\n" + describe_files(
        {"e.csv": data}
    )
    said = check(candidate(q, "df.salary.std()")) or ""
    assert "about 'HR'" in said
    # concrete: the rows (the column the note lists 'HR' under), then the asked aggregate of
    # the one number column the question names ("salaries": 'salary')
    assert "sub = df[df['department'] == 'HR']" in said and "print(sub['salary'].std())" in said
    said = check(candidate(q.replace("std of", "total of"), "df.salary.sum()")) or ""
    assert "print(sub['salary'].sum())" in said
    said = check(candidate(q.replace("salaries in", "salaries above 60 in"), "df[df.salary > 60]"))
    assert "sub = df[df['department'] == 'HR']" in (said or "") and "print(sub[" not in (said or "")
    assert check(candidate(q, "df[df.department == 'HR'].salary.std()")) is None
    assert check(candidate(q.replace("in HR", "overall"), "df.salary.std()")) is None


def test_a_nan_answer_where_missing_values_are_to_be_skipped_is_checked_once() -> None:
    c = candidate("Mean wind? Ignore missing values. @w[value]", "df.w.mean()", "@w[nan]")
    assert "Your answer is nan" in (check(c) or "")
    assert check(c) is None  # the same run is told once; the answer then stands
    assert check(c.replace(text="@w[3.5]")) is None


@pytest.mark.anyio
async def test_a_scripted_model_is_sent_back_with_the_rule_and_can_fix_it() -> None:
    q = "How many orders have a discount greater than 0.1? Answer as @n[value]."
    llm = ScriptedLLM(
        [
            "<execute>\nprint(sum(d > 0 for d in [0, 0.2, 0.05]))\n</execute>",
            "@n[2]",
            "<execute>\nprint(sum(d > 0.1 for d in [0, 0.2, 0.05]))\n</execute>",
            "@n[1]",
        ],
        function_calling=False,
    )
    agent = CodeActAgent(
        llm=llm, executor=lambda: RestrictedExecutor(), answer_validators=[rules_validator()]
    )
    events = await collect(agent.run(q))
    (retry,) = [e for e in events if isinstance(e, AnswerRetry)]
    assert "threshold 0.1" in retry.message
    assert events[-1].result.response.text == "@n[1]"  # type: ignore[attr-defined]


def test_a_column_the_question_names_must_be_used_by_the_code() -> None:
    from codeact.agents.code import describe_files

    data = b"region,units,unit_price, WIND SPEED\nEast,3,1.5,2\nWest,4,2.5,3\n"
    note = describe_files({"o.csv": data})
    q = f"Which region ordered the most units? Answer as @region[name] @units[value].\n\n{note}"
    counted = "units_sold = df['region'].value_counts().max()"  # a variable is not the column
    assert "the column 'units'" in (check(candidate(q, counted)) or "")
    assert check(candidate(q, "df.groupby('region').units.sum()")) is None
    assert check(candidate(q, "df.groupby('region')['units'].sum()")) is None
    # the words of the answer format are not the question's; spelled with a space counts
    fmt = f"What is the total? Answer as @region[value].\n\n{note}"
    assert check(candidate(fmt, "df.units.sum()")) is None
    spoken = f"What is the mean unit price? Give @p[value].\n\n{note}"
    assert "the column 'unit_price'" in (check(candidate(spoken, "df.units.mean()")) or "")
    spaced = f"What is the top wind speed? Give @w[value].\n\n{note}"
    assert "the column ' WIND SPEED'" in (check(candidate(spaced, "df.units.max()")) or "")
    assert check(candidate(spaced, "df[' WIND SPEED'].max()")) is None
    # converting the column in place is not using it (fresh12: Sold Price converted, then
    # Floor Area compared with Asking Price); a use after the conversion, or a line that
    # rewrites it from another column, is
    price = f"Which region has the top unit price? Give @r[name].\n\n{note}"
    convert = "df['unit_price'] = df['unit_price'].astype(float)\n"
    told = check(candidate(price, convert + "print(df.groupby('region').units.max())")) or ""
    assert "the column 'unit_price', but your code never uses it (it only converts it)" in told
    used = convert + "print(df.groupby('region').unit_price.max())"
    assert check(candidate(price, used)) is None
    rewritten = "df['unit_price'] = df['unit_price'] * df['units']\nprint(df.region.max())"
    assert check(candidate(price, rewritten)) is None


def test_column_words_describing_rows_or_values_of_another_column_are_not_asked_for() -> None:
    """fresh13 (blind): "Every row is one parcel a courier's driver took out" and "Status is
    Delivered or Failed" (a column Delivered too) sent a right count of failed parcels back
    to use Driver, then Delivered."""
    from codeact.agents.code import describe_files

    data = "Parcel,Driver,Status,Delivered\n" + "".join(
        f"P{i},D{i % 5},{['Delivered', 'Failed'][i % 4 == 0]},{10 + i % 8}:0{i % 6}\n"
        for i in range(40)
    )
    note = describe_files({"d.csv": data.encode()})
    said = (
        "Every row of d.csv is one parcel a courier's driver took out. Status is Delivered or "
        "Failed. Count the parcels whose Status is Failed."
    )
    q = f"Question: How many parcels could not be delivered?\nConstraints: {said}\n\n{note}"
    right = "print((df['Status'] == 'Failed').sum())"
    assert check(candidate(q, right)) is None
    # the column named in a sentence that asks for it is still a column to use
    asked = q.replace("Count the parcels", "Count, per driver, the parcels")
    assert "'Driver'" in (check(candidate(asked, right)) or "")


def test_the_column_of_a_summary_row_the_question_leaves_out_need_not_be_used() -> None:
    from codeact.agents.code import describe_files

    data = b"Loan ID,Returned,Fine\n" + b"".join(
        b"L%d,%s,%d\n" % (i, b"" if i % 4 else b"2024-03-05", i) for i in range(1, 30)
    )
    note = describe_files({"l.csv": data + b"TOTAL,,406\n"})
    q = (
        "Question: How many books are still on loan?\nConstraints: The last row of the file is "
        "a summary line (Loan ID 'TOTAL'), not a loan: leave it out. Count the loans whose "
        f"Returned is empty.\nFormat: @open_loans[value]\n\n{note}"
    )
    # the summary row cut by position, or never met by the code's own condition
    assert check(candidate(q, "df = df[:-1]\nprint(df['Returned'].isna().sum())")) is None
    assert check(candidate(q, "print(df.iloc[:-1]['Returned'].isna().sum())")) is None
    # the column named again elsewhere in the question is still asked for
    named = q.replace("Count the loans", "Count the Loan ID values of loans")
    said = check(candidate(named, "df = df[:-1]\nprint(df['Returned'].isna().sum())")) or ""
    assert "the column 'Loan ID'" in said


@pytest.mark.anyio
@pytest.mark.filterwarnings("ignore::UserWarning")
async def test_a_scripted_model_counting_rows_is_sent_back_to_the_named_column() -> None:
    import warnings

    from codeact.agents._answers import command_line_options
    from codeact.agents.code import describe_files

    data = b"region,units\nEast,1\nEast,1\nWest,9\n"
    q = "Which region ordered the most units? Answer as @region[name] @units[value]."
    prompt = f"{q}\n\n{describe_files({'o.csv': data})}"
    read = "import pandas as pd\ndf = pd.read_csv('o.csv')\n"
    counted = f"{read}c = df['region'].value_counts()\nprint(f'@{{c.idxmax()}} {{c.max()}}')"
    summed = f"{read}s = df.groupby('region')['units'].sum()\nprint(s.idxmax(), s.max())"
    llm = ScriptedLLM(
        [
            f"<execute>\n{counted}\n</execute>",
            "@East 2",  # bare values: read as @region[East] @units[2], then the rule
            f"<execute>\n{summed}\n</execute>",
            "West 9",
        ],
        function_calling=False,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ex = RestrictedExecutor(allowed_modules=["pandas"])
    options = command_line_options(llm, require_execution=True, lenient_code=False)
    agent = CodeActAgent(llm=llm, executor=ex, **options)
    async with ex:
        await ex.upload("o.csv", data)
        events = await collect(agent.run(prompt))
    (retry,) = [e for e in events if isinstance(e, AnswerRetry)]
    assert "the column 'units'" in retry.message
    assert events[-1].result.response.text == "@region[West] @units[9]"  # type: ignore[attr-defined]


def test_a_question_comparing_groups_needs_code_that_groups() -> None:
    from codeact.agents.code import describe_files

    data = b"city,age\nLyon,30\nGraz,50\nLyon,40\n"
    note = describe_files({"e.csv": data})
    q = f"Which city has the oldest employees on average? Answer as @city[name].\n\n{note}"
    mode = "print(df['city'].mode()[0], df['age'].mean())"
    assert "never groups by 'city'" in (check(candidate(q, mode)) or "")
    assert check(candidate(q, "df.groupby('city')['age'].mean().idxmax()")) is None
    overall = f"What is the mean age in the file? Answer as @m[value].\n\n{note}"
    assert check(candidate(overall, "df['age'].mean()")) is None
    # "which city" without an aggregate asks for one row's value
    one_row = f"Which city is the oldest employee from? Answer as @city[name].\n\n{note}"
    assert check(candidate(one_row, "df.loc[df['age'].idxmax(), 'city']")) is None
    per = f"What is the mean age per city? Answer as @m[value].\n\n{note}"
    flat = "print(df['city'].iloc[0], df['age'].mean())"
    assert "never groups by 'city'" in (check(candidate(per, flat)) or "")
    # a column of ids or numbers is not a set of groups: "which id" needs no grouping
    ids = describe_files({"p.csv": b"passenger_id,fare\n1,7.5\n2,80\n"})
    top = f"Which passenger_id paid the highest fare? Answer as @id[value].\n\n{ids}"
    assert check(candidate(top, "df.loc[df['fare'].idxmax(), 'passenger_id']")) is None
    # "one row per tariff" says how the file is laid out: counting rows counts tariffs, and
    # neither the group rule nor the column rule asks for the Tariff column then
    wide = describe_files({"t.csv": b"Tariff,Jan,Feb\nFIX,31.5,30.1\nEV,22.0,21.5\nE7,28.4,27\n"})
    layout = (
        "How many tariffs had a unit price above 30 in January? Constraints: t.csv has one row "
        f"per tariff (its code in the Tariff column). Answer as @n[value].\n\n{wide}"
    )
    assert check(candidate(layout, "print((df['Jan'] > 30).sum())")) is None
    # a range of columns describes them ("Jan to Feb"); a column asked by name is still asked
    ranged = layout.replace("Tariff column)", "Tariff column) and a column per month, Jan to Feb")
    assert check(candidate(ranged, "print((df['Jan'] > 30).sum())")) is None
    feb = ranged.replace("in January?", "in January, and the mean Feb price?")
    assert "the column 'Feb'" in (check(candidate(feb, "print((df['Jan'] > 30).sum())")) or "")
    change = layout.replace("in January?", "in January, and its change from Jan to Feb?")
    assert "the column 'Feb'" in (check(candidate(change, "print((df['Jan'] > 30).sum())")) or "")
    # asked which one, the label is still needed; asked per tariff, the groups still are
    which = layout.replace(
        "How many tariffs had a unit price above 30 in January?",
        "Which tariff had the highest unit price in January?",
    )
    assert "the column 'Tariff'" in (check(candidate(which, "print(df['Jan'].max())")) or "")
    per = layout.replace(
        "How many tariffs had a unit price above 30 in January?",
        "What is the mean Jan price per tariff?",
    )
    assert "never groups by 'Tariff'" in (check(candidate(per, "print(df['Jan'].mean())")) or "")


def test_a_placeholder_printed_around_a_whole_series_is_sent_back() -> None:
    q = "What share of revenue comes from the West? Answer as @share[value]."
    spread = "@share[10       49.7\n21      178.3\n        ...  \nLength: 180, dtype: float64]\n"
    c = AnswerCandidate(
        text="@share[49.7]", question=q, cells=(CellRun(code="print(x)", stdout=spread),)
    )
    assert "a whole column of values as @share[...]" in (check(c) or "")
    one = AnswerCandidate(
        text="@share[19.9]", question=q, cells=(CellRun(code="print(x)", stdout="@share[19.9]\n"),)
    )
    assert check(one) is None


@pytest.mark.parametrize(
    ("question", "suggested"),
    [
        (
            "Which city has the highest average age?",
            "df.groupby('city')['age'].mean(); print(s.idxmax()",
        ),
        ("Which city ordered the most units, and how many?", "['units'].sum()"),
        (
            "Which city has the fewest rows, and how many?",
            "df.groupby('city').size(); print(s.idxmin()",
        ),
        (
            "Among rows of at least 3 units, which city appears most often?",
            ".size(); print(s.idxmax()",
        ),
    ],
)
def test_the_group_rule_suggests_the_asked_aggregate(question: str, suggested: str) -> None:
    from codeact.agents.code import describe_files

    note = describe_files({"e.csv": b"city,age,units\nLyon,30,1\nGraz,50,2\nLyon,40,3\n"})
    said = check(candidate(f"{question} Answer as @c[name].\n\n{note}", "print(1 > 3)")) or ""
    assert suggested in said, said


def test_an_inplace_fill_of_a_column_is_sent_back_with_the_assignment() -> None:
    """pandas 3 (copy-on-write): df['age'].fillna(v, inplace=True) leaves df as it was (the
    1.5B model's answer to two held-out questions)."""
    cell = (
        "import pandas as pd\ndf = pd.read_csv('p.csv')\n"
        "df['age'].fillna(df['age'].median(), inplace=True)\nprint(df['age'].mean())"
    )
    q = "Fill missing ages with the median age, then the mean age. Answer as @mean_age[value]."
    said = check(candidate(q, cell))
    assert said is not None and "changes a copy in pandas 3" in said
    assert "df['age'] = df['age'].fillna(df['age'].median())" in said
    assert (
        check(
            candidate(
                q,
                cell.replace("df['age'].fillna(", "df['age'] = df['age'].fillna(").replace(
                    ", inplace=True)", ")"
                ),
            )
        )
        is None
    )
    assert check(candidate(q, "df.fillna(0, inplace=True)")) is None  # the frame itself: fine


def test_the_inplace_note_carries_the_fixed_cell_to_run() -> None:
    from codeact.agents._rules import inplace_problem

    cell = (
        "s = pd.read_csv('s.csv')\ns['rating'].fillna(m, inplace=True)\nprint(s['rating'].mean())"
    )
    problem = inplace_problem([cell])
    assert problem is not None
    assert getattr(problem, "code", None) == cell.replace(
        "s['rating'].fillna(m, inplace=True)", "s['rating'] = s['rating'].fillna(m)"
    )


def test_a_column_of_numbers_stored_as_text_used_unconverted_is_sent_back() -> None:
    from codeact.agents.code import describe_files

    data = b'shop,Annual Sales,employees\nA,"2,907,163",19\nB,"994,412",33\nC,"1,506,885",4\n'
    q = "Mean employees of the 2 shops with the largest annual sales? Answer as @m[value].\n\n"
    q += describe_files({"s.csv": data})
    top = (
        "s = pd.read_csv('s.csv')\nprint(s.sort_values('Annual Sales').tail(2)['employees'].mean())"
    )
    said = check(candidate(q, top)) or ""
    assert "numbers stored as text" in said and "thousands=','" in said
    assert check(candidate(q, top.replace("'s.csv')", "'s.csv', thousands=',')"))) is None
    money = data.replace(b'"2,907,163"', b'"$2,907,163"').replace(b'"994,412"', b"$994")
    q = q.split("\n\n")[0] + "\n\n" + describe_files({"s.csv": money})
    said = check(candidate(q, top)) or ""
    assert "Convert it with df['Annual Sales'].str.replace(r'[\\$,\\s]', ''" in said


def test_an_answer_from_a_flawed_cell_while_a_sound_cell_printed_others_is_checked() -> None:
    """The 1.5B model answered from its first cell (one overall mean, the city's mode) after a
    group-by printed the answer, and re-ran the flawed cell last."""
    from codeact.agents.code import describe_files

    data = b"name,city,age\n" + b"".join(
        f"e{i},{c},{a}\n".encode() for i, (c, a) in enumerate([("Lyon", 30), ("Graz", 60)] * 3)
    )
    q = "Which city has the oldest employees on average? Answer as @city[name] @mean_age[value]."
    q += "\n\n" + describe_files({"e.csv": data})
    flawed = CellRun(code="print('@' + df.city.mode()[0], df.age.mean())", stdout="@Lyon 45.0\n")
    grouped = CellRun(
        code="s = df.groupby('city')['age'].mean()\nprint(s.idxmax(), s.max())",
        stdout="Graz 60.0\n",
    )
    again = CellRun(code=flawed.code, stdout=flawed.stdout)  # (a new run: rules tell once a run)
    for cells in [(flawed, grouped), (again, grouped, again)]:  # (the flawed one re-run last)
        stale = AnswerCandidate(text="@city[Lyon] @mean_age[45.0]", question=q, cells=cells)
        said = check(stale) or ""
        assert "comes from a cell that does not compute" in said, cells
        assert "@city[Graz] @mean_age[60.0]" in said
    fresh = AnswerCandidate(text="@city[Graz] @mean_age[60.0]", question=q, cells=(grouped, flawed))
    assert check(fresh) is None
    alone = AnswerCandidate(text="@city[Lyon] @mean_age[45.0]", question=q, cells=(flawed,))
    assert "never groups" in (check(alone) or "")  # (the group rule itself, not stale values)


def _employees_question() -> str:
    from codeact.agents.code import describe_files

    data = b"name,city,age\n" + b"".join(
        f"e{i},{c},{a}\n".encode() for i, (c, a) in enumerate([("Lyon", 30), ("Graz", 60)] * 3)
    )
    q = "Which city has the oldest employees on average? Answer as @city[name] @mean_age[value]."
    return q + "\n\n" + describe_files({"e.csv": data})


def test_stale_values_given_again_after_the_note_take_the_sound_cells_values() -> None:
    """Told once, the model answers from the flawed cell again: the answer gets the values
    of the cell that computes what is asked, under a line saying so (never a new value)."""
    q = _employees_question()
    flawed = CellRun(code="print('@' + df.city.mode()[0], df.age.mean())", stdout="@Lyon 45.0\n")
    grouped = CellRun(
        code="s = df.groupby('city')['age'].mean()\nprint(s.idxmax(), s.max())",
        stdout="Graz 60.0\n",
    )
    stale = AnswerCandidate(text="@city[Lyon] @mean_age[45.0]", question=q, cells=(flawed, grouped))
    with pytest.raises(ModelRetry) as told:
        rules_validator()(stale)
    assert told.value.answer is not None and "@city[Graz] @mean_age[60.0]" in told.value.answer
    again = rules_validator()(stale)  # (the same run: the rule was told)
    assert isinstance(again, AnswerCandidate)
    assert again.text.splitlines()[-1] == "@city[Graz] @mean_age[60.0]"
    assert "cell that computes what the question asks" in again.text.splitlines()[0]
    sound = stale.replace(text="@city[Graz] @mean_age[60.0]")
    assert rules_validator()(sound) is None  # (values from the sound cell stand as they are)


@pytest.mark.anyio
async def test_a_scripted_model_answering_stale_values_on_its_last_step_gets_the_sound_ones() -> (
    None
):
    """The 1.5B model's run seen on the held-out set: a flawed cell, a group-by that printed
    the answer, the flawed cell re-run, then its values as the answer on the last step."""
    q = _employees_question()
    flawed = "ages = [30, 60] * 3\nprint('@Lyon', sum(ages) / len(ages))"
    grouped = (
        "from itertools import groupby\ndf = {'city': ['Lyon', 'Graz'] * 3, 'age': [30, 60] * 3}\n"
        "rows = sorted(zip(df['city'], df['age']))\n"
        "s = {k: sum(a for _, a in g) / 3 for k, g in groupby(rows, key=lambda by_city: by_city[0])}\n"
        "print(max(s, key=s.get), max(s.values()))"
    )
    llm = ScriptedLLM(
        [
            f"<execute>\n{flawed}\n</execute>",
            f"<execute>\n{grouped}\n</execute>",
            f"<execute>\n{flawed}\n</execute>",
            "@city[Lyon] @mean_age[45.0]",
        ],
        function_calling=False,
    )
    agent = CodeActAgent(
        llm=llm,
        executor=lambda: RestrictedExecutor(),
        answer_validators=[rules_validator()],
        max_iterations=4,
    )
    events = await collect(agent.run(q))
    text = events[-1].result.response.text  # type: ignore[attr-defined]
    assert text.splitlines()[-1] == "@city[Graz] @mean_age[60.0]", text


def test_the_min_of_a_label_column_is_not_the_label_of_the_lowest_value() -> None:
    from codeact.agents.code import describe_files

    wide = describe_files({"t.csv": b"Tariff,Jan,Jul,Dec\nSTD,26.6,29.8,27.1\nEV,20.8,24.4,21.4\n"})
    q = (
        "Which tariff had the lowest price in July? Constraints: one column per month, Jan to "
        f"Dec; compare the Jul column. Answer as @tariff[tariff_code].\n\n{wide}"
    )
    said = check(candidate(q, "print(t['Tariff'].min())")) or ""
    assert "takes .min() of 'Tariff', which holds text" in said
    assert "print(t.loc[t['Jul'].idxmin(), 'Tariff'])" in said
    highest = q.replace("lowest", "highest")
    assert "t.loc[t['Jul'].idxmax(), 'Tariff']" in (
        check(candidate(highest, "print(t[t['Jul'] > 0]['Tariff'].max())")) or ""
    )
    assert check(candidate(q, "print(t.loc[t['Jul'].idxmin(), 'Tariff'])")) is None
    # the min of a number column, or a question with no extreme, is not this
    assert "holds text" not in (check(candidate(q, "print(t['Jul'].min())")) or "")
    tie = "print(t[t['Jul'] == t['Jul'].min()]['Tariff'].min())"  # (a tie broken by name)
    assert "holds text" not in (check(candidate(q, tie)) or "")
    listed = q.replace("Which tariff had the lowest price in July?", "List the tariffs.")
    assert "holds text" not in (check(candidate(listed, "print(t['Tariff'].min())")) or "")


def test_a_column_named_inside_the_description_of_another_is_not_asked_for() -> None:
    from codeact.agents.code import describe_files

    note = describe_files({"l.csv": b"Loan,Returned,Fine\nL1,2024-03-05,1.5\nL2,,\n"})
    q = (
        "Question: What is the total of the fines?\nConstraints: Fine is in euros and empty "
        f"for books not yet returned; sum it.\nFormat: @t[value]\n\n{note}"
    )
    assert check(candidate(q, "print(df['Fine'].sum())")) is None
    first = q.replace("Question: What is the total of the fines?\nConstraints: ", "")
    assert check(candidate(first, "print(df['Fine'].sum())")) is None  # (the first sentence)
    asked = q.replace("the total of the fines?", "the total fine of books returned?")
    assert "the column 'Returned'" in (check(candidate(asked, "print(df['Fine'].sum())")) or "")


@pytest.mark.parametrize(
    ("question", "code", "flagged"),
    [
        # an indefinite article: a word, not the column ("shipments out of a warehouse")
        (
            "How many entries are shipments out of a warehouse? Count rows whose movement is 'OUT'.",
            "print((df['movement'] == 'OUT').sum())",
            None,
        ),
        (
            "For each warehouse, how many OUT entries?",
            "print((df['movement'] == 'OUT').sum())",
            "groups by 'warehouse'",
        ),
        # columns as the subject of a sentence that describes them
        (
            "How many entries in July? movement and warehouse are text; use the July dates.",
            "print(len(df))",
            None,
        ),
        # 'one column per month' is how the file is laid out, not a question per month
        (
            "Which warehouse has one column per month, and the most OUT entries?",
            "print(df[df.movement == 'OUT'].groupby('warehouse').size().idxmax())",
            None,
        ),
        (
            "How many OUT records per month?",
            "print(df.groupby('warehouse')['qty'].sum())",
            "asks per month",
        ),
        (
            "What is the mean qty per month?",
            "print(df.groupby('warehouse')['qty'].mean())",
            "asks per month",
        ),
    ],
)
def test_column_words_that_do_not_ask_for_the_column(
    question: str, code: str, flagged: str | None
) -> None:
    from codeact.agents.code import describe_files

    note = describe_files({"s.csv": b"movement,warehouse,qty\nOUT,W1,3\nIN,W2,5\nOUT,W1,2\n"})
    said = check(candidate(f"{question} Answer as @n[value].\n\n{note}", code))
    assert (said is None) if flagged is None else (flagged in (said or "")), said


def test_a_column_word_after_one_names_what_a_row_is_not_the_column() -> None:
    from codeact.agents.code import describe_files

    note = describe_files({"t.csv": b"Ticket,Status,CSAT\nT1,Open,4\nT2,Resolved,\nT3,Open,5\n"})
    q = (
        "Question: What is the mean CSAT of the tickets that have one?\nConstraints: every line "
        f"is one ticket.\nFormat: @mean_csat[value]\n\n{note}"
    )
    assert check(candidate(q, "print(df['CSAT'].mean())")) is None
    named = q.replace("is one ticket.", "is one ticket. Use the Ticket column.")
    assert "the column 'Ticket'" in (check(candidate(named, "print(df['CSAT'].mean())")) or "")


def test_a_clock_time_is_not_a_threshold_and_a_quoted_way_of_writing_is_not_a_filter() -> None:
    from codeact.agents.code import describe_files

    data = b"Ticket,Opened,Tags\nT1,2024-01-01 08:02 PM,vpn|remote\nT2,2024-01-01 09:00 AM,dns\n"
    note = describe_files({"t.csv": data})
    q = (
        "Question: How many tickets were opened after hours?\nConstraints: a ticket is opened "
        "after hours when Opened is at or after 6:00 PM or before 8:00 AM.\n"
        f"Format: @n[value]\n\n{note}"
    )
    hours = "h = pd.to_datetime(df['Opened']).dt.hour\nprint(((h >= 18) | (h < 8)).sum())"
    assert check(candidate(q, hours)) is None
    assert check(candidate(q.replace("6:00 PM", "6 PM"), hours)) is None  # (a clock time too)
    real = q.replace("at or after 6:00 PM or before 8:00 AM", "more than 6 hours late")
    assert "threshold 6" in (check(candidate(real, hours)) or "")
    tags = (
        "Question: Which tag is on the most tickets?\nConstraints: Tags holds a ticket's tags "
        "separated by '|' ('vpn|remote' is the two tags vpn and remote).\n"
        f"Format: @tag[value]\n\n{note}"
    )
    counted = "print(df['Tags'].str.split('|').explode().value_counts().idxmax())"
    assert check(candidate(tags, counted)) is None
    asked = tags.replace("Which tag is on the most tickets?", "How many tickets are 'dns'?")
    assert "'dns'" in (check(candidate(asked, counted)) or "")


def test_a_limit_at_a_time_of_day_is_checked_as_its_hour() -> None:
    from codeact.agents.code import describe_files

    data = (
        b"Ticket,Opened\nT1,2024-01-01 08:02 PM\nT2,2024-01-01 09:00 AM\nT3,2024-01-02 07:10 AM\n"
    )
    q = (
        "Question: How many tickets were opened after hours?\nConstraints: after hours is at or "
        f"after 6:00 PM or before 8:00 AM.\nFormat: @n[value]\n\n{describe_files({'t.csv': data})}"
    )
    both = "h = pd.to_datetime(df['Opened']).dt.hour\nprint(((h >= 18) | (h < 8)).sum())"
    assert check(candidate(q, both)) is None
    evening = "h = pd.to_datetime(df['Opened']).dt.hour\nprint((h >= 18).sum())"
    said = check(candidate(q, evening)) or ""
    assert "'8:00 AM' (hour 8, or 08:00)" in said
    as_text = "t = df['Opened'].str[11:16]\nprint(((t >= '18:00') | (t < '08:00')).sum())"
    assert check(candidate(q, as_text)) is None
    noon = q.replace("before 8:00 AM", "before 12 pm")  # (12 pm is hour 12)
    assert "hour 12" in (check(candidate(noon, both)) or "")


def test_values_listed_as_the_ways_a_column_is_written_are_not_filters() -> None:
    from codeact.agents.code import describe_files

    note = describe_files({"t.csv": b"Ticket,Wait\nT1,2h 15m\nT2,135 min\nT3,2:15:30\n"})
    q = (
        "Question: What is the median wait?\nConstraints: Wait is written in three ways: '2h 15m' "
        "(hours and minutes), '135 min' (minutes) and '2:15:30' (hours:minutes:seconds).\n"
        f"Format: @m[value]\n\n{note}"
    )
    code = "print((pd.to_timedelta(df['Wait']).dt.total_seconds() / 60).median())"
    assert check(candidate(q, code)) is None
    asked = q.replace("What is the median wait?", "How many waits are '45 min'?")
    assert "'45 min'" in (check(candidate(asked, code)) or "")
