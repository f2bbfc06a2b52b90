"""Membership tests on text written several ways (``_isinfold``): fresh17 (tuned run) counted
Volkswagen jobs with ``df['make'].isin(['vw', 'volkswagen'])`` on the text as written (27 of
132); the case and alias rules now give that test on the folded text as runnable code."""

from __future__ import annotations

from codeact.agents._aliases import alias_problem
from codeact.agents._datarules import case_problem
from codeact.agents._isinfold import fold_isin, unfolded_isin, with_alias
from codeact.agents.code import describe_files
from tests.helpers import exec_with_files

MAKES = ["VW", "Volkswagen", "vw ", "Ford", " volkswagen", "FORD", "Toyota", "toyota "]
ROWS = "Job,make\n" + "".join(f"J{i},{MAKES[i % 8]}\n" for i in range(40))
FILES = {"g.csv": ROWS.encode()}
SAID = "make is written in any case; Volkswagen is also written 'VW'."
QUESTION = f"Question: How many Volkswagen jobs?\nConstraints: {SAID}\n\n{describe_files(FILES)}"
READ = "import pandas as pd\ndf = pd.read_csv('g.csv')\n"
#: Volkswagen rows: 'VW', 'Volkswagen', 'vw ', ' volkswagen' of every eight.
VOLKSWAGEN = "20"


def test_an_isin_on_the_text_as_written_is_rerun_on_the_folded_text() -> None:
    cell = READ + "print(df[df['make'].isin(['vw', 'volkswagen'])]['Job'].count())"
    assert exec_with_files(FILES, cell) == ["0"]  # (no row is written in lower case alone)
    problem = case_problem(QUESTION, cell)
    assert problem is not None
    assert "df['make'].str.strip().str.lower().isin(['vw', 'volkswagen'])" in problem
    assert problem.code is not None
    assert exec_with_files(FILES, problem.code) == [VOLKSWAGEN]


def test_isin_values_are_folded_like_the_column() -> None:
    cell = READ + "print(df['make'].str.strip().isin(('VW', 'Volkswagen ')).sum())"
    fixed = fold_isin(cell, "make", ".str.strip().str.lower()", inner=False)
    assert ".str.strip().str.lower().isin(['vw', 'volkswagen'])" in fixed
    assert exec_with_files(FILES, fixed) == [VOLKSWAGEN]


def test_isin_on_text_folded_before_or_on_numbers_is_left_alone() -> None:
    folded_first = (
        READ + "df['make'] = df['make'].str.strip().str.lower()\n"
        "print(df['make'].isin(['vw', 'volkswagen']).sum())"
    )
    assert unfolded_isin(folded_first, "make") == []
    assert case_problem(QUESTION, folded_first) is None
    numbers = READ + "print(df['make'].isin([1, 2]).sum())"
    assert unfolded_isin(numbers, "make") == []
    folded_inline = READ + "print(df['make'].str.lower().str.strip().isin(['vw']).sum())"
    assert unfolded_isin(folded_inline, "make") == []
    # a folding of the column after the test does not make the test folded
    after = (
        READ + "n = df['make'].isin(['vw', 'volkswagen']).sum()\n"
        "df['make'] = df['make'].str.lower()\nprint(n)"
    )
    assert len(unfolded_isin(after, "make")) == 1


def test_the_other_spelling_alone_is_rerun_against_both() -> None:
    """fresh17: ``== 'VW'`` (and its ``!=``, and ``.isin(['VW'])``) tests both spellings in
    the runnable code, squeezed as the note's fold is."""
    alone = READ + "print(df[df['make'] == 'VW']['Job'].count())"
    problem = alias_problem(QUESTION, alone)
    assert problem is not None and "with 'VW' alone" in problem
    assert problem.code is not None and ".isin(['vw', 'volkswagen'])" in problem.code
    assert exec_with_files(FILES, problem.code) == [VOLKSWAGEN]
    others = READ + "print(df[df['make'] != 'VW']['Job'].count())"
    fixed = with_alias(others, "make", "VW", "Volkswagen")
    assert fixed is not None and exec_with_files(FILES, fixed) == [str(40 - int(VOLKSWAGEN))]
    listed = READ + "print(df['make'].str.strip().isin(['VW']).sum())"
    fixed = with_alias(listed, "make", "VW", "Volkswagen")
    assert fixed is not None and exec_with_files(FILES, fixed) == [VOLKSWAGEN]
    assert with_alias(READ + "print(len(df))", "make", "VW", "Volkswagen") is None
