"""Dates written day or month first (``15/03/2019``) or with month names (``17 Sep 2017``)
used as text by code that never reads them as dates (``text_date_problem``, split from
``_rules``): compared, sorted or matched such text gives wrong results, unless every use is
a text test that keeps exactly one month or one year of dates all written one way
(``.str.contains('05/2024')`` on ``'01/05/2024 08:09'``: May 2024, right as it is)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta

from codeact.agents._datetext import DATE_TEST, dates_mask, formats_of
from codeact.agents._notecols import (
    column_read,
    column_ref,
    insert_after,
    note_column_kinds,
    unlisted,
    uses_column,
)
from codeact.agents._problem import Problem, problem_of
from codeact.agents._unusedfix import repeatable_failure
from codeact.executors.base import ExecutionResult

_DATE_ORDER = re.compile(
    r"dates as text(?: written (?:two|three) ways \([^)]*\))?, (day|month|year) first: "
    r"(pd\.to_datetime\(.*?\))(?:, e\.g\.|$)"
)
_NAMED_DATES = re.compile(r"dates with month names as text: (pd\.to_datetime\(.*?\))(?:, e\.g\.|$)")


def _ordered(code: str, name: str) -> bool:
    """Whether ``code`` orders the text of column ``name``: compares it with ``<``/``>``,
    takes its min or max, sorts by it."""
    quoted = re.escape(name)
    column = rf"\[\s*(['\"]){quoted}\1\s*\]"
    uses = (
        rf"{column}\s*(?:[<>]|\.\s*(?:min|max|idxmin|idxmax|sort_values|rank|nsmallest"
        rf"|nlargest)\b)|sort_values\(\s*(?:by\s*=\s*)?\[?\s*(['\"]){quoted}\2"
    )
    return re.search(uses, code) is not None


def text_date_problem(question: str, code: str) -> Problem | None:
    """A column the files note flags as dates written day or month first (``15/03/2019``) or
    with month names (``17 Sep 2017``), used by code that never reads it as dates (or, day
    first, without ``dayfirst=True``): comparing, matching or taking the min of such text
    (``< '2018-01-01'``, ``.str.contains('03/')``, ``.min()``) is wrong."""
    listed = unlisted(code)  # (a column listed with others is not compared)
    for name, kind in note_column_kinds(question):
        m = _DATE_ORDER.search(kind)
        named = _NAMED_DATES.search(kind)
        empty = rf"\[\s*(['\"]){re.escape(name)}\1\s*\]\s*\.\s*(?:isna|notna|isnull|notnull)\(\)"
        if (m is None and named is None) or not uses_column(re.sub(empty, "", listed), name):
            continue  # (nor one whose only use is finding its empty values)
        converted = re.search(r"to_datetime|parse_dates", code)
        if named is not None:
            if converted or re.search(r"strptime|dateutil|\bparse\(", code):
                continue
            if not _ordered(code, name):
                continue  # (printed, counted or matched whole: the text is fine)
            written, read = "with month names", named.group(1)
        else:
            assert m is not None
            if re.sub(r"\s+", "", m.group(2)) in re.sub(r"\s+", "", code):
                continue  # (read as the note says: fresh17, '3 Jan 2024' beside '04-01-2024')
            if _read_each_way(m.group(2), code):
                continue  # (each of the note's formats read, in any order or frame: fresh19)
            # (one format for both forms: the others become NaT or fail; day first, the
            # ISO dates need their own format: dayfirst=True reads '2024-01-02' as 1 February)
            iso = m.group(1) == "month" or re.search(r"ISO8601|%Y-%m-%d", code)
            several = re.search(r"written (?:two|three) ways", kind) is not None
            if several and not (re.search(r"format\s*=\s*['\"]mixed", code) and iso):
                converted = None
            if converted and (
                m.group(1) == "month"
                or re.search(r"dayfirst\s*=\s*True|format\s*=\s*['\"]%d", code)
            ):
                continue
            if not several and _period_tests_only(code, name, kind):
                continue  # ("05/2024" in dates all written '01/05/2024 08:09': May 2024)
            written, read = f"{m.group(1)} first", m.group(2)
        return problem_of(
            f"The column {name!r} holds dates written {written} (see the files note): "
            f"compared, sorted or matched as text they give wrong results. Read them as dates "
            f"with {read}, then filter or group on the dates (.dt.year, .dt.month, or a "
            "comparison with pd.Timestamp('2018-01-01')); run your code again, print the "
            "result, then answer.",
            _reread(code, name, read) or _retest(question, code, name, read),
        )
    return None


def _read_each_way(read: str, code: str) -> bool:
    """Whether ``code`` reads dates of the formats the note's ``read`` names (two or three)
    with each of them, or with ``format='mixed'`` when no format has the day and the month
    both as numbers (year first, or a month name: pandas reads each value right)."""
    formats = re.findall(r"format='([^']+)'", read)
    if len(formats) < 2:
        return False
    if all(re.search(rf"['\"]{re.escape(f)}['\"]", code) for f in formats):
        return True
    clear = all(f.startswith("%Y") or "%b" in f or "%B" in f for f in formats)
    return clear and re.search(r"format\s*=\s*['\"]mixed", code) is not None


def _retest(question: str, code: str, name: str, read: str) -> str | None:
    """``code`` with column ``name`` read as dates right after its file's read and each of
    its text tests for a year or month (``.str.contains('2024-06')``, which misses
    '05.06.2024') made the test on the dates; None when a use of the column is anything
    else or a test names no year and month (fresh16: June's trees, 61 for 114)."""
    tests = list(re.finditer(DATE_TEST.format(col=re.escape(name)), code))
    if not tests or len(tests) != len(re.findall(column_ref(name), code)):
        return None
    found = column_read(question, code.splitlines(), name)
    if found is None:
        return None
    for t in reversed(tests):
        mask = dates_mask(t.group("frame"), name, t.group("text") or "")
        if mask is None or t.group("how") is None:
            return None
        code = code[: t.start()] + mask + code[t.end() :]
    at, frame = found
    return insert_after(code, at, f"{frame}[{name!r}] = {read.replace('df[', f'{frame}[')}")


def _reread(code: str, name: str, read: str) -> str | None:
    """``code`` with its lines reading column ``name`` as dates the wrong way (``df['d'] =
    pd.to_datetime(df['d'], errors='coerce')`` for dates written two ways, day first) made
    the note's reading ``read``, or None when it has no such line."""
    quoted = rf"\s*\[\s*(['\"]){re.escape(name)}\2\s*\]"
    line = re.compile(
        rf"^(\w+){quoted}\s*=\s*pd\.to_datetime\(\s*\1\s*\[\s*(['\"])"
        rf"{re.escape(name)}\3\s*\][^()\n]*\)\s*$",
        re.M,
    )
    found = list(line.finditer(code))
    for m in reversed(found):
        frame = m.group(1)
        made = f"{frame}[{name!r}] = {read.replace('df[', f'{frame}[')}"
        code = code[: m.start()] + made + code[m.end() :]
    return code if found else None


def _period_tests_only(code: str, name: str, kind: str) -> bool:
    """Whether every use of column ``name`` is a text test (``.str.contains('05/2024')``)
    that keeps exactly the days of one month or one year of dates written one way (the
    note's examples, their time of day aside)."""
    examples = [e.split(" ")[0] for e in re.findall(r"'([^'\n]+)'", kind.split("e.g.")[-1])]
    first = "d" if "day first" in kind else "m"
    formats = [  # (the examples may fit both orders: the note says which comes first)
        f for f in (formats_of(examples) if examples else []) if f.replace("-", "")[1] == first
    ]
    tests = list(re.finditer(DATE_TEST.format(col=re.escape(name)), code))
    if len(formats) != 1 or not tests or len(tests) != len(re.findall(column_ref(name), code)):
        return False
    timed = any(" " in e for e in re.findall(r"'([^'\n]+)'", kind.split("e.g.")[-1]))
    for t in tests:
        how, text = t.group("how") or "==", t.group("text") or t.group("same")
        if timed and (how in ("endswith", "==") or text.endswith("$")):
            return False  # (the values end with their time of day, not with the date)
        years = {int(y) for y in re.findall(r"(?<!\d)(?:19|20)\d\d(?!\d)", text)}
        if len(years) != 1 or not _whole_period(formats[0], how, text, years.pop()):
            return False
    return True


def _whole_period(fmt: str, how: str, text: str, year: int) -> bool:
    """Whether the days of ``year`` written with ``fmt`` that pass the test are exactly one
    month or the whole year."""
    kept, day = [], date(year, 1, 1)
    while day.year == year:
        if _holds_day(fmt, how, text, day):
            kept.append(day)
        day += timedelta(days=1)
    if not kept:
        return False
    months = {d.month for d in kept}
    whole_month = len(months) == 1 and len(kept) == _days_in(year, kept[0].month)
    return whole_month or len(kept) == (date(year + 1, 1, 1) - date(year, 1, 1)).days


def _holds_day(fmt: str, how: str, text: str, day: date) -> bool:
    shown = day.strftime(fmt)
    if how == "contains":
        try:
            return re.search(text, shown) is not None
        except re.error:
            return False
    return {"startswith": shown.startswith, "endswith": shown.endswith}.get(how, shown.__eq__)(text)


def _days_in(year: int, month: int) -> int:
    after = date(year + (month == 12), month % 12 + 1, 1)
    return (after - date(year, month, 1)).days


#: What pandas says when one reading of dates meets a date written another way.
_MISREAD = re.compile(
    r"doesn't match format|Unknown datetime string format|unconverted data remains|"
    r"day is out of range for month|month must be in 1\.\.12"
)


@dataclass(frozen=True)
class RereadFix:
    """A failed cell re-run with its reading of a column of dates made the note's."""

    code: str
    name: str
    read: str

    def note(self) -> str:
        """What the model (and the transcript) is told about the re-run."""
        return (
            f"Your cell failed: {self.name!r} holds dates written more than one way, and one "
            f"reading cannot read them all. I re-ran your cell reading it with {self.read} (the "
            "files note's reading); read it that way yourself from now on. Output of the re-run:"
        )


def reread_fix(question: str, result: ExecutionResult, code: str) -> RereadFix | None:
    """The cell with its failing ``df['d'] = pd.to_datetime(df['d'], ...)`` line made the
    files note's reading of that column, when it failed reading a date written another way
    and what ran before can run again (fresh16: ``dayfirst=True`` on '2024-03-09' and
    '05.03.2024')."""
    error = result.error
    if error is None or not _MISREAD.search(error.message):
        return None
    failing = repeatable_failure(code, error.traceback)
    if failing is None:
        return None
    number, lines = failing
    for name, kind in note_column_kinds(question):
        m = _DATE_ORDER.search(kind)
        fixed = _reread(lines[number - 1], name, m.group(2)) if m else None
        if m is not None and fixed is not None:
            lines[number - 1] = fixed
            return RereadFix(code="\n".join(lines), name=name, read=m.group(2))
    return None
