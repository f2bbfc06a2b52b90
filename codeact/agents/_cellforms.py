"""More ways an export writes a column, for the files note (``codeact.agents._filenote``):
dates with month names (``17 Sep 2017``), several values in one cell (``2x Margherita; 1x
Cola``) and one value spelled several ways (``Uber Eats``, ``UberEats``, ``uber eats ``).
Each comes with the pandas call that reads it; the small model otherwise compares the text
as written, or parses it by hand."""

from __future__ import annotations

import re
from collections.abc import Callable

from codeact.agents._colvalues import lead_cut, prefix_word

_MONTHS = "january february march april may june july august september october november december"
_NAMES = "|".join(
    sorted(
        {n for m in _MONTHS.split() for n in (m, m[:3], m[:3] + ".", "sept", "sept.")},
        key=len,
        reverse=True,
    )
)
_MONTH = rf"(?:{_NAMES})"
#: ``17 Sep 2017``, ``17-Sep-2017``, ``17 September 2017``: the day first.
_DAY_MONTH = re.compile(rf"^\d{{1,2}}[ -]{_MONTH}[ ,-]*\d{{4}}$", re.I)
#: ``Sep 17, 2017``, ``September 17 2017``: the month first.
_MONTH_DAY = re.compile(rf"^{_MONTH} \d{{1,2}},? \d{{4}}$", re.I)
_ISO_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_NUMERIC_DAY = re.compile(r"^(\d{1,2})([/.-])(\d{1,2})\2\d{4}$")
_SHORT = "(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)"
#: The two forms read with one ``format``: ``17 Sep 2017`` and ``17-Sep-2017``.
_EXACT = {
    "%d %b %Y": re.compile(rf"^\d{{1,2}} {_SHORT} \d{{4}}$", re.I),
    "%d-%b-%Y": re.compile(rf"^\d{{1,2}}-{_SHORT}-\d{{4}}$", re.I),
}
#: One value of a list cell written as a quantity and a name (``2x Margherita``, ``3 x Tea``).
_QUANTITY = re.compile(r"^\d+\s?[xX]\s?[^\W\d_]")
_COUNT = re.compile(r"^\d+\s?[xX]\s?")
LIST_SEPARATORS = ("; ", ";", " | ", "|")
LIST_SCAN = 2_000
#: Spaces, hyphens and underscores between two letters (``Uber Eats``, ``Take-away``), and
#: spaces between a letter and a digit (a code ``'L 12'``); a sign (``-1``), a grade's ``A-``
#: or ``'3-D'`` stays.
SQUEEZE_PATTERN = r"(?<=[a-z])[\s_-]+(?=[a-z])|(?<=[a-z])\s+(?=\d)"
_SQUEEZE = re.compile(SQUEEZE_PATTERN)


def is_named_date(value: str) -> bool:
    """Whether ``value`` is a date written with its month's name (``3 Jan 2024``)."""
    return bool(_DAY_MONTH.match(value) or _MONTH_DAY.match(value))


def month_name_dates(present: list[str], name: str) -> str:
    """The hint for a column of dates written with month names (``present``: its values as
    written), or ``""``: the ``format`` when every value is written one of two common ways,
    else pandas' per-value parsing (``'mixed'``), which reads the rest; that too for month
    names mixed with ISO dates (``'1 Jan 2024'`` and ``'2024-01-02'``)."""
    values = [v.strip() for v in present]
    named = [v for v in values if _DAY_MONTH.match(v) or _MONTH_DAY.match(v)]
    iso = [v for v in values if _ISO_DAY.match(v)]
    if named and iso and len(named) + len(iso) == len(values):  # ('2024-03-05', '5 Mar 2024')
        return (
            f"dates as text written two ways ({iso[0]!r} and {named[0]!r}): "
            f"pd.to_datetime(df[{name!r}], format='mixed')"
        )
    numeric = [(m.group(1), m.group(3)) for v in values if (m := _NUMERIC_DAY.match(v))]
    if named and numeric and len(named) + len(numeric) == len(values):  # ('3 Jan', '04-01')
        told = any(int(a) > 12 or int(b) > 12 for a, b in numeric)
        us = all(_MONTH_DAY.match(v) for v in named)  # (untold: as the names, 'Jan 3, 2024')
        month_first = all(int(a) <= 12 for a, _ in numeric) if told else us
        order = "month first" if month_first else "day first"
        return (
            f"dates as text written two ways ({named[0]!r} and "
            f"{next(v for v in values if _NUMERIC_DAY.match(v))!r}), {order}: "
            f"pd.to_datetime(df[{name!r}], format='mixed'{', dayfirst=True' * (not month_first)})"
        )
    if len(named) != len(values):
        return ""
    forms = [f for f, exact in _EXACT.items() if all(exact.match(v) for v in present)]
    form = forms[0] if forms else "mixed"
    return f"dates with month names as text: pd.to_datetime(df[{name!r}], format={form!r})"


