"""The files note as the model sees it: reading code only for the columns the question names.

The files note (``describe_files``) gives, for each messy column, the code that reads it
(``convert with pd.to_numeric(...)``, ``value = ...; unit = ...``). The 1.5B model takes the
note as a list of things to do: it copies every column's code into its first cell, whether
the question needs the column or not, and one wrong copy fails a cell that would have
answered (fresh12: thirty-line cells converting every price, area and fee to count the
listings of one month, cut off mid-line, five failed cells in a row). The model is shown the
note with the code left out for columns the question never names (their description and
examples stay); the rules and hints keep reading the whole note from the run's question."""

from __future__ import annotations

import ast
import re

from codeact._messages import ChatMessage
from codeact.agents._checks import asked_text
from codeact.agents._colvalues import all_values
from codeact.agents._notecols import (
    NOTE_COLUMN,
    NOTE_HEAD,
    column_of_value,
    quoted_values,
    spoken_forms,
    task_text,
)

#: Where the reading code starts in a column's description: after ": " (or "; "), one of the
#: ways the note writes code. Dates, times and durations keep theirs: a question asks for a
#: month, a quarter or "after 6 pm" without naming the column that holds it.
_CODE_START = re.compile(
    r"(?::|;) (?=convert with |compare df|value = |df\[|one row per value is )"
)
#: Where a date's or a time's reading starts; left out only when the question names another
#: date or time column ("Date is the day ...": the delivery times' reading is noise then).
_TIME_CODE_START = re.compile(
    r"(?::|;) (?=(?:t = )?pd\.to_datetime\(|minutes since midnight = |pd\.to_timedelta\()"
)
#: A sentence saying what a row is ("Every row is one parcel a courier's driver took out"):
#: the columns it mentions are not asked about.
_ROW_SENTENCE = re.compile(r"\b(?:every|each) row\b", re.I)
#: Words of a question about a measure in some unit (an area, a weight, a length, a volume).
_MEASURE = re.compile(
    r"\b(?:square|metres?|meters?|feet|foot|ft|sq|m²|kilo\w*|grams?|kg|pounds? weight|lbs?|"
    r"ounces?|miles?|km|kilometres?|litres?|liters?|ml|cm|inch(?:es)?|weigh\w*|area|length|"
    r"distance|volume|size)\b",
    re.I,
)
#: Words of a column's name that say nothing on their own.
_GENERIC = {"date", "time", "type", "name", "code", "value", "number", "total", "count", "status"}


def named(task: str, column: str) -> bool:
    """Whether the question's ``task`` names ``column``: in one of its spoken forms, or by a
    word of four letters or more of its name (``price`` for ``Asking Price``), any case."""
    low = task.lower()
    for form in spoken_forms(column):
        if re.search(rf"(?<!\w){re.escape(form.strip().lower())}(?!\w)", low):
            return True
    words = re.findall(r"[A-Za-z]{4,}", column.replace("_", " "))
    return any(
        w.lower() not in _GENERIC and re.search(rf"(?<!\w){w.lower()}s?(?!\w)", low) for w in words
    )


def _value_named(task: str, kind: str) -> bool:
    """Whether the question names one of the values the note shows for a column (``swimming``
    for a column of activities written in several cases): the question is about it."""
    low = task.lower()
    return any(
        re.search(rf"(?<!\w){re.escape(v.strip().lower())}(?!\w)", low)
        for v in quoted_values(kind, 3, 40)
        if re.search(r"[A-Za-z]{3}", v)
    )


def without_code(kind: str, start: re.Pattern[str] = _CODE_START) -> str:
    """A column's description without its reading code (found by ``start``; examples kept,
    and the words that point at that code: "(NaN in value)")."""
    m = start.search(kind)
    if m is None:
        return kind
    end = kind.find(", e.g. ", m.end())
    head = kind[: m.start()].replace(" (NaN in value)", "")
    return head + (kind[end:] if end >= 0 else "")


def focused_note(question: str) -> str:
    """``question`` with its files note's reading code left out for the columns the question
    does not name (unchanged when it has no note or names every such column)."""
    head, sep, note = question.partition(NOTE_HEAD)
    if not sep:
        return question
    sentences = re.split(r"(?<=[.?!;])\s+", task_text(question))
    task = " ".join(t for t in sentences if not _ROW_SENTENCE.search(t))
    times_named = any(  # (by its name, not a value of another column: "not delivered")
        _TIME_CODE_START.search(m.group(2))
        and named(task, _name(m.group(1)))
        and column_of_value(question, _name(m.group(1)).strip(), fold=True) is None
        for m in NOTE_COLUMN.finditer(note)
    )

    asked = asked_text(question).lower()

    def line(m: re.Match[str]) -> str:
        column, kind = _name(m.group(1)), m.group(2)
        if (value := _asked_value(asked, kind)) is not None:  # (fresh23: 'clansman rose' copied)
            shown = _COMPARED.sub(lambda c: f"{c.group(1)}{value!r}", kind, count=1)
            return m.group(0)[: len(m.group(0)) - len(kind)] + shown
        if not column or named(task, column) or _value_named(task, kind):
            return m.group(0)
        if "numbers with units" in kind and _MEASURE.search(task):
            return m.group(0)  # ("per square metre": the floor areas, in whichever unit)
        if times_named and _TIME_CODE_START.search(kind):
            kind = without_code(kind, _TIME_CODE_START)
        return m.group(0)[: len(m.group(0)) - len(m.group(2))] + without_code(kind)

    return head + sep + NOTE_COLUMN.sub(line, note)


#: The note's example comparison of a column's folded values.
_COMPARED = re.compile(r"(: compare .+? == )'[^'\n]*'")


def _asked_value(asked: str, kind: str) -> str | None:
    """The folded value of a column the question's own sentence ``asked`` (folded) names,
    when the note compares with another one as its example (a model copies the example)."""
    compared = _COMPARED.search(kind)
    if compared is None:
        return None
    for value in all_values(kind, listed_only=True):
        if len(value) > 2 and re.search(rf"(?<![\w-]){re.escape(value)}(?![\w-])", asked):
            return value if f"== {value!r}" not in compared.group(0) else None
    return None


def _name(quoted: str) -> str:
    """A column's name from its quoted form in the note ('' when it cannot be read)."""
    try:
        column = ast.literal_eval(quoted)
    except (ValueError, SyntaxError):
        return ""
    return column if isinstance(column, str) else ""


def focus_messages(messages: list[ChatMessage], question: str) -> list[ChatMessage]:
    """``messages`` with the run's question (a user message) shown with ``focused_note``."""
    shown = focused_note(question)
    if shown == question:
        return messages
    return [m.with_text(shown) if m.role == "user" and m.text == question else m for m in messages]
