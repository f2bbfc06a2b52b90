"""The rules on dates and times tested as text (see ``_rules``): dates written back as text
with ``.dt.strftime('%Y-%m-%d')`` and then searched for text no date written that way holds
(``.str.contains('Mar 2024')`` keeps no rows, and the 1.5B model re-runs it unchanged); dates
with month names searched, unread, for such text; times of day or dates written two ways
compared as text; a year the question limits rows to that the code never uses. A text test
is judged by writing every day of the years it names the way the column is written. And a
cell fix (``date_test_fix``): ``.str.contains('2024-03')`` failing on a column the cell read
with ``pd.to_datetime`` is re-run testing the dates' year and month."""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from codeact.agents._notecols import (
    column_ref,
    note_column_kinds,
    task_text,
    uses_column,
    without_comments,
)
from codeact.agents._problem import Problem, problem_of
from codeact.agents._unusedfix import repeatable_failure
from codeact.executors.base import ExecutionResult

#: ``df['Listed'] = df['Listed'].dt.strftime('%Y-%m-%d')``: a column written back in place.
_STRFTIME = re.compile(
    r"^[ \t]*(?P<f>\w+)\s*\[\s*(['\"])(?P<col>[^'\"\n]+)\2\s*\]\s*=\s*(?P=f)\s*\[\s*(['\"])"
    r"(?P=col)\4\s*\]\s*\.dt\.strftime\(\s*(['\"])(?P<fmt>[^'\"\n]+)\5\s*\)[ \t]*$",
    re.M,
)
DATE_TEST = (
    r"(?P<frame>\w+)\s*\[\s*(?P<q0>['\"]){col}(?P=q0)\s*\]\s*(?:\.str\.(?P<how>contains|"
    r"startswith|endswith)\(\s*(?P<q1>['\"])(?P<text>[^'\"\n]+)(?P=q1)(?P<args>\s*,[^()\n]*)?\s*\)"
    r"|==\s*(?P<q2>['\"])(?P<same>[^'\"\n]+)(?P=q2))"
)
_MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
_MONTH_NAMES = [m.lower() for m in calendar.month_name]  # ('' first: January is 1)
#: Characters that make ``str.contains``' text a regular expression rather than plain text.
_REGEX = re.compile(r"[.^$*+?{}\[\]\\|()]")


def _holds(fmt: str, how: str, text: str, args: str = "") -> bool:
    """Whether some day of the years ``text`` names (2024 when none), written with ``fmt``,
    passes the test ``how`` (``contains``: a regular expression unless ``regex=False``, in
    any case with ``case=False``; ``startswith``, ``endswith``, ``==``) with it."""
    years = {int(y) for y in re.findall(r"(?<!\d)(?:19|20)\d\d(?!\d)", text)} or {2024}
    flags = re.I if re.search(r"case\s*=\s*False", args) else 0
    plain = re.search(r"regex\s*=\s*False", args) is not None
    try:
        pattern = re.compile(re.escape(text) if plain else text, flags)
    except re.error:
        return True  # (a pattern this check cannot read: say nothing)
    tests: dict[str, Callable[[str], bool]] = {
        "contains": lambda shown: pattern.search(shown) is not None,
        "startswith": lambda shown: shown.startswith(text),
        "endswith": lambda shown: shown.endswith(text),
        "==": lambda shown: shown == text,
    }
    test = tests[how]
    for year in sorted(years):
        day = date(year, 1, 1)
        while day.year == year:
            try:
                shown = day.strftime(fmt)
            except ValueError:
                return True  # (a format this check cannot write: say nothing)
            if test(shown):
                return True
            day += timedelta(days=1)
    return False


def dates_mask(frame: str, column: str, text: str) -> str | None:
    """The test on the dates for the year (and month) ``text`` names (``'Mar 2024'``,
    ``'2024-03'``), or None."""
    year = re.search(r"(?<!\d)((?:19|20)\d\d)(?!\d)", text)
    month = next((i + 1 for i, m in enumerate(_MONTHS) if m in text.lower()), None)
    iso = re.fullmatch(r"\s*(?:19|20)\d\d-(0?[1-9]|1[0-2])-?\s*", text)
    month = int(iso.group(1)) if iso else month
    dates = f"{frame}[{column!r}].dt"
    if year is None or _REGEX.search(text):
        return None
    if month is None:  # (the year alone, or nothing the check can read)
        return f"({dates}.year == {year.group(1)})" if text.strip() == year.group(1) else None
    return f"(({dates}.year == {year.group(1)}) & ({dates}.month == {month}))"


