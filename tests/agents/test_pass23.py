"""Issue 29, twenty-third pass: on the last step, a rule's runnable code is run by the agent
and answered from (held-out dab_filled_mean: the known mean printed on the eighth and last
step, where no step was left to send the model back)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from codeact.agents.validators import ModelRetry
from codeact.events import AgentOutput, AnswerRetry, RunFinished, ToolCallResult
from tests.helpers import exec_with_files, question_of

#: Known ratings 5, 1, 2, 2, 4 (mean 2.8, median 2); filled: 18 / 7 = 2.571.
SHOPS = b"shop,rating\n" + b"".join(
    f"s{i},{r}\n".encode() for i, r in enumerate([5.0, "", 1.0, 2.0, "", 2.0, 4.0])
)
FILLED_COPY = (
    "import pandas as pd\nshops = pd.read_csv('shops.csv')\n"
    "known = shops.dropna(subset=['rating'])\n"
    "median_rating = known['rating'].median()\n"
    "shops['rating'] = shops['rating'].fillna(median_rating)\n"
    "print(round(known['rating'].mean(), 3))\n"
)
FILL_QUESTION = (
    "Fill the missing ratings with the median of the known ratings, then give the mean rating "
    "of all shops.",
    "@filled_mean[mean rounded to 3 decimals]",
)


async def _run(
    replies: list[str],
    steps: int,
    asked: tuple[str, str] = FILL_QUESTION,
    files: dict[str, bytes] | None = None,
) -> tuple[list[ToolCallResult], Any, AgentOutput, list[Any]]:
    """A CodeAct agent with ``codeact run``'s checks and a ``steps`` step limit, its model
    saying ``replies`` (on ``files``, shops.csv unless given): the execute results, the
    model, the run's result and every event."""
    from codeact.agents._answers import command_line_options
    from tests.helpers import scripted_events

    files = files or {"shops.csv": SHOPS}
    validators = command_line_options(None, require_execution=True)["answer_validators"]
    events, llm = await scripted_events(
        files, question_of(*asked, files), replies, validators, max_iterations=steps
    )
    results = [e for e in events if isinstance(e, ToolCallResult) and e.tool_name == "execute"]
    (finished,) = [e for e in events if isinstance(e, RunFinished)]
    return results, llm, finished.result, events


def test_the_data_has_the_known_and_the_filled_mean_apart() -> None:
    files = {"shops.csv": SHOPS}
    (printed,) = exec_with_files(files, FILLED_COPY)
    assert printed.strip() == "2.8"
    (filled,) = exec_with_files(
        files, FILLED_COPY.replace("known['rating'].mean", "shops['rating'].mean")
    )
    assert filled.strip() == "2.571"


@pytest.mark.anyio
@pytest.mark.filterwarnings("ignore::UserWarning")
async def test_a_wanting_answer_on_the_last_step_is_answered_from_the_rules_code() -> None:
    results, llm, result, events = await _run(
        [f"<execute>\n{FILLED_COPY}\n</execute>", "@filled_mean[2.800]"], steps=2
    )
    assert len(llm.requests) == 2  # (no model step after the last one)
    assert len(results) == 2, [r.tool_output.content for r in results]
    ran = results[1]
    assert "shops['rating'].mean()" in str(ran.tool_kwargs["code"])
    assert str(ran.tool_output.content).startswith("Note: ") and "No step is left" in str(
        ran.tool_output.content
    )
    text = result.response.text or ""
    assert "@filled_mean[2.571]" in text and "2.800" not in text, text
    assert text.splitlines()[0].startswith("(On the last step a check found")
    assert any(isinstance(e, AnswerRetry) and "dropped" in e.message for e in events)


@pytest.mark.anyio
@pytest.mark.filterwarnings("ignore::UserWarning")
async def test_with_a_step_left_the_model_is_sent_back_instead() -> None:
    fixed = FILLED_COPY.replace("known['rating'].mean", "shops['rating'].mean")
    results, llm, result, _ = await _run(
        [
            f"<execute>\n{FILLED_COPY}\n</execute>",
            "@filled_mean[2.800]",
            f"<execute>\n{fixed}\n</execute>",
            "@filled_mean[2.571]",
        ],
        steps=4,
    )
    assert len(llm.requests) == 4 and len(results) == 2  # (the agent ran nothing of its own)
    assert result.response.text == "@filled_mean[2.571]"


