"""What the model is told about a CSV before its first cell, computed cheaply on the host.

Small models trip on data they have not looked at: a header with a leading space
(``" WINDSPEED"``), numbers stored as text with thousands separators (``"5,350,380"``),
missing values. The note gives the shape, each column's name (quoted, so spaces show), the
dtype pandas will read, missing-value counts, numbers stored as text and a few example values.
Only the standard library is used, on at most ``SCAN_ROWS`` rows.
"""

from __future__ import annotations

import re

from codeact.agents._cellforms import (
    NO_VALUE,
    date_marks,
    dot_thousands,
    is_named_date,
    other_forms,
    range_hint,
    spelling_hint,
    squeeze,
    time_of_day_hint,
)
from codeact.agents._csvtable import SCAN_ROWS, Table
from codeact.agents._dateforms import (
    ISO_DATE,
    NUMERIC_DATE,
    OFFSET_TIME,
    date_formats_hint,
    is_spaced_date,
    mixed_date_hint,
    numeric_date_hint,
    offset_hint,
    one_year,
)
from codeact.agents._mixedunits import one_unit, units_reading
from codeact.agents._money import (
    DECIMAL_COMMA,
    DOTTED,
    GROUPED,
    INT,
    SIGNED_NUMBER,
    amount_hint,
    marked_commas,
    per_column_decimals,
    scaled_amounts,
    signed_conversion,
    signed_hint,
    signs_of,
)
from codeact.agents._rownote import MAX_REPEATS, copies, repeated
from codeact.agents._totals import total_rows, totals_hint

MAX_COLUMNS = 40
MAX_EXAMPLE_CHARS = 24
#: The strings pandas reads as missing by default.
NA_STRINGS = frozenset(
    {
        "",
        "#N/A",
        "#N/A N/A",
        "#NA",
        "-1.#IND",
        "-1.#QNAN",
        "-NaN",
        "-nan",
        "1.#IND",
        "1.#QNAN",
        "<NA>",
        "N/A",
        "NA",
        "NULL",
        "NaN",
        "None",
        "n/a",
        "nan",
        "null",
    }
)
_FLOAT = re.compile(r"^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$|^[-+]?(?:inf|Infinity)$")
#: A number written with ',' thousands separators (``5,350,380``, or in lakhs ``6,35,000``).
SEPARATED_NUMBER = rf"[-+]?(?:{GROUPED})(?:\.\d+)?"
_SEPARATED = re.compile(f"^{SEPARATED_NUMBER}$")
_SIGNED = re.compile(f"^(?:{SIGNED_NUMBER})$")
#: A duration written with units (``3h 13m``, ``45 min``, ``2 days``), as pd.to_timedelta reads.
_DURATION = re.compile(
    r"^(?:\d+(?:\.\d+)?\s*(?:d|days?|h|hrs?|hours?|m|mins?|minutes?|s|secs?|seconds?)\s*)+$", re.I
)
#: ``h:mm:ss``: a duration (as pd.to_timedelta reads it) among durations with units, past 24
#: hours or in a column named for one; otherwise a time of day.
_CLOCK = re.compile(r"^(\d+):[0-5]\d:[0-5]\d$")
_DURATION_NAME = re.compile(r"duration|elapsed|spent|taken|length|time to|resolve|wait", re.I)
#: A date with a 12-hour time (``2024-03-05 09:41 PM``).
_DATE_12H = re.compile(r"^\d{4}-\d{2}-\d{2} \d{1,2}:\d{2}(:\d{2})? ?[AP]M$", re.I)


def _line_of(row: int, repeats: tuple[int, ...]) -> int:
    """The line (0: the header's) of data row ``row`` of a table whose header is repeated on
    lines ``repeats`` (in order)."""
    line = row + 1
    for repeat in repeats:
        line += repeat <= line
    return line


