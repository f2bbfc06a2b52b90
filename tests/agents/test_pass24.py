"""Issue 29, twenty-fourth pass: fixes found on fresh22's hard questions (not blind: read
after its runs) and on the blind fresh23 split."""

from __future__ import annotations

import contextlib
import io

from codeact.agents._mixedunits import mixed_units_problem
from codeact.agents.code import describe_files

#: Weights in kilograms or tonnes (a decimal comma): A has 1240 and 980 kg, B 2.5 and 1.25 t.
WEIGHTS = ["1240 kg", "2,5 t", "980 kg", "1,25 t"]
DELIVERIES = "Ref,Ort,Menge\n" + "".join(f'{i},{"AB"[i % 2]},"{WEIGHTS[i % 4]}"\n' for i in range(40))


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