def strftime_problem(question: str, code: str) -> Problem | None:
    """A column written back as text with ``.dt.strftime`` and then tested for text that no
    date written that way holds: the filter keeps no rows. When the text names a year (and a
    month), the fix leaves out the strftime line and tests the dates (``question`` is
    unused: the rule reads the code alone)."""
    del question
    for m in _STRFTIME.finditer(code):
        column, fmt = m.group("col"), m.group("fmt")
        test = re.compile(DATE_TEST.format(col=re.escape(column)))
        for t in test.finditer(code, m.end()):
            how, text = t.group("how") or "==", t.group("text") or t.group("same")
            if _holds(fmt, how, text, t.group("args") or ""):
                continue
            written = date(2024, 3, 5).strftime(fmt)
            fixed = None
            mask = dates_mask(t.group("frame"), column, text)
            read = re.search(rf"^[ \t]*{m.group('f')}\s*=\s*pd\.read_", code[: m.start()], re.M)
            if mask is not None and read is not None:  # (the frame read here: safe to redo)
                # (without the strftime line, every such test on the dates; not when the
                # text is used otherwise too: a month key 'YYYY-MM' to group by)
                same = t.group(0)
                after = code[m.end() :].replace(same, "\0")
                if not uses_column(after, column):
                    fixed = code[: m.start()] + after.replace("\0", mask)
            instead = (
                f"test the dates, e.g. {mask}" if mask else "test the dates (.dt.year, .dt.month)"
            )
            return problem_of(
                f"Your code writes {column!r} back as text with .dt.strftime({fmt!r}) (values "
                f"like {written!r}) and then looks for {text!r} in it, which no "
                "value written that way holds: the filter keeps no rows. Leave out the "
                f"strftime line and {instead}; run your code again, print the result, then "
                "answer.",
                fixed,
            )
    return None


#: A year the question limits rows to: "sold in 2024", "in March 2024", "the first quarter
#: of 2024", "during 2023" (not a year inside quotes, which shows how dates are written, nor
#: "out of 2000 customers").
_YEAR_LIMIT = re.compile(
    r"(?<!['\w])(?:(?:in|during|throughout)\s+(?:the\s+year\s+|(?:early|late|mid)\s+"
    r"|(?P<month>[A-Z][a-z]{2,8})\s+|Q[1-4]\s+)?|(?:quarter|half|months?|weeks?|end|start|"
    r"beginning|spring|summer|autumn|fall|winter)\s+of\s+)(?P<year>(?:19|20)\d\d)(?![\w'/-])(?!\s+(?:pounds|"
    r"dollars|euros|prices))"
)
#: A sentence saying what a file covers ("the export lists the sales made in 2024 only").
_COVERS = re.compile(
    r"\b(?:file|export|data|table|log|csv)\b.{0,40}\b(?:covers|lists|holds|has)\b|\bonly\b", re.I
)


def year_problem(question: str, code: str) -> str | None:
    """A year the question limits rows to (``sold in 2024``) that the code never uses: every
    year's rows are counted (comments in the code do not count)."""
    task = task_text(question)
    live = without_comments(code)
    for m in _YEAR_LIMIT.finditer(task):
        sentence = re.split(r"[.?!;]\s", task[: m.start()])[-1] + task[m.start() : m.end() + 8]
        year, month = m.group("year"), _month_number(m.group("month"))
        every = _all_in(question, year)  # (every date of the files is in that year: the
        if _COVERS.search(sentence) or (month is None and every):  # note says so; "in October
            continue  # 2023" then asks for the month alone: fresh22)
        if (year in live or every) and (month is None or _uses_month(live, month)):
            continue
        if year not in live and not every:
            return (
                f"The question limits the rows to {year} ({m.group(0).strip()!r}), but your "
                f"code never uses that year. Keep only those rows (for dates: "
                f"pd.to_datetime(...).dt.year == {year}), print the result, then answer."
            )
        return (  # (fresh17: "during May 2024" kept as .str.contains('2024'))
            f"The question limits the rows to {m.group('month')} {year} "
            f"({m.group(0).strip()!r}), but your code never uses that month: every month of "
            f"{year} counts. Keep only those rows (for dates: d = pd.to_datetime(...); "
            f"(d.dt.year == {year}) & (d.dt.month == {month})), print the result, then answer."
        )
    return None


