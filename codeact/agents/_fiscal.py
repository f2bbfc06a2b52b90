"""Quarters of a fiscal year that does not start in January (fresh21, an Indian dealership:
"Q1 (April to June 2023), ..., Q4 (January to March 2024)"). ``.dt.quarter`` and
``to_period('Q')`` give calendar quarters, so October is Q4 where the question calls it Q3.
The rule sends such code back; the runnable code reads quarters of the year ending the month
before the question's Q1 starts (``to_period('Q-MAR')``: April is Q1)."""

from __future__ import annotations

import re

from codeact.agents._notecols import task_text
from codeact.agents._problem import Problem, problem_of

#: "Q1 (April to June 2023)", "Q1 is July to September", "Q1: October-December".
_FISCAL_Q1 = re.compile(r"\bQ1\b[\s(:=]{0,5}(?:is\s+)?(April|July|October)\b", re.I)
#: The month a fiscal year ends in, by the month its first quarter starts in.
_YEAR_END = {"april": "MAR", "july": "JUN", "october": "SEP"}
_CALENDAR = re.compile(r"\.dt\.quarter\b|to_period\(\s*(['\"])Q\1\s*\)")
#: Code that shifts calendar quarters or months itself (``(q - 2) % 4 + 1``, a ``.map`` of
#: quarters, ``(month - 4) % 12``): it may well compute the fiscal quarter.
_SHIFTED = re.compile(r"quarter\b\)?\s*(?:[-+%]|\.map\(|\.replace\()|%\s*(?:4|12)\b")


def fiscal_quarter_problem(question: str, code: str) -> Problem | None:
    """The question's quarters start in April (July, October), and the code takes calendar
    quarters (``.dt.quarter`` or ``to_period('Q')``) without a fiscal year's end and without
    shifting them itself; the runnable code only for ``.dt.quarter`` of dates."""
    found = _FISCAL_Q1.search(task_text(question))
    if found is None:
        return None
    end = _YEAR_END[found.group(1).lower()]
    if f"Q-{end}" in code.upper() or not _CALENDAR.search(code) or _SHIFTED.search(code):
        return None
    period = f"to_period('Q-{end}')"
    fixed: str | None = None  # (runnable only where quarters are taken of dates, as numbers)
    quarters = r"to_period\(\s*(['\"])Q\1\s*\)(?=\.dt\.quarter\b)"
    periods = len(re.findall(r"to_period\(", code))
    if periods and periods == len(re.findall(quarters, code)):  # (d.dt.to_period('Q').dt.quarter)
        fixed = re.sub(quarters, period, code)
    elif not periods and re.search(r"\.dt\.quarter\b", code):
        fixed = re.sub(r"\.dt\.quarter\b", f".dt.{period}.dt.quarter", code)
    return problem_of(
        f"The question's quarters start in {found.group(1).capitalize()} (its Q1), but "
        ".dt.quarter and to_period('Q') count calendar quarters from January. Take the "
        f"fiscal quarter: dates.dt.{period}.dt.quarter ({found.group(1).capitalize()} is 1); "
        "print the result, then answer.",
        fixed,
    )
