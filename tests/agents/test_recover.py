"""Recovering instead of looping, with a scripted model and a real restricted executor: the
frame's real columns on a KeyError/AttributeError, numbers stored as text, a new hint for the
same error twice, variables of earlier cells named."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from codeact import CodeActAgent, RestrictedExecutor
from codeact.agents._resample import loop_start
from codeact.agents._unusedfix import failing_line
from codeact.agents.code import describe_files
from codeact.events import AgentStream, Event, ToolCallResult
from codeact.llms import Reply, ScriptedLLM
from tests.helpers import collect

pytestmark = [pytest.mark.anyio, pytest.mark.filterwarnings("ignore::UserWarning")]

CSV = b'DATE, WINDSPEED,POPULATION\n2022-01-01,3.5,"5,350,380"\n2022-01-02,4.5,"1,200"\n'
READ = "<execute>\nimport pandas as pd\ndf = pd.read_csv('w.csv')\nprint(len(df))\n</execute>"


def executor() -> RestrictedExecutor:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return RestrictedExecutor(allowed_modules=["pandas", "numpy"])


async def run(replies: list[Any], **options: Any) -> tuple[list[str], ScriptedLLM]:
    llm = ScriptedLLM(replies, function_calling=False)
    ex = executor()
    agent = CodeActAgent(llm=llm, executor=ex, **options)
    async with ex:
        await ex.upload("w.csv", CSV)
        events: list[Event] = await collect(agent.run("Mean wind speed?"))
    outputs = [
        e.tool_output.content
        for e in events
        if isinstance(e, ToolCallResult) and e.tool_name == "execute"
    ]
    return outputs, llm


async def test_a_missing_column_shows_the_real_columns_and_the_one_meant() -> None:
    outputs, _ = await run(
        [
            READ,
            "<execute>\nprint(df['WIND_SPEEDS'].mean())\n</execute>",
            "<execute>\ndf.WINDSPEED\n</execute>",
            "done",
        ]
    )
    key_error, attribute_error = outputs[1], outputs[2]
    assert "KeyError: 'WIND_SPEEDS'" in key_error
    assert "df has the columns (name: dtype) 'DATE': " in key_error
    assert "' WINDSPEED': float64, 'POPULATION': " in key_error
    assert "Did you mean ' WINDSPEED'?" in key_error
    assert "The column is ' WINDSPEED' (mind the spaces)" in attribute_error
    assert "df.columns = df.columns.str.strip()" in attribute_error


async def test_a_list_of_missing_columns_is_read_from_the_key_error() -> None:
    outputs, _ = await run([READ, "<execute>\ndf.dropna(subset=['WINDSPEED'])\n</execute>", "done"])
    assert "I re-ran your cell with that name (' WINDSPEED') in place of 'WINDSPEED'" in outputs[1]
    outputs, _ = await run([READ, "<execute>\ndf[['DATE', 'wind']]\n</execute>", "done"])
    assert "df has the columns (name: dtype) 'DATE'" in outputs[1]


async def test_numbers_stored_as_text_get_a_reading_hint() -> None:
    outputs, _ = await run(
        [READ, "<execute>\nprint(df['POPULATION'].astype(float).sum())\n</execute>", "done"]
    )
    assert "thousands=','" in outputs[1]


async def test_the_same_error_twice_changes_the_hint_and_names_kept_variables() -> None:
    bad = "<execute>\ntotal = df['wind'].sum()\n</execute>"
    other = "<execute>\ntotal = df['wind'].mean()\n</execute>"  # (a different cell)
    outputs, _ = await run([READ, bad, other, "done"])
    assert "same error as before" not in outputs[1]
    assert "This is the same error as before (KeyError: 'wind')" in outputs[2]
    assert "Variables from earlier cells still exist (df): reuse them." in outputs[2]


async def test_hints_can_be_turned_off() -> None:
    outputs, _ = await run(
        [READ, "<execute>\nprint(df['WINDSPEED'].mean())\n</execute>", "done"], recovery_hints=False
    )
    assert "Hint:" not in outputs[1]


def test_the_failing_line_is_read_from_the_cell_traceback() -> None:
    tb = "Traceback (most recent call last):\n  File \"<cell-3>\", line 2, in <module>\n    x = df['a']\nKeyError: 'a'"
    assert failing_line(tb) == "x = df['a']"
    assert failing_line("no traceback") == ""


async def test_a_reduction_over_numbers_stored_as_text_gets_the_reading_hint() -> None:
    outputs, _ = await run([READ, "<execute>\nprint(df['POPULATION'].mean())\n</execute>", "done"])
    assert "TypeError" in outputs[1]
    assert "A value is text where a number is needed" in outputs[1]
    assert "thousands=','" in outputs[1]


async def test_a_successful_cell_run_again_unchanged_gets_a_note() -> None:
    show = "<execute>\nhr = df[df['DATE'] > '2022-01-01']\nprint(hr)\n</execute>"
    outputs, _ = await run([READ, show, show.replace("print(hr)", "print(hr)  "), "done"])
    assert "repeats an earlier one" not in outputs[1]
    assert "Note: this cell repeats an earlier one" in outputs[2]
    assert "(its variables hr still exist)" in outputs[2]
    outputs, _ = await run([READ, show, show, "done"], recovery_hints=False)
    assert "repeats an earlier one" not in outputs[2]


async def test_a_repeated_filter_cell_is_told_what_to_compute_on_its_rows() -> None:
    """The 1.5B model printed the selected rows again and again; the note names the value
    to compute on them, from the column and aggregate the question names."""
    from codeact.agents.code import describe_files

    data = b"name,department,salary\n" + b"".join(
        f"e{i},{d},{50 + i}\n".encode() for i, d in enumerate(["HR", "Sales", "HR", "IT"])
    )
    question = "What is the standard deviation of salaries in HR? Answer as @std[value].\n\n"
    question += describe_files({"e.csv": data})
    show = (
        "<execute>\nimport pandas as pd\ndf = pd.read_csv('e.csv')\n"
        "hr = df[df['department'] == 'HR']\nprint(hr)\n</execute>"
    )
    llm = ScriptedLLM([show, show, "done"], function_calling=False)
    ex = executor()
    async with ex:
        await ex.upload("e.csv", data)
        events = await collect(CodeActAgent(llm=llm, executor=ex).run(question))
    outputs = [e.tool_output.content for e in events if isinstance(e, ToolCallResult)]
    assert "for example print(hr['salary'].std())" in outputs[1]
    assert "for example" not in outputs[0]
    # a question with a threshold as well: no example that would skip it
    threshold = question.replace("in HR?", "in HR older than 40?")
    llm = ScriptedLLM([show, show, "done"], function_calling=False)
    async with executor() as ex:
        await ex.upload("e.csv", data)
        events = await collect(CodeActAgent(llm=llm, executor=ex).run(threshold))
    outputs = [e.tool_output.content for e in events if isinstance(e, ToolCallResult)]
    assert "repeats an earlier one" in outputs[1] and "for example" not in outputs[1]


async def test_money_stored_as_text_gets_a_conversion_that_works() -> None:
    cell = "s = pd.Series(['$1,234.50', '$3'])\nprint(s.astype(float).sum())"
    outputs, _ = await run([READ, f"<execute>\n{cell}\n</execute>", "done"])
    assert "could not convert string to float" in outputs[1]
    hint = outputs[1].split("e.g. df['col'] = ", 1)[1].split(", then compute", 1)[0]
    assert hint == "df['col'].str.replace(r'[\\$,\\s]', '', regex=True).astype(float)"
    import pandas as pd

    converted = eval(hint, {"df": pd.DataFrame({"col": ["$1,234.50", "$3"]})})
    assert converted.tolist() == [1234.5, 3.0]


async def test_corr_without_the_other_series_gets_the_call_on_the_named_columns() -> None:
    """From a fresh2 transcript: the model multiplied the two columns, then called .corr()."""
    llm = ScriptedLLM(
        [
            "<execute>\nimport pandas as pd\ndf = pd.read_csv('hr.csv')\n"
            "pearson_corr = (df['Salary'] * df['bonus']).corr()\nprint(pearson_corr)\n</execute>",
            "done",
        ],
        function_calling=False,
    )
    ex = executor()
    agent = CodeActAgent(llm=llm, executor=ex)
    data = b"Salary,bonus\n50000,5.5\n61000,7.25\n58000,6.0\n"
    question = "What is the Pearson correlation between salary and bonus?\n\n"
    async with ex:
        await ex.upload("hr.csv", data)
        events: list[Event] = await collect(
            agent.run(question + describe_files({"hr.csv": data}))  # (as `codeact run` asks)
        )
    out = next(e.tool_output.content for e in events if isinstance(e, ToolCallResult))
    assert "missing 1 required positional argument: 'other'" in out
    assert "e.g. r = df['Salary'].corr(df['bonus'])" in out


async def test_a_per_group_condition_used_on_rows_gets_transform() -> None:
    """The 1.5B model's cell (fresh4 transcript): a per-group count compared, then used to
    select rows; the hint's transform selects the rows of patients seen at least twice."""
    import pandas as pd

    from codeact._execution import CellError, ExecutionResult
    from codeact.agents._callhints import group_mask_hint

    visits = pd.DataFrame({"pid": ["a", "a", "b", "c", "c", "c"], "day": [1, 5, 2, 3, 4, 9]})
    code = "two = visits.groupby('pid')['day'].count() >= 2\nprint(visits[two]['day'].sum())"
    try:
        exec(code, {"visits": visits})
    except Exception as exc:  # pandas' own error, whatever its class
        error = CellError(type=type(exc).__name__, message=str(exc))
    hint = group_mask_hint(ExecutionResult(error=error), code)
    assert "keep = visits.groupby('pid')['day'].transform('count') >= 2" in hint
    space: dict[str, Any] = {"visits": visits}
    exec(hint.split("with transform: ")[1].rstrip("."), space)
    assert space["rows"]["day"].sum() == 1 + 5 + 3 + 4 + 9
    assert (
        group_mask_hint(ExecutionResult(error=CellError(type="KeyError", message="x")), code) == ""
    )