def _all_in(question: str, year: str) -> bool:
    """Whether the files note says every date of the first date column (the records' own:
    a batch's Brew Date before its Packaged) is in ``year``: a question's "in 2023" then
    leaves no row out."""
    dates = [kind for _name, kind in note_column_kinds(question) if "date" in kind]
    return bool(dates) and f", all in {year}, " in dates[0]


def _month_number(name: str | None) -> int | None:
    """The number of a month's name or short name (``'May'``: 5), or None for another word."""
    low = (name or "").lower()
    found = [i for i in range(1, 13) if low in (_MONTH_NAMES[i], _MONTHS[i - 1])]
    return found[0] if found else None


def _uses_month(live: str, number: int) -> bool:
    """Whether ``live`` code names the month: its name or short name as a word, or its
    number on its own (``== 5``, ``'2024-05'``, ``'/05/'``)."""
    words = rf"\b(?:{_MONTHS[number - 1]}|{_MONTH_NAMES[number]})\b"
    live = re.sub(r"\.replace\(\s*\{[^{}\n]*\}", "", live)  # (month names put in English)
    return bool(re.search(words, live, re.I) or re.search(rf"(?<![\d.])0?{number}(?![\d.])", live))


_READ_AS = re.compile(
    r"(?:times of day as text|dates as text written two ways)(?:[^:']|'[^']*')*: "
    r"(.*?)(?:, e\.g\. |$)"
)


def clock_text_problem(question: str, code: str) -> Problem | None:
    """A column the files note shows as times of day, or as dates written two ways, tested
    as text by code that never reads it (``df['Delivered'] > '18:00'`` puts ``'9:05 am'``
    after six; ``.str.contains('3 Mar 2024')`` misses ``'2024-03-03'``)."""
    for name, kind in note_column_kinds(question):
        m = _READ_AS.search(kind)
        if m is None or re.search(r"to_datetime|to_timedelta|strptime", code):
            continue
        column = column_ref(name)
        tested = (
            rf"{column}\s*(?:[<>]=?\s*['\"]|==\s*['\"]|\.str\.(?:contains|startswith|endswith)\()"
        )
        if re.search(tested, code):
            what = "times of day" if kind.find("times of day") >= 0 else "dates written two ways"
            fixed, compared = (
                _clock_fix(code, name, m.group(1)) if what == "times of day" else ("", "")
            )
            return problem_of(
                f"The column {name!r} holds {what} (see the files note): tested as text it "
                f"compares characters, not times, and misses the other forms. Read it first: "
                f"{m.group(1)}; then compare those values{compared}, print the result, then "
                "answer.",
                fixed or None,
            )
    return None


_CLOCK = re.compile(r"\s*(\d{1,2}):(\d\d)(?::(\d\d))?\s*(?:([ap])\.?m\.?)?\s*", re.I)


def _clock_fix(code: str, name: str, reading: str) -> tuple[str, str]:
    """``code`` with the note's reading of the times of day in column ``name`` put before the
    first line comparing them as text, and each comparison with a time (``df['Delivered'] >
    '18:00'``) made on minutes since midnight (``minutes > 1080``); and those comparisons, to
    name in the note. Empty when the code compares otherwise, on several frames, inside a
    block, or already has a ``t`` or ``minutes``."""
    compare = rf"(?P<f>\w+)\s*\[\s*(['\"]){re.escape(name)}\2\s*\]\s*(?P<op>[<>]=?|==)\s*"
    found = list(re.finditer(compare + r"(['\"])(?P<time>[^'\"\n]+)\4", code))
    frames = {f.group("f") for f in found}
    if len(frames) != 1 or re.search(r"^\s*(?:t|minutes)\s*=[^=]", code, re.M):
        return "", ""
    frame, said = frames.pop(), {}
    for f in found:
        clock = _CLOCK.fullmatch(f.group("time"))
        if clock is None:
            return "", ""
        hour, minute, second, half = clock.groups()
        hours = int(hour) % 12 + (12 if half.lower() == "p" else 0) if half else int(hour)
        value = hours * 60 + int(minute) + int(second or 0) / 60
        said[f.group(0)] = f"minutes {f.group('op')} {value:g}"
    lines = code.splitlines()
    first = next(i for i, ln in enumerate(lines) if any(t in ln for t in said))
    parts = [p.strip().replace("minutes since midnight =", "minutes =") for p in reading.split(";")]
    if lines[first][:1].isspace() or not all(re.match(r"\w+ = ", p) for p in parts):
        return "", ""
    lines[first:first] = [p.replace("df[", f"{frame}[") for p in parts]
    fixed = "\n".join(lines)
    for text, instead in said.items():
        fixed = fixed.replace(text, instead)
    shown = ", ".join(f"{instead} for {text}" for text, instead in said.items())
    return fixed, f" ({shown})"


