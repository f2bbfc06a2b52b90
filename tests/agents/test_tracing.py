"""Which placeholders a question asks for, and whether an answer's values come from a cell:
the public benchmark's instruction wording and variants, tracing with rounding, nan, labels,
the traced validator, and the best answer made of printed values."""

from __future__ import annotations

import pytest

from codeact.agents.validators import (
    AnswerCandidate,
    CellRun,
    ModelRetry,
    apply_validators,
    asked_decimals,
    best_traced_answer,
    placeholder_validator,
    required_placeholders,
    trace_answer,
    traced_validator,
)

#: The closing instruction of the public benchmark's questions, as its harness words it.
BOILERPLATE = (
    'Your final answer should contain all the "@answer_name[answer]" in the order mentioned, '
    'each "answer" should be in the range of value as required. For example: @mean_fare[34.65]'
)
DABENCH = (
    "Question: What is the mean wind speed?\n"
    "Constraints: Use the WINDSPEED column and skip missing values.\n"
    '@mean_wind[mean_value] where "mean_value" is a number rounded to two decimal places.\n'
    + BOILERPLATE
)


@pytest.mark.parametrize(
    ("question", "wanted"),
    [
        (DABENCH, ["mean_wind"]),
        (
            "Format: @n_rows[count] @share[pct] where pct is rounded to one decimal.\n"
            + BOILERPLATE,
            ["n_rows", "share"],
        ),
        ("How many? Give @count[value], e.g. @count[3].", ["count"]),
        ("Answer like @answer_name[answer], for instance @total[12].", []),
        ("Here are some examples:\n@shapiro_stat[0.56]\n@votes_outliers[10]\nGive @x[n].", ["x"]),
        ("Answer as @mean_fare[value]. " + BOILERPLATE, ["mean_fare"]),
        ("Answer as @city[name] @date[YYYY-MM-DD].", ["city", "date"]),
        ("Report @answer1[v] and @value[v].", []),
        ("Give the mean (e.g. of age) as @mean_age[value].", ["mean_age"]),
    ],
)
def test_only_the_placeholders_the_question_asks_for_are_required(
    question: str, wanted: list[str]
) -> None:
    assert required_placeholders(question) == wanted


def test_asked_decimals_belong_to_the_placeholder_they_follow() -> None:
    q = "Answer as @month[value] @revenue[value] with revenue rounded to two decimals."
    assert asked_decimals(q, "revenue") == 2 and asked_decimals(q, "month") is None
    assert asked_decimals(DABENCH, "mean_wind") == 2
    assert asked_decimals("Give @r[v] rounded to 3 decimal places.", "r") == 3


def ok(stdout: str, value: str | None = None) -> CellRun:
    return CellRun(code="...", stdout=stdout, value=value)


def test_boilerplate_placeholders_are_not_asked_for_nor_kept() -> None:
    cells = [ok("mean wind: 12.3456\n")]
    c = AnswerCandidate(
        text="@answer_name[None] @mean_fare[34.65] @mean_wind[12.35]", question=DABENCH, cells=cells
    )
    out = apply_validators([placeholder_validator(), traced_validator()], c)
    assert out.text == "@mean_wind[12.35]"


def test_a_fabricated_value_is_refused() -> None:
    c = AnswerCandidate(text="@mean_wind[34.65]", question=DABENCH, cells=[ok("12.3456")])
    with pytest.raises(ModelRetry, match=r"No cell printed the value of @mean_wind\[34.65\]"):
        apply_validators([traced_validator()], c)
    # a failed cell's output does not count
    failed = [CellRun(code="...", stdout="34.65", error="KeyError")]
    with pytest.raises(ModelRetry):
        apply_validators([traced_validator()], c.replace(cells=failed))


def test_nan_is_a_value_and_none_is_not() -> None:
    cells = [ok("mean: nan\n")]
    nan = AnswerCandidate(text="@mean_wind[nan]", question=DABENCH, cells=cells)
    assert apply_validators([placeholder_validator(), traced_validator()], nan) is nan
    missing = nan.replace(text="The value is not available: @mean_wind[None]")
    with pytest.raises(ModelRetry, match="nan is a value too") as err:
        apply_validators([placeholder_validator()], missing)
    assert "never write a value no cell printed" in str(err.value)
    assert "replace value with the computed result" not in str(err.value)