def list_cells(values: list[str], name: str) -> str:
    """The hint for a column holding several values per cell (``'vpn; remote'``), or ``""``:
    how to get one row per value, and, when each value is a quantity and a name
    (``'2x Margherita'``), how to split the two."""
    values = values[:LIST_SCAN]
    for sep in LIST_SEPARATORS:
        several = [v for v in values if sep in v]
        if len(several) * 5 < len(values) or not several:
            continue
        parts = [p.strip() for v in several for p in v.split(sep.strip()) if p.strip()]
        names = {_COUNT.sub("", p) for p in parts}  # ('2x Cola' and '1x Cola': one value)
        if not parts:
            return ""  # (only separators: ';' alone is not a list)
        if (len(parts) >= 8 and len(names) * 2 > len(parts)) or any(
            len(p) > 40 or p.count(" ") > 3 for p in parts
        ):
            return ""  # (free text with a separator in it, not a list)
        split = f"df[{name!r}].dropna().str.split({sep.strip()!r}).explode().str.strip()"
        hint = (
            f"several values in one cell, separated by {sep.strip()!r}: one row per value is "
            f"values = {split}; values = values[values != '']"
        )
        if all(_QUANTITY.match(p) for p in parts):
            hint += (
                f"; each is a quantity and a name ({parts[0]!r}): parts = values.str.extract("
                r"r'(\d+)\s*[xX]\s*(.+)'), quantity = parts[0].astype(int), name = parts[1]"
            )
        return hint
    return ""


def squeeze(value: str) -> str:
    """``value`` with case, outer spaces and the spaces, hyphens and underscores between
    letters ignored (``'Uber Eats '`` and ``'uber-eats'`` are both ``'ubereats'``)."""
    return _SQUEEZE.sub("", value.strip().lower())


def spelling_hint(present: list[str], name: str) -> str:
    """The hint for a column of few values, some written several ways, or ``""``: how many
    there are as written and folded, and the comparison that folds them. Case and outer
    spaces fold with ``.str.strip().str.lower()``; when spaces or hyphens inside the words
    differ too (``Uber Eats``, ``UberEats``), the comparison removes them as well."""
    stripped = [v.strip() for v in present]
    distinct = len(set(stripped))
    lowered = list(dict.fromkeys(v.lower() for v in stripped))
    squeezed = list(dict.fromkeys(squeeze(v) for v in stripped))
    column = f"df[{name!r}]"
    if len(squeezed) < len(lowered):
        return (
            f"{len(set(present))} distinct values as written, {len(squeezed)} ignoring case "
            f"and spaces (and hyphens): compare {column}.str.strip().str.lower().str.replace("
            f"r'{SQUEEZE_PATTERN}', '', regex=True) == {_first(squeezed)!r}{_folded(squeezed)}"
        )
    prefix = prefix_word(stripped)
    if prefix:  # ('MV Loch Seil' beside 'Loch Seil': fresh23)
        bare = list(dict.fromkeys(v.removeprefix(f"{prefix} ").strip() for v in lowered))
        return (
            f"{len(set(present))} distinct values as written, {len(bare)} ignoring case, "
            f"spaces and a leading {prefix.upper()!r}: compare {column}.str.strip().str.lower()"
            f"{lead_cut(prefix)} == {_first(bare)!r}{_folded(bare)}"
        )
    if len(lowered) < distinct or any(v != v.strip() for v in present):
        return (
            f"{len(set(present))} distinct values as written, {len(lowered)} ignoring case and "
            f"spaces: compare {column}.str.strip().str.lower() == {_first(lowered)!r}"
            f"{_folded(lowered)}"
        )
    return ""


def _folded(values: list[str]) -> str:
    """The values as the comparison folds them, when there are few."""
    if len(values) > 8:
        return ""
    return f" (folded, the values are {', '.join(repr(v) for v in values)})"