BAD = "<execute>\ntotal = df['wind'].sum()\nprint(total)\n</execute>"
FIXED = "<execute>\nprint(df[' WINDSPEED'].sum())\n</execute>"


async def test_a_repeated_failed_cell_is_not_run_and_the_model_is_asked_again_sampled() -> None:
    outputs, llm = await run([READ, BAD, BAD, FIXED, "@w[8]"])
    assert len(outputs) == 3, outputs  # READ, BAD, FIXED: the repeat of BAD never ran
    assert "8.0" in outputs[2]
    told = llm.requests[3].messages[-1].text
    assert "That code already ran and failed with: KeyError: 'wind'" in told
    assert "It was not run again" in told
    samplings = [r.sampling for r in llm.requests]
    assert samplings == [{}, {}, {}, {"temperature": 0.7}, {}]  # only the second try


async def test_a_failed_cell_is_run_again_after_a_cell_succeeded_since() -> None:
    early = "<execute>\nprint(len(df))\n</execute>"  # (fails: df is not read yet)
    outputs, llm = await run([early, READ, early, "@n[2]"])
    assert len(outputs) == 3 and "2" in outputs[2]  # it works now: it ran
    assert all(r.sampling == {} for r in llm.requests)


async def test_asking_again_stops_after_three_tries_and_the_block_runs() -> None:
    outputs, llm = await run([READ, BAD, BAD, BAD, BAD, BAD, "done"], max_iterations=10)
    assert len(outputs) == 3  # READ, BAD, then BAD run again after three refused repeats
    assert [r.sampling for r in llm.requests].count({"temperature": 0.7}) == 3
    assert "same error as before" in outputs[2]


