"""Numbers written in several units in one column (``'850 g'``, ``'1.2 kg'``; ``'85 m²'``,
``'915 sq ft'``) turned into numbers by code that never looks at the unit (see ``_rules``):
values in different units are averaged or compared as one. The note gives the column's
reading; the question's factor ("divide by 10.7639 for square metres"), or a known one when
the question asks for a unit ("in kilograms"), gives the line that brings them to one unit,
and the rule's runnable example puts those lines in place of the cell's own conversions."""

from __future__ import annotations

import re
from dataclasses import dataclass

from codeact.agents._notecols import (
    note_column_kinds,
    past_conversions,
    task_text,
    uses_column,
    without_comments,
)
from codeact.agents._problem import Problem, problem_of
from codeact.agents._unusedfix import failed_at, safe_to_repeat
from codeact.executors.base import ExecutionResult

_SEVERAL_UNITS = re.compile(
    r"numbers with units \((.*?)\) as text.*?: (value = .*?\.str\.strip\(\))"
)
_CONVERTS_LINE = re.compile(r"to_numeric|astype\(|\.extract\(|\bfloat\(")
#: "('915 sq ft': divide by 10.7639 for square metres)": the unit and its factor.
_FACTOR = re.compile(r"(divide|multiply|times)\s+(?:it\s+|them\s+)?by\s+(\d[\d,]*(?:\.\d+)?)", re.I)


#: Words for units besides the note's own spellings (``'ft'`` for ``'sq ft'``).
_UNIT_WORDS = {"ft", "feet", "foot", "sqft", "m2", "metre", "metres", "meter", "meters", "sq"}
_UNIT_WORDS |= {"g", "gram", "grams", "kg", "kilo", "kilos", "kilogram", "kilograms", "lb"}
_UNIT_WORDS |= {"t", "tonne", "tonnes", "hl", "hectolitre", "hectolitres"}
_UNIT_WORDS |= {"lbs", "oz", "km", "mi", "mile", "miles", "ml", "l", "litre", "litres", "cm"}
#: The units a question may ask for, and each unit's size in its kind (``_SIZES``).
_UNIT_NAMES = [
    (r"kilo ?grams?|kilos|kgs?", "kg"), (r"grams?", "g"), (r"tonnes?", "t"),
    (r"kilomet(?:re|er)s?|km", "km"),
    (r"met(?:re|er)s?", "m"), (r"millilit(?:re|er)s?|ml", "ml"), (r"hectolit(?:re|er)s?|hl", "hl"),
    (r"lit(?:re|er)s?", "l"),
    (r"days?", "days"), (r"weeks?", "weeks"), (r"hours?|hrs?", "h"), (r"minutes?|mins?", "min"),
]  # fmt: skip
#: How a question asks for a unit: "in kilograms" or "per kg" in the question itself; a
#: number in it ("more than 5 kilograms", "longer than 14 days": the number the code compares
#: with); a number in words ("more than two weeks"); "how many tonnes", "the most tonnes". The
#: question's own words are read before a number in the constraints ("one tonne is 1000 kg"
#: there says how to convert, not what is asked: fresh22), a number in words last.
_ASKING: tuple[str, ...] = (r"\b(?:in|per|to)\s+", r"\d\s*")
_ASKING += (r"\b(?:one|two|three|four|five|six|seven|ten)\s+",)
_ASKING += (r"\b(?:how many|most|fewest|fewer|more)\s+",)  # ("How many hours": fresh17)
_SIZES = {"g": ("g", 1.0), "kg": ("g", 1000.0), "gram": ("g", 1.0), "grams": ("g", 1.0)}
_SIZES |= {"kgs": ("g", 1000.0), "m": ("m", 1.0), "km": ("m", 1000.0), "cm": ("m", 0.01)}
_SIZES |= {u: ("g", 1e6) for u in ("t", "tonne", "tonnes")}  # (fresh19: '12.48 t')
_SIZES |= {"mm": ("m", 0.001), "ml": ("l", 0.001), "l": ("l", 1.0), "hl": ("l", 100.0)}
_SIZES |= {"day": ("h", 24.0), "days": ("h", 24.0), "week": ("h", 168.0), "weeks": ("h", 168.0)}
_SIZES |= {u: ("h", 1.0) for u in ("h", "hr", "hrs", "hour", "hours")}  # (fresh17: '2,5 h')
_SIZES |= {u: ("h", 1 / 60) for u in ("min", "mins", "minute", "minutes")}  # ('150 min')