@pytest.mark.anyio
@pytest.mark.filterwarnings("ignore::UserWarning")
async def test_an_earlier_notes_code_runs_when_the_last_answer_breaks_another_rule() -> None:
    """Sent back with the fill note's code, the model answers a value no cell printed on its
    last step (the untraced-value rule has no code): the note's code, never run, answers."""
    results, llm, result, _ = await _run(
        [f"<execute>\n{FILLED_COPY}\n</execute>", "@filled_mean[2.800]", "@filled_mean[9.9]"],
        steps=3,
    )
    assert len(llm.requests) == 3 and len(results) == 2
    assert "shops['rating'].mean()" in str(results[1].tool_kwargs["code"])
    assert "@filled_mean[2.571]" in (result.response.text or ""), result.response.text


@pytest.mark.anyio
@pytest.mark.filterwarnings("ignore::UserWarning")
async def test_a_rules_code_the_model_ran_already_is_not_run_again_at_the_limit() -> None:
    """The model ran the note's code itself and still answers with the known mean: the kept
    answer is what it was (the traced fallback), nothing runs after the last step."""
    from tests.agents.test_pass22 import _told

    files = {"shops.csv": SHOPS}
    question = question_of(*FILL_QUESTION, files)
    told = _told(question, "@filled_mean[2.800]", FILLED_COPY, "2.8\n")
    assert told is not None and told.code is not None
    results, llm, result, _ = await _run(
        [
            f"<execute>\n{FILLED_COPY}\n</execute>",
            f"<execute>\n{told.code}\n</execute>",
            "@filled_mean[2.800]",
        ],
        steps=3,
    )
    assert len(results) == 2 and len(llm.requests) == 3
    assert "check found" not in (result.response.text or "")


@pytest.mark.anyio
@pytest.mark.filterwarnings("ignore::UserWarning")
async def test_a_question_without_placeholders_keeps_the_models_words_at_the_limit() -> None:
    asked = (FILL_QUESTION[0], "Answer in one sentence.")
    results, llm, result, _ = await _run(
        [f"<execute>\n{FILLED_COPY}\n</execute>", "The mean rating is 2.8."], steps=2, asked=asked
    )
    assert len(results) == 1 and len(llm.requests) == 2
    assert result.response.text == "The mean rating is 2.8."


def test_a_copy_made_again_in_a_later_cell_before_its_fill_is_still_found() -> None:
    """dab_filled_mean at edf6041: four cells read shops, copied and filled it; the last
    printed the copy's mean. On the cells' code joined, the first fill came before the last
    copy, and the rule, reading it as the copy made again after the fill, was quiet."""
    from codeact.agents._rules import check_rules
    from codeact.agents.validators import AnswerCandidate, CellRun

    files = {"shops.csv": SHOPS}
    question = question_of(*FILL_QUESTION, files)
    first = FILLED_COPY.replace("shops['rating'] = shops['rating'].fillna(median_rating)\n", "")
    shown = FILLED_COPY.replace("print(round(known['rating'].mean(), 3))", "print(shops)")
    cells = tuple(
        CellRun(code=code, stdout=out)
        for code, out in ((first, "2.8\n"), (shown, "(the frame)\n"), (FILLED_COPY, "2.8\n"))
    )
    problem = check_rules(AnswerCandidate(text="@filled_mean[2.8]", question=question, cells=cells))
    assert problem is not None and "which dropped the rows missing 'rating'" in str(problem)
    code = getattr(problem, "code", None)
    assert code is not None and code.startswith("import pandas as pd\nshops = pd.read_csv("), code
    assert "print(shops)" not in code  # (the earlier cells are not run again)
    (fixed,) = exec_with_files(files, code)
    assert fixed.strip() == "2.571"


@pytest.mark.anyio
@pytest.mark.filterwarnings("ignore::UserWarning")
async def test_the_cell_the_agent_took_over_with_answers_first_at_the_step_limit() -> None:
    """After the takeover ran the note's groupby('city') (Lyon 39.4), the model printed
    another pair itself and then wrote code on its last step: the answer at the limit is the
    takeover's, not the latest cell's."""
    from tests.agents.test_pass22 import BY_DATE, RANGE_QUESTION, WEATHER

    words = "The city is Lyon and the difference is 0.0.\n@city[2023-02-01] @range[0.0]"
    other = (  # (Porto, by its mean: a pair the cell computes, no rule broken)
        "m = df.groupby('city')['temp_c'].mean()\n"
        "print(f'@city[{m.idxmax()}] @range[{round(m.max(), 1)}]')"
    )
    results, llm, result, _ = await _run(
        [
            f"<execute>\n{BY_DATE}\n</execute>",
            words,
            words,
            f"<execute>\n{other}\n</execute>",
            f"<execute>\n{other}\nprint(1)\n</execute>",
        ],
        steps=5,
        asked=RANGE_QUESTION,
        files={"weather.csv": WEATHER},
    )
    assert len(llm.requests) == 5
    assert len(results) == 3 and "so I ran the code the note suggests" in str(
        results[1].tool_output.content
    )
    assert "@city[Porto] @range[16.8]" in str(results[2].tool_output.content)
    text = result.response.text or ""
    assert result.raw == {"at_limit": "steps", "answer": "@city[Lyon] @range[39.4]"}, text