async def test_no_second_try_without_recovery_hints() -> None:
    outputs, llm = await run([READ, BAD, BAD, "done"], recovery_hints=False)
    assert len(outputs) == 3
    assert all(r.sampling == {} for r in llm.requests)


async def test_only_the_cell_that_just_failed_counts_and_only_when_every_block_repeats_it() -> None:
    early = "<execute>\nprint(len(df))\n</execute>"  # (fails: df is not read yet)
    read_bad = (
        "<execute>\nimport pandas as pd\ndf = pd.read_csv('w.csv')\nprint(df['nope'])\n</execute>"
    )
    # an older failed cell, after another failed cell that read df: it works now, so it runs
    outputs, llm = await run([early, read_bad, early, "@n[2]"])
    assert len(outputs) == 3 and outputs[2].strip().startswith("2")
    # a reply whose first block fixes what the failed cell lacked: it runs
    both = "<execute>\nimport pandas as pd\ndf = pd.read_csv('w.csv')\n</execute>\n" + early
    outputs, llm = await run([early, both, "@n[2]"])
    assert len(outputs) == 3 and outputs[2].strip().startswith("2")
    assert all(r.sampling == {} for r in llm.requests)


def test_a_loop_is_found_where_its_first_lap_ends() -> None:
    head = "<execute>\nimport pandas as pd\n"
    lap = "df['s'] = df['s'].astype(float)\ndf['s'] = df['s'].round(2)\n"
    assert loop_start(head + lap * 3) is None  # (three laps: not yet)
    cut = loop_start(head + lap * 4)
    assert cut is not None and (head + lap * 4)[:cut] == head + lap
    assert loop_start(head + lap * 4 + "df['s'") == cut  # (an unfinished line is not counted)
    assert loop_start("\n" * 40) is None  # (blank lines are not a loop)
    assert loop_start("print(1)\nprint(2)\nprint(3)\nprint(4)\n") is None
    # fresh9: nine filters with their comments, over and over (27 lines a lap)
    cols = ["Subtotal", "Tip", "Discount Code", "Delivery Minutes", "Rating", "Items", "Channel"]
    long_lap = "".join(
        f"# Filter out non-numeric {c} values\ndf = df[df['{c}'].str.isnumeric()]\n\n"
        for c in [*cols, "Placed", "Order ID"]
    )
    assert loop_start(head + long_lap + long_lap[:-40]) is None
    cut = loop_start(head + long_lap * 2)
    assert cut is not None and (head + long_lap * 2)[:cut] == head + long_lap
    # a short block written three times is a loop; a long one written once again is not yet
    # unless it has four lines of code
    three = "x = 1\ny = 2\nz = 3\n"
    assert loop_start(head + three * 2) is None and loop_start(head + three * 3) is not None
    talk = "# a\n# b\n# c\n# d\n# e\nprint(1)\n"
    assert loop_start(head + talk * 2) is None


