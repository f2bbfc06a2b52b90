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


def test_a_folded_column_compared_with_unfolded_text_is_sent_back_folded() -> None:
    """fresh15 (blind): ``df['Status'] = df['Status'].str.strip().str.lower().str.replace(
    r'(?<=[a-z])[\\s_-]+(?=[a-z])', '', regex=True)`` then ``df['Status'] == 'Checked out'``:
    0 guests for 184."""
    from codeact.agents._booltext import folded_text_problem

    fold = ".str.strip().str.lower().str.replace(r'(?<=[a-z])[\\s_-]+(?=[a-z])', '', regex=True)"
    cell = f"df['S'] = df['S']{fold}\nprint((df['S'] == 'Checked out').sum(), (df['S'] != 'No-show').sum())"
    frame = pd.DataFrame(
        {"S": ["Checked out", "checked-out", " CHECKED OUT", "No show", "Cancelled"]}
    )

    def run(code: str) -> str:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(code, {"df": frame.copy()})
        return out.getvalue().strip()

    assert run(cell) == "0 5"
    problem = folded_text_problem("", cell)
    assert problem is not None and "'checkedout'" in problem and problem.code is not None
    assert "== 'checkedout'" in problem.code and "!= 'noshow'" in problem.code
    assert run(problem.code) == "3 4"
    # compared folded already, or a column folded only in case with a lower-case text
    assert (
        folded_text_problem(
            "", cell.replace("'Checked out'", "'checkedout'").replace("'No-show'", "'noshow'")
        )
        is None
    )
    lowered = "df['S'] = df['S'].str.lower()\nprint((df['S'] == 'no show').sum())"
    assert folded_text_problem("", lowered) is None


def test_yes_no_made_by_np_where_and_a_fold_keeping_spaces_are_left_alone() -> None:
    """Review: ``np.where(...isin([...]), 'Yes', 'No')`` then ``== 'Yes'`` was read as a
    column made True/False; a fold replacing spaces and hyphens by one space (``'checked
    out'`` stays right) was read as taking them out; a line of forty replaces ending in a
    comment took the fold's pattern exponential time."""
    from codeact.agents._booltext import folded_text_problem

    made = (
        "df['Renewed'] = np.where(df['Renewed'].str.upper().isin(['TRUE', 'Y']), 'Yes', 'No')\n"
        "print((df['Renewed'] == 'Yes').sum())"
    )
    assert bool_text_problem("", made) is None
    spaced = (
        "df['S'] = df['S'].str.strip().str.lower().str.replace(r'[\\s_-]+', ' ', regex=True)\n"
        "print((df['S'] == 'checked out').sum())"
    )
    assert folded_text_problem("", spaced) is None
    long = "df['S'] = df['S']" + "".join(f".str.replace('a{i}', 'b{i}')" for i in range(40))
    assert folded_text_problem("", long + "  # the letters\nprint(df['S'] == 'A')") is None
