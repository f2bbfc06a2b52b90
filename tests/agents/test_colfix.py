"""A cell that fails only because of a column name's spaces or case is re-run once with the
real name, in the open: scripted model, real restricted executor."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from codeact import CodeActAgent, Context, RestrictedExecutor
from codeact.agents._colnames import apply_renames, renames_for, string_literals
from codeact.events import Event, RunFinished, ToolCall, ToolCallResult
from codeact.llms import ScriptedLLM
from tests.helpers import collect

pytestmark = [pytest.mark.anyio, pytest.mark.filterwarnings("ignore::UserWarning")]

CSV = b"DATE, WINDSPEED,Rain ,rain\n2022-01-01,3.5,1,2\n2022-01-02,4.5,3,4\n"
READ = "import pandas as pd\ndf = pd.read_csv('w.csv')\n"
QUESTION = "Mean wind speed? Format: @mean_wind[value]"


def executor() -> RestrictedExecutor:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return RestrictedExecutor(allowed_modules=["pandas", "numpy"])


async def run(replies: list[Any], **options: Any) -> tuple[list[Event], Context]:
    llm = ScriptedLLM(replies, function_calling=False)
    ex = executor()
    agent = CodeActAgent(llm=llm, executor=ex, **options)
    ctx = Context()
    async with ex:
        await ex.upload("w.csv", CSV)
        events: list[Event] = await collect(agent.run(QUESTION, ctx=ctx))
    return events, ctx


def results(events: list[Event]) -> list[ToolCallResult]:
    return [e for e in events if isinstance(e, ToolCallResult) and e.tool_name == "execute"]


async def test_a_spaced_column_name_is_fixed_and_the_cell_re_run_in_the_open() -> None:
    cell = f"{READ}print(round(df['WINDSPEED'].mean(), 2))"
    events, ctx = await run([f"<execute>\n{cell}\n</execute>", "@mean_wind[4.0]"])
    (result,) = results(events)
    fixed = cell.replace("'WINDSPEED'", "' WINDSPEED'")
    assert not result.tool_output.is_error
    content = result.tool_output.content
    assert "column ' WINDSPEED' has a leading space" in content
    assert "I re-ran your cell with that name (' WINDSPEED') in place of 'WINDSPEED'" in content
    assert content.rstrip().endswith("4.0")
    # the model's code stays in the call event; the result, memory and notebook get what ran
    (call,) = [e for e in events if isinstance(e, ToolCall)]
    assert call.tool_kwargs["code"] == cell
    assert result.tool_kwargs["code"] == fixed
    remembered = [c for m in ctx.memory.get_all() for c in (m.tool_calls or [])]
    assert [c.arguments["code"] for c in remembered] == [fixed]
    finished = next(e for e in events if isinstance(e, RunFinished))
    assert finished.result.response.text == "@mean_wind[4.0]"


async def test_a_name_in_another_case_is_fixed_too() -> None:
    events, _ = await run([f"<execute>\n{READ}print(df['windspeed'].max())\n</execute>", "ok"])
    (result,) = results(events)
    assert "column ' WINDSPEED' has a leading space and a different case" in (
        result.tool_output.content
    )
    assert result.tool_output.content.rstrip().endswith("4.5")


async def test_a_name_matching_two_columns_is_not_guessed() -> None:
    events, _ = await run([f"<execute>\n{READ}print(df['RAIN'].sum())\n</execute>", "ok"])
    (result,) = results(events)
    assert result.tool_output.is_error
    assert "I re-ran your cell" not in result.tool_output.content
    assert "KeyError: 'RAIN'" in result.tool_output.content
    assert result.tool_kwargs["code"].endswith("print(df['RAIN'].sum())")


async def test_the_re_run_happens_once_and_a_new_failure_gets_the_hints() -> None:
    cell = f"{READ}w = df['WINDSPEED']\nprint(df['gust'].mean())"
    events, _ = await run([f"<execute>\n{cell}\n</execute>", "ok"])
    (result,) = results(events)
    content = result.tool_output.content
    assert result.tool_output.is_error
    assert content.count("I re-ran your cell") == 1
    assert "KeyError: 'gust'" in content
    assert "Hint: df has the columns" in content


async def test_no_re_run_without_recovery_hints() -> None:
    cell = f"{READ}print(df['WINDSPEED'].mean())"
    events, _ = await run([f"<execute>\n{cell}\n</execute>", "ok"], recovery_hints=False)
    (result,) = results(events)
    assert result.tool_output.is_error
    assert result.tool_kwargs["code"] == cell


def test_only_whole_string_literals_are_renamed() -> None:
    code = (
        "x = df['WINDSPEED']\n"
        "print(f'{WINDSPEED}', 'WINDSPEED mean', \"WINDSPEED\")\n"
        "WINDSPEED = 1  # 'WINDSPEED'\n"
    )
    renames = renames_for(code, ["DATE", " WINDSPEED"])
    assert renames == {"WINDSPEED": " WINDSPEED"}
    assert apply_renames(code, renames) == (
        "x = df[' WINDSPEED']\n"
        "print(f'{WINDSPEED}', 'WINDSPEED mean', \" WINDSPEED\")\n"
        "WINDSPEED = 1  # 'WINDSPEED'\n"
    )


def test_literals_of_code_that_does_not_tokenize_are_none() -> None:
    assert string_literals("x = '''unterminated") == []
    assert renames_for("df['DATE']", ["DATE"]) == {}


def test_literals_inside_f_string_expressions_are_renamed_in_their_own_quotes() -> None:
    """The 1.5B model wrote the column inside an f-string's expression and looped on it."""
    code = (
        "print(f\"@w[{d.loc[d['DATE'] == x, 'WINDSPEED'].values[0]:.2f}]\")\n"
        'print(f\'{d["WINDSPEED"].max()} é {"WINDSPEED"!r}\')\n'
    )
    renames = renames_for(code, ["DATE", " WINDSPEED"])
    assert renames == {"WINDSPEED": " WINDSPEED"}
    fixed = apply_renames(code, renames)
    assert fixed == (
        "print(f\"@w[{d.loc[d['DATE'] == x, ' WINDSPEED'].values[0]:.2f}]\")\n"
        'print(f\'{d[" WINDSPEED"].max()} é {" WINDSPEED"!r}\')\n'
    )
    compile(fixed, "cell", "exec")


