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


def test_a_time_column_named_drops_the_others_reading_and_quotes_pair_up() -> None:
    """fresh13 (after its tuning): asked for the busiest day of the week by Date, the model
    copied the delivery times' reading, the weights' (" and " between the note's 'g' and 'kg'
    was taken for a value the question names) and the drivers' (named only in "Every row ...
    is one parcel a courier's driver took out") into 75-line cells cut off mid-line."""
    rows = [
        f"P{i},{['2024-03-05', '5 Mar 2024'][i % 2]},{[' d07', 'D07 '][i % 2]},"
        f"{['850 g', '1.2 kg'][i % 2]},{['4:30 pm', '16:30'][i % 2]}\n"
        for i in range(30)
    ]
    note = describe_files(
        {"d.csv": ("Parcel,Date, Driver ,Weight,Delivered\n" + "".join(rows)).encode()}
    )
    text = (
        "Question: On which day of the week were the most parcels dated, and how many?\n"
        "Constraints: Every row of d.csv is one parcel a courier's driver took out. Date is the "
        f"day of the parcel's last attempt.\nFormat: @weekday[name] @parcels[n]\n\n{note}"
    )
    shown = focused_note(text)
    assert "pd.to_datetime(df['Date'], format='mixed')" in shown  # (named)
    for gone in ("t = pd.to_datetime(df['Delivered']", "value = pd.to_numeric(df['Weight']"):
        assert gone in note and gone not in shown, gone
    assert "compare df[' Driver ']" in note and "compare df[' Driver ']" not in shown
    assert "times of day as text on a 12-hour clock ('4:30 pm')" in shown  # (what it holds stays)
    # no time column named: every date and time keeps its reading ("after 6 pm")
    late = text.replace("Date is the day of the parcel's last attempt.", "Count those after 6 pm.")
    assert "t = pd.to_datetime(df['Delivered']" in focused_note(late)
    # a column named only as another column's value ("could not be delivered") names no time
    status = describe_files(
        {
            "s.csv": (
                "Ref,Status,Date,Delivered\n"
                + "".join(
                    f"{i},{['Delivered', 'Failed'][i % 2]},{['2024-03-05', '5 Mar 2024'][i % 2]},"
                    f"{['4:30 pm', '16:30'][i % 2]}\n"
                    for i in range(30)
                )
            ).encode()
        }
    )
    failed = f"Question: How many parcels dated in March could not be delivered?\n\n{status}"
    assert "pd.to_datetime(df['Date'], format='mixed')" in focused_note(failed)
    # the driver named outside a row's sentence keeps its reading
    asked = text.replace("Date is the day", "Count by driver; Date is the day")
    assert "compare df[' Driver ']" in focused_note(asked)