def test_values_trace_through_rounding_separators_and_labels() -> None:
    q = "Answer as @dept[name] @avg[value] rounded to two decimals and @n[value]."
    cells = [ok("Engineering    91234.5678\n"), ok("", value="1,204")]
    traced = trace_answer(q, "@dept[engineering] @avg[91234.57] @n[1204]", cells)
    assert {k: v.computed for k, v in traced.items()} == {"dept": True, "avg": True, "n": True}
    assert not trace_answer(q, "@avg[91234.58]", cells)["avg"].computed
    assert trace_answer(q, "@avg[91234.5678]", cells)["avg"].computed


def test_the_number_inside_a_printed_label_is_not_a_printed_number() -> None:
    # fresh9: the cell printed BR-02 and the model answered @branch[02]
    q = "Which branch opened first? Answer as @branch[branch_code], e.g. BR-03."
    cells = [ok("BR-02\n")]
    assert not trace_answer(q, "@branch[02]", cells)["branch"].computed
    assert trace_answer(q, "@branch[BR-02]", cells)["branch"].computed
    with pytest.raises(ModelRetry, match=r"No cell printed the value of @branch\[02\]"):
        apply_validators(
            [traced_validator()], AnswerCandidate(text="@branch[02]", question=q, cells=cells)
        )
    # numbers after a digit and a hyphen (dates), a month, a word or a sign still trace
    for printed, value in (("17-Sep-2017", "2017"), ("SEP-2017", "2017"), ("lane-3", "3")):
        assert trace_answer("Give @y[v].", f"@y[{value}]", [ok(printed)])["y"].computed
    assert not trace_answer("Give @y[v].", "@y[7]", [ok("SKU-7")])["y"].computed
    dated = [ok("2024-02-01  -3\n")]
    assert trace_answer("Give @m[v] @d[v].", "@m[02] @d[-3]", dated)["d"].computed
    assert trace_answer("Give @m[v] @d[v].", "@m[02] @d[-3]", dated)["m"].computed


def test_the_asked_rounding_is_applied_from_the_printed_number() -> None:
    q = "Give @avg[value] rounded to two decimals."
    c = AnswerCandidate(text="@avg[3.1]", question=q, cells=[ok("avg = 3.14159")])
    assert apply_validators([traced_validator()], c).text == "@avg[3.14]"  # 3.1 from 3.14159
    out = apply_validators([traced_validator()], c.replace(text="@avg[3.14159]"))
    assert out.text == "@avg[3.14]"
    assert (
        apply_validators([traced_validator()], c.replace(text="@avg[3.142]")).text == "@avg[3.14]"
    )


def test_best_traced_answer_takes_printed_values_latest_first() -> None:
    q = "Answer as @city[name] @rain[value] rounded to one decimal."
    cells = [
        ok("city: Lyon\nrain: 1.0"),
        CellRun(code="...", stdout="", error="KeyError"),
        ok("City: Porto\nTotal rain: 1234.56\n"),
    ]
    assert best_traced_answer(q, cells) == "@city[Porto] @rain[1234.6]"
    assert best_traced_answer("Give @n[value].", [ok("42\n")]) == "@n[42]"
    assert best_traced_answer("Give @n[value].", [ok("1 2\n")]) is None
    # a label asked, and the label printed with its value (print(s.idxmin(), s.min()))
    label = 'Which? @tariff[tariff_code] where "tariff_code" is the code of the Tariff column.'
    assert best_traced_answer(label, [ok("EV 20.77\n")]) == "@tariff[EV]"
    assert best_traced_answer("Give @low[value].", [ok("EV 20.77\n")]) == "@low[20.77]"
    assert best_traced_answer("Give @city[name].", [ok("Graz 3\nLyon 4\n")]) is None
    assert best_traced_answer("What is it?", [ok("it is 7\n")]) == "it is 7"
    assert best_traced_answer("What is it?", []) is None