def describe_table(table: Table) -> str:
    """The columns note of a table: shape, each column's type, missing values and examples,
    and the read call when the separator or title lines need one."""
    titles, delimiter, header, columns = table.titles, table.delimiter, table.header, table.columns
    rows, text = table.rows, table.body
    repeats = table.repeats if len(table.repeats) <= MAX_REPEATS else ()
    totals, _line, labelled = total_rows(header, columns) if repeats else ([], "", 0)
    if totals:  # (skipped in the same read as the header's repeats: the records alone)
        skipped = set(totals)
        columns = [[v for i, v in enumerate(c) if i not in skipped] for c in columns]
        rows -= len(totals)
    scanned = rows
    about = ""
    if rows >= SCAN_ROWS:  # the rest is counted by lines, not parsed
        rows = max(rows, text.count("\n") - (0 if text.endswith("\n") else -1) - 1)
        about = "about "
    described = [
        "  - " + _column(name, values)
        for name, values in list(zip(header, columns, strict=False))[:MAX_COLUMNS]
    ]
    sep = "" if delimiter == "," else f", separated by {delimiter!r}"
    described = [per_column_decimals(x) for x in described] if not sep else described
    if scanned < rows:  # (one year in the rows read says nothing of the rest)
        described = [re.sub(r", all in \d{4}(?=, )", "", x) for x in described]
    skip = f", skiprows={titles}" if titles else ""
    if repeats:  # (the header again inside: skipped, every column reads as its values)
        lines = sorted([*repeats, *(_line_of(i, repeats) for i in totals)])
        skip = f", skiprows={[*range(titles), *(titles + n for n in lines)]}"
    if sep:
        decimal = any("decimal commas: read the file" in line for line in described)
        extra = ", decimal=',', thousands='.'" if decimal else ""
        sep += f" (read with pd.read_csv(path, sep={delimiter!r}{extra}{skip}))"
    elif titles or repeats:
        sep = f", below {titles} title line{'s' if titles > 1 else ''}" if titles else ""
        sep += f"{' and' if titles else ','} {repeated(len(repeats))}" if repeats else ""
        if totals:
            label = f"{table.columns[labelled][totals[0]].strip()!r} in {header[labelled]!r}"
            sep += f" and {len(totals)} total row{'s' * (len(totals) > 1)} ({label})"
        sep += f" (read with pd.read_csv(path{skip}))"
    out = [f"  {about}{rows} rows x {len(header)} columns{sep}. Columns (name: type):", *described]
    if table.repeated and not repeats:  # (no line numbers to skip: a filter after the read)
        first = header[0]
        seen = " (in the rows read)" * (table.rows >= SCAN_ROWS)
        said = repeated(table.repeated)
        out.append(
            f"  {said[0].upper()}{said[1:]}{seen}: leave them out with "
            f"df = df[df[{first!r}] != {first!r}], then convert the columns you need"
        )
    if len(header) > MAX_COLUMNS:
        out.append(f"  - ... and {len(header) - MAX_COLUMNS} more columns")
    out += _wide_hint(header) + [t for t in [totals_hint(header, columns)] if t]
    out += copies(columns) if scanned == rows else []
    if scanned < rows:
        out.append(f"  (types and missing counts from the first {scanned} rows)")
    return "\n".join(out)


_MONTHS = [
    "jan feb mar apr may jun jul aug sep oct nov dec".split(),
    "january february march april may june july august september october november december".split(),
]


def _wide_hint(header: list[str]) -> list[str]:
    """For a table with one column per month (``Jan`` ... ``Dec``): how to get one row per
    month, the layout questions over several months or a join by month need."""
    for names in _MONTHS:
        months = [h for h in header if h.strip().lower() in names]
        if len(months) >= 3:
            others = [h for h in header if h not in months]
            return [
                f"  One column per month ({months[0]!r} to {months[-1]!r}): for one row per "
                f"month, long = df.melt(id_vars={others!r}, value_vars={months!r}, "
                "var_name='month', value_name='value')"
            ]
    return []