#: A German cooperative's export (fresh22's kinds, written here): the header again at a page
#: break, a 'Summe' row, decimal commas beside 'k.A.' and '-', kg and t, German month names,
#: member numbers with leading zeros.
HEADER = "Schein,Datum,Nr,Sorte,Menge,Grad,Säure,Hand,Betrag"
EXPORT_ROWS = [
    'A1,04.09.2023,0042,Riesling,1.240 kg,74,"6,8",ja,"1.602,23"',
    'A2,5. Oktober 2023,0007,riesling ,"0,910 t",k.A.,-,Nein,"988,50 €"',
    'A3,13.10.2023,0042,Silvaner,800 kg,81,"7,9",JA,"1.100,00"',
    'A4,2. November 2023,0100,Silvaner,"2,100 t",-,k.A.,nein,"2.310,00 €"',
    'A5,14.09.2023,0007,Riesling,2.300 kg,90,"8,1",ja,"3.000,10"',
    'A6,1. Dezember 2023,0100,Silvaner,700 kg,77,"7,0",nein,"700,00"',
]
EXPORT = (
    "\n".join(
        [HEADER, *EXPORT_ROWS[:3], HEADER, *EXPORT_ROWS[3:], 'Summe,,,,8.050 kg,,,,"9.700,83"']
    )
    + "\n"
).encode()


def _note_line(column: str) -> str:
    from codeact.agents.code import describe_files

    note = describe_files({"lese.csv": EXPORT})
    return next(x for x in note.splitlines() if x.startswith(f"  - {column!r}"))


def test_a_header_repeated_inside_is_skipped_by_the_notes_read_call() -> None:
    from codeact.agents._csvtable import read_table
    from codeact.agents.code import describe_files

    table = read_table(EXPORT.decode())
    assert table is not None and table.repeats == (4,) and table.rows == 7
    assert all("Schein" not in column for column in table.columns)
    note = describe_files({"lese.csv": EXPORT})
    # the total row in German skipped by the same read (the records alone are described)
    assert (
        "6 rows x 9 columns, the header row repeated on 1 line inside (an export's page "
        "breaks: not records) and 1 total row ('Summe' in 'Schein') (read with "
        "pd.read_csv(path, skiprows=[4, 8]))" in note
    ), note
    assert "1 row is a total" not in note and "repeat an earlier row exactly" not in note
    (printed,) = exec_with_files(
        {"lese.csv": EXPORT},
        "import pandas as pd\ndf = pd.read_csv('lese.csv', skiprows=[4, 8])\n"
        "print(len(df), df['Grad'].iloc[0] == '74', df['Schein'].iloc[3], df['Nr'].dtype)",
    )
    assert printed == "6 True A4 int64"  # (no header, no total: whole numbers are numbers)
    without = EXPORT.replace(b"Summe", b"A7")  # (no total row: the header's repeat alone)
    assert "(read with pd.read_csv(path, skiprows=[4]))" in describe_files({"l.csv": without})


@pytest.mark.parametrize(
    ("cell", "sent_back"),
    [
        ("df = pd.read_csv('lese.csv')\nprint((df['Hand'].str.lower() == 'ja').sum())", True),
        ("df = pd.read_csv('lese.csv', skiprows=[4, 8])\nprint(len(df))", False),
        (  # (header=None keeps the repeat: skipped, and the first line is the header again)
            "df = pd.read_csv('lese.csv', header=None)\nprint(len(df))",
            True,
        ),
        (  # (a skip of its own: the header's first line)
            "df = pd.read_csv('lese.csv', skiprows=1, header=None)\nprint(len(df))",
            True,
        ),
        (  # (the code leaves the header rows out itself)
            "df = pd.read_csv('lese.csv')\ndf = df[df['Schein'] != 'Schein']\nprint(len(df))",
            False,
        ),
    ],
)
def test_a_read_keeping_the_repeated_header_is_sent_back_with_the_skip(
    cell: str, sent_back: bool
) -> None:
    from tests.helpers import rule_note

    question = question_of(
        "How many deliveries were picked by hand?",
        "@hand[count]",
        {"lese.csv": EXPORT},
    )
    note = rule_note(question, f"import pandas as pd\n{cell}")
    if not sent_back:
        assert note is None or "repeats its header row" not in note, note
        return
    assert note is not None and "repeats its header row inside the data" in note, note
    assert "pd.read_csv('lese.csv', skiprows=[4, 8]), print" in note  # (no header=None left)