_SIZES |= {u: ("l", 1.0) for u in ("litre", "litres", "liter", "liters", "ltr")}  # (fresh23)
_SIZES |= {u: ("g", 1000.0) for u in ("kilo", "kilos")}
_SIZES |= {u: ("m", 1.0) for u in ("metre", "metres", "meter", "meters")}
_SIZES |= {u: ("h", 1 / 3600) for u in ("s", "sec", "secs", "second", "seconds")}


def one_unit(units: set[str]) -> bool:
    """Whether ``units`` (as written after numbers) are spellings of one unit (``'L'`` and
    ``'litres'``): one size of one kind, or one spelling."""
    return len({_SIZES.get(u.lower(), u) for u in units}) == 1


def units_reading(column: str, numbers: list[str], comma: bool) -> tuple[str, str]:
    """The files note's reading of ``column`` (an expression) written in several units, whose
    numbers are ``numbers`` as written (``comma``: with decimal commas): the value's and the
    unit's expressions. Numbers with spaces between thousands (``'2 800 l'``) are read whole."""
    if any(re.search(r"\d\s\d{3}(?!\d)", n) for n in numbers):
        digits = (
            f"{column}.str.extract(r'(\\d[\\d.,]*(?:\\s\\d{{3}}[\\d.,]*)*)')[0]"
            ".str.replace(r'\\s', '', regex=True)"
        )
        end = r"\d\s*((?:sq|cu)\.?\s?\w+|[^\d\s.,]+)\s*$"  # ('1 200 sq ft': 'sq ft')
        unit = f"{column}.str.extract(r'{end}')[0].str.strip()"
    else:
        digits = f"{column}.str.extract(r'([\\d.,]+)')[0]"
        unit = f"{column}.str.extract(r'[\\d.,]+\\s*(\\D+)')[0].str.strip()"
    if comma:
        return f"{digits}.str.replace('.', '').str.replace(',', '.')", unit
    return f"{digits}.str.replace(',', '')", unit


def _names_a_unit(code: str, units: list[str]) -> bool:
    """Whether a text in ``code`` (a quoted string) names a unit: one of the note's units or
    a word for one (``'ft'``, ``'kg'``), as a word of that text. Texts a line prints are
    labels, not a look at the unit."""
    words = _UNIT_WORDS | {w for u in units for w in re.findall(r"[^\W\d_]+|²", u.lower())}
    words |= {u.lower() for u in units}
    for line in code.splitlines():
        if line.lstrip().startswith("print("):
            continue  # (a label printed, '@mean_kg[...]' or 'in kg:', reads no unit)
        for _quote, text in re.findall(r"(['\"])((?:(?!\1).)*)\1", line):
            low = text.lower()
            if re.fullmatch(r"[\w./-]+\.(?:csv|tsv|txt|json|xlsx?|parquet)", low):
                continue  # (a file's name: 'l.csv' names no litre)
            # a word of the text, whole: 'mean_kg' is a name, not the unit 'kg'
            if low.strip() in words or set(re.findall(r"[^\W\d]+²?", low)) & words:
                return True
    return False


