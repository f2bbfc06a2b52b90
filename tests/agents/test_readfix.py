"""A file that is not comma-separated: the files note gives the read call, and a cell that
read it with the default separator is re-run with that call (``_readfix``); the note's other
ways of writing values (decimal commas, units, fractions, yes/no several ways, Unix times)."""

from __future__ import annotations

import re
import warnings
from typing import Any

import pytest

from codeact import CodeActAgent, RestrictedExecutor
from codeact._execution import CellError, ExecutionResult
from codeact.agents._readfix import note_read_arguments, separator_fix
from codeact.agents.code import describe_files
from codeact.events import Event, ToolCallResult
from codeact.llms import ScriptedLLM
from tests.helpers import collect, run_one_cell

pytestmark = [pytest.mark.anyio, pytest.mark.filterwarnings("ignore::UserWarning")]

LEDGER = (
    b"entry;movement;qty;cost;weight\n"
    b"L1;IN;1.500;2.215,62;27,7 kg\nL2;OUT;20;0,29;850 g\nL3;OUT;3;10,47;1,5 kg\n"
)
RIDES = (
    b"ride,started,member,rating\n"
    b"R1,1714545286,TRUE,5/5\nR2,1714546845,0,4/5\nR3,1714553148,FALSE,\nR4,1714557277,1,2/5\n"
)
NOTE = describe_files({"ledger.csv": LEDGER, "rides.csv": RIDES})
QUESTION = f"How many OUT entries, and what is the total qty? Format: @n[value] @q[value]\n\n{NOTE}"


def test_the_note_gives_the_read_call_and_how_values_are_written() -> None:
    assert (
        "separated by ';' (read with pd.read_csv(path, sep=';', decimal=',', thousands='.'))"
    ) in NOTE
    assert "'cost': text, numbers with decimal commas: read the file with decimal=','" in NOTE
    assert "'weight': text, numbers with units ('g' and 'kg') as text" in NOTE
    assert (
        "'started': int64, Unix times in seconds: pd.to_datetime(df['started'], unit='s')" in NOTE
    )
    assert "'member': text, yes/no written several ways (0, 1, FALSE, TRUE)" in NOTE
    assert "'rating': text, 1 missing, fractions as text: df['rating'].str.split('/')" in NOTE
    assert note_read_arguments(QUESTION, "ledger.csv") == "sep=';', decimal=',', thousands='.'"
    assert note_read_arguments(QUESTION, "rides.csv") is None  # (comma-separated)
    assert note_read_arguments(QUESTION, "other.csv") is None


def failed() -> ExecutionResult:
    return ExecutionResult(error=CellError(type="KeyError", message="'movement'"))


def test_reads_without_a_separator_get_the_notes_arguments() -> None:
    code = "import pandas as pd\ndf = pd.read_csv('ledger.csv')\nr = pd.read_csv('rides.csv')"
    fix = separator_fix(QUESTION, failed(), code)
    assert fix is not None
    assert fix.code == (
        "import pandas as pd\n"
        "df = pd.read_csv('ledger.csv', sep=';', decimal=',', thousands='.')\n"
        "r = pd.read_csv('rides.csv')"
    )
    assert "I re-ran your cell with pd.read_csv('ledger.csv', sep=';'" in fix.note()
    kept = "df = pd.read_csv('ledger.csv', sep=';')"
    assert separator_fix(QUESTION, failed(), kept) is None  # (the model chose a separator)
    assert separator_fix(QUESTION, ExecutionResult(), code) is None  # (the cell ran)
    nested = "df = pd.read_csv('ledger.csv', nrows=int(5))"
    fixed = separator_fix(QUESTION, failed(), nested)
    assert fixed is not None and fixed.code.endswith("decimal=',', thousands='.', nrows=int(5))")