def _column(name: str, values: list[str]) -> str:
    label = repr(name)
    if name != name.strip():
        label += " (mind the spaces in the name)"
    present = [v for v in values if v.strip() not in NA_STRINGS]
    missing = len(values) - len(present)
    dates, marks = date_marks(
        present,
        lambda v: (
            bool(ISO_DATE.match(v) or NUMERIC_DATE.match(v) or is_spaced_date(v))
            or is_named_date(v)
        ),
    )
    kind, hint = _kind(dates if marks else present, missing, name)
    if marks and "errors=" not in hint:  # (the signs would stop the conversion)
        hint = hint.replace(f"(df[{name!r}]", f"(df[{name!r}], errors='coerce'").replace(
            "pd.to_datetime() them", f"pd.to_datetime(df[{name!r}], errors='coerce')"
        )
    distinct = list(dict.fromkeys(v.strip() for v in present))
    shown = distinct if len(distinct) <= 6 else distinct[:3]
    examples = ", ".join(_example(v, kind) for v in shown)
    parts = [f"{label}: {kind}"]
    if missing:
        parts.append(f"{missing} missing{_markers(values)}")
    parts += [marks] * bool(marks)
    parts += [p for p in (one_year(dates if marks else present, hint), hint) if p]
    if examples:
        parts.append(f"e.g. {examples}")
    return ", ".join(parts)


def _markers(values: list[str]) -> str:
    """How missing values are written, when in words pandas reads as missing (``'n/a'``):
    comparing with that text finds nothing."""
    written = sorted({v.strip() for v in values if v.strip() in NA_STRINGS and v.strip()})
    if not written:
        return ""
    shown = " and ".join(repr(w) for w in written[:3])
    return f" (written {shown} in the file: pandas reads them as NaN; .isna() finds them)"


def _kind(present: list[str], missing: int, name: str) -> tuple[str, str]:
    stripped = [v.strip() for v in present]
    if not stripped:
        return "float64", "every value missing"
    if all(INT.match(v) for v in stripped) and _epoch(stripped):
        return "int64", f"Unix times in seconds: pd.to_datetime(df[{name!r}], unit='s')"
    zero = next((v for v in stripped if len(v) > 1 and v[0] == "0" and INT.match(v)), None)
    if zero is not None and all(INT.match(v) for v in stripped):
        return "float64" if missing else "int64", (
            f"whole numbers written with leading zeros ({zero!r}), which pandas drops: to keep "
            f"them as written (codes, ids), read with dtype={{{name!r}: str}}"
        )
    if all(INT.match(v) for v in stripped):
        return (
            ("float64", "whole numbers (float because of the missing values)")
            if missing
            else ("int64", "")
        )
    if all(_FLOAT.match(v) for v in stripped):
        return "float64", ""
    if all(_SEPARATED.match(v) or INT.match(v) or _FLOAT.match(v) for v in stripped):
        return "text", "numbers stored as text with ',' separators: read with thousands=','"
    if all(_SIGNED.match(v) or _FLOAT.match(v) or _SEPARATED.match(v) for v in stripped):
        return "text", signed_hint(stripped, name)
    if european := amount_hint(stripped, name):
        return "text", european
    if all(ISO_DATE.match(v) for v in stripped):
        return "text", "dates as text: pd.to_datetime() them"
    if all(_DATE_12H.match(v) for v in stripped):
        secs = {bool((m := _DATE_12H.match(v)) and m.group(1)) for v in stripped}
        spaces = {v[-3] == " " for v in stripped}
        form = (  # (one way of writing them all, or pandas' per-value parsing)
            f"'%Y-%m-%d %I:%M{':%S' if True in secs else ''}{' ' if True in spaces else ''}%p'"
            if len(secs) == len(spaces) == 1
            else "'mixed'"
        )
        return "text", (
            f"dates with 12-hour times (AM/PM) as text: pd.to_datetime(df[{name!r}], "
            f"format={form}) (then .dt.hour counts 0 to 23)"
        )
    if all(NUMERIC_DATE.match(v) for v in stripped):
        return "text", numeric_date_hint(stripped, name)
    if all(ISO_DATE.match(v) or NUMERIC_DATE.match(v) for v in stripped):
        return "text", mixed_date_hint(stripped, name)
    if all(OFFSET_TIME.match(v) for v in stripped):
        return "text", offset_hint(stripped, name)
    written = scaled_amounts(stripped, name) or range_hint(stripped, name)
    written = written or _written_kind(stripped, name)
    if written:
        return "text", written
    marked = _marked_numbers(stripped, name)
    if marked:
        return "text", marked
    if all(_DURATION.match(v) or _CLOCK.match(v) for v in stripped) and (
        any(_DURATION.match(v) for v in stripped)
        or any(int(m.group(1)) >= 24 for v in stripped if (m := _CLOCK.match(v)))
        or _DURATION_NAME.search(name)
    ):
        return "text", (
            f"durations as text: pd.to_timedelta(df[{name!r}]).dt.total_seconds() / 60 gives "
            "minutes"
        )
    clock = "" if _DURATION_NAME.search(name) else time_of_day_hint(stripped, name)
    if clock:
        return "text", clock
    named = other_forms(present, name)
    if named:
        return "text", named
    if formats := date_formats_hint(stripped, name):
        return "text", formats
    distinct = len(set(stripped))
    if distinct > 20:  # (many values: named only when they are few written many ways)
        few = len({squeeze(v) for v in stripped}) <= 20
        return "text", spelling_hint(present, name) if few else ""
    return "text", spelling_hint(present, name) or f"{distinct} distinct values"


