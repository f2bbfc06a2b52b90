"""A column the cell made True/False and then compared with text (``_booltext``): fresh14
(blind) read Renewed with the note's ``.isin([...])`` and then kept ``df['Renewed'] ==
'TRUE'``, counting 0 renewed loans for 19."""

from __future__ import annotations

import contextlib
import io

import pandas as pd

from codeact.agents._booltext import bool_text_problem

READ = (
    "df['Renewed'] = df['Renewed'].astype(str).str.strip().str.upper()"
    ".isin(['TRUE', '1', 'YES', 'Y', 'T'])\n"
)
CELL = READ + "print(len(df[df['Renewed'] == 'TRUE']), len(df[df['Renewed'] != 'Y']))"


def _run(code: str) -> str:
    frame = pd.DataFrame({"Renewed": ["TRUE", "1", "Y", "false", "0", "N", "true"]})
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(code, {"df": frame})
    return out.getvalue().strip()


def test_a_truth_value_compared_with_text_is_sent_back_with_the_comparison_on_truth() -> None:
    assert _run(CELL) == "0 7"  # (no row equals a text: nothing kept, everything dropped)
    problem = bool_text_problem("", CELL)
    assert problem is not None and "compares it with the text 'TRUE'" in problem
    assert problem.code is not None
    assert "df['Renewed'] == True" in problem.code and "df['Renewed'] == False" in problem.code
    assert _run(problem.code) == "4 3"


def test_text_compared_before_the_conversion_or_on_another_column_is_left_alone() -> None:
    before = "print(len(df[df['Renewed'] == 'TRUE']))\n" + READ
    other = READ + "print(len(df[df['Format'] == 'Y']))"
    word = READ + "print(len(df[df['Renewed'] == 'Maybe']))"
    kept_text = "df['Renewed'] = df['Renewed'].str.upper()\nprint((df['Renewed'] == 'TRUE').sum())"
    for code in (before, other, word, kept_text):
        assert bool_text_problem("", code) is None, code
