"""A share or a rate asked for and only counted (no cell divided anything) is sent back with
code that divides the code's own condition by its rows, per group when the question compares
groups; the example is run here on the table and gives the share."""

from __future__ import annotations

import io

import pandas as pd
import pytest

from codeact.agents._checks import rate_problem
from codeact.agents.code import describe_files
from tests.agents.test_rules import candidate
from tests.agents.test_rules import check as check_candidate

STAFF = (
    b"emp_id,department,remote,heart rate\n"
    b"E1,Sales,Yes,70\nE2,Sales,No,71\nE3,Sales,No,72\nE4,IT,Yes,73\nE5,IT,Yes,74\n"
    b"E6,IT,No,75\nE7,HR,Yes,76\nE8,HR,No,77\nE9,Sales,Yes,78\nE10,Sales,No,79\n"
)


def question(text: str, placeholders: str = "@share[value]") -> str:
    return f"{text} Answer as {placeholders}.\n\n" + describe_files({"staff.csv": STAFF})


def run_example(code: str) -> str:
    out = io.StringIO()
    env = {"df": pd.read_csv(io.BytesIO(STAFF)), "print": lambda *a: print(*a, file=out)}
    exec(code, env)
    return out.getvalue().strip()


COUNTED = "n = df[df['remote'] == 'Yes'].groupby('department').size()\nprint(n.idxmax(), n.max())"


def test_a_share_per_group_that_was_only_counted_is_sent_back_with_runnable_code() -> None:
    q = question(
        "Which department has the highest share of employees working remotely, and what is "
        "that share as a percentage?",
        "@department[value] @remote_pct[value]",
    )
    problem = rate_problem(q, "@department[Sales] @remote_pct[2]", COUNTED)
    assert problem is not None and "no cell divided anything" in problem
    assert problem.code == (
        "s = (df['remote'] == 'Yes').groupby(df['department']).mean() * 100; "
        "print(s.idxmax(), s.max())"
    )
    assert run_example(problem.code) == "IT 66.66666666666666"
    assert "no cell divided anything" in (
        check_candidate(candidate(q, COUNTED, "@department[Sales] @remote_pct[2]")) or ""
    )


def test_a_rate_of_the_whole_table_and_a_lowest_group() -> None:
    whole = rate_problem(
        question("What is the remote work rate, as a proportion?"),
        "@share[5]",
        "print(len(df[df['remote'] == 'Yes']))",
    )
    assert whole is not None and whole.code == "print((df['remote'] == 'Yes').mean())"
    assert run_example(whole.code) == "0.5"
    low = rate_problem(
        question("Which department has the lowest percentage of remote staff?"),
        "@share[HR] @n[1]",
        COUNTED,
    )
    assert low is not None and low.code is not None and "s.idxmin(), s.min()" in low.code
    assert run_example(low.code) == "Sales 40.0"


@pytest.mark.parametrize(
    ("text", "code"),
    [
        # the code divided: a share was computed (rightly or not, not this rule's business)
        ("What share of staff work remotely?", "print((df['remote'] == 'Yes').sum() / len(df))"),
        ("What share of staff work remotely?", "print((df['remote'] == 'Yes').mean())"),
        ("What share of staff work remotely?", "print(df['remote'].value_counts(normalize=True))"),
        # no share asked: a count is what is asked
        ("How many staff work remotely?", COUNTED),
        # "rate" names a column, not a share
        ("What is the highest heart rate?", "print(df['heart rate'].max())"),
        # a percentage that is a column's value, not a share of rows
        ("What is the highest remote percentage value?", "print(df['x'].max())"),
    ],
)
def test_what_is_not_a_counted_share_is_left_alone(text: str, code: str) -> None:
    assert rate_problem(question(text), "@share[1]", code) is None


def test_an_answer_with_no_whole_number_is_not_a_count() -> None:
    """The share may come from a cell of an earlier turn: only a whole number says count."""
    assert rate_problem(question("What share of staff work remotely?"), "@share[49.7]", "") is None
    counted = rate_problem(question("What share of staff work remotely?"), "@share[5]", "")
    assert counted is not None


def test_without_a_condition_in_the_code_the_note_still_says_how() -> None:
    problem = rate_problem(
        question("What percentage of staff work remotely?"),
        "@share[5]",
        "print(df['remote'].value_counts())",
    )
    assert problem is not None and problem.code is None
    assert "the number of matching rows divided by the number of all rows" in problem