_UNIT = re.compile(
    r"^[-+]?(\d{1,3}(?:[., ]\d{3})+(?:[.,]\d+)?|\d+(?:[.,]\d+)?)\s?"
    r"((?:sq|cu)\.? ?(?:ft|m|yd|in|km|mi)|weeks?|months?|years?|[a-zA-Zµ°%²³]{1,4}"
    r"|(?:lit|met)(?:re|er)s?|tonnes?|grams?)$"  # (not hours or minutes: durations, read apart)
)

#: ``1,500 g``: a comma of thousands (``0,910 t`` is a decimal comma).
_THOUSANDS = re.compile(r"^[1-9]\d{0,2}(?:,\d{3})+$")
#: A number written with a decimal comma (``420,2``, ``1.178,3``), the point a decimal one.
_COMMA_FIRST = re.compile(r"^(?:\d{1,3}(?:[. ]\d{3})+|\d+),\d+$")
_FRACTION = re.compile(r"^\d+(?:\.\d+)?/\d+$")
_TRUTHS = {"true", "false", "1", "0", "yes", "no", "y", "n", "t", "f"}


def _epoch(values: list[str]) -> bool:
    """Whole numbers that are all Unix times in seconds of 2001 to 2033."""
    return all(1_000_000_000 <= int(v) < 2_000_000_000 for v in values)


_BARE = re.compile(r"^\d+(?:[.,]\d+)*$")


