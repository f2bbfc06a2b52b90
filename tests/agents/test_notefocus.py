"""The files note as the model sees it (``_notefocus``): the reading code of columns the
question never names is left out of the prompt (description and examples kept), while the
rules and hints keep reading the whole note. fresh12 (blind): the 1.5B model copied every
column's conversion into its first cell, and one wrong copy failed cells that would have
answered."""

from __future__ import annotations

import warnings

import pytest

from codeact import CodeActAgent, RestrictedExecutor
from codeact.agents._notefocus import focused_note, named
from codeact.agents.code import describe_files
from codeact.events import ToolCallResult
from codeact.llms import ScriptedLLM
from tests.helpers import collect

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

LISTINGS = (
    "Ref,Listed,Floor Area,Asking Price,Fee\n"
    + "".join(
        f'{i},"Mar {1 + i % 28}, 2024",{60 + i} {["m²", "sq ft"][i % 2]},'
        f'"£{100 + i}{["k", ",000"][i % 3 % 2]}",{1 + i % 3 / 4}%\n'
        for i in range(30)
    )
).encode()
NOTE = describe_files({"listings.csv": LISTINGS})
QUESTION = (
    "Question: What is the mean asking price?\nConstraints: Take the mean Asking Price of all "
    f"the listings, in pounds.\nFormat: @mean_asking[value]\n\n{NOTE}"
)


def test_only_the_named_columns_keep_their_reading_code() -> None:
    assert "convert with df['Fee']" in NOTE and "value = pd.to_numeric(df['Floor Area']" in NOTE
    shown = focused_note(QUESTION)
    assert "convert with pd.to_numeric(df['Asking Price']" in shown  # (named)
    assert "df['Fee']" not in shown and "df['Floor Area']" not in shown
    assert "pd.to_datetime(df['Listed']" in shown  # (dates keep theirs: "in March 2024")
    # what the columns hold stays, examples and all
    assert "'Fee': text, numbers stored as text with '%' signs, e.g. '1.0%'" in shown
    assert "numbers with units ('m²' and 'sq ft') as text, e.g. '60 m²'" in shown
    # review: a question about a measure keeps the several-units column's code ("per square
    # metre" names no column)
    per = QUESTION.replace("What is the mean asking price?", "What is the price per square metre?")
    assert "value = pd.to_numeric(df['Floor Area']" in focused_note(per)
    # naming a column by a word of its name keeps its code; the question without a note, or
    # naming every column, is left as it is
    assert "convert with df['Fee']" in focused_note(QUESTION.replace("asking price", "fee"))
    assert focused_note("What is 2 + 2?") == "What is 2 + 2?"
    # naming one of its values keeps it too (a number is not a name)
    data = "Ref,Activity\n" + "".join(
        f"{i},{['Yoga', ' yoga', 'SWIMMING', 'Swimming '][i % 4]}\n" for i in range(20)
    )
    note = describe_files({"v.csv": data.encode()})
    assert "compare df['Activity']" in note
    swims = f"Question: How many swimming sessions were there?\n\n{note}"
    assert "compare df['Activity']" in focused_note(swims)
    visits = f"Question: How many visits were there?\n\n{note}"
    assert "compare df['Activity']" not in focused_note(visits)
    assert "compare df['Activity']" not in focused_note(visits.replace("were", "of 20 were"))


def test_what_names_a_column() -> None:
    assert named("the mean asking price", "Asking Price")
    assert named("homes listed in March", "Listed")
    assert named("the top unit prices", "unit_price")
    assert not named("the mean asking price", "Floor Area")
    assert not named("the date it was listed", "Sold Date")  # ('date' alone says nothing)
    assert not named("how many listings", "Ref")


@pytest.mark.anyio
async def test_the_model_sees_the_focused_note_and_the_hints_the_whole_one() -> None:
    # the cell converts Fee by hand (unnamed, its code left out of the prompt) and fails:
    # the hint still gives the note's conversion of Fee
    cell = (
        "import pandas as pd\ndf = pd.read_csv('listings.csv')\n"
        "df['Fee'] = df['Fee'].astype(float)\nprint(df['Fee'].mean())"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ex = RestrictedExecutor(allowed_modules=["pandas", "numpy"])
    llm = ScriptedLLM([f"<execute>\n{cell}\n</execute>", "@mean_asking[1]"], function_calling=False)
    agent = CodeActAgent(llm=llm, executor=ex)
    async with ex:
        await ex.upload("listings.csv", LISTINGS)
        events = await collect(agent.run(QUESTION))
    prompt = "\n".join(m.text for m in llm.requests[0].messages if m.role == "user")
    assert "Files in the working directory" in prompt
    assert "df['Fee']" not in prompt and "df['Asking Price']" in prompt
    (result,) = [e for e in events if isinstance(e, ToolCallResult) and e.tool_name == "execute"]
    assert "df['Fee'].str.replace(" in str(result.tool_output.content)
