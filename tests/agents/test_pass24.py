"""Issue 29, twenty-fourth pass: fixes found on fresh22's hard questions (not blind: read
after its runs) and on the blind fresh23 split."""

from __future__ import annotations

import contextlib
import io

import pytest

from codeact.agents._mixedunits import mixed_units_problem
from codeact.agents.code import describe_files

#: Weights in kilograms or tonnes (a decimal comma): A has 1240 and 980 kg, B 2.5 and 1.25 t.
WEIGHTS = ["1240 kg", "2,5 t", "980 kg", "1,25 t"]
DELIVERIES = "Ref,Ort,Menge\n" + "".join(
    f'{i},{"AB"[i % 2]},"{WEIGHTS[i % 4]}"\n' for i in range(40)
)


#: Sailings of three vessels written with and without 'MV' in any case (c.csv, Cars 10-16)
#: and the vessels' own table in title case (v.csv).
SHIPS = ["MV Loch Seil", "LOCH SEIL", "Sound of Sleat", "MV SOUND OF SLEAT", "MV Isle of Mull"]
SHIPS += ["Isle of Mull"]
FLEET = {
    "c.csv": (
        "Ref,Vessel,Cars\n" + "".join(f"{i},{SHIPS[i % 6]},{10 + i % 7}\n" for i in range(60))
    ).encode(),
    "v.csv": b"Vessel,Car Capacity\nLoch Seil,12\nSound of Sleat,20\nIsle of Mull,14\n",
}