def _first(values: list[str]) -> str:
    """The example value of a comparison: the first with a letter in it."""
    return next((v for v in values if any(c.isalpha() for c in v)), values[0])


#: Words written for "no value" (besides signs such as '-' and '?').
NO_VALUE = {
    "unknown",
    "none",
    "nil",
    "null",
    "missing",
    "nan",
    "na",
    "n/a",
    "n.a.",
    "tbd",
    "pending",
    "k.a.",  # (German: keine Angabe)
    "k. a.",
    "n.v.",  # (German: nicht vorhanden; Dutch: niet van toepassing)
    "n.d.",  # (French, Italian: non disponible, non disponibile)
}


def date_marks(values: list[str], is_date: Callable[[str], bool]) -> tuple[list[str], str]:
    """A column of dates with a sign or a word or two standing for no date (fresh16: '-'
    beside empty and 'n/a'): the dates, and what the note says of the others (pandas reads
    '-' as text, so a count of the dates given would count them), or ``(values, "")``."""
    stripped = [v.strip() for v in values]
    dates = [v for v in stripped if is_date(v)]
    words = sorted({v for v in stripped if not is_date(v)})
    if len(dates) < 5 or not 0 < len(words) <= 2:
        return values, ""
    if any(any(c.isalnum() for c in w) and w.lower() not in NO_VALUE for w in words):
        return values, ""
    shown = " and ".join(repr(w) for w in words)
    return dates, (
        f"{len(stripped) - len(dates)} values {shown} standing for no date (not missing to "
        "pandas: pd.to_datetime(..., errors='coerce') makes them NaT, then .isna() finds them)"
    )


_TIME_OF_DAY = re.compile(r"^(?:[01]?\d|2[0-3]):[0-5]\d(:[0-5]\d)?$")


#: ``'4:30 pm'``, ``'9:05 AM'``, ``'12:40 p.m.'``: a time of day on a 12-hour clock.
_TWELVE_HOUR = re.compile(r"^(?:1[0-2]|0?[1-9]):[0-5]\d\s?[ap]\.?m\.?$", re.I)


def time_of_day_hint(values: list[str], name: str) -> str:
    """Times of day as text (``'7:05'``, ``'18:40'``), perhaps with a sign standing for none
    (``'--:--'``): minutes since midnight, and how the signs read as missing; on a 12-hour
    clock (``'4:30 pm'``, with 24-hour ones or not), read per value by pandas."""
    twelve = [v for v in values if _TWELVE_HOUR.match(v)]
    marks = sorted({v for v in values if not (_TWELVE_HOUR.match(v) or _TIME_OF_DAY.match(v))})
    if twelve and len(marks) <= 2 and not any(c.isalnum() for m in marks for c in m):
        other = next((v for v in values if _TIME_OF_DAY.match(v)), "")
        clocks = f" or a 24-hour one ({other!r})" if other else ""
        none = sum(v in marks for v in values)
        shown = " and ".join(repr(m) for m in marks)
        said = f", {none} values {shown} standing for no time (NaT after this)" if marks else ""
        return (
            f"times of day as text on a 12-hour clock ({twelve[0]!r}){clocks}{said}: t = "
            f"pd.to_datetime(df[{name!r}], format='mixed', errors='coerce'); minutes since "
            "midnight = t.dt.hour * 60 + t.dt.minute"
        )
    times = [m for v in values if (m := _TIME_OF_DAY.match(v))]
    signs = sorted({v for v in values if not _TIME_OF_DAY.match(v)})
    if len(times) < 5 or len(signs) > 2 or any(c.isalnum() for s in signs for c in s):
        return ""
    with_seconds = {m.group(1) is not None for m in times}
    if len(with_seconds) > 1:
        return ""
    clock = f"df[{name!r}]" + ("" if True in with_seconds else " + ':00'")
    minutes = f"pd.to_timedelta({clock}, errors='coerce').dt.total_seconds() / 60"
    if not signs:
        return f"times of day as text: minutes since midnight = {minutes}"
    shown = " and ".join(repr(s) for s in signs)
    listed = ", ".join(repr(s) for s in signs)
    return (
        f"times of day as text, {len(values) - len(times)} values {shown} standing for no "
        f"time (read the file with na_values=[{listed}] and .isna() finds them with the empty "
        f"ones): minutes since midnight = {minutes}"
    )