def test_export_columns_get_their_readings() -> None:
    # kg beside t with a decimal comma ('0,910 t' is no 910 t)
    menge = _note_line("Menge")
    assert ".str.replace('.', '').str.replace(',', '.')" in menge, menge
    # decimal commas beside signs for no number
    saure = _note_line("Säure")
    assert "numbers with decimal commas ('6,8' is 6.8) as text" in saure, saure
    assert "'-' and 'k.A.' standing for no number" in saure
    # leading zeros pandas drops
    assert "leading zeros ('0042')" in _note_line("Nr") and "dtype={'Nr': str}" in _note_line("Nr")
    # German month names beside day-first numbers
    datum = _note_line("Datum")
    assert r"'\\bDezember\\b': 'December'" in datum and r"'\\bOktober\\b'" in datum, datum
    reading = datum[datum.index("pd.to_datetime") : datum.index(", e.g.")]
    value = menge[menge.index("pd.to_numeric(") : menge.index("; unit")]
    read = "import pandas as pd\ndf = pd.read_csv('lese.csv', skiprows=[4, 8])\n"
    months, kilos = exec_with_files(
        {"lese.csv": EXPORT},
        f"{read}print(list({reading}.dt.month))",
        f"{read}print(list({value}))",
    )
    assert months == "[9, 10, 10, 11, 9, 12]"
    assert kilos == "[1240.0, 0.91, 800.0, 2.1, 2300.0, 700.0]"


def test_commas_before_three_digits_alone_stay_thousands() -> None:
    from codeact.agents._money import marked_commas

    rupees = ["21,000", "35000", "-", "12,500", "Nil"] * 3
    assert marked_commas(rupees, "df['Discount']") == ""
    assert "'7,5' is 7.5" in marked_commas(["7,5", "8", "-"] * 3, "df['x']")


@pytest.mark.parametrize(
    ("said", "cell", "quiet"),
    [
        # one side of a legend used, its parenthesis between value and "if"
        (
            "Hand is 'ja' (in any case) if picked by hand, 'nein' if by machine. Count the "
            "deliveries whose Hand is 'ja'.",
            "print((df['Hand'].str.lower() == 'ja').sum())",
            True,
        ),
        # a legend of a column in a list of a file's columns, its values quoted nowhere else
        (
            "lese.csv has Sorte, Menge and Hand ('ja' if picked by hand, 'nein' if not). Count "
            "the Silvaner deliveries.",
            "print((df['Sorte'].str.strip() == 'Silvaner').sum())",
            True,
        ),
        # the value quoted again as the filter, and never used
        (
            "Hand is 'ja' if picked by hand, 'nein' if by machine. Count the deliveries whose "
            "Hand is 'ja'.",
            "print(len(df))",
            False,
        ),
    ],
)
def test_legends_are_not_filters_but_a_filter_quoted_again_is(
    said: str, cell: str, quiet: bool
) -> None:
    from codeact.agents._filters import filter_problem

    question = question_of("How many?", said, {"lese.csv": EXPORT})
    code = f"import pandas as pd\ndf = pd.read_csv('lese.csv', skiprows=[4])\n{cell}"
    problem = filter_problem(question, code)
    assert (problem is None) == quiet, problem


def test_a_sign_listed_with_another_for_no_number_is_coerced_away() -> None:
    from codeact.agents._notecols import coerced_marker

    question = question_of(
        "How many deliveries had no acidity measured?",
        "Count those whose Säure is 'k.A.', '-' or empty.",
        {"lese.csv": EXPORT},
    )
    assert (
        "2 values '-' and 'k.A.' standing for no number: convert with pd.to_numeric(df['Säure']"
        in question
    )
    code = (
        "s = pd.to_numeric(df['Säure'].str.replace(',', '.'), errors='coerce')\n"
        "print(s.isna().sum())"
    )
    assert coerced_marker(question, "k.A.", code) and coerced_marker(question, "-", code)
    assert not coerced_marker(question, "k.A.", "print(df['Säure'].isna().sum())")


def test_a_value_said_to_be_a_misspelling_is_an_alias() -> None:
    from codeact.agents._aliases import stated_aliases
    from tests.helpers import rule_note

    said = (
        "'Reisling' is a misspelling of Riesling; 'Silvanr' and 'Sylvaner' are typos for Silvaner."
    )
    assert [(a, v) for a, v, _ in stated_aliases(said)] == [
        ("Reisling", "Riesling"),
        ("Silvanr", "Silvaner"),
        ("Sylvaner", "Silvaner"),
    ]
    files = {
        "lese.csv": EXPORT.replace(b"A3,13.10.2023,0042,Silvaner", b"A3,13.10.2023,0042,Reisling")
    }
    question = question_of(
        "How many deliveries were of Riesling grapes?",
        "Sorte is typed in any case; 'Reisling' is a misspelling of Riesling. Count the "
        "Riesling deliveries.",
        files,
    )
    cell = (
        "import pandas as pd\ndf = pd.read_csv('lese.csv', skiprows=[4, 8])\n"
        "print((df['Sorte'].str.strip().str.lower() == 'riesling').sum())"
    )
    note = rule_note(question, cell)
    assert note is not None and "'Reisling' is Riesling too" in note, note
    told = _told_code(question, cell)
    (printed,) = exec_with_files(files, told)
    assert printed == "4"  # (A1, A2, A5 and the misspelt A3)