def test_lines_replacing_a_text_by_itself_are_cut_where_they_start() -> None:
    """fresh14 (blind): ``df['Genre'].str.replace('children', 'children')`` for every genre,
    then every weekday, twice over, to the token limit (no lap repeated four times)."""
    head = "<execute>\nimport pandas as pd\ndf['Genre'] = df['Genre'].str.lower()\n"
    same = [f"df['Genre'] = df['Genre'].str.replace('{g}', '{g}')\n" for g in ("a", "b", "c")]
    assert loop_start(head + "".join(same[:2])) is None  # (two: not yet)
    cut = loop_start(head + "".join(same))
    assert cut is not None and (head + "".join(same))[:cut] == head
    assert loop_start("".join(same)) == 0  # (nothing before them: nothing kept)
    # a replace of one text by another, or by itself with other arguments between: not cut
    other = [f"df['G'] = df['G'].str.replace('{g}', '{g.upper()}')\n" for g in "abcd"]
    assert loop_start(head + "".join(other)) is None
    apart = same[0] + "print(1)\n" + same[1] + "print(2)\n" + same[2]
    assert loop_start(head + apart) is None


def test_lines_setting_one_column_from_itself_over_and_over_are_cut_where_they_start() -> None:
    """fresh16 (blind): ``df['Payment'] = df['Payment'].replace('cash', 'card')`` for every
    payment method and then for yes/no words, twelve lines in a row, each undoing the last;
    fresh15: ``df['Check-Out '] = df['Check-Out '] / df[...]`` for every column."""
    head = "<execute>\nimport pandas as pd\ndf = pd.read_csv('s.csv')\n"
    words = ["cash", "credit card", "invoice", "voucher", "on account", "TRUE", "YES", "Y"]
    same = [f"df['Payment'] = df['Payment'].replace({w!r}, 'card')\n" for w in words]
    assert loop_start(head + "".join(same[:6])) is None  # (six: not yet)
    cut = loop_start(head + "".join(same[:7]))
    assert cut is not None and (head + "".join(same[:7]))[:cut] == head
    divided = [f'df["C "] = df["C "] / df[{c!r}]\n' for c in "ABCDEFG"]
    assert loop_start(head + "".join(divided)) is not None
    # a column cleaned in a few steps, other targets between, or names merely alike: not cut
    clean = [
        "df['T'] = df['T'].str.strip()\n",
        "df['T'] = df['T'].str.replace('£', '')\n",
        "df['T'] = df['T'].str.replace(',', '')\n",
        "df['T'] = df['T'].astype(float)\n",
    ]
    assert loop_start(head + "".join(clean)) is None
    # review: seven different steps cleaning one column are not a loop either
    seven = [
        "df['T'] = df['T'].astype(str)\n",
        "df['T'] = df['T'].str.strip()\n",
        "df['T'] = df['T'].str.replace('£', '')\n",
        "df['T'] = df['T'].str.replace('€', '')\n",
        "df['T'] = df['T'].str.replace('EUR', '', regex=False)\n",
        "df['T'] = df['T'].str.lower()\n",
        "df['T'] = df['T'].astype(float)\n",
    ]
    assert loop_start(head + "".join(seven)) is None
    mixed = "".join(same[:4]) + "x = 1\n" + "".join(same[4:8])
    assert loop_start(head + mixed) is None
    alike = "".join(f"total{i} = total + {i}\n" for i in range(8))
    assert loop_start(head + alike) is None