#: A code of letters and a number (``M-0042``, ``m0042``, ``M 42``).
_ONE_CODE = re.compile(r"^([A-Za-z]{1,4})[-_ /]?(\d+)$")
#: The same code's number alone, after a '#' or left a float by a spreadsheet (``'2041.0'``).
PLAIN_CODE = re.compile(r"^#?\s?(\d+)(?:\.0+)?$")


def code_forms(values: list[str], name: str) -> str:
    """The hint for a column of codes with one prefix, some written several ways
    (``'M-0042'``, ``'m-0042'`` and ``'M0042'`` are one code), or ``""``: how many there are
    as written and as codes, and the number to count, group and compare on."""
    found = [m for v in values if (m := _ONE_CODE.match(v))]
    # (fresh17: '4' beside 'T04' and 'T-4'; fresh18: '#2041' and '2041.0' beside 'FILM-2041')
    plain = [(n.group(1), v) for v in values if (n := PLAIN_CODE.match(v))]
    if not found or len(found) + len(plain) < len(values) or len(found) * 10 < len(values):
        return ""
    if len({m.group(1).lower() for m in found}) != 1:
        return ""
    forms: dict[int, list[str]] = {}
    for number, whole in [(m.group(2), m.group(0)) for m in found] + plain:
        written = forms.setdefault(int(number), [])
        if whole not in written:
            written.append(whole)
    several = [w for w in forms.values() if len(w) > 1]
    if not several or len({v.lower() for v in values}) == len(forms):
        return ""  # (one way of writing each, or only its case: the spelling hint says so)
    shown = " and ".join(repr(w) for w in max(several, key=len)[:3])
    return (
        f"codes written several ways ({shown} are one), {len(set(values))} as written, "
        f"{len(forms)} codes: take the number, pd.to_numeric(df[{name!r}].str.extract("
        "r'(\\d+)')[0]), before counting, grouping or comparing"
    )


def other_forms(present: list[str], name: str) -> str:
    """The hint for a column of dates with month names, of several values per cell, of
    codes written several ways or of durations as hours:minutes and minutes (``present``:
    its values as written), or ``""``."""
    stripped = [v.strip() for v in present]
    return (
        month_name_dates(present, name)
        or list_cells(stripped, name)
        or code_forms(stripped, name)
        or clock_minutes(stripped, name)
    )


_HOURS_MINUTES = re.compile(r"^\d{1,2}:[0-5]\d$")
_MINUTES = re.compile(r"^\d+(?:\.\d+)?\s*(?:min|mins|minutes?)$", re.I)
#: Hours, perhaps with a decimal comma (``'6,75 h'``, ``'6.5 hours'``).
_DECIMAL_HOURS = re.compile(r"^\d+(?:[.,]\d+)?\s*(?:h|hrs?|hours?)$", re.I)


#: How the files note names durations written as hours:minutes beside minutes (and hours).
CLOCK_MINUTES = "durations written two ways, hours:minutes and minutes"
#: That note's reading (``minutes = <hours:minutes>; minutes = minutes.fillna(<minutes>)``,
#: perhaps a third line filling in the hours).
CLOCK_MINUTES_READING = re.compile(
    r"durations written (?:two|three) ways, hours:minutes(?:, hours)? and (?:minutes|hours) "
    r".*?: (minutes = .*?)(?:, e\.g\.|$)"
)


def clock_minutes(values: list[str], name: str) -> str:
    """The hint for durations written as hours:minutes beside minutes or hours, or all three
    (fresh18: a film's Runtime ``'1:28'`` or ``'90 min'``; fresh20: ``'6:45'``, ``'405 min'``
    or ``'6,75 h'``), two at least present; else ``""``. Read as times of day or as numbers,
    they give nonsense; the conversion gives minutes."""
    clocks = [v for v in values if _HOURS_MINUTES.match(v)]
    minutes = [v for v in values if _MINUTES.match(v)]
    hours = [v for v in values if _DECIMAL_HOURS.match(v)]
    if (
        not clocks
        or not (minutes or hours)
        or len(clocks) + len(minutes) + len(hours) < len(values)
    ):
        return ""
    column = f"df[{name!r}].str.strip()"
    reads = [  # (each form's reading, the first filled in by the others)
        rf"pd.to_numeric({column}.str.extract(r'(?i)^([\d.]+)\s*min')[0])" * bool(minutes),
        rf"pd.to_numeric({column}.str.extract(r'(?i)^([\d.,]+)\s*h')[0].str.replace(',', '.'))"
        " * 60" * bool(hours),
    ]
    ways = ["minutes"] * bool(minutes) + ["hours"] * bool(hours)
    kind = (
        CLOCK_MINUTES
        if ways == ["minutes"]
        else (
            f"durations written {['two', 'three'][len(ways) - 1]} ways, hours:minutes"
            f"{', hours' * (len(ways) == 2)} and {ways[0]}"
        )
    )
    alike = " and ".join(repr(v[0]) for v in (minutes, hours) if v)
    clock = int(clocks[0].split(":")[0]) * 60 + int(clocks[0].split(":")[1])
    return (
        f"{kind} ({clocks[0]!r} is {clock} minutes, like {alike}): minutes = pd.to_numeric("
        rf"{column}.str.extract(r'^(\d+):')[0]) * 60 + pd.to_numeric({column}.str.extract("
        rf"r':(\d+)$')[0])" + "".join(f"; minutes = minutes.fillna({r})" for r in reads if r)
    )