def _told_code(question: str, cell: str) -> str:
    from tests.agents.test_pass22 import _told

    told = _told(question, "@n[3]", cell, "3")
    assert told is not None and told.code is not None
    return told.code


@pytest.mark.parametrize(
    ("answer", "fixed"),
    [
        ("@rebsorte[Riesling] @tonnes[588.39]", "@variety[Riesling] @tonnes[588.39]"),
        ("@sorte[Riesling] @menge[588.39]", "@variety[Riesling] @tonnes[588.39]"),
        ("@tonnes[588.39] @rebsorte[Riesling]", None),  # (an asked name out of its place)
        ("@rebsorte[Silvaner] @tonnes[588.39]", None),  # (a value no cell printed)
    ],
)
def test_a_placeholder_renamed_beside_an_asked_one_is_read_in_the_asked_order(
    answer: str, fixed: str | None
) -> None:
    """fresh22_top_variety: the model printed and answered @rebsorte[...] beside @tonnes."""
    from codeact.agents.validators import AnswerCandidate, CellRun, placeholder_validator

    question = question_of(
        "Of which variety were the most tonnes delivered?",
        "@variety[variety_name] @tonnes[tonnes_value]",
        {"lese.csv": EXPORT},
    )
    cell = CellRun(code="print(...)", stdout="@rebsorte[Riesling]\n@tonnes[588.39]\n")
    candidate = AnswerCandidate(text=answer, question=question, cells=(cell,))
    if fixed is None:
        with pytest.raises(ModelRetry):
            placeholder_validator()(candidate)
        return
    got = placeholder_validator()(candidate)
    assert got is not None and got.text == fixed


@pytest.mark.parametrize("test", [".str.contains('5. Oktober 2023')", ".isin(['5. Oktober 2023'])"])
def test_an_example_date_searched_for_is_sent_back(test: str) -> None:
    """fresh22_october_deliveries: str.contains('3. Oktober 2023'), the question's example of
    a date written with the month's name, counted the deliveries of one day."""
    from codeact.agents._filters import filter_problem

    question = question_of(
        "How many deliveries arrived in October 2023?",
        "Datum is written day first with dots ('04.09.2023') or with the month's German name "
        "('5. Oktober 2023'). Count the deliveries whose Datum is in October 2023.",
        {"lese.csv": EXPORT},
    )
    code = f"import pandas as pd\ndf = pd.read_csv('lese.csv', skiprows=[4, 8])\nprint(df['Datum']{test}.sum())"
    problem = filter_problem(question, code)
    assert problem is not None and "only as an example of how values are written" in str(problem)


def test_a_total_row_skipped_by_the_notes_read_is_left_out() -> None:
    from codeact.agents._filters import filter_problem

    question = question_of(
        "What is the mean Grad?",
        "The export ends with a total row with 'Summe' in 'Schein': leave the Summe row out. "
        "Take the mean Grad.",
        {"lese.csv": EXPORT},
    )
    read = "import pandas as pd\ndf = pd.read_csv('lese.csv'{})\n"
    mean = "print(pd.to_numeric(df['Grad'], errors='coerce').mean())"
    assert filter_problem(question, read.format(", skiprows=[4, 8]") + mean) is None
    kept = filter_problem(question, read.format("") + mean)
    assert kept is not None and "'Summe'" in str(kept)


GROWERS = b"Nr,Name,Ort\n0042,Anna Weber,Forst\n0007,Karl Roth,Deidesheim\n0100,Eva Kuhn,Forst\n"


@pytest.mark.anyio
@pytest.mark.filterwarnings("ignore::UserWarning")
async def test_a_merge_of_ids_kept_as_text_with_ids_read_as_numbers_is_re_run() -> None:
    """fresh22: the deliveries read with dtype={'Mitglied-Nr.': str} as the note says, the
    growers without: 'You are trying to merge on str and int64 columns'."""
    from tests.helpers import run_one_cell

    files = {"lese.csv": EXPORT, "growers.csv": GROWERS}
    question = question_of("Which village delivered most?", "@village[name]", files)
    cell = (
        "import pandas as pd\n"
        "df = pd.read_csv('lese.csv', skiprows=[4, 8], dtype={'Nr': str})\n"
        "g = pd.read_csv('growers.csv')\n"
        "m = df.merge(g, on='Nr')\nprint(m.groupby('Ort').size().to_dict())"
    )
    result = await run_one_cell(files, cell, question)
    out = str(result.tool_output.content)
    assert "I re-ran your cell with pd.read_csv('growers.csv', dtype={'Nr': str})" in out, out
    assert "{'Deidesheim': 2, 'Forst': 4}" in out
    assert not result.tool_output.is_error


