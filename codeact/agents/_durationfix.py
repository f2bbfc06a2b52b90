"""Durations between dates, where the 1.5B model slips (fresh15: "a booking's lead time is the
number of days from the date of its booked_on to its Check-In", booked_on a date and a time of
day):

- ``df['lead'].mean().round(2)`` on durations fails ("Argument 'freq' has incorrect type"):
  a Timedelta's ``round`` takes a frequency, and the model then drops the duration altogether.
  The cell is re-run with the duration in days (hours, minutes as the question asks) before
  the rounding (``timedelta_round_fix``).
- Subtracting the timestamp as it is counts from its time of day: ``.dt.days`` floors, so a
  booking made at 21:45 is a day short. When the question counts from the *date* of such a
  column and the code never takes its date, the cell is sent back with that column's date
  made right after the read (``date_of_problem``)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from codeact.agents._notecols import (
    column_read,
    insert_after,
    note_column_kinds,
    task_text,
)
from codeact.agents._problem import Problem, problem_of
from codeact.agents._unusedfix import repeatable_failure
from codeact.executors.base import ExecutionResult

#: What pandas says when a duration is rounded to decimals (``Timedelta.round(2)``,
#: ``round(timedelta, 2)``).
_ROUND_ERROR = re.compile(
    r"Argument 'freq' has incorrect type \(expected str, got int\)|"
    r"type Timedelta doesn't define __round__ method"
)
_METHOD_ROUND = re.compile(r"\.round\(\s*(\d+)\s*\)")
_BUILTIN_ROUND = re.compile(r"(?<![\w.])round\(")
_UNITS = (("hour", "hours"), ("minute", "minutes"), ("second", "seconds"), ("week", "weeks"))


def _unit(question: str) -> str:
    """The unit the question asks a duration in (its format line first): days unless it
    says hours, minutes, seconds or weeks (plural: "the second decimal place" is no unit)."""
    asked = re.search(r"^Format:.*$", question, re.M)
    for text in (asked.group(0) if asked else "", task_text(question)):
        text = re.sub(r"\b(?:first|second|third)\s+decimal\b", "", text, flags=re.I)
        for word, unit in _UNITS:
            if re.search(rf"\b{word}s\b", text, re.I) and not re.search(r"\bdays\b", text, re.I):
                return unit
        if re.search(r"\bdays?\b", text, re.I):
            return "days"
    return "days"


def _start_of(line: str, end: int) -> int:
    """Where the expression ending at ``end`` starts (names, dots, calls and subscripts)."""
    i = end
    while i > 0:
        c = line[i - 1]
        if c in ")]":
            depth, i = 0, i - 1
            while i >= 0:
                depth += {")": 1, "]": 1, "(": -1, "[": -1}.get(line[i], 0)
                if depth == 0:
                    break
                i -= 1
            if i < 0:
                return end
        elif not (c.isalnum() or c in "_."):
            break
        else:
            i -= 1
    return i


def _closing(line: str, start: int) -> int | None:
    """The index of the bracket closing the one opened just before ``start``."""
    depth = 1
    for i in range(start, len(line)):
        depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(line[i], 0)
        if depth == 0:
            return i
    return None


def in_unit(line: str, unit: str) -> str:
    """``line`` with each duration rounded to decimals made a number of ``unit`` first:
    ``x.mean().round(2)`` and ``round(x.mean(), 2)`` → ``round(x.mean() / pd.Timedelta(days=1),
    2)`` (a duration divided by one is a float, which has no ``.round``)."""
    per = f" / pd.Timedelta({unit}=1)"
    for m in reversed(list(_BUILTIN_ROUND.finditer(line))):
        close = _closing(line, m.end())
        comma = line.rfind(",", m.end(), close) if close is not None else -1
        inside = line[m.end() : comma]
        if close is None or comma < 0 or inside.count("(") != inside.count(")"):
            continue
        line = f"{line[:comma]}{per}{line[comma:]}"
    out, last = [], 0
    for m in _METHOD_ROUND.finditer(line):
        start = _start_of(line, m.start())
        if start >= m.start() or start < last:
            continue
        out += [line[last:start], f"round({line[start : m.start()]}{per}, {m.group(1)})"]
        last = m.end()
    line = "".join([*out, line[last:]])
    return line


@dataclass(frozen=True)
class TimedeltaRoundFix:
    """A failed cell re-run with its duration made a number of ``unit`` before rounding."""

    code: str
    unit: str

    def note(self) -> str:
        """What the model (and the transcript) is told about the re-run."""
        return (
            "Your cell failed: a duration (Timedelta) cannot be rounded to decimals. I re-ran "
            f"your cell with the duration in {self.unit} first (duration / "
            f"pd.Timedelta({self.unit}=1)). Output of the re-run:"
        )


def timedelta_round_fix(
    question: str, result: ExecutionResult, code: str
) -> TimedeltaRoundFix | None:
    """The cell with the failing line's rounded durations made numbers of the asked unit,
    when that line is what failed and what ran before can run again."""
    error = result.error
    if error is None or not _ROUND_ERROR.search(error.message) or "as pd" not in code:
        return None
    failing = repeatable_failure(code, error.traceback)
    if failing is None:
        return None
    number, lines = failing
    unit = _unit(question)
    rounds = _METHOD_ROUND.findall(lines[number - 1]) + _BUILTIN_ROUND.findall(lines[number - 1])
    if len(rounds) != 1:
        return None  # (which of several roundings holds the duration is not known here)
    fixed = in_unit(lines[number - 1], unit)
    if fixed == lines[number - 1]:
        return None
    lines[number - 1] = fixed
    return TimedeltaRoundFix(code="\n".join(lines), unit=unit)


#: A date with a time of day as the files note shows the column's values.
_WITH_TIME = re.compile(r"'\d{1,4}[-./]\d{1,2}[-./]\d{1,4}[ T]\d{1,2}:\d{2}")
#: Code that takes the date of a timestamp.
_DATE_TAKEN = re.compile(
    r"\.normalize\(\)|\.dt\.date\b|\.date\(\)|\.floor\(\s*(?:freq\s*=\s*)?['\"]1?D|"
    r"\.str\[\s*0?\s*:\s*10\s*\]|\.str\.slice\(\s*(?:0\s*)?,\s*10|\.str\.split\(|"
    r"\.dt\.to_period\(\s*['\"]D|format\s*=\s*['\"]%Y-%m-%d['\"]|strftime\(\s*['\"]%Y-%m-%d['\"]",
    re.I,
)
#: The files note's conversion of a column of dates.
_READ_AS = re.compile(r"(pd\.to_datetime\(df\[.*?\))(?:, e\.g\.|$)")
#: Code working with durations between dates.
_DURATION = re.compile(r"\.dt\.days\b|\.days\b|Timedelta|total_seconds|timedelta64")


def _subtracted(code: str, name: str) -> bool:
    """Whether column ``name`` (or a name set from it) is on a line that subtracts: the
    duration counts from it, rather than the column only picking rows."""
    refs = [re.escape(name), re.escape(name.strip())]
    read = rf"^\s*(\w+)\s*=\s*pd\.to_datetime\(\s*\w+\s*\[\s*['\"](?:{'|'.join(refs)})['\"]"
    names = {m.group(1) for m in re.finditer(read, code, re.M)}  # (booked = pd.to_datetime(..))
    used = [
        rf"['\"](?:{'|'.join(refs)})['\"]",
        *(rf"\b{re.escape(n)}\b" for n in names if n != "df"),
    ]
    subtracting = [ln for ln in code.splitlines() if re.search(r"[\w\])]\s*-\s*[\w(]", ln)]
    return any(re.search(u, ln) for u in used for ln in subtracting)


def date_of_problem(question: str, code: str) -> Problem | None:
    """A duration the question counts from the date of a column that holds a date and a time
    of day ("the number of days from the date of its booked_on"), computed by code that never
    takes that date: ``.dt.days`` of the difference is a day short for late times."""
    task = task_text(question)
    if not _DURATION.search(code) or _DATE_TAKEN.search(code):
        return None
    for name, kind in note_column_kinds(question):
        said = re.escape(name.strip())
        if not _WITH_TIME.search(kind) or not _subtracted(code, name):
            continue
        if not re.search(
            rf"\b(?:date|day)\s+of\s+(?:(?:its|the|each|their|a)\s+)?'?{said}\b", task
        ):
            continue
        found = column_read(question, code.splitlines(), name)
        read = _READ_AS.search(kind)
        example = f"{read.group(1) if read else f'pd.to_datetime(df[{name!r}])'}.dt.normalize()"
        fixed = None
        if found is not None:
            at, frame = found
            column = f"{frame}[{name!r}]"
            lines = code.splitlines()
            # after the cell's own reading of the column (its day and month order), else
            # after the read with the note's
            own = re.compile(
                rf"^{re.escape(frame)}\s*\[\s*(['\"]){re.escape(name)}\1\s*\]\s*=.*to_datetime\("
            )
            converted = [i for i, ln in enumerate(lines) if own.match(ln)]
            if converted:
                at, made = converted[-1], f"{column} = {column}.dt.normalize()"
            else:
                made = f"{column} = {example.replace('df[', f'{frame}[')}"
            fixed = insert_after(code, at, made)
        return problem_of(
            f"The question counts from the date of {name.strip()!r}, and {name!r} holds a date "
            "and a time of day: subtracting it as it is counts from that time, so .dt.days is a "
            "day short whenever the time is later in the day. Take its date first, e.g. "
            f"df[{name!r}] = {example}; run your code again, "
            "print the result, then answer.",
            fixed,
        )
    return None