#: How dates may be written (``%-d``: the day without a leading zero).
_FORMATS: tuple[str, ...] = ("%b %-d, %Y", "%B %-d, %Y", "%-d %b %Y", "%-d %B %Y", "%d %b %Y")
_FORMATS += ("%d-%b-%Y", "%m/%d/%Y", "%d/%m/%Y", "%-m/%-d/%Y", "%-d/%-m/%Y", "%Y-%m-%d")
_FORMATS += ("%d-%m-%Y", "%m-%d-%Y", "%d.%m.%Y", "%m.%d.%Y")  # (fresh17: '05-03-2024')
_WRITTEN_DATES = re.compile(
    r"(dates (?:with month names )?as text[^:]*): (pd\.to_datetime\(.*?\))(?:, e\.g\. (.*)|$)"
)


def formats_of(examples: list[str]) -> list[str]:
    """The formats of ``_FORMATS`` that write every example exactly as it is written."""
    out = []
    for fmt in _FORMATS:
        plain = fmt.replace("%-", "%")
        try:
            if all(datetime.strptime(e, plain).strftime(fmt) == e for e in examples):
                out.append(fmt)
        except ValueError:
            continue
    return out


def date_text_problem(question: str, code: str) -> str | None:
    """A column of dates written as text (``'Mar 5, 2024'``) tested, unread, for text no
    date written that way holds (``.str.contains('Mar 2024')``: 0 rows): found by writing
    every day of the years the text names the way the note's examples are written."""
    if "to_datetime" in code:
        return None
    for name, kind in note_column_kinds(question):
        m = _WRITTEN_DATES.search(kind)
        if m is None or not m.group(3):
            continue
        examples = re.findall(r"'([^'\n]+)'", m.group(3))
        formats = formats_of(examples)
        test = re.compile(DATE_TEST.format(col=re.escape(name)))
        for t in test.finditer(code):
            how, text = t.group("how") or "==", t.group("text") or t.group("same")
            if not formats or any(_holds(f, how, text, t.group("args") or "") for f in formats):
                continue
            mask = dates_mask("df", name, text) or "df[...].dt.year, .dt.month"
            return (
                f"The column {name!r} holds dates written like {examples[0]!r}: no "
                f"value holds {text!r}, so the filter keeps no rows. Read them as dates with "
                f"{m.group(2)}, then test the dates ({mask}); run your code again, print the "
                "result, then answer."
            )
    return None


@dataclass(frozen=True)
class DateTestFix:
    """A failed cell whose text test on a column it has read as dates (``df['Date'] =
    pd.to_datetime(...)`` then ``df['Date'].str.contains('2024-03')``) becomes the test on
    the dates."""

    code: str
    test: str
    mask: str

    def note(self) -> str:
        """What the model (and the transcript) is told about the re-run."""
        return (
            "Your cell failed: .str applies only to text, and that column holds dates after "
            f"pd.to_datetime. I re-ran your cell with {self.mask} in place of {self.test}: "
            "test dates with .dt.year and .dt.month. Output of the re-run:"
        )


def date_test_fix(result: ExecutionResult, code: str) -> DateTestFix | None:
    """The cell with its failing line's text test on dates replaced by the test on the dates,
    when ``.str`` failed on a column the cell itself read with ``pd.to_datetime``, the text
    names a year and month (or a year alone) and what ran before the line can run again."""
    error = result.error
    if error is None or "Can only use .str accessor" not in error.message:
        return None
    failing = repeatable_failure(code, error.traceback)
    if failing is None:
        return None
    number, lines = failing
    line = lines[number - 1]
    for t in re.finditer(DATE_TEST.format(col=r"(?P<col>[^'\"\n]+)"), line):
        frame, column, how = t.group("frame"), t.group("col"), t.group("how")
        converted = (
            rf"^[ \t]*{frame}\s*\[\s*(['\"]){re.escape(column)}\1\s*\]\s*=\s*pd\.to_datetime\("
        )
        if how not in ("contains", "startswith") or t.group("args"):
            continue
        mask = dates_mask(frame, column, t.group("text"))
        if mask is None or not re.search(converted, "\n".join(lines[: number - 1]), re.M):
            continue
        lines[number - 1] = line.replace(t.group(0), mask)
        return DateTestFix(code="\n".join(lines), test=t.group(0), mask=mask)
    return None