def test_ids_asked_with_their_leading_zeros_are_read_as_text() -> None:
    """fresh22_top_paid_grower: 'keep it as written, leading zeros included' (0253), read
    as numbers the id is 253."""
    from codeact.agents._zeros import zeros_problem

    files = {"lese.csv": EXPORT}
    asked = (
        "Which grower was paid the most?",
        "Nr is the member number with leading zeros ('0042'); keep it as written. "
        "@grower[member_no]",
    )
    question = question_of(*asked, files)
    cell = (
        "import pandas as pd\ndf = pd.read_csv('lese.csv', skiprows=[4, 8])\n"
        "print(df['Nr'].iloc[0])"
    )
    (printed,) = exec_with_files(files, cell)
    assert printed == "42"
    from tests.agents.test_pass22 import _told

    problem = _told(question, "@grower[42]", cell, "42")  # (as codeact run's rules tell it)
    assert problem is not None and problem.code is not None, problem
    assert "leading zeros and all" in str(problem) and "dtype={'Nr': str}" in str(problem)
    (fixed,) = exec_with_files(files, problem.code)
    assert fixed == "0042"
    assert zeros_problem(question, problem.code) is None  # (read as text now)
    plain = question_of(asked[0], "Nr is the member number. @grower[member_no]", files)
    assert zeros_problem(plain, cell) is None  # (not asked for as written)


# The review's findings (helper, 3a9a67f..ca2489e), each failing before its fix.
SALES = "Region,Monat,Umsatz\n"
SALES_ROWS = [f"R{i},M{i},{i * 10}\n" for i in range(6)]


def _read_with_note(data: str) -> tuple[str, object]:
    """The note of ``x.csv`` and the frame its read call gives."""
    import io

    import pandas as pd

    from codeact.agents.code import describe_files

    note = describe_files({"x.csv": data.encode()})
    call = re.search(r"pd\.read_csv\(path(.*?)\)\)", note)
    args = call.group(1) if call else ""
    return note, eval(f"pd.read_csv(io.StringIO(data){args})", {"pd": pd, "io": io, "data": data})


def test_review_notes_of_messy_exports_read_right() -> None:
    # decimal commas beside 'k.A.' in a ';' file: no decimal=',' for the whole file
    rows = [("7,8", "3.5"), ("k.A.", "12.25"), ("12,5", "0.75"), ("3", "4.5"), ("4,1", "2.0")]
    semi = "Sorte;Menge;Preis\n" + "".join(f"S{i};{m};{p}\n" for i, (m, p) in enumerate(rows))
    _, frame = _read_with_note(semi)
    assert list(frame["Preis"]) == [3.5, 12.25, 0.75, 4.5, 2.0]  # type: ignore[index]
    # a quoted line break: no lines to skip, the filter line instead
    broken = SALES + 'R9,"M\n9",90\n' + "".join(SALES_ROWS[:3]) + SALES + "".join(SALES_ROWS[3:])
    note, _ = _read_with_note(broken)
    assert "skiprows" not in note and "df = df[df['Region'] != 'Region']" in note
    # a byte-order mark before the header: the repeat is still found
    note, frame = _read_with_note(
        "\ufeff" + SALES + "".join(SALES_ROWS[:3]) + SALES + "".join(SALES_ROWS[3:])
    )
    assert "skiprows=[4]" in note and len(frame) == 6  # type: ignore[arg-type]
    # a total labelled in the second column
    ids = "Id,Region,Umsatz,Menge\n"
    labelled = ids + "1,Nord,10,1\n2,Sued,20,2\n,Summe,30,\n" + ids + "3,Ost,5,1\n4,West,6,2\n"
    note, frame = _read_with_note(labelled)
    assert "1 total row ('Summe' in 'Region')" in note and len(frame) == 4  # type: ignore[arg-type]


def test_review_a_big_file_with_repeats_past_the_scan_gets_the_filter_line() -> None:
    from codeact.agents._csvtable import SCAN_ROWS

    body = "".join(
        (SALES if i and i % 1000 == 0 else "") + f"R{i},M{i % 12},{i}\n"
        for i in range(SCAN_ROWS + 5000)
    )
    note, _ = _read_with_note(SALES + body)
    assert "skiprows" not in note and "(in the rows read): leave them out with" in note


