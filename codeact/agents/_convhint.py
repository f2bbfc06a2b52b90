"""The files note's way to read a column, for a failed cell that used the column without it
(``_recover``): durations, numbers with a word for none, fractions, yes/no written several
ways, units, Unix times, dates written two ways."""

from __future__ import annotations

import re

from codeact.agents._cellforms import CLOCK_MINUTES_READING
from codeact.agents._notecols import TEXT_NUMBER_CONVERSION, note_column_kinds, uses_column

#: What the files note says a column holds, the code it gives to read it, and what in a
#: cell shows that the cell reads it that way.
_CONVERSIONS = (
    (  # (first: its code holds a pd.to_numeric(... errors='coerce') the next one would take)
        re.compile(r"amounts as text, some shortened \(.*?\): convert with (.*?\.fillna\(1\))"),
        "extract(",
        "amounts shortened with letters",
    ),
    (re.compile(r"durations as text: (.*?) gives minutes"), "to_timedelta", "durations as text"),
    (  # ('1:28' beside '90 min': both lines of the note; fresh18 compared the text with 120)
        CLOCK_MINUTES_READING,
        "min",
        "durations written two ways",
    ),
    (re.compile(r"convert with (pd\.to_numeric\(.*?errors='coerce'\))"), "to_numeric", "numbers"),
    (TEXT_NUMBER_CONVERSION, ".str.replace(", "numbers stored as text"),
    (re.compile(r"fractions as text: (.*?\.astype\(float\))"), "split(", "fractions as text"),
    (re.compile(r"yes/no written several ways \(.*?\): (.*?\]\))"), ".isin(", "yes/no"),
    (
        re.compile(r"numbers with units \(.*?\) as text[^:]*: (value = .*?\.str\.strip\(\))"),
        "extract(",
        "numbers with several units",
    ),
    (
        re.compile(r"numbers with a unit \(.*?\) as text: convert with (.*?\.astype\(float\))"),
        "[^\\d",
        "numbers with a unit",
    ),
    (
        re.compile(r"times of day as text.*?: minutes since midnight = (pd\.to_timedelta.*?/ 60)"),
        "to_timedelta",
        "times of day as text",
    ),
    (re.compile(r"Unix times in seconds: (pd\.to_datetime\(.*?unit='s'\))"), "unit=", "times"),
    (
        re.compile(
            r"written two ways \(.*?\)(?:, \w+ first)?: (pd\.to_datetime\(.*?\))(?:, e\.g\.|$)"
        ),
        "format=",
        "dates written two ways",
    ),
    (
        re.compile(r"different UTC offsets \(.*?\): (pd\.to_datetime\(.*?utc=True\))"),
        "utc=",
        "times with different UTC offsets",
    ),
)


def conversion_hint(question: str, code: str, line: str = "") -> str:
    """For a failed cell using a column the files note gives a way to read (durations,
    numbers with a word for none, fractions, yes/no written several ways, units, Unix times):
    that code, which the cell did not use; the column of the failing ``line`` first."""
    kinds = note_column_kinds(question)
    kinds.sort(key=lambda k: not uses_column(line, k[0]))
    for name, kind in kinds:
        if not uses_column(code, name):
            continue
        # (the lines on this column count: another column's extract( is not its conversion)
        where = "\n".join(ln for ln in code.splitlines() if uses_column(ln, name))
        for pattern, used, what in _CONVERSIONS:
            m = pattern.search(kind)
            if m is not None and used not in where:
                return f"{name!r} holds {what} (see the files note): read it with {m.group(1)}."
    return ""