async def test_the_cell_is_re_run_with_the_read_call_and_answers() -> None:
    cell = (
        "import pandas as pd\ndf = pd.read_csv('ledger.csv')\n"
        "print(len(df[df['movement'] == 'OUT']), df['qty'].sum())"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ex = RestrictedExecutor(allowed_modules=["pandas", "numpy"])
    llm = ScriptedLLM([f"<execute>\n{cell}\n</execute>", "@n[2] @q[1523]"], function_calling=False)
    agent = CodeActAgent(llm=llm, executor=ex)
    async with ex:
        await ex.upload("ledger.csv", LEDGER)
        await ex.upload("rides.csv", RIDES)
        events: list[Event] = await collect(agent.run(QUESTION))
    (result,) = [e for e in events if isinstance(e, ToolCallResult) and e.tool_name == "execute"]
    content: Any = result.tool_output.content
    assert not result.tool_output.is_error, content
    assert "the file is not comma-separated" in content
    assert content.rstrip().endswith("2 1523")  # 1.500 is fifteen hundred: thousands='.'


def test_yes_no_written_several_ways_is_compared_with_every_spelling() -> None:
    import io

    import pandas as pd

    from codeact.agents._convhint import conversion_hint
    from codeact.agents._datarules import yes_no_problem

    q = f"How many rides by members? Format: @n[value]\n\n{NOTE}"
    code = "df = pd.read_csv('rides.csv')\nprint(len(df[df['member'] == 'TRUE']))"
    problem = yes_no_problem(q, code)
    assert problem is not None and problem.code is not None
    assert "df['member'].astype(str).str.strip().str.upper().isin(['TRUE', '1'" in problem.code
    out = io.StringIO()
    space = {"pd": pd, "print": lambda *a: print(*a, file=out)}
    exec(
        problem.code.replace("'rides.csv'", "io.BytesIO(RIDES)"),
        {**space, "io": io, "RIDES": RIDES},
    )
    assert out.getvalue().strip() == "2"  # TRUE and 1
    casual = yes_no_problem(q, code.replace("== 'TRUE'", "!= 1"))
    assert casual is not None and casual.code is not None and "~df['member']" in casual.code
    assert "isin(['TRUE', '1'" in casual.code  # (not 1: not a member)
    assert yes_no_problem(q, code.replace("'member'", "'ride'")) is None
    # a failed cell reading a written column by hand gets the note's way to read it
    rating = "df['rating'] = df['rating'].str.replace('/', ' ').astype(float)"
    assert "df['rating'].str.split('/').str[0].astype(float)" in conversion_hint(q, rating)
    started = "df['started'].dt.hour"
    assert "pd.to_datetime(df['started'], unit='s')" in conversion_hint(q, started)


METER = (
    b"Account;Estimated;Consumption\n"
    b"A1;yes;420,2 kWh\nA2;No;1.178,3 kWh\nA3;TRUE;-3,5 kWh\nA4;0;\nA5;1;12 kWh\n"
)
GRAMS = b'id,w\n1,"1,500 g"\n2,"2,250 g"\n3,12 g\n4,2.5 g\n'


@pytest.mark.parametrize(
    ("name", "data", "column", "values"),
    [
        # a decimal comma, a point between thousands, one unit: the number as written
        ("m.csv", METER, "Consumption", [420.2, 1178.3, -3.5, None, 12.0]),
        # a comma between thousands and a decimal point
        ("g.csv", GRAMS, "w", [1500.0, 2250.0, 12.0, 2.5]),
    ],
)
def test_numbers_with_one_unit_get_a_conversion_that_reads_them_right(
    name: str, data: bytes, column: str, values: list[float | None]
) -> None:
    import io
    import math

    import pandas as pd

    note = describe_files({name: data})
    (line,) = [ln for ln in note.splitlines() if ln.startswith(f"  - {column!r}")]
    assert "numbers with a unit" in line
    assert "decimal=','" not in note  # (the other columns are not read with decimal commas)
    convert = line.split("convert with ")[1].rsplit(", e.g. ", 1)[0]
    df = pd.read_csv(io.BytesIO(data), sep=";" if b";" in data else ",")
    got = list(eval(convert, {"df": df}))
    assert [None if math.isnan(v) else v for v in got] == values


async def test_a_failed_cell_gets_the_conversion_of_its_own_column() -> None:
    cell = (
        "import pandas as pd\ndf = pd.read_csv('m.csv', sep=';')\n"
        "flags = df['Estimated'] == 'yes'\n"
        "print(pd.to_numeric(df['Consumption']).sum())"  # (not the by-hand conversion: no re-run)
    )
    question = f"Total consumption? Format: @t[value]\n\n{describe_files({'m.csv': METER})}"
    result = await run_one_cell({"m.csv": METER}, cell, question, "@t[1]")
    content: Any = result.tool_output.content
    assert result.tool_output.is_error
    assert "'Consumption' holds numbers with a unit (see the files note): read it with df[" in (
        content
    )
    assert "thousands=','" not in content  # (the generic hint would contradict the note)


async def test_a_failed_by_hand_conversion_of_numbers_with_a_unit_is_re_run_the_notes_way() -> None:
    cell = (
        "import pandas as pd\ndf = pd.read_csv('m.csv', sep=';')\njan = df[df['Account'] != 'A9']\n"
        "jan['kwh'] = jan['Consumption'].str.replace(',', '.').astype(float)\n"
        "print(round(jan['kwh'].sum(), 1))"
    )
    question = f"Total consumption? Format: @t[value]\n\n{describe_files({'m.csv': METER})}"
    result = await run_one_cell({"m.csv": METER}, cell, question, "@t[1607.0]")
    content: Any = result.tool_output.content
    assert not result.tool_output.is_error, content
    assert "I re-ran your cell with jan['Consumption'].str.replace(r'[^\\d,-]'" in content
    assert content.rstrip().endswith("1607.0")  # 420.2 + 1178.3 - 3.5 + 12


def test_a_table_with_a_column_per_month_gets_the_melt_to_one_row_per_month() -> None:
    import io

    import pandas as pd

    wide = b"Tariff,Name,Jan,Feb,Mar\nSTD,Standard,26.5,27.5,28.0\nEV,EV Saver,20.0,21.0,22.5\n"
    note = describe_files({"t.csv": wide})
    (line,) = [ln for ln in note.splitlines() if "One column per month" in ln]
    assert "('Jan' to 'Mar')" in line
    df = pd.read_csv(io.BytesIO(wide))
    space: dict[str, Any] = {"df": df}
    exec(line.split("for one row per month, ")[1], space)
    long = space["long"]
    assert list(long.columns) == ["Tariff", "Name", "month", "value"] and len(long) == 6
    assert long[(long.Tariff == "EV") & (long.month == "Feb")]["value"].item() == 21.0
    # two month-like names are not a layout
    assert "One column per month" not in describe_files({"d.csv": b"id,May,Jun\n1,2,3\n"})


def test_numbers_with_a_unit_converted_to_nan_by_hand_are_sent_back_with_the_notes_way() -> None:
    import contextlib
    import io

    import pandas as pd

    from codeact.agents._readfix import unit_problem

    question = f"Total consumption? Format: @t[value]\n\n{describe_files({'m.csv': METER})}"
    code = (
        "df = pd.read_csv('m.csv', sep=';')\n"
        "df['kwh'] = pd.to_numeric(df['Consumption'].str.replace(',', '.'), errors='coerce')\n"
        "print(round(df['kwh'].sum(), 1))"
    )
    problem = unit_problem(question, code)
    assert problem is not None and problem.code is not None
    assert "holds numbers with a unit" in problem

    def printed(cell: str) -> str:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(cell.replace("'m.csv'", "io.BytesIO(METER)"), {"pd": pd, "io": io, "METER": METER})
        return out.getvalue().strip()

    assert printed(code) == "0.0"  # (every value NaN)
    assert printed(problem.code) == "1607.0"
    assert unit_problem(question, problem.code) is None  # (the note's way: nothing to say)
    by_hand = code.replace(
        "pd.to_numeric(df['Consumption'].str.replace(',', '.'), errors='coerce')",
        "df['Consumption'].str.replace(' kWh', '').astype(float)",
    )
    assert by_hand != code and unit_problem(question, by_hand) is None  # (it ran: converted)
    from tests.agents.test_rules import candidate, check

    assert "holds numbers with a unit" in (check(candidate(question, code)) or "")


async def test_a_cell_using_a_table_it_never_read_is_re_run_with_the_notes_read_call() -> None:
    cell = "print(df[df['Estimated'] == 'yes'].shape[0], df['Account'].nunique())"
    question = f"How many? Format: @n[value]\n\n{describe_files({'m.csv': METER})}"
    result = await run_one_cell({"m.csv": METER}, cell, question, "@n[1]")
    content: Any = result.tool_output.content
    assert not result.tool_output.is_error, content
    assert "I re-ran your cell with df = pd.read_csv('m.csv', sep=';') first" in content
    assert content.rstrip().endswith("1 5")


def test_the_read_call_is_added_only_when_the_file_is_certain() -> None:
    from codeact.agents._readfix import load_fix

    failed = ExecutionResult(error=CellError(type="NameError", message="name 'df' is not defined"))
    both = describe_files({"a.csv": b"id,x\n1,2\n", "b.csv": b"id,y\n1,2\n"})
    assert load_fix(f"Q?\n\n{both}", failed, "print(df['id'].sum())") is None  # (either file)
    fix = load_fix(f"Q?\n\n{both}", failed, "print(df['x'].sum())")
    assert fix is not None and fix.read == "df = pd.read_csv('a.csv')"
    assert load_fix(f"Q?\n\n{both}", failed, "df = make()\nprint(df['x'].sum())") is None
    assert load_fix(f"Q?\n\n{both}", failed, "print(len(df))") is None  # (not used as a table)
    one = describe_files({"a.csv": b"id,x\n1,2\n"})
    assert load_fix(f"Q?\n\n{one}", failed, "df[0] += 1") is None  # (no column named)
    other = ExecutionResult(error=CellError(type="NameError", message="name 'np' is not defined"))
    assert load_fix(f"Q?\n\n{both}", other, "print(df['x'].sum())") is None


EXPORT = (
    b"Helpdesk incident export,,,,\n"
    b"Opened Jan to Jun 2024 (local time),,,,\n"
    b"Ticket,Opened,Category,Time to Resolve,CSAT\n"
    b"T1,2024-01-01 08:02 AM,Email,2h 15m,4\n"
    b"T2,2024-01-01 01:56 PM,Network,135 min,\n"
    b"T3,2024-01-02 11:30 PM,Email,1:05:30,5\n"
    b"T4,2024-01-03 12:10 AM,Email,,2\n"
)
TITLED_NOTE = describe_files({"export.csv": EXPORT})
TITLED = f"How many Email tickets? Format: @n[value]\n\n{TITLED_NOTE}"


def test_title_lines_above_the_header_are_named_with_the_read_call_past_them() -> None:
    assert "4 rows x 5 columns, below 2 title lines (read with pd.read_csv(path, skiprows=2))" in (
        TITLED_NOTE
    )
    assert "'Category': text, 2 distinct values" in TITLED_NOTE
    assert note_read_arguments(TITLED, "export.csv") == "skiprows=2"
    # titles written without the separators: the same table
    bare = EXPORT.replace(b",,,,\n", b"\n")
    assert "below 2 title lines (read with pd.read_csv(path, skiprows=2))" in (
        describe_files({"export.csv": bare})
    )
    # a header on the first line, sparse rows or a two-column table: no title lines
    sparse = b"a,b,c\n1,,\n2,,\nx,y,z\n1,2,3\n4,5,6\n7,8,9\n"  # (a header, then sparse rows)
    for plain in (EXPORT.split(b"\n", 2)[2], sparse, b"x,\nk,v\n1,2\n3,4\n5,6\n"):
        assert "title line" not in describe_files({"plain.csv": plain})


def test_twelve_hour_times_and_durations_written_three_ways_get_their_reading() -> None:
    assert (
        "'Opened': text, all in 2024, dates with 12-hour times (AM/PM) as text: pd.to_datetime("
        "df['Opened'], format='%Y-%m-%d %I:%M %p') (then .dt.hour counts 0 to 23)"
    ) in TITLED_NOTE
    assert (
        "'Time to Resolve': text, 1 missing, durations as text: pd.to_timedelta("
        "df['Time to Resolve']).dt.total_seconds() / 60 gives minutes"
    ) in TITLED_NOTE
    import io

    import pandas as pd

    df = pd.read_csv(io.BytesIO(EXPORT), skiprows=2)  # the note's readings do read them
    hours = pd.to_datetime(df["Opened"], format="%Y-%m-%d %I:%M %p").dt.hour
    assert list(hours) == [8, 13, 23, 0]
    minutes = pd.to_timedelta(df["Time to Resolve"]).dt.total_seconds() / 60
    assert list(minutes[:3]) == [135, 135, 65.5] and minutes.isna().sum() == 1


def test_a_read_from_the_title_line_is_re_run_past_the_titles() -> None:
    code = "import pandas as pd\ndf = pd.read_csv('export.csv')\nprint(df['Category'])"
    fix = separator_fix(TITLED, failed(), code)
    assert fix is not None
    assert "df = pd.read_csv('export.csv', skiprows=2)" in fix.code
    assert "title lines above its header" in fix.note()
    for own in ("skiprows=2", "header=2", "skiprows=[0, 1]"):
        kept = f"df = pd.read_csv('export.csv', {own})"
        assert separator_fix(TITLED, failed(), kept) is None  # (the model chose)


async def test_a_cell_reading_the_titled_export_naively_answers_after_the_re_run() -> None:
    cell = (
        "import pandas as pd\ndf = pd.read_csv('export.csv')\n"
        "print((df['Category'] == 'Email').sum())"
    )
    result = await run_one_cell({"export.csv": EXPORT}, cell, TITLED, answer="@n[3]")
    content: Any = result.tool_output.content
    assert not result.tool_output.is_error, content
    assert "title lines above its header" in content and content.rstrip().endswith("3")


def test_a_cell_that_ran_on_the_title_line_as_header_is_sent_back_with_the_read_call() -> None:
    from codeact.agents.validators import AnswerCandidate, CellRun, ModelRetry, rules_validator

    naive = "import pandas as pd\ndf = pd.read_csv('export.csv')\nprint(df['Unnamed: 2'].value_counts())"
    cell = CellRun(code=naive, stdout="Email    3")
    candidate = AnswerCandidate(text="@n[3]", question=TITLED, cells=(cell,))
    with pytest.raises(ModelRetry) as info:
        rules_validator()(candidate)
    assert "title lines above its header" in str(info.value)
    assert "pd.read_csv('export.csv', skiprows=2)" in str(info.value)
    assert info.value.code is not None and "skiprows=2" in info.value.code
    right = "import pandas as pd\ndf = pd.read_csv('export.csv', header=2)\n"
    right += "print((df['Category'] == 'Email').sum())"
    ok = candidate.replace(cells=(CellRun(code=right, stdout="3"),))
    assert rules_validator()(ok) is None
    naive_counted = right.replace(", header=2", "")  # (the same count, read from the title)
    with pytest.raises(ModelRetry):
        rules_validator()(candidate.replace(cells=(CellRun(code=naive_counted, stdout="3"),)))
    assert rules_validator()(ok) is None
    from codeact.agents._readfix import title_problem

    plain = "import pandas as pd\ndf = pd.read_csv('ledger.csv')\nprint(len(df))"
    assert title_problem(QUESTION, plain) is None  # (a file without title lines)


def test_keys_written_differently_in_two_files_get_the_join() -> None:
    import io

    import pandas as pd

    tickets = b"Ticket,Agent,Score\nT1,AG-007,1\nT2,AG-012,2\nT3,AG-007,3\nT4,AG-030,1\nT5,,2\n"
    agents = b"agent_id,name,level\n7,Ann,1\n12,Bo,2\n30,Cy,3\n41,Di,1\n"
    note = describe_files({"tickets.csv": tickets, "agents.csv": agents})
    hint = (
        "- Keys written differently: 'Agent' of 'tickets.csv' (e.g. 'AG-007') is 'agent_id' of "
        "'agents.csv' (e.g. 7). Join on the number: df['Agent'].str.extract(r'(\\d+)')[0]"
        ".astype(int)"
    )
    assert hint in note and note.count("Keys written differently") == 1  # (not Score/level)
    df = pd.read_csv(io.BytesIO(tickets)).dropna(subset=["Agent"])
    df["agent_id"] = df["Agent"].str.extract(r"(\d+)")[0].astype(int)
    joined = df.merge(pd.read_csv(io.BytesIO(agents)), on="agent_id")
    assert list(joined["name"]) == ["Ann", "Bo", "Ann", "Cy"]
    # codes with two prefixes, or numbers that are not the other file's keys: no hint
    mixed = tickets.replace(b"AG-012", b"XY-012")
    assert "Keys written" not in describe_files({"tickets.csv": mixed, "agents.csv": agents})
    others = (
        agents.replace(b"\n7,", b"\n8,").replace(b"\n12,", b"\n13,").replace(b"\n30,", b"\n31,")
    )
    assert "Keys written" not in describe_files({"tickets.csv": tickets, "agents.csv": others})
    assert "Keys written" not in describe_files({"tickets.csv": tickets})


def test_ordinary_files_with_uneven_first_lines_have_no_title_lines() -> None:
    from codeact.agents._csvtable import title_lines

    ordinary = [
        "a;b;c;d\n1;2\n3;4;5;6\n7;8;9;10\n11;12;13;14\n15;16;17;18\n",  # a short row
        'id;name;note;amt\n1;x;"a; b";3\n2;y;c;4\n3;z;d;5\n4;w;e;6\n5;v;f;7\n',  # a quoted ;
        'id\tn\tnote\tamt\n1\tx\t"l1\nl2"\t3\n2\ty\tc\t4\n3\tz\td\t5\n4\tw\te\t6\n',  # a line break
        '"Report\nQ3 2024",,\nx,y,z\n1,2,3\n4,5,6\n7,8,9\n10,11,12\n',  # a title of two lines
    ]
    for text in ordinary:
        assert title_lines(text) == 0, text
    assert title_lines("Report\nQ3 2024\nid;name;amt\n1;x;2\n2;y;3\n3;z;4\n") == 2


def test_times_of_day_are_not_durations_and_mixed_12_hour_times_read_per_value() -> None:
    times = describe_files(
        {"t.csv": b"train,departure,wait\nA,08:15:00,0:05:00\nB,17:40:30,1:10:00\n"}
    )
    assert "'departure': text, 2 distinct values, e.g." in times  # (a time of day)
    assert "'wait': text, durations as text" in times  # (named for one)
    long = describe_files({"t.csv": b"job,run\nA,08:15:00\nB,26:40:30\nC,1:00:00\n"})
    assert "'run': text, durations as text" in long  # (past 24 hours)
    mixed = (
        b"id,at,n\n1,2024-01-01 08:02 AM,1\n2,2024-01-01 01:56:10PM,2\n3,2024-01-02 11:30 PM,3\n"
    )
    assert "pd.to_datetime(df['at'], format='mixed')" in describe_files({"m.csv": mixed})
    import io

    import pandas as pd

    at = pd.read_csv(io.BytesIO(mixed))["at"]
    assert list(pd.to_datetime(at, format="mixed").dt.hour) == [8, 13, 23]


def test_the_join_hint_needs_linked_names() -> None:
    tick = "ticket,cust,p\n" + "".join(f"INC{1000 + i:07d},{i % 7},low\n" for i in range(1, 60))
    cust = "id,name,city\n" + "".join(f"{i},n{i},c\n" for i in range(1, 2000))
    assert "Keys written" not in describe_files({"t.csv": tick.encode(), "c.csv": cust.encode()})


def test_a_read_with_the_separator_but_not_the_title_lines_gets_the_rest() -> None:
    from codeact.agents._readfix import title_problem

    data = b"Report\nQ3 2024\nid;name;amt\n1;x;2,5\n2;y;3,5\n3;z;4,5\n4;w;1,0\n"
    q = f"How many rows? Format: @n[value]\n\n{describe_files({'r.csv': data})}"
    fix = separator_fix(q, failed(), "df = pd.read_csv('r.csv', sep=';')")
    assert fix is not None and fix.code == "df = pd.read_csv('r.csv', skiprows=2, sep=';')"
    assert "title lines above its header" in fix.note() and "not comma" not in fix.note()
    said = title_problem(q, "df = pd.read_csv('r.csv', sep=';')")
    assert said is not None and "pd.read_csv('r.csv', skiprows=2, sep=';')" in str(said)
    both = separator_fix(q, failed(), "df = pd.read_csv('r.csv')")
    assert both is not None and "not comma-separated" in both.note()
    assert "title lines" in both.note()


POS = (
    b"Order ID,Branch,Subtotal\n"
    b"1,br1,\xe2\x82\xac14.20\n2,br1,22.00 EUR\n3,br2,-\xe2\x82\xac12.50\n4,br2,16.20 EUR\n"
)


async def test_a_comparison_on_amounts_with_currency_codes_gets_the_notes_conversion() -> None:
    # (the generic hint suggested thousands=',' for '€14.20' and '22.00 EUR': the model
    # re-ran the same comparison with it four times)
    # (a frame not read straight from the file: the cell is not re-run, the model is told)
    cell = "import pandas as pd\ndf = pd.DataFrame(pd.read_csv('p.csv'))\nprint(len(df[df['Subtotal'] > 0]))"
    question = f"How many orders? Format: @n[value]\n\n{describe_files({'p.csv': POS})}"
    result = await run_one_cell({"p.csv": POS}, cell, question, "@n[3]")
    content: Any = result.tool_output.content
    assert result.tool_output.is_error
    said = (
        "'Subtotal' holds numbers stored as text (see the files note): read it with df['Subtotal']"
    )
    assert said in content
    assert "thousands=','" not in content
    convert = re.search(r"read it with (df\[.*?\.astype\(float\))", content)
    assert convert is not None
    fixed = cell.replace("df['Subtotal'] > 0", f"{convert.group(1)} > 0")
    again = await run_one_cell({"p.csv": POS}, fixed, question, "@n[3]")
    assert not again.tool_output.is_error, again.tool_output.content
    # read straight from the file: re-run with the note's conversion after the read
    plain = cell.replace("pd.DataFrame(pd.read_csv('p.csv'))", "pd.read_csv('p.csv')")
    fixed_run = await run_one_cell({"p.csv": POS}, plain, question, "@n[3]")
    content = fixed_run.tool_output.content
    assert not fixed_run.tool_output.is_error, content
    assert f"I re-ran your cell with `df['Subtotal'] = {convert.group(1)}`" in content
    assert content.rstrip().endswith(again.tool_output.content.rstrip().splitlines()[-1])


async def test_the_generic_text_number_hint_follows_the_note() -> None:
    # a column the note gives no conversion for: no ',' separator advice the note contradicts
    cell = "import pandas as pd\ndf = pd.read_csv('p.csv')\nprint(df['Branch'].sum() / 2)"
    question = f"Mean? Format: @n[value]\n\n{describe_files({'p.csv': POS})}"
    result = await run_one_cell({"p.csv": POS}, cell, question, "@n[3]")
    content: Any = result.tool_output.content
    assert "A value is text where a number is needed" in content
    assert "the way the files note says for it" in content
    assert "thousands=','" not in content
    # a column the cell made itself (not in the note): how to convert, not "as the note says"
    made = "import pandas as pd\ndf = pd.read_csv('p.csv')\nm = df['Branch'].str.upper()\nprint(m.astype(int).sum())"
    result = await run_one_cell({"p.csv": POS}, made, question, "@n[3]")
    content = result.tool_output.content
    assert "pd.to_numeric(s, errors='coerce')" in content and ".dt.month" in content
    assert "the way the files note says" not in content


async def test_arithmetic_on_a_column_of_labels_is_told_the_column_is_text() -> None:
    data = POS.replace(b"Subtotal\n", b"Subtotal,Code\n").replace(b"\n", b",X\n")
    data = data.replace(b"Subtotal,Code,X\n", b"Subtotal,Code\n")
    data = data.replace(b",X\n", b",LUNCH15\n", 2)
    note = describe_files({"p.csv": data})
    assert "'Code': text" in note
    convert = "df['Subtotal'].str.replace(r'[€,\\s]|EUR', '', regex=True).astype(float)"
    cell = (
        f"import pandas as pd\ndf = pd.read_csv('p.csv')\nnet = {convert} - df['Code']\nprint(net)"
    )
    question = f"Net? Format: @n[value]\n\n{note}"
    result = await run_one_cell({"p.csv": data}, cell, question, "@n[3]")
    content: Any = result.tool_output.content
    assert "TypeError" in content
    assert "'Code' holds text such as 'LUNCH15'" in content
    assert "Leave it out of the calculation" in content
    assert "A value is text where a number is needed" not in content
    # a label column that is only the grouping key is not blamed
    keyed = "import pandas as pd\ndf = pd.read_csv('p.csv')\nprint(df.groupby('Code')['Subtotal'].mean())"
    result = await run_one_cell({"p.csv": data}, keyed, question, "@n[3]")
    content = result.tool_output.content
    assert "holds text such as" not in content  # (the amounts converted as the note says)
    assert "I re-ran your cell with `df['Subtotal'] = df['Subtotal'].str.replace(" in content
    # amounts the note did not recognise as numbers are not labels
    ledger = b"Ref,Amount\nA,(1,234.00)\nB,1.50\nC,2.50\n"
    asked = f"Total? Format: @n[value]\n\n{describe_files({'l.csv': ledger})}"
    sums = "import pandas as pd\ndf = pd.read_csv('l.csv')\nprint((df['Amount'] > 100).sum())"
    result = await run_one_cell({"l.csv": ledger}, sums, asked, "@n[3]")
    content = result.tool_output.content
    assert result.tool_output.is_error and "holds text such as" not in content
    # nor one that only selects the rows
    picked = "print(df[df['Code'] == 'LUNCH15']['Branch'].mean())"
    result = await run_one_cell(
        {"p.csv": data}, keyed.replace(keyed.splitlines()[-1], picked), question, "@n[3]"
    )
    content = result.tool_output.content
    assert result.tool_output.is_error and "holds text such as" not in content
