"""Issue 29, twenty-fourth pass: fixes found on fresh22's hard questions (not blind: read
after its runs) and on the blind fresh23 split."""

from __future__ import annotations

import contextlib
import io

from codeact.agents._mixedunits import mixed_units_problem
from codeact.agents.code import describe_files

#: Weights in kilograms or tonnes (a decimal comma): A has 1240 and 980 kg, B 2.5 and 1.25 t.
WEIGHTS = ["1240 kg", "2,5 t", "980 kg", "1,25 t"]
DELIVERIES = "Ref,Ort,Menge\n" + "".join(
    f'{i},{"AB"[i % 2]},"{WEIGHTS[i % 4]}"\n' for i in range(40)
)


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