async def test_a_text_clean_up_of_a_numeric_column_is_dropped_and_the_cell_re_run() -> None:
    """The column's name is fixed first, then its .str.replace(...) on numbers: two re-runs
    of one cell, each said (the 1.5B model resubmitted this cell seven times)."""
    cell = (
        f"{READ}df['WINDSPEED'] = df['WINDSPEED'].str.replace(',', '').astype(float)\n"
        "print(df['WINDSPEED'].max())"
    )
    events, _ = await run([f"<execute>\n{cell}\n</execute>", "@mean_wind[4.5]"])
    (result,) = results(events)
    content = result.tool_output.content
    assert not result.tool_output.is_error, content
    assert "I re-ran your cell with that name (' WINDSPEED')" in content
    assert "I re-ran your cell without .str.replace(',', '') on that line" in content
    assert content.rstrip().endswith("4.5")
    assert result.tool_kwargs["code"].endswith(
        "df[' WINDSPEED'] = df[' WINDSPEED'].astype(float)\nprint(df[' WINDSPEED'].max())"
    )


async def test_a_text_clean_up_of_a_text_column_is_left_alone() -> None:
    csv_cell = f"{READ}print(df['DATE'].str.replace('-', '').astype(int).max())"
    events, _ = await run([f"<execute>\n{csv_cell}\n</execute>", "ok"])
    (result,) = results(events)
    assert not result.tool_output.is_error
    assert "I re-ran" not in result.tool_output.content