def test_review_month_names_short_and_long_both_read() -> None:
    _, frame = _read_with_note("Datum,x\n3. Dez 2023,1\n12. Dezember 2023,2\n2023-03-01,3\n")
    note, _ = _read_with_note("Datum,x\n3. Dez 2023,1\n12. Dezember 2023,2\n2023-03-01,3\n")
    line = next(x for x in note.splitlines() if x.startswith("  - 'Datum'"))
    reading = line[line.index("pd.to_datetime") : line.index(", e.g.")]
    import pandas as pd

    dates = eval(reading, {"pd": pd, "df": frame})
    assert [d.month for d in dates] == [12, 12, 3]


def test_review_several_total_labels_are_all_left_out() -> None:
    import pandas as pd

    from codeact.agents._totals import totals_hint

    labels = ["R0", "R1", "Zwischensumme Q1", "R2", "R3", "Zwischensumme Q2", "Gesamtsumme"]
    sums = ["1", "2", "3", "4", "5", "9", "12"]
    hint = totals_hint(
        ["Region", "Umsatz", "Note"], [labels, sums, ["x", "y", "", "z", "w", "", ""]]
    )
    line = hint[hint.index("df = ") + 5 :]
    df = pd.DataFrame({"Region": labels, "Umsatz": sums})
    assert list(eval(line, {"df": df})["Region"]) == ["R0", "R1", "R2", "R3"]


@pytest.mark.parametrize(
    ("said", "cell", "fires"),
    [
        ("Give Nr without leading zeros (0042 is 42).", "print(df['Nr'].iloc[0])", False),
        ("Ignore leading zeros.", "print(df['Nr'].iloc[0])", False),
        ("Keep Nr with its leading zeros.", "print(df['Nr'].iloc[0])", True),
        ("Keep Nr with its leading zeros.", "print(str(df['Nr'].iloc[0]).rjust(4, '0'))", False),
    ],
)
def test_review_zeros_are_asked_for_only_when_kept(said: str, cell: str, fires: bool) -> None:
    from codeact.agents._zeros import zeros_problem

    question = question_of("Which grower?", f"{said} @grower[member_no]", {"lese.csv": EXPORT})
    code = f"import pandas as pd\ndf = pd.read_csv('lese.csv', skiprows=[4, 8])\n{cell}"
    assert (zeros_problem(question, code) is not None) == fires


@pytest.mark.parametrize(
    ("read", "rewritten"),
    [
        ("header=None, skiprows=1, names=cols", "skiprows=[4, 8], header=0, names=cols"),
        ("skiprows=[8, 4]", None),  # (the note's lines in another order: right)
    ],
)
def test_review_reads_rewritten_for_the_repeats_still_read_the_header(
    read: str, rewritten: str | None
) -> None:
    from codeact.agents._readfix import title_problem

    question = question_of("How many?", "@n[count]", {"lese.csv": EXPORT})
    code = f"import pandas as pd\ndf = pd.read_csv('lese.csv', {read})\nprint(len(df))"
    problem = title_problem(question, code)
    if rewritten is None:
        assert problem is None
        return
    assert problem is not None and f"pd.read_csv('lese.csv', {rewritten})" in str(problem.code)


def test_review_a_header_given_by_number_beside_title_lines_is_taken_out() -> None:
    from codeact.agents._readfix import title_problem

    data = ("Bericht 2023\nErstellt am 1.1.\n" + SALES + "".join(SALES_ROWS[:3]) + SALES).encode()
    data += "".join(SALES_ROWS[3:]).encode()
    question = question_of("What is the total Umsatz?", "@total[value]", {"x.csv": data})
    code = "import pandas as pd\ndf = pd.read_csv('x.csv', header=2)\nprint(df['Umsatz'].sum())"
    problem = title_problem(question, code)
    assert problem is not None and problem.code is not None
    (total,) = exec_with_files({"x.csv": data}, problem.code)
    assert total == "150"


def test_review_a_plain_first_look_then_the_notes_read_is_not_sent_back() -> None:
    from codeact.agents._readfix import title_problem

    question = question_of("How many?", "@n[count]", {"lese.csv": EXPORT})
    look = "import pandas as pd\ndf = pd.read_csv('lese.csv')\nprint(df.head())\n"
    right = "df = pd.read_csv('lese.csv', skiprows=[4, 8])\nprint(len(df))"
    assert title_problem(question, look + right) is None
    assert title_problem(question, right.replace(", skiprows=[4, 8]", "") + "\n" + look) is not None


