"""Hints for a failed call, read from the cell's code and error: a condition computed per
group used on rows, a column named after a value of a wide table, ``corr()`` without the
other series, a date method on one number or on text (see ``_recover``)."""

from __future__ import annotations

import re

from codeact.agents._notecols import (
    frame_names,
    named_number_columns,
    note_column_kinds,
    task_text,
)
from codeact.agents._notefocus import named
from codeact.executors.base import ExecutionResult

_UNALIGNABLE = "Unalignable boolean Series provided as indexer"
_PER_GROUP = re.compile(
    r"(\w+)\.groupby\(([^()\n]+)\)\s*\[\s*(['\"][^'\"\n]+['\"])\s*\]\s*\.\s*(\w+)\(\)\s*"
    r"(==|!=|>=|<=|>|<)\s*([\w.]+)"
)


def group_mask_hint(result: ExecutionResult, code: str) -> str:
    """A condition computed per group (its index is the groups) used to select rows: one
    value per row comes from ``transform``."""
    if result.error is None or _UNALIGNABLE not in result.error.message:
        return ""
    m = _PER_GROUP.search(code)
    example = (
        f"keep = {m.group(1)}.groupby({m.group(2)})[{m.group(3)}].transform('{m.group(4)}') "
        f"{m.group(5)} {m.group(6)}; rows = {m.group(1)}[keep]"
        if m
        else "keep = df.groupby('g')['x'].transform('count') >= 2; rows = df[keep]"
    )
    return (
        "The condition has one value per group (its index is the groups), not one per row, so "
        f"it cannot select rows. Compute it per row with transform: {example}."
    )


def wide_hint(question: str, result: ExecutionResult, code: str) -> str:
    """A column that does not exist compared with the name of one that does (``df['Month']
    == 'Jan'`` in a file with one column per month): the values are that column."""
    error = result.error
    if error is None or error.type != "KeyError":
        return ""
    missing = error.message.strip().strip("'\"")
    names = {n.strip(): n for n, _ in note_column_kinds(question)}
    if not missing or missing in names:
        return ""
    quoted = re.escape(missing)
    compared = re.search(rf"(\w+)\[\s*(['\"]){quoted}\2\s*\]\s*==\s*(['\"])(.+?)\3", code)
    if compared is None or compared.group(4).strip() not in names:
        return ""
    frame, value = compared.group(1), names[compared.group(4).strip()]
    return (
        f"There is no column {missing!r}: {value!r} is itself a column (the file has one column "
        f"per {missing.lower()}). Use {frame}[{value!r}] for its values and drop the condition "
        f"on {missing!r}."
    )


_NO_OTHER = re.compile(r"corr\(\) missing 1 required positional argument: 'other'")


def corr_hint(question: str, result: ExecutionResult, code: str) -> str:
    """``Series.corr()`` called without the other series (a small model multiplies the two
    columns first): how to call it, on the two number columns the question names."""
    if result.error is None or not _NO_OTHER.search(result.error.message):
        return ""
    columns = named_number_columns(question)
    frame = next(iter(frame_names(code)), "df")
    example = (
        f"{frame}[{columns[0]!r}].corr({frame}[{columns[1]!r}])"
        if len(columns) >= 2
        else f"{frame}['a'].corr({frame}['b'])"
    )
    return (
        "corr() compares two Series: call it on one column with the other as its argument, "
        f"e.g. r = {example} (after converting both to numbers), then print(r)."
    )


_SCALAR_ATTRIBUTE = re.compile(
    r"'((?:numpy\.)?(?:u?int|float)\d*|int|float|str)' object has no attribute '(\w+)'"
)
_DATE_PARTS = {"strftime", "month", "year", "day", "hour", "minute", "weekday", "dayofweek"}
_DATE_PARTS |= {"day_name", "month_name", "date", "isoformat", "dt", "to_period", "quarter"}