def mixed_units_problem(question: str, code: str) -> Problem | None:
    """A column the files note shows in several units (``'85 m²'``, ``'915 sq ft'``) turned
    into numbers by code that never looks at the unit: values in different units are
    averaged or compared as one. The note shows how to take the unit; when the question
    gives a factor right after a value in one unit, the line that applies it."""
    live = without_comments(code)
    for name, kind in note_column_kinds(question):
        m = _SEVERAL_UNITS.search(kind)
        lines = [ln for ln in code.splitlines() if uses_column(ln, name)]
        converts = any(_CONVERTS_LINE.search(ln) for ln in lines)
        if m is None or not converts or not uses_column(past_conversions(code, name), name):
            continue  # (converted and left unused: its units do not matter)
        units = re.findall(r"'([^']+)'", m.group(1))
        if re.search(r"\bunits?\b", live) or _names_a_unit(live, units):
            continue
        factors = _factors(task_text(question), units)
        apply = f" (here: {'; '.join(factors)})" if factors else ""
        return problem_of(
            f"The column {name!r} is written in several units ({m.group(1)}; see the files "
            "note), and your code turns it into numbers without looking at the unit: values "
            f"in different units are averaged or compared as one. Take the unit too: "
            f"{m.group(2)}; bring every value to the unit the question asks for{apply}; run "
            "your code again, print the result, then answer.",
            _every_units_read(question, code, name, m.group(2), factors),
        )
    return None


def _every_units_read(
    question: str, code: str, name: str, reading: str, factors: list[str]
) -> str | None:
    """``_units_read`` of column ``name``, then of every other several-units column the
    cell converts its own way (fresh19: Gross, then Tare), or None when the first fails."""
    fixed = _units_read(code, name, reading, factors)
    if fixed is None:
        return None
    for other, kind in note_column_kinds(question):
        n = _SEVERAL_UNITS.search(kind)
        if other != name and n is not None:
            units = re.findall(r"'([^']+)'", n.group(1))
            again = _units_read(
                fixed, other, n.group(2), _factors(task_text(question), units), True
            )
            fixed = again or fixed
    return fixed


def _factors(task: str, units: list[str]) -> list[str]:
    """The lines bringing every unit to the one the question asks for (``value =
    value.where(unit != 'g', value / 1000)``), from the factor it gives right after a unit
    ("divide by 10.7639 for square metres") or known ones; none when there is neither."""
    for f in _FACTOR.finditer(task):
        before = task[max(0, f.start() - 40) : f.start()]
        unit = next((u for u in units if u.lower() in before.lower()), None)
        if unit is not None:
            op = "/" if f.group(1).lower() == "divide" else "*"
            number = f.group(2).replace(",", "")
            return [f"value = value.where(unit != {unit!r}, value {op} {number})"]
    return _known_factors(task, units)


@dataclass(frozen=True)
class UnitsFix:
    """A failed cell whose conversions of a several-units column give way to the note's
    reading with the unit factors."""

    code: str
    column: str
    factors: str

    def note(self) -> str:
        """What the model (and the transcript) is told about the re-run."""
        return (
            f"Your cell failed on {self.column!r}, which is written in several units, after "
            "converting it its own way. I re-ran your cell with the files note's reading in "
            f"place of its conversions of {self.column!r}: value and unit read from the text, "
            f"{self.factors}, then the column set to value. Output of the re-run:"
        )


def units_cell_fix(question: str, result: ExecutionResult, code: str) -> UnitsFix | None:
    """The cell with ``_units_read``'s lines in place of its own conversions of a column the
    note shows in several units, when it failed on text where numbers belong (``.str`` on
    numbers, ``'>' not supported between 'str' and 'int'``) at one of those lines or at a
    line using the column after them, the question gives the factors and what ran before
    can run again."""
    number = failed_at(result, code, _GARBLED)
    if number is None:
        return None
    lines, error = code.splitlines(), result.error
    assert error is not None  # (failed_at found it)
    for name, kind in note_column_kinds(question):
        m = _SEVERAL_UNITS.search(kind)
        own = re.compile(rf"^\w+\s*\[\s*(['\"]){re.escape(name)}\1\s*\]\s*=[^=]")
        before = [ln for ln in lines[: number - 1] if own.match(ln) and _CONVERTS_LINE.search(ln)]
        failing = lines[number - 1]
        if m is None or not (own.match(failing) or (before and uses_column(failing, name))):
            continue
        factors = _factors(task_text(question), re.findall(r"'([^']+)'", m.group(1)))
        fixed = _every_units_read(question, code, name, m.group(2), factors)
        if fixed is None or not safe_to_repeat(code, error.traceback):
            return None
        return UnitsFix(code=fixed, column=name, factors="; ".join(factors))
    return None


