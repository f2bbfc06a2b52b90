"""Rows the question leaves out by their sign. "Add up the Tickets of the sales (not the
refunds)", where a refund is a row whose Amount is negative: the 1.5B model sums every row
(fresh18: 622 tickets for 612). The rule sends such a cell back; its code keeps the rows of
the asked sign right after the file is read, the column converted as the files note says."""

from __future__ import annotations

import re

from codeact.agents._notecols import (
    TEXT_NUMBER_CONVERSION,
    column_read,
    insert_after,
    note_column_kinds,
    task_text,
    without_comments,
)
from codeact.agents._problem import Problem, problem_of

#: "(not the refunds)", "excluding the refunds", "leaving out the returns".
_LEFT_OUT = re.compile(
    r"\(\s*not (?:the |any )?([a-z]+)\s*\)|\b(?:excluding|except|leaving out|without) the ([a-z]+)"
)
#: "its Amount is positive", "whose Amount is negative".
_SIGNED_COLUMN = re.compile(
    r"\b(?:its|their|whose|the)\s+([A-Z][\w ]{0,30}?)\s+(?:is|are)\s+(?:positive|negative)"
)
_SIGN = re.compile(r"\b(positive|negative)\b")
#: A test of a number's sign in code: ``> 0``, ``< 0``, ``>= 0``, ``.gt(0)``.
_SIGN_TEST = re.compile(r"[<>]=?\s*0(?![.\d])|\.(?:gt|ge|lt|le)\(\s*0\s*\)|\bclip\(|\babs\(")


def _stem(word: str) -> str:
    return word[:-1] if word.endswith("s") else word


def sign_problem(question: str, code: str) -> Problem | None:
    """Rows the question leaves out ("(not the refunds)") that it says are the rows of one
    sign of a column ("a refund ... (negative)"), in code that never tests a sign."""
    task = task_text(question)
    live = without_comments(code)
    if _SIGN_TEST.search(live):
        return None
    for m in _LEFT_OUT.finditer(task):
        stem = _stem(m.group(1) or m.group(2))
        said = re.search(rf"\b{re.escape(stem)}\w*\b[^.;]*?{_SIGN.pattern}", task)
        named = _SIGNED_COLUMN.search(task)
        if said is None or named is None:
            continue
        keep = ">" if said.group(1) == "negative" else "<"
        column = _column(question, named.group(1))
        if column is None:
            continue
        kind = dict(note_column_kinds(question)).get(column, "")
        convert = TEXT_NUMBER_CONVERSION.search(kind)
        number = convert.group(1) if convert else f"df[{column!r}]"
        found = column_read(question, code.splitlines(), column)
        fixed = None
        if found is not None:
            at, frame = found
            number = number.replace("df[", f"{frame}[")
            fixed = insert_after(code, at, f"{frame} = {frame}[{number} {keep} 0]")
        word = m.group(1) or m.group(2)
        return problem_of(
            f"The question leaves out the {word}, which it says are the rows whose "
            f"{named.group(1)} is {said.group(1)}, but your code never tests the sign of "
            f"{column!r}: every row counts. Keep only the rows with {number} {keep} 0 first; "
            "run your code again, print the result, then answer.",
            fixed,
        )
    return None


def _column(question: str, said: str) -> str | None:
    """The files note's column the question calls ``said`` ("Amount" for 'Amount ($)')."""
    for name, _kind in note_column_kinds(question):
        bare = re.sub(r"\s*\(.*\)\s*$", "", name.strip())
        if bare.lower() == said.strip().lower():
            return name
    return None