def test_review_a_total_the_notes_read_does_not_skip_is_still_a_filter() -> None:
    from codeact.agents._filters import filter_problem

    data = SALES + "".join(SALES_ROWS[:4]) + SALES + "".join(SALES_ROWS[4:]) + "TOTAL,alle,280\n"
    question = question_of(
        "What is the total Umsatz?",
        "The last line (Region 'TOTAL') is a summary row, not a region: leave it out.",
        {"x.csv": data.encode()},
    )
    code = "import pandas as pd\ndf = pd.read_csv('x.csv', skiprows=[5])\nprint(df['Umsatz'].sum())"
    problem = filter_problem(question, code)
    assert problem is not None and "'TOTAL'" in str(problem)


def test_review_a_legend_whose_meaning_is_asked_is_a_filter() -> None:
    from codeact.agents._filters import filter_problem

    question = question_of(
        "What is the total Betrag of the deliveries picked by hand?",
        "Hand ('ja' if picked by hand, 'nein' if not) is written in any case.",
        {"lese.csv": EXPORT},
    )
    code = "import pandas as pd\ndf = pd.read_csv('lese.csv', skiprows=[4, 8])\nprint(len(df))"
    problem = filter_problem(question, code)
    assert problem is not None and "'ja'" in str(problem)


@pytest.mark.parametrize(
    ("test", "told"),
    [
        ("d.dt.month == 10", None),  # (every date is in 2023: the month alone is the filter)
        ("d.dt.year == 2023", "never uses that month"),  # ('October' in the reading is no test)
    ],
)
def test_a_month_of_the_one_year_needs_no_year(test: str, told: str | None) -> None:
    """fresh22_october_deliveries (tuned run): the right 290 from .dt.month == 10 was sent
    back for the year the note says every date has; the model then kept the year alone."""
    from codeact.agents._datetext import year_problem

    question = question_of(
        "How many deliveries arrived in October 2023?",
        "Count the deliveries whose Datum is in October 2023.",
        {"lese.csv": EXPORT},
    )
    line = _note_line("Datum")
    assert "all in 2023" in line
    reading = line[line.index("pd.to_datetime") : line.index(", e.g.")]
    code = (
        "import pandas as pd\ndf = pd.read_csv('lese.csv', skiprows=[4, 8])\n"
        f"d = {reading}\nprint(({test}).sum())"
    )
    problem = year_problem(question, code)
    assert (problem is None) if told is None else (told in str(problem)), problem


def test_missing_values_filled_then_counted_are_sent_back() -> None:
    """fresh22_unmeasured_must (tuned run): fillna(mode) and then .isna().sum(): 0."""
    from codeact.agents._filldrop import filled_count_problem

    files = {"lese.csv": EXPORT}
    read = "import pandas as pd\ndf = pd.read_csv('lese.csv', skiprows=[4, 8])\n"
    convert = "df['Grad'] = pd.to_numeric(df['Grad'], errors='coerce')\n"
    fill = "df['Grad'] = df['Grad'].fillna(df['Grad'].mode()[0])\n"
    count = "print(df['Grad'].isna().sum())"
    cell = read + convert + fill + count
    (printed,) = exec_with_files(files, cell)
    assert printed == "0"
    problem = filled_count_problem(cell)
    assert problem is not None and problem.code is not None and "count is 0" in str(problem)
    (fixed,) = exec_with_files(files, problem.code)
    assert fixed == "2"  # ('k.A.' and '-')
    from tests.helpers import rule_note

    question = question_of("For how many was Grad not measured?", "@n[count]", files)
    assert "count is 0" in str(rule_note(question, cell))  # (as codeact run's rules tell it)
    assert filled_count_problem(read + convert + count + "\n" + fill) is None  # (counted first)
    used = cell + "\nprint(df['Grad'].mean())"  # (the filled column read again: no code)
    again = filled_count_problem(used)
    assert again is not None and again.code is None


def test_leading_zeros_said_of_a_join_key_are_no_ask_when_the_answer_is_a_village() -> None:
    """fresh22_top_village (tuned run): "keep it as written, leading zeros included" of the
    member number both files join on sent back a cell whose answer is a village."""
    from codeact.agents._zeros import zeros_problem
    from codeact.agents.code import describe_files

    files = {"lese.csv": EXPORT, "growers.csv": GROWERS}
    said = (
        "Nr is four digits with leading zeros ('0042'); keep it as written, leading zeros included."
    )
    note = describe_files(files)
    cell = (
        "import pandas as pd\ndf = pd.read_csv('lese.csv', skiprows=[4, 8])\n"
        "m = df.merge(pd.read_csv('growers.csv'), on='Nr')\nprint(m.groupby('Ort').size().idxmax())"
    )
    village = (
        f"Question: Which village?\nConstraints: {said}\nFormat: @village[village_name]\n\n{note}"
    )
    assert zeros_problem(village, cell) is None
    grower = village.replace("@village[village_name]", "@grower[member_no], with its leading zeros")
    assert zeros_problem(grower, cell) is not None
