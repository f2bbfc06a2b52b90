"""Rows the question leaves out by their sign. "Add up the Tickets of the sales (not the
refunds)", where a refund is a row whose Amount is negative: the 1.5B model sums every row
(fresh18: 622 tickets for 612). The rule sends such a cell back; its code keeps the rows of
the asked sign right after the file is read, the column converted as the files note says.
A cell that failed looking for a sign as text in numbers (``.str.startswith('-')``) is re-run
with ``< 0`` (``sign_text_fix``); a comparison with a negative example value the question
quotes is made a sign test (``sign_example_fix``, for the filter rule)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from codeact.agents._notecols import (
    TEXT_NUMBER_CONVERSION,
    column_read,
    column_ref,
    insert_after,
    note_column_kinds,
    task_text,
    without_comments,
)
from codeact.agents._problem import Problem, problem_of
from codeact.agents._unusedfix import repeatable_failure
from codeact.executors.base import ExecutionResult

#: "(not the refunds)", "excluding the refunds", "leaving out the returns".
_LEFT_OUT = re.compile(
    r"\(\s*not (?:the |any )?([a-z]+)\s*\)|\b(?:excluding|except|leaving out|without) the ([a-z]+)"
)
#: "its Amount is positive", "whose Amount is negative".
_SIGNED_COLUMN = re.compile(
    r"\b(?:its|their|whose|the)\s+([A-Z][\w ]{0,30}?)\s+(?:is|are)\s+(?:positive|negative)"
)
#: A test of a number's sign in code: ``> 0``, ``< 0``, ``>= 0``, ``.gt(0)``.
_SIGN_TEST = re.compile(r"[<>]=?\s*0(?![.\d])|\.(?:gt|ge|lt|le)\(\s*0\s*\)|\bclip\(|\babs\(")


def _stem(word: str) -> str:
    return word[:-1] if word.endswith("s") else word


def sign_problem(question: str, code: str) -> Problem | None:
    """Rows the question leaves out ("(not the refunds)") that it says are the rows of one
    sign of a column ("a refund ... (negative)"), in code that never tests a sign."""
    task = task_text(question)
    live = without_comments(code)
    named = _SIGNED_COLUMN.search(task)
    if named is None:
        return None
    for m in _LEFT_OUT.finditer(task):
        sign = _sign_of(task, _stem(m.group(1) or m.group(2)))
        if sign is None:
            continue
        keep = ">" if sign == "negative" else "<"
        column = _column(question, named.group(1))
        if column is None or _sign_tested(live, column):
            continue
        kind = dict(note_column_kinds(question)).get(column, "")
        convert = TEXT_NUMBER_CONVERSION.search(kind)
        number = convert.group(1) if convert else f"df[{column!r}]"
        converted = _converted_at(code, column)  # (the cell made it numbers: the test reads them)
        found = converted or column_read(question, code.splitlines(), column)
        fixed = None
        if found is not None:
            at, frame = found
            number = f"{frame}[{column!r}]" if converted else number.replace("df[", f"{frame}[")
            fixed = insert_after(code, at, f"{frame} = {frame}[{number} {keep} 0]")
        word = m.group(1) or m.group(2)
        return problem_of(
            f"The question leaves out the {word}, which it says are the rows whose "
            f"{named.group(1)} is {sign}, but your code never tests the sign of "
            f"{column!r}: every row counts. Keep only the rows with {number} {keep} 0 first; "
            "run your code again, print the result, then answer.",
            fixed,
        )
    return None


def _converted_at(code: str, column: str) -> tuple[int, str] | None:
    """The line (0-based) and frame of the cell's last top-level line making ``column``
    numbers in place (``df['Amount ($)'] = ....astype(float)``), or None."""
    ref = rf"\[\s*(['\"]){re.escape(column)}\2\s*\]"
    made = re.compile(rf"^([A-Za-z_]\w*)\s*{ref}\s*=(?!=).*(?:astype\(\s*float|to_numeric)")
    found = [
        (i, m.group(1))
        for i, ln in enumerate(code.splitlines())
        if (m := made.match(ln)) and ln.count("(") == ln.count(")")  # (one whole line)
    ]
    return found[-1] if found else None


def _sign_of(task: str, stem: str) -> str | None:
    """The sign the question gives the rows called ``stem`` ("negative for refunds", "a
    refund of tickets sold earlier (negative)", "a refund's is negative"), read in the
    clause that names them; None when no clause says it."""
    noun = rf"{re.escape(stem)}\w*(?:'s)?"
    before = re.search(rf"\b(positive|negative)\s+(?:for|on|in)\s+(?:an?\s+|the\s+)?{noun}\b", task)
    if before is not None:
        return before.group(1)
    after = re.search(
        rf"\b{noun}(?:(?!\b(?:positive|negative)\b)[^.;,:])*?\b(positive|negative)\b", task
    )
    return after.group(1) if after is not None else None


def _column(question: str, said: str) -> str | None:
    """The files note's column the question calls ``said`` ("Amount" for 'Amount ($)')."""
    for name, _kind in note_column_kinds(question):
        bare = re.sub(r"\s*\(.*\)\s*$", "", name.strip())
        if bare.lower() == said.strip().lower():
            return name
    return None


def _sign_tested(code: str, column: str) -> bool:
    """Whether a line of ``code`` tests the sign of ``column`` (named on that line, or a
    name made from it: ``amount = ...df['Amount ($)']...``, then ``amount > 0``)."""
    ref = column_ref(column)
    made = re.finditer(r"^\s*([A-Za-z_]\w*)\s*=(?!=)(.*)$", code, re.M)
    held = [
        re.escape(m.group(1)) for m in made if m.group(1) != "df" and re.search(ref, m.group(2))
    ]
    uses = rf"{ref}|\b(?:{'|'.join(held)})\b" if held else ref
    return any(_SIGN_TEST.search(ln) and re.search(uses, ln) for ln in code.splitlines())


#: A column's sign looked for in text: ``df['Amount'].str.startswith('-')``,
#: ``.str.contains('(', regex=False)``.
_SIGN_AS_TEXT = re.compile(
    r"(\w+\s*\[\s*(['\"])[^'\"\n]+\2\s*\])\.str\.(?:startswith|contains)\(\s*(['\"])[-(]\3"
    r"(?:\s*,\s*regex\s*=\s*False)?\s*\)"
)


@dataclass(frozen=True)
class SignTextFix:
    """A failed cell re-run with ``< 0`` for a sign looked for as text in a column the cell
    had made numbers (fresh18: refunds as ``.str.startswith('-')`` after the conversion)."""

    code: str
    written: str

    def note(self) -> str:
        """What the model (and the transcript) is told about the re-run."""
        return (
            f"Your cell failed: {self.written} looks for a sign in text, and that column "
            "already holds numbers (your cell converted it). I re-ran your cell testing the "
            "number instead (< 0). Output of the re-run:"
        )


def sign_text_fix(result: ExecutionResult, code: str) -> SignTextFix | None:
    """The cell with each sign test as text on its failing line made ``< 0``, when the line
    failed because the column holds numbers (``Can only use .str accessor``)."""
    error = result.error
    if error is None or "Can only use .str accessor with string values" not in error.message:
        return None
    failing = repeatable_failure(code, error.traceback)
    if failing is None:
        return None
    number, lines = failing
    found = _SIGN_AS_TEXT.search(lines[number - 1])
    if found is None:
        return None
    lines[number - 1] = _SIGN_AS_TEXT.sub(r"(\1 < 0)", lines[number - 1])
    written = found.group(0)[len(found.group(1)) :].lstrip(".")
    return SignTextFix(code="\n".join(lines), written=written)


def sign_example_fix(question: str, task: str, value: str, code: str) -> str | None:
    """The code with its comparison to a negative example (``df['Subtotal'] != '-€12.50'``,
    where the question says refunds are the rows with a negative Subtotal) made a sign test on
    the column converted as the files note says (``~(... .astype(float) < 0)``); None if the
    question speaks of no sign or the note gives no conversion."""
    if not value.startswith("-") or not re.search(r"\bnegative\b", task, re.I):
        return None
    quoted = re.escape(value)
    compared = re.compile(rf"(\w+)\s*\[\s*(['\"])([^'\"\n]+)\2\s*\]\s*(==|!=)\s*(['\"]){quoted}\5")
    convert = {
        name: m.group(1)
        for name, kind in note_column_kinds(question)
        if (m := TEXT_NUMBER_CONVERSION.search(kind)) is not None
    }

    def sign_test(m: re.Match[str]) -> str:
        if m.group(3) not in convert:
            return m.group(0)
        name = m.group(3)
        column = convert[name].replace(f"df[{name!r}]", f"{m.group(1)}[{name!r}]", 1)
        # (== the example: the negative rows; != it: the others, empty cells kept as != keeps)
        return f"({column} < 0)" if m.group(4) == "==" else f"~({column} < 0)"

    fixed = compared.sub(sign_test, code)
    return fixed if fixed != code else None
