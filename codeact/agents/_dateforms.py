"""Dates written in two or three fixed formats in one column (fresh19, a weighbridge export:
``'07-Mar-2024'`` beside ``'2024/03/07'``). Read as they are, ``pd.to_datetime`` guesses one
format from the first value and fails (or coerces the other form to NaT); text tests miss the
other form. The files note names the formats and gives one reading per format, each filling
the gaps the one before left. Also the note's other date readings: day or month first
(``15/03/2019``), ISO beside numeric dates, times with UTC offsets."""

from __future__ import annotations

import re
from datetime import datetime

#: The formats tried, most specific first (month names before numbers).
_FORMATS = (
    "%d-%b-%Y", "%d %b %Y", "%b %d, %Y", "%d-%B-%Y", "%d %B %Y", "%B %d, %Y", "%d-%b-%y",
    "%d %b %y",
    "%Y/%m/%d", "%Y-%m-%d", "%Y.%m.%d", "%d/%m/%Y", "%m/%d/%Y", "%d.%m.%Y", "%d-%m-%Y",
    "%d. %m. %Y", "%d. %B %Y", "%d. %b %Y",
)  # fmt: skip
MAX_FORMATS = 3
#: A date written the Czech or Slovak way, a space after each dot (``'5. 3. 2023'``).
_SPACED_DOTS = re.compile(r"^\d{1,2}\. \d{1,2}\. \d{4}$")


def is_spaced_date(value: str) -> bool:
    """Whether ``value`` is a date such as ``'5. 3. 2023'`` (day, month, year)."""
    return ". " in value and bool(_SPACED_DOTS.match(value))


def _parses(value: str, fmt: str) -> bool:
    try:
        datetime.strptime(value, fmt)
    except ValueError:
        return False
    return True


def date_formats(values: list[str]) -> list[str] | None:
    """The formats (two or three, in the order a reading tries them) that between them read
    every value, each needed, a format with the day and the month in numbers only when some
    value tells them apart (``'13/04/2024'``: ``'03/04/2024'`` alone could be 4 March);
    None when the values are not such dates."""
    if len(values) < 2:
        return None
    readers: dict[str, list[str]] = {}
    for value in dict.fromkeys(values):  # (the first value no format reads ends it: free text)
        readers[value] = [f for f in _FORMATS if _parses(value, f)]
        if not readers[value]:
            return None
    chosen: list[str] = []
    for _value, formats in sorted(readers.items(), key=lambda kv: len(kv[1])):
        if not any(f in chosen for f in formats):
            chosen.append(formats[0])
    if not 2 <= len(chosen) <= MAX_FORMATS:
        return None
    for fmt in chosen:  # (day and month in numbers: some value must tell which is which)
        swapped = fmt.replace("%d", "%_").replace("%m", "%d").replace("%_", "%m")
        if swapped in chosen:
            return None  # (day first and month first both: '03/04/2024' cannot be read)
        if "%m" not in fmt or not fmt.startswith(("%d", "%m")):
            continue  # (year first, or a month name: always clear)
        if not any(_parses(v, fmt) and not _parses(v, swapped) for v in readers):
            return None
    return sorted(chosen, key=_FORMATS.index)


#: Month names of other languages' exports that differ from English, by their English name
#: (German, French, Spanish, Dutch; ``strptime``'s ``%B`` reads English ones only).
_FOREIGN_MONTHS = {
    "January": "januar jänner janvier enero januari",
    "February": "februar février fevrier febrero februari",
    "March": "märz mär mars marzo maart",
    "April": "avril abril",
    "May": "mai mayo mei",
    "June": "juni juin junio",
    "July": "juli juillet julio",
    "August": "août aout agosto augustus",
    "September": "septembre septiembre",
    "October": "oktober okt octobre octubre",
    "November": "noviembre",
    "December": "dezember dez décembre decembre diciembre",
}
_ENGLISH = {word: english for english, words in _FOREIGN_MONTHS.items() for word in words.split()}


def _in_english(values: list[str]) -> tuple[list[str], dict[str, str]]:
    """``values`` with other languages' month names in English (``'3. Oktober 2023'``:
    ``'3. October 2023'``), and the names replaced, as written."""
    used: dict[str, str] = {}

    def english(m: re.Match[str]) -> str:
        word = m.group(0)
        if word.lower() in _ENGLISH:
            used[word] = _ENGLISH[word.lower()]
            return used[word]
        return word

    return [re.sub(r"[^\W\d_]+", english, v) for v in values], used