async def test_a_reply_looping_on_the_same_lines_is_cut_and_asked_again_sampled() -> None:
    lap = "df['x'] = df[' WINDSPEED'].astype(float)\ndf['x'] = df['x'].round(2)\n"
    looping_reply = Reply(
        chunks=["<execute>\n", *[line + "\n" for line in lap.split("\n")[:-1]] * 200]
    )
    llm = ScriptedLLM([READ, looping_reply, FIXED, "@w[8]"], function_calling=False)
    ex = executor()
    agent = CodeActAgent(llm=llm, executor=ex)
    async with ex:
        await ex.upload("w.csv", CSV)
        events = await collect(agent.run("Mean wind speed?"))
    streamed = "".join(e.delta for e in events if isinstance(e, AgentStream))
    assert streamed.count(lap) < 10  # (cut after four laps, not 200)
    again = llm.requests[2]
    assert again.sampling == {"temperature": 0.7}
    assert again.messages[-1].text.startswith("Your reply repeated the same lines")
    kept = again.messages[-2].text  # (the reply as the model sees it: one lap)
    assert kept.count(lap) == 1
    assert [r.sampling for r in llm.requests] == [{}, {}, {"temperature": 0.7}, {}]


async def test_a_missing_column_compared_with_a_column_name_is_the_wide_layout() -> None:
    wide = b"Tariff,Jan,Feb\nFIX,31.5,30.1\nEV,22.0,21.5\n"
    cell = "import pandas as pd\nt = pd.read_csv('t.csv')\nprint(len(t[(t['Jan'] > 30) & (t['{}'] == 'Jan')]))"
    question = f"How many tariffs cost more than 30 in January? @n[value]\n\n{describe_files({'t.csv': wide})}"
    said = []
    for missing in ("Month", "Tariff "):  # (a column that is not there, then one that is)
        llm = ScriptedLLM(
            [f"<execute>\n{cell.format(missing)}\n</execute>", "@n[1]"], function_calling=False
        )
        ex = executor()
        async with ex:
            await ex.upload("t.csv", wide)
            events: list[Event] = await collect(CodeActAgent(llm=llm, executor=ex).run(question))
        said += [e.tool_output.content for e in events if isinstance(e, ToolCallResult)]
    assert "There is no column 'Month': 'Jan' is itself a column" in said[0]
    assert "Use t['Jan'] for its values and drop the condition on 'Month'" in said[0]
    assert "is itself a column" not in said[1]