def _run(code: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(code, {"io": io, "DATA": DELIVERIES})
    return out.getvalue().strip()


def test_tonnes_asked_in_the_question_win_over_the_kilograms_of_its_conversion() -> None:
    """fresh22_top_village: "the most tonnes of grapes" asked, the constraints say "one tonne
    is 1000 kg" and "'1,240 t' is 1240 kg"; the number in kilograms made the hint bring every
    value to kilograms, the model followed it and answered 401280.00 for 401.28."""
    note = describe_files({"d.csv": DELIVERIES.encode()})
    assert "numbers with units ('kg' and 't') as text" in note
    text = (
        "Question: Growers of which village delivered the most tonnes of grapes, and how many?"
        "\nConstraints: Menge is the weight in kilograms ('1240 kg'), or in tonnes with a "
        "decimal comma ('1,240 t' is 1240 kg). Add up the Menge, in tonnes (one tonne is 1000 "
        f"kg), of each Ort.\nFormat: @village[v] @village_tonnes[t]\n\n{note}"
    )
    cell = (
        "import pandas as pd\ndf = pd.read_csv(io.StringIO(DATA))\n"
        "df['Menge'] = pd.to_numeric(df['Menge'].str.extract(r'([\\d.,]+)')[0]"
        ".str.replace(',', '.'), errors='coerce')\n"
        "print(df.groupby('Ort')['Menge'].sum().round(2).to_dict())"
    )
    problem = mixed_units_problem(text, cell)
    assert problem is not None and problem.code is not None
    assert "value = value.where(unit != 'kg', value / 1000)" in problem, problem
    # ten rows of each weight
    assert _run(problem.code) == str({"A": 22.2, "B": 37.5})
    # "how many tonnes" asks the same
    many = text.replace(
        "Growers of which village delivered the most tonnes of grapes, and how many?",
        "How many tonnes of grapes were delivered?",
    )
    assert "value = value.where(unit != 'kg', value / 1000)" in (
        mixed_units_problem(many, cell) or ""
    )


def test_a_filter_on_another_value_than_the_question_names_is_sent_back() -> None:
    """fresh22_late_riesling: "How many hand-picked Riesling deliveries ...?" and the cell
    kept ``df['Rebsorte'] == 'Müller-Thurgau'`` (0 for 6); no rule said so, since 'riesling'
    was in the code as part of a variable's name and in its comments."""
    from codeact.agents._category import other_value_problem

    kinds = ["Riesling", "RIESLING ", "Müller-Thurgau", "silvaner", "Reisling", "Dornfelder"]
    data = "Ref,Rebsorte,Hand\n" + "".join(
        f"{i},{kinds[i % 6]},{'ja' if i % 3 else 'nein'}\n" for i in range(60)
    )
    note = describe_files({"g.csv": data.encode()})
    assert "the values are" in note and "'riesling'" in note
    text = (
        "Question: How many hand-picked Riesling deliveries were there?\nConstraints: Rebsorte "
        "is the variety (Riesling, Müller-Thurgau, Silvaner or Dornfelder, in any case); "
        "'Reisling' is a misspelling of Riesling. Hand is 'ja' if picked by hand.\n"
        f"Format: @late_riesling[n]\n\n{note}"
    )
    wrong = (
        "import pandas as pd\ndf = pd.read_csv('g.csv')\n# the Riesling deliveries\n"
        "late_riesling = df[(df['Rebsorte'] == 'Müller-Thurgau') & (df['Hand'] == 'ja')]\n"
        "print(len(late_riesling))"
    )
    told = other_value_problem(text, wrong) or ""
    assert "asks about Riesling (a value of 'Rebsorte')" in told, told
    assert "compares 'Rebsorte' with 'müller-thurgau' and never with 'riesling'" in told
    right = wrong.replace(
        "df['Rebsorte'] == 'Müller-Thurgau'",
        ("df['Rebsorte'].str.strip().str.lower().isin(['riesling', 'reisling'])"),
    )
    assert other_value_problem(text, right) is None
    # the misspelling alone names the value too (the question says what it is)
    alias = wrong.replace("'Müller-Thurgau'", "'Reisling'")
    assert other_value_problem(text, alias) is None
    # a value the question does not name in its own sentence: nothing to say
    every = text.replace("hand-picked Riesling deliveries", "hand-picked deliveries")
    assert other_value_problem(every, wrong) is None
    # the code never tests the column at all: the category rule's case, not this one
    assert other_value_problem(text, "df = pd.read_csv('g.csv')\nprint(len(df))") is None
    # "could not be delivered" asks for the failed ones: no value named
    assert (
        other_value_problem(
            text.replace(
                "hand-picked Riesling deliveries were there", "deliveries were not Riesling"
            ),
            wrong,
        )
        is None
    )


def test_the_files_note_reads_two_digit_years_unit_spellings_and_a_leading_word() -> None:
    """fresh23 (read after its untuned run was started on a snapshot): Date '2024-07-14' or
    '14-Jul-24', Fuel Used '1,189 litres' or '456 L', Vessel 'MV Loch Seil' or 'Loch Seil':
    the note said only "text" of the first two and counted each vessel twice."""
    import pandas as pd

    dates = ["2024-07-14", "15-Jul-24", "2024-08-01", "02-Aug-24"]
    fuel = ["1,189 litres", "456 L", "--", "1240 L"]
    ships = ["MV Loch Seil", "Loch Seil", "MV LOCH SEIL", "Sound of Sleat", "MV Sound of Sleat"]
    rows = "".join(f'{i},{dates[i % 4]},"{fuel[i % 4]}",{ships[i % 5]}\n' for i in range(40))
    data = f"Ref,Date,Fuel Used,Vessel\n{rows}"
    note = describe_files({"f.csv": data.encode()})
    (date_line,) = [ln for ln in note.splitlines() if ln.startswith("  - 'Date'")]
    assert "all in 2024, dates as text written two ways" in date_line, date_line
    (fuel_line,) = [ln for ln in note.splitlines() if ln.startswith("  - 'Fuel Used'")]
    assert "numbers with a unit ('L' and 'litres') as text" in fuel_line, fuel_line
    (ship_line,) = [ln for ln in note.splitlines() if ln.startswith("  - 'Vessel'")]
    assert "2 ignoring case, spaces and a leading 'MV'" in ship_line, ship_line
    # each reading, run as the note gives it, reads every value
    df = pd.read_csv(io.StringIO(data))
    date_read = date_line.split("day first: ")[1].split(", e.g.")[0]
    read = eval(date_read, {"pd": pd, "df": df})
    assert read.notna().all() and set(read.dt.year) == {2024}
    assert sorted(set(read.dt.day)) == [1, 2, 14, 15]
    fuel_read = fuel_line.split("convert with ")[1].split(", e.g.")[0]
    litres = eval(fuel_read, {"pd": pd, "df": df})
    assert litres.sum() == 10 * (1189 + 456 + 1240) and litres.isna().sum() == 10
    ship_read = ship_line.split("compare ")[1].split(" == ")[0]
    assert set(eval(ship_read, {"pd": pd, "df": df})) == {"loch seil", "sound of sleat"}
    # a first word some values lack, but not every such value has a bare twin: no prefix
    other = "Ref,Vessel\n" + "".join(
        f"{i},{['MV Alpha', 'Beta', 'MV Gamma'][i % 3]}\n" for i in range(30)
    )
    assert "leading" not in describe_files({"o.csv": other.encode()})


def test_a_comparison_with_one_spelling_is_folded_with_the_leading_word_too() -> None:
    """The case rule reads the note's new fold ('MV Lord of the Sound', 'LORD OF THE SOUND'):
    the cell's comparison as written is re-run on the folded column, the value folded the
    same way (its 'MV ' taken away too)."""
    from codeact.agents._datarules import case_problem

    ships = ["MV Lord of the Sound", "Lord of the Sound", "LORD OF THE SOUND", "MV Loch Seil"]
    ships += ["Loch Seil"]
    data = "Ref,Vessel\n" + "".join(f"{i},{ships[i % 5]}\n" for i in range(40))
    text = f"Question: How many sailings did the Lord of the Sound make?\n\n{describe_files({'s.csv': data.encode()})}"
    cell = "import pandas as pd\ndf = pd.read_csv(io.StringIO(DATA))\nprint((df['Vessel'] == 'MV Lord of the Sound').sum())"
    problem = case_problem(text, cell)
    assert problem is not None and problem.code is not None, problem
    assert "== 'lord of the sound'" in problem.code, problem.code
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(problem.code, {"io": io, "DATA": data})
    assert out.getvalue().strip() == "24"


def test_the_notes_example_comparison_is_the_value_the_question_names() -> None:
    """fresh23_lord_sailings (untuned): "How many sailings did the Lord of the Sound
    complete?" and the model copied the note's example, ``== 'clansman rose'`` (57 for 79).
    The model is shown the note with the asked value in that example; the rules' note is
    unchanged."""
    from codeact.agents._notefocus import focused_note

    ships = ["Clansman Rose", "CLANSMAN ROSE", "Lord of the Sound", "LORD OF THE SOUND "]
    data = "Ref,Vessel\n" + "".join(f"{i},{ships[i % 4]}\n" for i in range(40))
    note = describe_files({"s.csv": data.encode()})
    assert "== 'clansman rose'" in note
    text = f"Question: How many sailings did the Lord of the Sound complete?\nConstraints: Count them.\n\n{note}"
    shown = focused_note(text)
    assert "== 'lord of the sound' (folded, the values are 'clansman rose'" in shown, shown
    assert shown.replace("'lord of the sound' (folded", "'clansman rose' (folded") == text
    # named only in the constraints (a list of what the column holds): the example stays
    listed = text.replace("the Lord of the Sound complete", "each vessel complete").replace(
        "Count them.", "Vessel is Clansman Rose or Lord of the Sound."
    )
    assert focused_note(listed) == listed


@pytest.mark.anyio
async def test_a_whole_number_asked_as_an_integer_is_answered_without_its_zero_fraction() -> None:
    """fresh23_total_passengers (untuned): the sum of a column with gaps prints 179174.0, the
    format says "is an integer", and the answer 179174.0 was marked wrong. The model's
    answer and an answer made of printed values drop a zero fraction; a fraction that is
    not zero stays (a count of 12.5 is a bug to see, not to round away)."""
    from codeact.agents._trace import best_traced_values
    from codeact.agents.validators import CellRun
    from tests.agents.test_pass23 import _run

    asked = (
        "How many stars did the shops get in total?",
        'Add up the ratings. Format: @total_stars[total_value] where "total_value" is an '
        "integer (the total).",
    )
    cell = "import pandas as pd\nshops = pd.read_csv('shops.csv')\nprint(shops['rating'].sum())"
    _results, _llm, output, _events = await _run(
        [f"<execute>\n{cell}\n</execute>", "@total_stars[14.0]"], steps=4, asked=asked
    )
    assert output.response.text.strip() == "@total_stars[14]", output.response.text
    question = f"Question: {asked[0]}\nConstraints: {asked[1]}"
    printed = [CellRun(code=cell, stdout="14.0\n")]
    assert best_traced_values(question, printed) == {"total_stars": "14"}
    halves = [CellRun(code=cell, stdout="12.5\n")]
    assert best_traced_values(question, halves) == {"total_stars": "12.5"}
    as_float = question.replace("is an integer", "is a float")
    assert best_traced_values(as_float, printed) == {"total_stars": "14.0"}


def test_every_value_of_a_column_listed_and_columns_left_empty_are_no_asks() -> None:
    """fresh23_top_route (untuned): "Status is 'Sailed', 'Cancelled - Weather' or 'Cancelled
    - Technical'; a cancelled sailing has 'N/A', '--' or empty in Actual Dep, Passengers,
    Cars, 'Fuel Used' and 'Revenue (£)'" sent a right filter on 'Sailed' back three times:
    for 'Cancelled - Weather' (the filter rule, then the category rule) and for the column
    Actual Dep. A quoted list of every value of a column is what it holds; columns listed
    after "empty in" are what those rows lack."""
    from tests.helpers import rule_note

    statuses = ["Sailed", "Sailed", "Cancelled - Weather", "Sailed", "Cancelled - Technical"]
    rows = "".join(
        f"{i},{['Oban', 'Uig'][i % 2]},{s},"
        + ("N/A,N/A,N/A" if s != "Sailed" else f"10:0{i % 10},{100 + i},{i % 30}")
        + "\n"
        for i, s in ((i, statuses[i % 5]) for i in range(50))
    )
    files = {"c.csv": f"Ref,Route,Status,Actual Dep,Passengers,Cars\n{rows}".encode()}
    said = (
        "Status is 'Sailed', 'Cancelled - Weather' or 'Cancelled - Technical'; a cancelled "
        "sailing has 'N/A' or empty in Actual Dep, Passengers and Cars. Add up the Passengers "
        "of the completed sailings (Status 'Sailed') of each Route."
    )
    from tests.helpers import question_of

    question = question_of("Which route carried the most passengers?", said, files)
    right = (
        "import pandas as pd\ndf = pd.read_csv('c.csv')\ndf = df[df['Status'] == 'Sailed']\n"
        "print(df.groupby('Route')['Passengers'].sum().idxmax())"
    )
    assert rule_note(question, right) is None
    # asked for the weather's cancellations, a filter on 'Sailed' alone is still sent back
    weather = question.replace(
        "Add up the Passengers of the completed sailings (Status 'Sailed') of each Route.",
        "Count the sailings whose Status is 'Cancelled - Weather'.",
    )
    assert "'Cancelled - Weather'" in (rule_note(weather, right) or "")
    # a list that is not every value of the column: each value may be a filter
    some = question.replace(" or 'Cancelled - Technical'", "")
    assert "'Cancelled - Weather'" in (rule_note(some, right) or "")


def test_the_first_row_of_a_sorted_frame_taken_by_label_zero_is_sent_back_and_re_run() -> None:
    """fresh23_top_route (untuned): ``top = ....reset_index()``, ``top =
    top.sort_values(...)``, then ``top['Route'][0]``: the route labelled 0 (first in the
    alphabet), not the busiest, five cells in a row."""
    from codeact.agents._sortlabel import sort_label_problem

    data = "Route,Passengers\n" + "".join(
        f"{r},{n}\n" for r, n in [("Arran", 5), ("Barra", 50), ("Coll", 20), ("Barra", 40)]
    )
    cell = (
        "import pandas as pd\ndf = pd.read_csv(io.StringIO(DATA))\n"
        "top = df.groupby('Route')['Passengers'].sum().reset_index()\n"
        "top = top.sort_values(by='Passengers', ascending=False)\n"
        "print(f\"@route[{top['Route'][0]}] @n[{top.loc[0, 'Passengers']}]\")"
    )
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(cell, {"io": io, "DATA": data})
    assert out.getvalue().strip() == "@route[Arran] @n[5]"  # (the bug: label 0)
    problem = sort_label_problem("", cell)
    assert problem is not None and problem.code is not None
    assert "top['Route'][0] is the row labelled 0" in problem
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(problem.code, {"io": io, "DATA": data})
    assert out.getvalue().strip() == "@route[Barra] @n[90]"
    # by position already, or the labels made new after the sort, or a sort of a grouped
    # Series (its labels are the groups): nothing to say
    right = [
        cell.replace("top['Route'][0]", "top['Route'].iloc[0]").replace(
            "top.loc[0, 'Passengers']", "top['Passengers'].iloc[0]"
        ),
        cell.replace("ascending=False)", "ascending=False).reset_index(drop=True)"),
        cell.replace("ascending=False)", "ascending=False, ignore_index=True)"),
        "s = df.groupby('Route')['Passengers'].sum().sort_values()\nprint(s.index[0], s[0])",
        cell.replace("top = top.sort_values(by='Passengers', ascending=False)\n", ""),
    ]
    for code in right:
        assert sort_label_problem("", code) is None, code
    # a Series of a frame read from a file, sorted: its label 0 is the file's first row
    column = "df = pd.read_csv('x.csv')\ns = df['Passengers'].sort_values()\nprint(s[0])"
    assert "s[0] is the row labelled 0" in str(sort_label_problem("", column))


def test_a_unit_column_with_markers_gets_the_notes_conversion_in_a_failed_cell() -> None:
    """fresh23_mean_fuel_litres (untuned): Fuel Used '1,189 litres', '456 L' or '--'; the
    cell's ``.str.replace(r'[£,\\s]', '').astype(float)`` failed on '1189litres' five times.
    The note's conversion for a unit column with markers (``pd.to_numeric(...,
    errors='coerce')``) now replaces a by-hand one in a failed cell, and a silent one in a
    cell that ran; the note's own conversion is left as it is."""
    from codeact.agents._readfix import unit_fix, unit_problem
    from codeact.executors.base import ExecutionError, ExecutionResult

    fuel = ["1,189 litres", "456 L", "--", "1240 L"]
    data = "Ref,Fuel Used\n" + "".join(f'{i},"{fuel[i % 4]}"\n' for i in range(40))
    text = f"Question: Mean fuel, in litres?\n\n{describe_files({'f.csv': data.encode()})}"
    cell = (
        "import pandas as pd\ndf = pd.read_csv(io.StringIO(DATA))\n"
        "df['Fuel Used'] = df['Fuel Used'].str.replace(r'[£,\\s]', '', regex=True).astype(float)\n"
        "print(round(df['Fuel Used'].mean(), 2))"
    )
    failed = ExecutionResult(
        error=ExecutionError(
            type="ValueError",
            message="could not convert string to float: '1189litres'",
            traceback="",
        )
    )
    fix = unit_fix(text, failed, cell)
    assert fix is not None
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(fix.code, {"io": io, "DATA": data})
    assert out.getvalue().strip() == str(round((1189 + 456 + 1240) / 3, 2))
    silent = cell.replace(
        "df['Fuel Used'].str.replace(r'[£,\\s]', '', regex=True).astype(float)",
        "pd.to_numeric(df['Fuel Used'], errors='coerce')",
    )
    assert unit_problem(text, silent) is not None
    assert unit_problem(text, fix.code) is None


def test_right_cells_of_a_ferry_log_pass_every_rule() -> None:
    """Hand-written right cells for fresh23's questions were sent back for words that
    describe the data: markers "'N/A', '--' or empty in Cars, ...", "'--' or empty if it
    was not recorded", units "followed by ' L' or ' litres'", an example after a comma in
    brackets ("Vessel (its name, without MV, 'Loch Seil')"), a legend of every value
    ("Propulsion ('Diesel' or 'Hybrid')"), "more than 90% of (0.9 times)" compared with
    0.9, and a grouping by a column made from the asked one. Each is still told when it is
    the filter asked for."""
    from tests.helpers import question_of, rule_note

    rows = "".join(
        f"{i},{['MV Loch Seil', 'Loch Seil', 'Sound of Sleat', 'MV Sound of Sleat'][i % 4]},"
        + ('Sailed,12,90,"1,240 L"' if i % 5 else "Cancelled,--,--,--")
        + "\n"
        for i in range(40)
    )
    files = {
        "f.csv": f"Ref,Vessel,Status,Cars,Passengers,Fuel Used\n{rows}".encode(),
        "v.csv": b"Vessel,Car Capacity,Propulsion\nLoch Seil,12,Diesel\nSound of Sleat,20,Hybrid\n",
    }
    said = (
        "Status is 'Sailed' or 'Cancelled'; a cancelled sailing has 'N/A', '--' or empty in "
        "Cars, Passengers and 'Fuel Used'. 'Fuel Used' is in litres, followed by ' L' or ' litres', or "
        "'--' or empty if it was not recorded. v.csv has one row per vessel: Vessel (its name, "
        "without MV, 'Loch Seil'), 'Car Capacity' and Propulsion ('Diesel' or 'Hybrid'). "
    )
    read = (
        "import pandas as pd\ndf = pd.read_csv('f.csv')\nv = pd.read_csv('v.csv')\n"
        "df['ship'] = df['Vessel'].str.strip().str.lower().str.replace(r'^mv\\s+', '', regex=True)\n"
        "v['ship'] = v['Vessel'].str.lower()\nm = df[df['Status'] == 'Sailed'].merge(v, on='ship')\n"
    )
    cars = "m['Cars'] = pd.to_numeric(m['Cars'], errors='coerce')\n"
    full = question_of(
        "How many sailings filled more than 90% of their vessel's car deck?",
        said + "Count the sailings whose Cars is more than 90% of (0.9 times) 'Car Capacity'.",
        files,
    )
    assert (
        rule_note(full, read + cars + "print((m['Cars'] > 0.9 * m['Car Capacity']).sum())") is None
    )
    assert "threshold 90" in (
        rule_note(full, read + cars + "print((m['Cars'] > m['Car Capacity']).sum())") or ""
    )
    most = question_of("Which vessel completed the most sailings?", said, files)
    assert rule_note(most, read + "print(m.groupby('ship').size().idxmax())") is None
    fuel = question_of(
        "Mean fuel of a completed sailing?", said + "Take the mean 'Fuel Used'.", files
    )
    mean = "m['F'] = pd.to_numeric(m['Fuel Used'].str.replace(r'[^\\d.-]', '', regex=True), errors='coerce')\nprint(m['F'].mean())"
    assert rule_note(fuel, read + mean) is None
    # asked for: the quoted value is a filter again
    hybrid = question_of(
        "Mean fuel of a hybrid vessel's sailing?", said + "Only Propulsion 'Hybrid'.", files
    )
    assert "'Hybrid'" in (rule_note(hybrid, read + mean) or "")


def test_join_keys_with_a_leading_word_on_one_side_are_noted_and_folded_in_the_fix() -> None:
    """fresh23's hard questions join the crossings ('MV Loch Seil', 'LOCH SEIL') to
    vessels.csv ('Loch Seil'): the note said "written in other case" and folded the case
    alone, so the 'MV' rows still dropped out of the join; "with or without 'MV ' in front"
    was taken for a filter."""
    from tests.helpers import question_of, rule_note

    files = FLEET
    question = question_of(
        "How many sailings filled their vessel's car deck?",
        "Vessel is written in any case, with or without 'MV ' in front; join each sailing "
        "to the row of its vessel in v.csv. Count the sailings whose Cars is at least its "
        "'Car Capacity'.",
        files,
    )
    assert "Keys written in other case and with a leading 'MV'" in question
    assert ".str.upper().str.replace(r'^MV\\s+', '', regex=True) in 'c.csv'" in question
    cell = (
        "import pandas as pd\ndf = pd.read_csv('c.csv')\nv = pd.read_csv('v.csv')\n"
        "m = df.merge(v, on='Vessel')\nprint((m['Cars'] >= m['Car Capacity']).sum())"
    )
    told = rule_note(question, cell) or ""
    assert "in other case and with a leading 'MV' than 'Vessel'" in told, told
    folded = cell.replace(
        "m = df.merge",
        "df['Vessel'] = df['Vessel'].str.lower()\nv['Vessel'] = v['Vessel'].str.lower()\nm = df.merge",
    )
    assert "with a leading 'MV'" in (rule_note(question, folded) or "")
    cut = folded.replace(
        ".str.lower()\nv[", ".str.lower().str.replace(r'^mv\\s+', '', regex=True)\nv[", 1
    )
    assert rule_note(question, cut) is None
    # the fix's code joins every row, each to its vessel's capacity
    from codeact.agents._joinfix import join_case_problem

    problem = join_case_problem(question, cell)
    assert problem is not None and problem.code is not None
    import os
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        for name, data in files.items():
            with open(os.path.join(d, name), "wb") as f:
                f.write(data)
        here = os.getcwd()
        os.chdir(d)
        try:
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                exec(problem.code, {})
        finally:
            os.chdir(here)
    cars = [10 + i % 7 for i in range(60)]
    want = sum(c >= [12, 12, 20, 20, 14, 14][i % 6] for i, c in enumerate(cars))
    assert out.getvalue().strip() == str(want)


def test_a_skip_copied_to_a_file_whose_header_is_its_first_line_is_taken_out() -> None:
    """fresh23_top_load_factor (untuned): ``pd.read_csv('vessels.csv', skiprows=2)`` beside
    the crossings' own skiprows=2: vessels.csv lost its header and first rows, and every
    column the cell named was a KeyError. A failed cell is re-run without that skip; a cell
    that ran is sent back with it."""
    from codeact.agents._readfix import separator_fix, title_problem
    from codeact.executors.base import ExecutionError, ExecutionResult
    from tests.helpers import question_of

    files = {
        "log.csv": b"Crossings Log,,\nSeason 2024,,\nRef,Vessel,Cars\n"
        + b"".join(b"%d,%s,%d\n" % (i, [b"Loch Seil", b"Isle"][i % 2], i % 9) for i in range(30)),
        "v.csv": b"Vessel,Cars Max\nLoch Seil,12\nIsle,20\nOther,9\nMore,7\n",
    }
    question = question_of("Which vessel is the biggest?", "Read both.", files)
    cell = (
        "import pandas as pd\nlog = pd.read_csv('log.csv', skiprows=2)\n"
        "v = pd.read_csv('v.csv', skiprows=2)\nprint(v.loc[v['Cars Max'].idxmax(), 'Vessel'])"
    )
    failed = ExecutionResult(
        error=ExecutionError(type="KeyError", message="'Cars Max'", traceback="")
    )
    fix = separator_fix(question, failed, cell)
    assert fix is not None
    assert "v = pd.read_csv('v.csv')\n" in fix.code and "'log.csv', skiprows=2)" in fix.code
    assert "has its header on its first line" in fix.note()
    told = title_problem(question, cell)
    assert told is not None and "header on its first line" in told and told.code == fix.code
    # the note's own skip, or a read with header= or names= of its own: left alone
    assert title_problem(question, cell.replace("'v.csv', skiprows=2", "'v.csv'")) is None
    named = cell.replace("skiprows=2)\nprint", "skiprows=2, header=None)\nprint")
    assert title_problem(question, named) is None


def test_beside_a_file_that_skips_rows_the_note_says_the_others_skip_none() -> None:
    """fresh23_top_load_factor and fresh23_hybrid_mean_fuel (untuned) both read vessels.csv
    with the crossings' skiprows=2. Beside a file whose read skips rows, each other table
    of the note says its header is its first line; a note without such a file is as before,
    and a file with its own read arguments (a separator) keeps them."""
    titled = b"Log,,\nSeason,,\nRef,Vessel,Cars\n" + b"".join(
        b"%d,%s,%d\n" % (i, [b"A", b"B"][i % 2], i) for i in range(30)
    )
    plain = b"Vessel,Max\nA,12\nB,20\n"
    semi = b"Vessel;Weight\n" + b"".join(b"%s;%d,5\n" % ([b"A", b"B"][i % 2], i) for i in range(30))
    note = describe_files({"log.csv": titled, "v.csv": plain, "s.csv": semi})
    (line,) = [ln for ln in note.splitlines() if ln.startswith("  2 rows x 2 columns")]
    assert "its header on its first line (no rows to skip: no skiprows= when reading it)" in line
    assert "skiprows=2" in note and "sep=';'" in note
    assert note.count("no rows to skip") == 1  # (not the titled file, not the ';' one)
    alone = describe_files({"v.csv": plain, "s.csv": semi})
    assert "no rows to skip" not in alone


def test_review_findings_of_this_pass() -> None:
    """A helper's review of this pass (ae5671a..5e18ba0): each case below was wrong before
    its fix (a right cell sent back, a wrong one passed, or a fix that crashed)."""

    from codeact.agents._category import other_value_problem
    from codeact.agents._cellforms import prefix_word
    from codeact.agents._colnames import renames_for
    from codeact.agents._groups import groups_by
    from codeact.agents._mixedunits import _asked_unit
    from codeact.agents._readfix import unit_problem
    from codeact.agents._sortlabel import sort_label_problem
    from tests.helpers import question_of, rule_note

    # 1. "On how many days ..." counts days; the 400 minutes of the constraints is the unit
    asked = "Question: On how many days did the crane run longer than the limit?\nConstraints: "
    assert _asked_unit(asked + "The limit is 400 minutes.") == "min"
    assert _asked_unit("Question: How many tonnes of grapes?\nConstraints: 1 t is 1000 kg.") == "t"
    # 2. [0] of a list, an Index or an array made from a sorted frame is its first item
    read = "df = pd.read_csv('r.csv')\n"
    for end in (".tolist()", ".values", ".index", ".unique()"):
        listed = f"{read}refs = df.sort_values('N')['Ref']{end}\nprint(refs[0])"
        assert sort_label_problem("", listed) is None, end
    inplace = f"{read}top = df.sort_values('N')\ntop.reset_index(drop=True, inplace=True)\nprint(top['Ref'][0])"
    assert sort_label_problem("", inplace) is None
    # 3. a conversion of a unit column that takes the letters away itself is no silent one
    fuel = ["1,189 litres", "456 L", "--", "1240 L"]
    data = "Ref,Fuel Used\n" + "".join(f'{i},"{fuel[i % 4]}"\n' for i in range(40))
    text = f"Question: Mean fuel?\n\n{describe_files({'f.csv': data.encode()})}"
    for way in (r"[^0-9.]", r"[^\d.]"):
        own = (
            f"pd.to_numeric(df['Fuel Used'].str.replace(r'{way}', '', regex=True), errors='coerce')"
        )
        assert unit_problem(text, f"df['F'] = {own}") is None, way
    # 4. a value left out ("other than"), a value used as a plain word, a value selected with !=
    kinds = ["Riesling", "Silvaner", "Dornfelder"]
    wine = "Ref,Rebsorte\n" + "".join(f"{i},{kinds[i % 3]}\n" for i in range(30))
    note = describe_files({"w.csv": wine.encode()})
    other = f"Question: How many deliveries were there, other than the Riesling ones?\n\n{note}"
    assert (
        other_value_problem(other, "print(df['Rebsorte'].isin(['Silvaner', 'Dornfelder']).sum())")
        is None
    )
    status = ["Sailed", "Cancelled", "Delayed"]
    log = "Ref,Status\n" + "".join(f"{i},{status[i % 3]}\n" for i in range(30))
    late = f"Question: How many sailings that went ahead were delayed?\n\n{describe_files({'s.csv': log.encode()})}"
    assert other_value_problem(late, "print((df['Status'] != 'Cancelled').sum())") is None
    # 5. 'New York' beside 'York' is no leading word; 'MV Loch Seil' beside 'Loch Seil' is
    assert prefix_word(["New York", "York", "New Delhi", "Delhi", "Leeds"]) == ""
    assert prefix_word(["MV Loch Seil", "Loch Seil", "MV Isle", "Isle"]) == "mv"
    # 6. a value literal is never made a column by the punctuation-blind match
    value = "df[df['Channel'] == 'email']['Order ID']"
    assert "email" not in renames_for(value, ["Order-ID", "Channel", "E-mail"], ["Order ID"])
    # 7. a frame named m is not a column made from Vessel; a column made from it is
    frame = "m = df[df['Vessel'].notna()]\nprint(m.groupby('Route')['N'].mean().idxmax())"
    assert not groups_by(frame, "Vessel")
    made = "df['ship'] = df['Vessel'].str.lower()\nprint(df.groupby('ship').size().idxmax())"
    assert groups_by(made, "Vessel")
    # 9. a case fold without the leading word still misses 'MV Lord of the Sound'
    ships = ["MV Lord of the Sound", "Lord of the Sound", "LORD OF THE SOUND", "MV Loch Seil"]
    ships += ["Loch Seil"]
    fleet = "Ref,Vessel\n" + "".join(f"{i},{ships[i % 5]}\n" for i in range(40))
    q = question_of(
        "How many sailings did the Lord of the Sound make?",
        "Count them.",
        {"s.csv": fleet.encode()},
    )
    lowered = "import pandas as pd\ndf = pd.read_csv('s.csv')\nprint((df['Vessel'].str.lower() == 'lord of the sound').sum())"
    assert "several cases" in (rule_note(q, lowered) or "")
    contained = lowered.replace(
        ".str.lower() == 'lord of the sound')", ".str.contains('lord of the sound', case=False))"
    )
    assert rule_note(q, contained) is None
    # 11. '90 minutes' beside '2 hours' are durations again, not units
    spans = "Ref,V\n" + "".join(
        f"{i},{['90 minutes', '2 hours', '1 hour'][i % 3]}\n" for i in range(30)
    )
    assert "durations as text" in describe_files({"d.csv": spans.encode()})


def test_a_whole_tables_correlation_failing_on_text_is_re_run_on_the_number_columns() -> None:
    """fresh23_stornoway_cars_revenue_corr (untuned): ``print(df.corr())`` on a frame with a
    text column failed on 'HLF-00026'; the cell is re-run with ``numeric_only=True``."""
    from codeact.agents._numericfix import numeric_fix
    from codeact.executors.base import ExecutionError, ExecutionResult

    cell = "import pandas as pd\ndf = pd.read_csv('f.csv')\nprint(df.corr())"
    failed = ExecutionResult(
        error=ExecutionError(
            type="ValueError",
            message="could not convert string to float: 'HLF-00026'",
            traceback='Traceback (most recent call last):\n  File "<cell-1>", line 3, in '
            "<module>\n    print(df.corr())\nValueError: could not convert string to float",
        )
    )
    fix = numeric_fix(failed, cell)
    assert fix is not None and "print(df.corr(numeric_only=True))" in fix.code
    import pandas as pd

    frame = pd.DataFrame({"Ref": ["A", "B", "C"], "Cars": [1, 2, 3], "Rev": [2.0, 4.5, 6.1]})
    out = eval("df.corr(numeric_only=True)", {"df": frame})
    assert round(out.loc["Cars", "Rev"], 2) == round(frame["Cars"].corr(frame["Rev"]), 2)


@pytest.mark.anyio
async def test_a_series_looked_up_by_label_zero_is_re_run_by_position() -> None:
    """fresh23_top_route (tuned run): ``route_passengers[0]`` of a Series indexed by route
    raised ``KeyError: 0`` (pandas 3 reads ``[0]`` as a label) in two cells in a row; the
    cell is re-run with ``.iloc[0]`` on that line, in the real sandbox."""
    from tests.agents.test_pass23 import _run

    shops = b"shop,rating\n" + b"".join(
        b"%s,%d\n" % (s, r) for s, r in [(b"b", 4), (b"a", 5), (b"b", 3)]
    )
    cell = (
        "import pandas as pd\ndf = pd.read_csv('shops.csv')\n"
        "s = df.groupby('shop')['rating'].sum().sort_values(ascending=False)\n"
        "print(s.index[0], s[0])"
    )
    asked = ("Which shop has the most stars, and how many?", "@shop[name] @stars[n]")
    results, _llm, _output, _events = await _run(
        [f"<execute>\n{cell}\n</execute>", *["@shop[b] @stars[7]"] * 4],
        steps=4,
        asked=asked,
        files={"shops.csv": shops},
    )
    content = results[0].tool_output.content
    assert (
        "I re-ran your cell with the item taken by position (print(s.index[0], s.iloc[0]))"
        in content
    )
    assert content.rstrip().endswith("b 7"), content


def test_a_join_folding_one_side_when_both_need_it_is_sent_back() -> None:
    """fresh23_top_load_factor (tuned run): the crossings' keys folded to capitals with the
    'MV' cut, vessels.csv's 'Loch Seil' left as written: no row matched, and the load factor
    came out inf. Both sides are folded when the other file's keys are not in the fold's
    case; one side is enough when they are (an older test: 'D07')."""
    from tests.helpers import question_of, rule_note

    files = FLEET
    question = question_of("How many sailings filled their car deck?", "Join them.", files)
    one = (
        "import pandas as pd\ndf = pd.read_csv('c.csv')\nv = pd.read_csv('v.csv')\n"
        "df['Vessel'] = df['Vessel'].str.strip().str.upper().str.replace(r'^MV\\s+', '', regex=True)\n"
        "m = df.merge(v, on='Vessel')\nprint((m['Cars'] >= m['Car Capacity']).sum())"
    )
    assert "in other case and with a leading 'MV'" in (rule_note(question, one) or "")
    both = one.replace("m = df.merge", "v['Vessel'] = v['Vessel'].str.upper()\nm = df.merge")
    assert rule_note(question, both) is None


def test_a_joined_tables_column_taken_from_the_table_before_the_join_is_sent_back() -> None:
    """fresh23_full_car_decks (tuned run): after the join, ``completed['Cars'] / (0.9 *
    vessels['Car Capacity'])`` lined the sailings up with the vessels by row number (1 for
    42). The joined table's own column is put in its place."""
    from codeact.agents._otherframe import other_frame_problem

    crossings = "Ref,Vessel,Cars\n" + "".join(
        f"{i},{'AB'[i % 2]},{[11, 17][i % 2]}\n" for i in range(10)
    )
    vessels = "Vessel,Cap\nB,20\nA,12\n"
    cell = (
        "import pandas as pd\ndf = pd.read_csv(io.StringIO(C))\nv = pd.read_csv(io.StringIO(V))\n"
        "m = pd.merge(df, v, on='Vessel', how='left')\nsub = m[m['Ref'] >= 0]\n"
        "print((sub['Cars'] > 0.9 * v['Cap']).sum())"
    )
    problem = other_frame_problem("", cell)
    assert problem is not None and problem.code is not None
    assert "v['Cap'] is a column of 'v' before the join" in problem
    assert "print((sub['Cars'] > 0.9 * sub['Cap']).sum())" in problem.code
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(problem.code, {"io": io, "C": crossings, "V": vessels})
    assert out.getvalue().strip() == "5"  # (A: 11 > 10.8, five times; B: 17 < 18)
    # the joined table's own columns, or the table's own line before the join: nothing
    right = cell.replace("0.9 * v['Cap']", "0.9 * sub['Cap']")
    assert other_frame_problem("", right) is None
    before = cell.replace(
        "m = pd.merge", "v['Cap'] = v['Cap'] * 1\nr = df['Cars'] / v['Cap'].max()\nm = pd.merge"
    ).replace("0.9 * v['Cap']", "0.9 * sub['Cap']")
    assert other_frame_problem("", before) is None