async def test_a_model_that_re_runs_its_cell_after_a_note_gets_the_suggested_code_run() -> None:
    """The 1.5B model, told to sum 'units' per region (with the code), re-ran its count of
    rows; the agent runs the suggested code on the model's table instead, in the open."""
    events = await run_regions(
        [COUNT, "@region[East] @units[3]", COUNT, "@region[West] @units[30]"]
    )
    first, second = results(events)
    assert first.tool_output.content.strip() == "East 3"
    content = second.tool_output.content
    assert "I ran the code the earlier note suggested instead" in content
    ran = "df = orders\ns = df.groupby('region')['units'].sum(); print(s.idxmax(), s.max())"
    assert second.tool_kwargs["code"] == ran
    assert content.rstrip().endswith("West 30")
    finished = next(e for e in events if isinstance(e, RunFinished))
    assert "@region[West] @units[30]" in finished.result.response.text


REGIONS = b"region,units\nEast,1\nEast,1\nEast,1\nWest,15\nWest,15\n"
COUNT = (
    "<execute>\nimport pandas as pd\norders = pd.read_csv('o.csv')\n"
    "c = orders['region'].value_counts()\nprint(c.idxmax(), c.max())\n</execute>"
)


async def run_regions(replies: list[Any]) -> list[Event]:
    """A region question (files note included) with ``codeact run``'s answer options."""
    from codeact.agents import command_line_options
    from codeact.agents.code import describe_files

    question = "Which region ordered the most units, and how many? Answer as "
    question += "@region[name] @units[value].\n\n" + describe_files({"o.csv": REGIONS})
    llm = ScriptedLLM(replies, function_calling=False)
    options = command_line_options(None, require_execution=True, lenient_code=False)
    async with executor() as ex:
        await ex.upload("o.csv", REGIONS)
        events: list[Event] = await collect(
            CodeActAgent(llm=llm, executor=ex, **options).run(question)
        )
    return events


async def test_a_groupby_column_not_found_is_fixed_too() -> None:
    """pandas' groupby says ``KeyError: 'Column not found: WINDSPEED'`` (the 1.5B model looped
    on it seven times)."""
    cell = f"{READ}print(df.groupby('DATE')['WINDSPEED'].sum().max())"
    events, _ = await run([f"<execute>\n{cell}\n</execute>", "ok"])
    (result,) = results(events)
    assert not result.tool_output.is_error, result.tool_output.content
    assert "I re-ran your cell with that name (' WINDSPEED')" in result.tool_output.content
    assert result.tool_output.content.rstrip().endswith("4.5")


async def test_the_repeat_stop_answers_from_the_suggested_code_not_the_flawed_cell() -> None:
    """After the agent ran the suggestion, the 1.5B model re-ran its count of rows twice more;
    the repeat stop answers from the suggestion's output (it printed @East 221 before)."""
    events = await run_regions(
        [COUNT, "@region[East] @units[3]", COUNT, COUNT, COUNT, "never reached"]
    )
    finished = next(e for e in events if isinstance(e, RunFinished))
    assert finished.result.raw["at_limit"] == "repeats"
    assert finished.result.response.text.endswith("@region[West] @units[30]")


async def test_final_answer_with_several_values_is_re_run_as_a_print_in_the_asked_format() -> None:
    """The 1.5B model called final_answer(city, diff) at every step of a held-out question."""
    question = "Which date has the highest wind and what is it? Answer as @date[d] @wind[value]."
    cell = (
        f"{READ}i = df[' WINDSPEED'].idxmax()\nday, top = df.loc[i, 'DATE'], df[' WINDSPEED'].max()"
        "\nfinal_answer(day, top)"
    )
    llm = ScriptedLLM(
        [f"<execute>\n{cell}\n</execute>", "@date[2022-01-02] @wind[4.5]"], function_calling=False
    )
    ex = executor()
    async with ex:
        await ex.upload("w.csv", CSV)
        events = await collect(CodeActAgent(llm=llm, executor=ex).run(question))
    (result,) = results(events)
    content = result.tool_output.content
    assert not result.tool_output.is_error, content
    assert 'I re-ran your cell with print(f"@date[{day}] @wind[{top}]") in its place' in content
    assert content.rstrip().endswith("@date[2022-01-02] @wind[4.5]")
    # a call with one value per name only: three values for two names are left to the model
    three = cell.replace("final_answer(day, top)", "final_answer(day, top, i)")
    llm = ScriptedLLM([f"<execute>\n{three}\n</execute>", "ok"], function_calling=False)
    async with executor() as ex:
        await ex.upload("w.csv", CSV)
        events = await collect(CodeActAgent(llm=llm, executor=ex).run(question))
    (result,) = results(events)
    assert result.tool_output.is_error and "I re-ran" not in result.tool_output.content