async def test_a_date_method_on_a_grouped_month_number_says_the_label_is_the_number() -> None:
    """From the held-out `dab_month_rain` run: grouped by ``.dt.month``, then the label was
    re-formatted with ``.strftime('%m')`` (a numpy int) three cells in a row."""
    cell = (
        "<execute>\nimport pandas as pd\ndf = pd.read_csv('w.csv')\n"
        "m = df.groupby(pd.to_datetime(df['DATE']).dt.month)[' WINDSPEED'].sum().reset_index()\n"
        "best = m.loc[m[' WINDSPEED'].idxmax(), 'DATE'].strftime('%m')\nprint(best)\n</execute>"
    )
    text = "<execute>\nday = '2022-01-01'\nprint(day.month)\n</execute>"
    outputs, _ = await run([cell, text, "done"])
    assert "has no attribute 'strftime'" in outputs[0]
    assert "The value is a number (numpy.int32), not a date" in outputs[0]
    assert "Use the number as it is (e.g. int(value)) instead of .strftime" in outputs[0]
    assert "The value is text, not a date, so it has no .month" in outputs[1]
    assert "pd.to_datetime(value).month" in outputs[1]


async def test_a_merge_on_a_key_only_the_left_frame_has_shows_the_right_frames_columns() -> None:
    """fresh11 (blind): ``visits.merge(members, on='Member Card')`` raised KeyError and the
    hint listed the visits' columns and said "The column is 'Member Card'" three times."""
    llm = ScriptedLLM(
        [
            "<execute>\nimport pandas as pd\nvisits = pd.read_csv('w.csv')\n"
            "members = pd.DataFrame({'Member No': [1], 'Club': ['RIV']})\n"
            "visits = visits.merge(members, on='DATE', how='left')\n</execute>",
            "done",
        ],
        function_calling=False,
    )
    ex = executor()
    async with ex:
        await ex.upload("w.csv", CSV)
        events: list[Event] = await collect(CodeActAgent(llm=llm, executor=ex).run("Join?"))
    out = next(e.tool_output.content for e in events if isinstance(e, ToolCallResult))
    assert "KeyError: 'DATE'" in out
    assert "members has the columns (name: dtype) 'Member No': int64, 'Club': " in out
    assert "name each side's key: .merge(members, left_on=..., right_on=...)" in out
    assert "visits has the columns" not in out and "The column is 'DATE'" not in out