def scalar_date_hint(result: ExecutionResult) -> str:
    """A date method called on one number (the month a ``.dt.month`` grouping left as the
    label, re-formatted with ``.strftime``) or on text (a date never converted)."""
    error = result.error
    m = (
        _SCALAR_ATTRIBUTE.search(error.message)
        if error and error.type == "AttributeError"
        else None
    )
    if m is None or m.group(2) not in _DATE_PARTS:
        return ""
    kind, attribute = m.group(1), m.group(2)
    if kind == "str":
        return (
            f"The value is text, not a date, so it has no .{attribute}: convert it first, "
            f"e.g. pd.to_datetime(value).{attribute} (for a column: pd.to_datetime(df['col']))."
        )
    if kind == "float":  # (one value of an .apply over a column: usually a missing one)
        return (
            f"The value is a float, not a date, so it has no .{attribute}: usually a missing "
            "value (NaN) of the column. Convert the whole column with pd.to_datetime(df['col'], "
            f"errors='coerce') and use .dt.{attribute} instead of a function per value."
        )
    return (
        f"The value is a number ({kind}), not a date, so it has no .{attribute}: grouping by "
        ".dt.month or .dt.year leaves the month or year number itself as the label. Use the "
        f"number as it is (e.g. int(value)) instead of .{attribute}."
    )


_EMPTY = re.compile(
    r"attempt to get arg(?:max|min) of an empty sequence|single positional indexer is "
    r"out-of-bounds|index 0 is out of bounds for axis 0 with size 0"
)


def empty_rows_hint(result: ExecutionResult, code: str) -> str:
    """An extreme or first row taken of a table with no rows: a merge on keys written
    differently in the two files, or a filter on a value written otherwise, kept none."""
    if result.error is None or not _EMPTY.search(result.error.message):
        return ""
    if re.search(r"\.merge\(|(?<!['\"])\.join\(", code):  # (not ', '.join(...))
        return (
            "The table has no rows at that point: the merge matched no keys (they are "
            "written differently in the two files). Join the keys the way the files note "
            "says, and print len() of the joined table before going on."
        )
    return (
        "The table has no rows at that point: a filter kept none. Print len() after each "
        "filter and the values you compare with (df['col'].unique()[:10]): they may be "
        "written differently."
    )


_ONE_VALUE = re.compile(r"'(str|float|int|bool)' object has no attribute '(\w+)'")


def apply_value_hint(result: ExecutionResult, code: str) -> str:
    """A column method called on one value inside ``.apply(lambda x: ...)`` (``x`` is a str
    or a float there, not a column): the column's own ``.str`` methods and ``pd.to_numeric``
    work on every value at once."""
    m = _ONE_VALUE.search(result.error.message) if result.error is not None else None
    if m is None or not re.search(r"\.(?:apply|map)\(\s*lambda", code):
        return ""
    return (
        f"Inside .apply(lambda x: ...) x is one value (a {m.group(1)}), which has no "
        f".{m.group(2)}(). Work on the whole column instead, without apply: for example "
        "pd.to_numeric(df['col'].str.extract(r'([\\d.]+)')[0], errors='coerce'), or copy the "
        "files note's code for the column as it is."
    )


#: A cell this long that fails on its last line was most likely cut off by the reply's limit.
_LONG_CELL = 25
_LINE_OF = re.compile(r"\bLine (\d+):|line (\d+)")


def cut_off_hint(question: str, result: ExecutionResult, code: str) -> str:
    """A long cell failing to parse at its last line: the reply was cut off at its length
    limit before the cell printed anything (fresh13: 75-line cells converting every column,
    resent unchanged). Shorter: the columns the question names, then the print."""
    error = result.error
    lines = code.rstrip().splitlines()
    if error is None or error.type != "SyntaxError" or len(lines) < _LONG_CELL:
        return ""
    m = _LINE_OF.search(error.message)
    if m is None or int(m.group(1) or m.group(2)) < len(lines):
        return ""
    asked = task_text(question).split("\n")[0]  # (the question itself, not its constraints)
    needed = [n for n, _kind in note_column_kinds(question) if named(asked, n)]
    only = f" (here: {', '.join(repr(n) for n in needed)})" if 0 < len(needed) <= 3 else ""
    return (
        f"Your cell was cut off at line {len(lines)}: a reply has a length limit, and this "
        "one ran out before the cell printed anything. Write a much shorter cell: read the "
        f"file, convert only the columns the question needs{only}, leave every other column "
        "alone, then compute and print the answer."
    )