def date_formats_hint(values: list[str], name: str) -> str:
    """The files note on such a column: its forms and the reading, else ``""``; dates all
    written the Czech way (``'5. 3. 2023'``, which ``pd.to_datetime`` reads month first)
    get their one format; month names of another language (``'3. Oktober 2023'``) are put
    in English first."""
    if len(values) >= 2 and all(_SPACED_DOTS.match(v) for v in values):
        return (
            f"dates as text written day first ({values[0]!r}): pd.to_datetime(df[{name!r}], "
            "format='%d. %m. %Y')"
        )
    written = values
    values, used = _in_english(values)
    formats = date_formats(values)
    if formats is None:
        return ""
    column = f"df[{name!r}]"
    if used:  # (whole words: 'Okt' inside 'Oktober' stays)
        words = {rf"\b{word}\b": english for word, english in sorted(used.items())}
        column = f"{column}.replace({words!r}, regex=True)"
    examples = [written[values.index(next(v for v in values if _parses(v, f)))] for f in formats]
    reads = [f"pd.to_datetime({column}, format={f!r}, errors='coerce')" for f in formats]
    reading = reads[0] + "".join(f".fillna({r})" for r in reads[1:])
    shown = " and ".join(repr(e) for e in examples)
    ways = {2: "two", 3: "three"}[len(formats)]
    first = next((f[1] for f in formats if f[1] in "dmbB"), "Y")  # (day, month, or none)
    order = "day" if first == "d" else "year" if first == "Y" else "month"
    return f"dates as text written {ways} ways ({shown}), {order} first: {reading}"


_YEAR = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")


def one_year(values: list[str], hint: str) -> str:
    """For a column the note reads as dates (``hint``), whose ``values`` all fall in one year:
    ``"all in 2023"`` (a question's "in 2023" then needs no filter); else ''."""
    if "date" not in hint or not values:
        return ""
    found = [_YEAR.findall(v) or _short_year(v) for v in values]
    years = {y for ys in found for y in ys}
    return f"all in {years.pop()}" if len(years) == 1 and all(found) else ""


def _short_year(value: str) -> list[str]:
    """The year of a date written with two digits of it (``'14-Jul-24'``: 2024), if any."""
    for fmt in (f for f in _FORMATS if "%y" in f):
        try:
            return [str(datetime.strptime(value, fmt).year)]
        except ValueError:
            continue
    return []


#: A date as pandas writes it (``2023-10-25``, with a time or not).
ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2})?)?$")
#: A date with the day and month first, in either order (``15/03/2019``, ``3.15.2019``).
NUMERIC_DATE = re.compile(r"^(\d{1,2})([/.-])(\d{1,2})\2(\d{4})(?:[ T]\d{1,2}:\d{2}(?::\d{2})?)?$")
#: A date and time with its UTC offset (``2024-03-05T14:22:05+01:00``).
OFFSET_TIME = re.compile(
    r"^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?\s*(Z|[+-]\d{2}:?\d{2})$"
)


def numeric_date_hint(values: list[str], name: str) -> str:
    """Which of day and month comes first in dates like ``15/03/2019`` (a part above 12
    tells), and how to read them: text comparisons and ``str.contains`` get them wrong."""
    parts = [m.groups() for v in values if (m := NUMERIC_DATE.match(v))]
    column = f"df[{name!r}]"
    if any(int(first) > 12 for first, *_ in parts):
        return f"dates as text, day first: pd.to_datetime({column}, dayfirst=True)"
    if any(int(second) > 12 for _, _, second, _ in parts):
        return f"dates as text, month first: pd.to_datetime({column})"
    return "dates as text, day and month order unknown: pd.to_datetime() them"


def mixed_date_hint(values: list[str], name: str) -> str:
    """Dates written two ways in one column (``2023-10-25`` and ``24/09/2023``): matching
    the text (``str.contains('2024-03')``) misses the other form; one call reads both."""
    iso = next(v for v in values if ISO_DATE.match(v))
    other = next(v for v in values if NUMERIC_DATE.match(v))
    order = numeric_date_hint([v for v in values if NUMERIC_DATE.match(v)], name)
    first = (
        ", day first" if "day first" in order else ", month first" if "month first" in order else ""
    )
    column = f"df[{name!r}]"
    read = f"pd.to_datetime({column}, format='mixed')"
    if first == ", day first":  # (format='mixed' with dayfirst=True reads '2024-01-02' as 1 Feb)
        read = (
            f"pd.to_datetime({column}, format='ISO8601', errors='coerce').fillna("
            f"pd.to_datetime({column}, format='mixed', dayfirst=True, errors='coerce'))"
        )
    return f"dates as text written two ways ({iso!r} and {other!r}){first}: {read}"


def offset_hint(values: list[str], name: str) -> str:
    """Times with their UTC offset: several offsets (summer time) leave pandas a column of
    text (``.dt`` fails) unless read as UTC; the local date and hour are the text itself."""
    found = {m.group(1).replace(":", "") for v in values if (m := OFFSET_TIME.match(v))}
    offsets = sorted(
        {"+00:00" if o in ("Z", "+0000", "-0000") else f"{o[:3]}:{o[3:]}" for o in found}
    )
    column = f"df[{name!r}]"
    if len(offsets) == 1:
        return f"times with UTC offset {offsets[0]!r}: pd.to_datetime({column})"
    shown = " and ".join(repr(o) for o in offsets[:3])
    return (
        f"times with different UTC offsets ({shown}): pd.to_datetime({column}, utc=True) "
        f"gives UTC times (without it pandas cannot give them one time zone: they stay "
        f"text when read by read_csv, and .dt fails); the local date "
        f"and hour as written are {column}.str[:10] and {column}.str[11:13].astype(int)"
    )