async def test_a_column_of_the_other_file_asked_of_this_one_says_join_it_first() -> None:
    """fresh11 (blind): ``visits[visits['Plan'] == 'Off-Peak']`` raised KeyError; Plan is a
    column of members.csv, which the cell never joined."""
    visits = b"Visit,Member Card\n" + b"".join(b"%d,RIV-%04d\n" % (i, i % 4) for i in range(8))
    members = b"Member No,Club,Plan\n0,RIV,Off-Peak\n1,RIV,Standard\n2,RIV,Student\n"
    files = {"v.csv": visits, "m.csv": members}
    read = "import pandas as pd\nv = pd.read_csv('v.csv')\n"
    llm = ScriptedLLM(
        [
            f"<execute>\n{read}print(len(v[v['Plan'] == 'Off-Peak']))\n</execute>",
            "<execute>\nj = v.assign(Plan_x=1)\nprint(j['Plan'])\n</execute>",
            "done",
        ],
        function_calling=False,
    )
    ex = executor()
    async with ex:
        for name, data in files.items():
            await ex.upload(name, data)
        events: list[Event] = await collect(
            CodeActAgent(llm=llm, executor=ex).run("How many?\n\n" + describe_files(files))
        )
    out = [e.tool_output.content for e in events if isinstance(e, ToolCallResult)]
    assert "'Plan' is a column of 'm.csv': join that file to this frame first" in out[0]
    assert "is a column of" not in out[1]  # (joined already: Plan_x)


async def test_a_cell_using_pd_without_importing_it_is_re_run_with_the_import() -> None:
    """fresh11 (blind): the first cell began with ``df = pd.read_csv(...)``, no import."""
    cell = "<execute>\ndf = pd.read_csv('w.csv')\nprint(np.round(df[' WINDSPEED'].mean(), 1))\n</execute>"
    outputs, _ = await run([cell, "done"])
    assert "I re-ran your cell with `import pandas as pd; import numpy as np` first" in outputs[0]
    assert outputs[0].rstrip().endswith("4.0")


async def test_a_cell_whose_earlier_lines_change_data_is_not_re_run_for_an_import() -> None:
    """Review: re-running the whole cell would double the column a second time."""
    double = (
        "<execute>\ndf[' WINDSPEED'] = df[' WINDSPEED'] * 2\n"
        "print(np.round(df[' WINDSPEED'].mean(), 1))\n</execute>"
    )
    outputs, _ = await run([READ, double, "done"])
    assert "NameError: name 'np' is not defined" in outputs[1]
    assert "I re-ran your cell" not in outputs[1]


async def test_the_extreme_of_an_empty_table_says_the_merge_or_the_filter_kept_no_rows() -> None:
    """fresh12 (blind): a merge of postcodes renamed to District matched no row, and
    ``idxmax`` of the empty groups failed three cells with no hint."""
    merged = (
        "<execute>\nimport pandas as pd\ndf = pd.read_csv('w.csv')\n"
        "other = pd.DataFrame({'DATE': ['2099-01-01'], 'Area': ['x']})\n"
        "m = df.merge(other, on='DATE')\ns = m.groupby('Area')[' WINDSPEED'].mean()\n"
        "print(s.idxmax())\n</execute>"
    )
    (out, *_), _ = await run([merged, "done"])
    assert "attempt to get argmax of an empty sequence" in out
    assert "the merge matched no keys" in out
    filtered = merged.replace("m = df.merge(other, on='DATE')", "m = df[df['DATE'] == 'x']")
    (out, *_), _ = await run([filtered.replace("'Area'", "'DATE'"), "done"])
    assert "a filter kept none" in out and "merge" not in out.split("Hint:")[-1]


async def test_a_column_method_on_one_value_inside_apply_says_work_on_the_column() -> None:
    """fresh12 (tuned): ``.str.extract(...).apply(lambda x: x[0].replace(',', '')
    .astype(float))`` failed three cells with "'str' object has no attribute 'astype'"."""
    cell = (
        "<execute>\nimport pandas as pd\ndf = pd.read_csv('w.csv')\n"
        "v = df['POPULATION'].apply(lambda x: x.replace(',', '').astype(float))\n"
        "print(v.sum())\n</execute>"
    )
    (out, *_), _ = await run([cell, "done"])
    assert "'str' object has no attribute 'astype'" in out
    assert "Inside .apply(lambda x: ...) x is one value (a str), which has no .astype()" in out
    plain = cell.replace(".apply(lambda x: x.replace(',', '').astype(float))", ".astype(float)")
    (out, *_), _ = await run([plain, "done"])
    assert "Inside .apply" not in out