#: A failure of text where numbers belong, after a garbled conversion.
_GARBLED = re.compile(
    r"Can only use \.str accessor|not supported between instances of 'str'"
    r"|could not convert string to float: '[\d.,]+\s*[^\d\s'][^']*'"  # ('2.78 t': fresh19)
)


def _units_read(
    code: str, name: str, reading: str, factors: list[str], again: bool = False
) -> str | None:
    """``code`` with its own conversions of column ``name`` in place (``df['Weight'] =
    ...``) replaced by the note's reading, the unit ``factors`` and ``df['Weight'] =
    value``, where the first of them stood; None without factors, or when the column is
    converted other than by whole top-level lines of one frame the cell read; ``again``: a
    second column of the cell, after the first one's reading set ``value`` and ``unit``."""
    column = rf"(\w+)\s*\[\s*(['\"]){re.escape(name)}\2\s*\]"
    own = [
        (i, m)
        for i, ln in enumerate(code.splitlines())
        if (m := re.match(column + r"\s*=[^=]", ln))
    ]
    frames = {m.group(1) for _i, m in own}
    inside = re.search(rf"^\s+{column}\s*=[^=]", code, re.M)  # (in a block: not a whole line)
    if (
        not factors
        or len(frames) != 1
        or inside
        or (not again and re.search(r"^\s*(?:value|unit)\s*=", code, re.M))
    ):
        return None
    frame = frames.pop()
    lines = code.splitlines()
    first = own[0][0]  # (the frame read, or made from one before: fresh17's service_jobs)
    if not any(re.match(rf"{frame}\s*=[^=]", ln) for ln in lines[:first]):
        return None
    read = [p.strip().replace("df[", f"{frame}[") for p in reading.split(";")]
    made = [*read, *factors, f"{frame}[{name!r}] = value"]
    kept = [ln for i, ln in enumerate(lines) if i not in {j for j, _m in own}]
    return "\n".join([*kept[:first], *made, *kept[first:]])


def _asked_unit(task: str) -> str | None:
    """The one unit the question asks for (``_ASKING``; quoted examples of how the data is
    written do not count), or None when it names none or several the same way."""
    unquoted = re.sub(r"'[^'\n]*'", "", task)
    question = re.split(r"\n\s*Constraints?:", unquoted)[0]
    # ("how many tonnes of grapes?" asks tonnes before a number of the constraints does;
    # "on how many days did it run longer than 400 minutes?" counts days: read after it)
    ending = r"(?=\s+of\b|\s*[?.,;]|\s*$)"
    places = [
        (_ASKING[0], question, ""),
        (_ASKING[1], question, ""),
        (_ASKING[3], question, ending),
    ]
    places += [(_ASKING[1], unquoted, ""), (_ASKING[2], question, ""), (_ASKING[3], question, "")]
    for before, where, after in places:
        asked = {u for p, u in _UNIT_NAMES if re.search(rf"{before}(?:{p})\b{after}", where, re.I)}
        if asked:
            return asked.pop() if len(asked) == 1 else None
    return None


def _known_factors(task: str, units: list[str]) -> list[str]:
    """The lines bringing every unit of the note to the one the question asks for, when the
    question names it ("in kilograms") and every unit is a known size of one kind
    (``'g'`` and ``'kg'``: ``value = value.where(unit != 'g', value / 1000)``); else none."""
    asked = _asked_unit(task)
    known = {u: _SIZES[u.lower().strip()] for u in units if u.lower().strip() in _SIZES}
    if asked is None or len(known) != len(units):
        return []
    kind, size = _SIZES[asked]
    lines = []
    for unit, (its_kind, its_size) in known.items():
        if its_kind != kind:
            return []
        ratio = its_size / size
        if ratio != 1:
            how = f"* {ratio:g}" if ratio > 1 else f"/ {1 / ratio:g}"
            lines.append(f"value = value.where(unit != {unit!r}, value {how})")
    return lines