_THOUSANDS_DOT = re.compile(r"^[1-9]\d{0,2}(?:\.\d{3})+$")


def dot_thousands(numbers: list[str], bare: list[str]) -> bool:
    """Whether the dots in ``numbers`` (written without a comma) mark thousands: every
    number with a dot has groups of three digits after it, there are five or more, and
    numbers written bare (without the unit) run to thousands too ('45210' beside
    '180.640 km'; '1.250 kg' alone may be a kilogram and a quarter)."""
    dotted = [n for n in numbers if "." in n]
    big = any(n.isdigit() and int(n) >= 1000 for n in bare)
    return big and len(dotted) >= 5 and all(_THOUSANDS_DOT.match(n) for n in dotted)


#: A range of two numbers, perhaps with a unit (``'10-12 weeks'``, ``'3 - 5 wks'``, ``'2 to 4'``).
_RANGE = re.compile(
    r"^(\d+(?:\.\d+)?)(\s*)(?:-|\u2013|to)\s*(\d+(?:\.\d+)?)\s*([A-Za-z]+\.?)?$", re.I
)


#: Units a range may carry, by what they measure (one kind per column).
_UNIT_KIND = {
    **dict.fromkeys(("day", "days", "d"), "days"),
    **dict.fromkeys(("week", "weeks", "wk", "wks", "w"), "weeks"),
    **dict.fromkeys(("month", "months", "mo", "mos"), "months"),
    **dict.fromkeys(("year", "years", "yr", "yrs", "y"), "years"),
    **dict.fromkeys(("hour", "hours", "hr", "hrs", "h"), "hours"),
    **dict.fromkeys(("min", "mins", "minute", "minutes"), "minutes"),
    **dict.fromkeys(("kg", "g", "lb", "lbs"), "weight"),
    **dict.fromkeys(("km", "m", "mi", "miles", "ft"), "length"),
    **dict.fromkeys(("people", "persons", "guests", "seats", "pcs", "units"), "count"),
}


def range_hint(values: list[str], name: str) -> str:
    """Ranges written as text (``'10-12 weeks'``, ``'3 - 5 wks'``: fresh21's promised wait):
    both ends as numbers, or ``""``. Only when every value is a range whose low end is not
    above its high end and most carry a unit of one kind (``'555-1234'`` is a phone number,
    ``'1 - 2'`` a score, ``'2-3 weeks'`` beside ``'1-2 months'`` needs its units first)."""
    found = [m for v in values if (m := _RANGE.match(v))]
    if len(found) < max(5, len(values)) or any(
        float(m.group(1)) > float(m.group(3)) for m in found
    ):
        return ""
    units = sorted({m.group(4).lower().rstrip(".") for m in found if m.group(4)})
    kinds = {_UNIT_KIND.get(u) for u in units}
    if sum(bool(m.group(4)) for m in found) * 2 < len(found) or None in kinds or len(kinds) != 1:
        return ""  # (scores '1 - 2', codes '100-200 A', or days beside weeks: units first)
    said = f" in {', '.join(repr(u) for u in units)}"
    ends = r"(\d+(?:\.\d+)?)\D+(\d+(?:\.\d+)?)"
    ways = ", written several ways" if len({squeeze(v) for v in values}) < len(set(values)) else ""
    return (
        f"ranges as text{said}{ways} ({found[0].group(0)!r}): ends = "
        f"df[{name!r}].str.extract(r'{ends}').astype(float) (ends[0] the low end, ends[1] "
        "the high end)"
    )