def _written_kind(values: list[str], name: str) -> str:
    """Numbers with decimal commas, numbers with units, fractions, yes/no written several
    ways: what they are and how to read them."""
    column = f"df[{name!r}]"
    commas = all(DECIMAL_COMMA.match(v) or INT.match(v) or DOTTED.match(v) for v in values)
    if commas and any(DECIMAL_COMMA.match(v) for v in values):
        return "numbers with decimal commas: read the file with decimal=',', thousands='.'"
    if beside_marks := marked_commas(values, column):
        return beside_marks
    found = [m for v in values if (m := _UNIT.match(v))]
    units = {m.group(2) for m in found}
    one = one_unit(units)  # ('L' and 'litres': one)
    # (numbers written without the one unit the rest carry: fresh17 '45210' among '180.640 km')
    bare = [v for v in values if one and not _UNIT.match(v) and _BARE.match(v)]
    bare = bare if len(bare) <= len(found) else []
    # (a few words without digits may stand for no number: 'not synced')
    words = sorted({v for v in values if not _UNIT.match(v) and v not in bare})
    marked = len(words) <= 2 and not any(c.isdigit() or len(w) > 16 for w in words for c in w)
    enough = not words or (marked and len(found) + len(bare) >= max(5, len(values) // 2))
    if units and len(units) <= 4 and enough:
        shown = " and ".join(repr(u) for u in sorted(units))
        comma = any(
            _COMMA_FIRST.match(m.group(1)) and not _THOUSANDS.match(m.group(1)) for m in found
        )
        if one:  # (one unit, however spelt: the number alone, its decimal mark as written)
            numbers = [m.group(1) for m in found] + bare
            dotted = not comma and dot_thousands(numbers, bare)  # ('180.640 km': 180640)
            keep, point = ("[^\\d,-]", ".str.replace(',', '.')") if comma else ("[^\\d.-]", "")
            keep = "[^\\d-]" if dotted else keep
            number = f"{column}.str.replace(r'{keep}', '', regex=True){point}"
            first = next((m for m in found if "." in m.group(1)), found[0])
            shown += f", a dot between thousands ({first.group(0)!r} is " * dotted
            shown += f"{first.group(1).replace('.', '')})" * dotted
            shown += f", {len(bare)} written without it" * bool(bare)
            if not words:
                return f"numbers with a unit ({shown}) as text: convert with {number}.astype(float)"
            nones = len(values) - len(found) - len(bare)
            return (
                f"numbers with a unit ({shown}) as text, {nones} values "
                f"{' and '.join(repr(w) for w in words)} standing for no number: convert with "
                f"pd.to_numeric({number}, errors='coerce')"
            )
        number, unit = units_reading(column, [m.group(1) for m in found], comma)
        none = (
            f", {len(values) - len(found)} values {' and '.join(repr(w) for w in words)} "
            "standing for no number (NaN in value)"
        )
        return (
            f"numbers with units ({shown}) as text{none * bool(words)}: value = pd.to_numeric("
            f"{number}, errors='coerce'); unit = {unit}; bring every value to one unit before "
            "comparing or averaging"
        )
    if all(_FRACTION.match(v) for v in values):
        return f"fractions as text: {column}.str.split('/').str[0].astype(float) is the top"
    styles = {v.lower() for v in values}
    if styles <= _TRUTHS and len(styles) > 2:
        return (
            f"yes/no written several ways ({', '.join(sorted(set(values)))}): "
            f"{column}.astype(str).str.strip().str.upper().isin(['TRUE', '1', 'YES', 'Y', 'T'])"
        )
    return ""


def _marked_numbers(values: list[str], name: str) -> str:
    """Numbers with a few values of a word or a sign standing for no number (``'-'``,
    ``'?'``, ``'unknown'``): what they are and the conversion that makes the rest numbers."""
    others = [v for v in values if not (_FLOAT.match(v) or _SIGNED.match(v) or _SEPARATED.match(v))]
    words = sorted(set(others))
    if not others or len(words) > 3:
        return ""
    if any(len(w) > 12 or any(c.isdigit() for c in w) for w in words):
        return ""
    # a sign or a word for "no value" may stand in for many values (half the ratings '?');
    # another word only for a few, or it is a text column with some numbers in it
    markers = all(not any(c.isalnum() for c in w) or w.lower() in NO_VALUE for w in words)
    few = len(others) * 10 <= len(values) and len(words) <= 2
    if not (few or (markers and len(values) - len(others) >= 5)):
        return ""
    shown, numbers = " and ".join(repr(w) for w in words), [v for v in values if v not in others]
    signs = signs_of(numbers) if any(_SIGNED.match(v) for v in numbers) else []  # ('£1.40')
    column = f"df[{name!r}]"
    clean = signed_conversion(numbers, column).removesuffix(".astype(float)") if signs else column
    grouped = not signs and any(_SEPARATED.match(v) for v in numbers)  # ('21,000')
    clean = f"{column}.str.replace(',', '')" if grouped else clean
    return (
        f"numbers stored as text{' with ' * bool(signs)}{' and '.join(repr(c) for c in signs)}"
        f"{' signs' * bool(signs)}{' with separators' * grouped}, {len(others)} values {shown} "
        f"standing for no number: convert with pd.to_numeric({clean}, errors='coerce')"
    )


def _example(value: str, kind: str) -> str:
    v = value if len(value) <= MAX_EXAMPLE_CHARS else value[: MAX_EXAMPLE_CHARS - 1] + "…"
    return v if kind in ("int64", "float64") else repr(v)