def test_the_one_number_of_a_prose_answer_fills_the_one_value_asked_when_printed() -> None:
    q = "How many readings have no rain? Answer as @missing_rain[value]."
    cells = [ok(" RAIN    71\nDATE    0\n")]
    c = AnswerCandidate(text="There are 71 readings without rain.", question=q, cells=cells)
    assert apply_validators([placeholder_validator()], c).text.endswith("@missing_rain[71]")
    with pytest.raises(ModelRetry):  # a number no cell printed is not carried
        apply_validators([placeholder_validator()], c.replace(text="There are 72 readings."))
    with pytest.raises(ModelRetry):  # two numbers: which one is meant is not guessed
        apply_validators([placeholder_validator()], c.replace(text="71 of 0 readings."))


def test_joined_text_digits_and_pieces_of_a_printed_series_are_not_answers() -> None:
    from codeact.agents.validators import rules_validator

    q = "Which item sold most, and how many? Answer as @item[name] @quantity[value]."
    joined = "332111132141212331211211211111311312122221212"
    cells = [
        CellRun(code="print(s.idxmax(), s.max())", stdout=f"@item[Diavola]\n@quantity[{joined}]")
    ]
    c = AnswerCandidate(text=f"@item[Diavola] @quantity[{joined}]", question=q, cells=cells)
    with pytest.raises(ModelRetry, match="joins the values end to end"):
        apply_validators([rules_validator()], c)
    again = [CellRun(code="print(s)", stdout="Name: Item, dtype: str")]  # (a rule fires once a run)
    series = c.replace(text="@item[Item, dtype: str] @quantity[301]", cells=again)
    with pytest.raises(ModelRetry, match="a piece of how pandas prints a Series"):
        apply_validators([rules_validator()], series)
    fine = c.replace(
        text="@item[Diavola] @quantity[1460323737035677698]",  # (a 64-bit ID or sum is fine)
        cells=[CellRun(code="print(n)", stdout="Diavola 1460323737035677698")],
    )
    assert apply_validators([rules_validator()], fine) is fine
    # the answer made of printed values skips them for an earlier, readable one
    earlier = CellRun(code="print(1)", stdout="@item[Margherita]\n@quantity[301]")
    assert best_traced_answer(q, [earlier, *cells]) == "@item[Diavola] @quantity[301]"


def test_a_sentence_naming_a_label_placeholder_gives_no_number_for_it() -> None:
    """fresh15 (blind): "The most bookings were made through the booking.com channel, with
    174 bookings." was made ``@channel[174] @bookings[174]`` when the model kept re-running
    the cell; a name asked for (``channel_name``) is not the sentence's number."""
    q = (
        "Question: Which channel had the most bookings, and how many?\nFormat: "
        '@channel[channel_name] where "channel_name" is written like Phone. '
        '@bookings[bookings_value] where "bookings_value" is an integer.'
    )
    said = "The most bookings were made through the booking.com channel, with 174 bookings."
    assert best_traced_answer(q, [CellRun(code="print(...)", stdout=said)]) == "@bookings[174]"
    # a value asked as a number still comes from its labelled line
    counted = q.replace("@channel[channel_name]", "@channel[channel_count]")
    found = best_traced_answer(counted, [CellRun(code="print(...)", stdout=said)])
    assert found == "@channel[174] @bookings[174]"
    # a label printed after its name and a colon is taken as printed
    named = "channel: booking.com\nbookings: 174"
    found = best_traced_answer(q, [CellRun(code="print(...)", stdout=named)])
    assert found == "@channel[booking.com] @bookings[174]"
    # an id asked for may be a number: "Busiest member 230" gives it
    ids = q.replace("@channel[channel_name]", "@member[member_id]").replace("channel", "member")
    busiest = [CellRun(code="print(...)", stdout="Busiest member 230")]
    assert best_traced_answer(ids.split("@bookings")[0], busiest) == "@member[230]"


def test_the_whole_days_of_a_printed_duration_with_hours_are_sent_back() -> None:
    """fresh14 (blind): a cell printed ``15 days 06:11:36.774193`` (15.26 days) and the
    model answered ``@mean_days[15.00]``."""
    from codeact.agents._checks import duration_problem_answer

    shown = "15 days 06:11:36.774193"
    said = duration_problem_answer("@mean_days[15.00]", shown)
    assert said is not None and "15.2581 days" in said
    assert duration_problem_answer("@mean_days[15.26]", shown) is None
    assert duration_problem_answer("@mean_days[15]", "15 days 00:00:00") is None  # (whole)
    assert duration_problem_answer("@n[15]", "15 rows") is None