async def test_a_fixed_cell_sent_again_unchanged_is_still_a_repeat() -> None:
    """The model re-sends the block whose column name the agent fixed: that is a repeat (the
    answer from what it printed once it ran twice), not a new cell each time to the limit."""
    cell = f"{READ}print(f\"@mean_wind[{{round(df['WINDSPEED'].mean(), 2)}}]\")"
    block = f"<execute>\n{cell}\n</execute>"
    events, _ = await run([block] * 6 + ["@mean_wind[4.0]"], max_iterations=8)
    ran = results(events)
    assert len(ran) == 2  # (the third time, the agent answers from what the cells printed)
    final = next(e for e in events if isinstance(e, RunFinished))
    assert final.result.response.text.splitlines()[-1] == "@mean_wind[4.0]"
    assert final.result.raw["at_limit"] == "repeats"


async def test_a_fixed_block_sent_again_runs_the_suggestion_a_note_made() -> None:
    """A note suggested code; the model sends its old block again (the one whose column the
    agent fixed): the suggestion runs in its place, as for a re-run successful cell."""
    from codeact.agents.validators import AnswerCandidate, ModelRetry

    told: list[str] = []

    def wants_max(candidate: AnswerCandidate) -> None:
        if not told:
            told.append(candidate.text)
            raise ModelRetry("Use the largest value.", code="print(df[' WINDSPEED'].max())")

    cell = f"{READ}print(round(df['WINDSPEED'].mean(), 2))"
    block = f"<execute>\n{cell}\n</execute>"
    events, _ = await run(
        [block, "@mean_wind[4.0]", block, "@mean_wind[4.5]"], answer_validators=[wants_max]
    )
    ran = results(events)
    assert len(ran) == 2 and ran[1].tool_kwargs["code"].endswith("print(df[' WINDSPEED'].max())")
    assert "so I ran the code the earlier note suggested" in ran[1].tool_output.content
    assert ran[1].tool_output.content.rstrip().endswith("4.5")


async def test_a_name_with_other_punctuation_is_fixed_when_one_column_matches() -> None:
    """fresh22_top_yield_grower: ``groupby('Mitglied-Nr')`` for 'Mitglied-Nr.' failed the
    cell, and the model went on to other things. Punctuation and spaces inside the name are
    ignored only when no column matches up to case and outer spaces, and one column does."""
    code = "df.groupby('Mitglied-Nr')['Menge']"
    renames = renames_for(code, ["Mitglied-Nr.", "Menge"], ["Mitglied-Nr"])
    assert renames == {"Mitglied-Nr": "Mitglied-Nr."}
    assert renames_for(code, ["Mitglied-Nr.", "Menge"]) == {}  # (not the KeyError's name)
    assert renames_for("df['Rain']", ["Rain ", "rain"], ["Rain"]) == {}  # (two columns)
    assert renames_for("df['A B']", ["A-B", "AB"], ["A B"]) == {}  # (two columns: not guessed)
    assert renames_for("x = '-'", ["A-B"], ["-"]) == {}  # (no letters: no name)
    # a value literal that loosely matches a column is left alone (review: 'email', 'E-mail')
    value = "df[df['Channel'] == 'email']['Order ID']"
    assert renames_for(value, ["Order-ID", "Channel", "E-mail"], ["Order ID"]) == {
        "Order ID": "Order-ID"
    }
    events, _ = await run([f"<execute>\n{READ}print(df['Wind-Speed'].sum())\n</execute>", "ok"])
    (result,) = results(events)
    content = result.tool_output.content
    assert "column ' WINDSPEED' is spelt with other punctuation or spaces" in content, content
    assert content.rstrip().endswith("8.0")
