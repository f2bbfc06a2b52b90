"""Repeats of an earlier row counted with ``keep=False`` (fresh19: 36 for 18): every copy is
marked, the first too. Each test fails on the code before its change."""

from __future__ import annotations

from codeact.agents._repeats import keep_all_problem
from tests.agents.test_weighbridge import FILES, READ
from tests.helpers import exec_with_files, question_of
from tests.helpers import rule_note as said

LATER = (
    "How many rows of the export are repeats of an earlier row?",
    "Count the rows identical in every column to an earlier row.",
)


def test_keep_false_is_sent_back_when_the_question_counts_later_copies() -> None:
    question = question_of(*LATER, FILES)
    code = READ + "print(df.duplicated(subset='Docket No', keep=False).sum())"
    told = said(question, code)
    assert told is not None and "keep=False" in told and "later copies" in told
    problem = keep_all_problem(question, code)
    assert problem is not None and problem.code is not None
    before, after = exec_with_files(FILES, code, problem.code)
    assert (int(before), int(after)) == (8, 4)  # (the fixture repeats four dockets)
    assert said(question, problem.code) is None
    assert said(question, READ + "print(df.duplicated().sum())") is None


def test_other_wordings_of_later_copies_are_caught() -> None:
    code = READ + "print(df[df.duplicated(keep = False)].shape[0])"
    for asked in (
        "How many dockets were written again, not counting the first copy?",
        "How many extra copies does the export hold?",
        "How many rows duplicate a previous row?",
        "How many rows are copies of an earlier docket?",
    ):
        question = question_of(asked, "Count them.", FILES)
        assert keep_all_problem(question, code) is not None, asked


def test_questions_that_count_every_copy_or_none_keep_keep_false() -> None:
    code = READ + "print(df.duplicated(keep=False).sum())"
    for asked in (
        "How many rows appear more than once, counting all copies?",
        "How many rows are repeats, including the first copy of each?",
        "How many dockets were voided?",
    ):
        question = question_of(asked, "Count them.", FILES)
        assert keep_all_problem(question, code) is None, asked
    question = question_of(*LATER, FILES)
    assert keep_all_problem(question, READ + "print(df.duplicated(keep='last').sum())") is None
