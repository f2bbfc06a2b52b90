"""Durations written two ways, ``'2:05'`` beside ``'125 min'`` (fresh18: a film's Runtime),
read by code that handles one way only, and thresholds in hours compared with minutes.

- **one way**: the files note gives two lines (``minutes = <hours:minutes>; minutes =
  minutes.fillna(<minutes>)``); the 1.5B model copies the first and the films written in
  minutes become NaN, counted nowhere. The runnable code puts the note's whole reading in
  place of the cell's.
- **hours as minutes**: "run for more than 2 hours" compared as ``minutes > 2`` after the
  cell made the column minutes (``* 60``): every film passes. The runnable code compares
  with the minutes (``> 120``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from codeact.agents._cellforms import CLOCK_MINUTES_READING
from codeact.agents._notecols import name_pattern, note_column_kinds, task_text, without_comments
from codeact.agents._problem import Problem, problem_of
from codeact.agents._unusedfix import failed_at, safe_to_repeat
from codeact.executors.base import ExecutionResult

#: The note's lines: the hours:minutes reading, then the minutes (and hours) ones filled in.
_READING = re.compile(r"minutes = (.*?)((?:; minutes = minutes\.fillna\(.*?\))+)(?:, e\.g\.|$)")
_FILL = "; minutes = minutes.fillna("
#: Each form the note reads, how code that reads it shows it, and how it is written.
_FORMS = (
    ("clock", re.compile(r":"), "'2:05'"),
    ("min", re.compile(r"min", re.I), "'125 min'"),
    ("h", re.compile(r"(?<![A-Za-z])[hH](?:ours?|rs?)?(?![A-Za-z])|\[hH\]|\[Hh\]"), "'2,5 h'"),
)


def _string_texts(code: str) -> str:
    """The texts of ``code``'s quoted strings, one after another."""
    return " ".join(m.group(2) for m in re.finditer(r"(['\"])(.*?)\1", code))


def one_way_problem(question: str, code: str) -> Problem | None:
    """A column the note shows as durations written two or three ways, read by lines that
    look for some of them only (a ``':'`` and never ``min``, or the other way round)."""
    live = without_comments(code)
    for name, kind in note_column_kinds(question):
        m = CLOCK_MINUTES_READING.search(kind)
        reading = _READING.search(m.group(1)) if m is not None else None
        if reading is None:
            continue
        fills = [r.removesuffix(")") for r in reading.group(2).split(_FILL)[1:]]
        forms = [_FORMS[0], *(f for f in _FORMS[1:] for r in fills if f[0] in r.split("s*")[-1])]
        ref = rf"\w+\s*\[\s*['\"](?:{name_pattern(name)})['\"]\s*\]"
        lines = [ln for ln in live.splitlines() if re.search(ref, ln)]
        texts = _string_texts("\n".join(lines))
        read = [form for form in forms if form[1].search(texts)]
        if not lines or len(read) in (0, len(forms)):
            continue  # (every way read, or none: other rules say how to read it)
        if re.search(
            r"np\.where|\.where\(|\.mask\(|fillna\(|combine_first|contains\(\s*['\"]:", live
        ):
            continue  # (the ways told apart: np.where(is_clock, h * 60 + m, plain))
        made = re.search(rf"^(\s*)([\w\[\]'\" ]+?)\s*=(?!=)(.*{ref}.*)$", live, re.M)
        whole = f"({reading.group(1)})" + "".join(f".fillna({r})" for r in fills)
        fixed = None
        reads = r"extract|split|to_numeric|astype"
        if made is not None and re.search(reads, made.group(3)) and "60" in made.group(3):
            # (a line that alone makes minutes: hours and minutes read on two lines are not)
            column = re.search(ref, made.group(3))
            assert column is not None
            whole = whole.replace(f"df[{name!r}]", column.group(0))
            line = f"{made.group(1)}{made.group(2)} = {whole}"
            fixed = code.replace(made.group(0), line, 1) if made.group(0) in code else None
        shown = " and ".join(f[2] for f in read)
        other = " or ".join(f[2] for f in forms if f not in read)
        ways = {2: "two", 3: "three"}[len(forms)]
        return problem_of(
            f"The column {name!r} holds durations written {ways} ways (see the files note), "
            f"and your code reads only the {shown} form: the rows written like {other} become "
            f"NaN and drop out. Read every way, as the note does: minutes = {whole}; run your "
            "code again, print the result, then answer.",
            fixed,
        )
    return None


#: A time unit after a threshold, and the sizes of the others in it ("over 2 hours": 120
#: minutes, fresh18's runtimes read as minutes).
_TIME_SIZES: dict[str, dict[str, float]] = {"hour": {"minutes": 60, "seconds": 3600}}
_TIME_SIZES |= {"day": {"hours": 24, "minutes": 1440}}
_TIME_SIZES |= {"minute": {"seconds": 60, "hours": 1 / 60}, "week": {"days": 7}}


def in_other_units(number: str, after: str) -> set[str]:
    """The threshold ``number`` written in the other time units when ``after`` (the words
    following it) starts with one (``" hours"``): ``{"120", "7200"}`` for 2 hours."""
    m = re.match(r"\s*(hour|day|minute|week)s?\b", after, re.I)
    if m is None:
        return set()
    sizes = _TIME_SIZES[m.group(1).lower()].values()
    return {f"{float(number) * size:g}" for size in sizes if float(number) * size >= 1}


_HOURS = re.compile(r"\b(\d+(?:\.\d+)?)\s*(?:hours?|hrs?|h)\b", re.I)


def hours_problem(question: str, code: str) -> Problem | None:
    """A number of hours the question names compared with minutes the code made (a ``* 60``
    and no ``/ 60``): the comparison's number is the question's, not times 60."""
    live = without_comments(code)
    if not re.search(r"\*\s*60\b|\b60\s*\*", live) or re.search(r"/\s*60\b", live):
        return None
    made = [  # (what the * 60 makes: a name or a column, or the line itself)
        m.group(1).strip()
        for m in re.finditer(r"^\s*([^=\n]+?)\s*=(?!=)[^\n]*(?:\*\s*60\b|\b60\s*\*)", live, re.M)
    ]
    for m in _HOURS.finditer(task_text(question)):
        number = m.group(1)
        limit = rf"([<>]=?)\s*{re.escape(number)}(?![\d.]|\s*[*/])"
        compared = next(
            (
                c
                for ln in code.splitlines()
                if (c := re.search(limit, ln))
                and (re.search(r"\*\s*60\b", ln) or any(t in ln for t in made))
            ),
            None,
        )
        if compared is None:
            continue  # (no comparison of what the * 60 made: an hours column compared in hours)
        minutes = float(number) * 60
        shown = f"{minutes:g}"
        if re.search(rf"(?<![\d.]){re.escape(shown)}(?![\d.])", live):
            continue
        line = compared.string
        fixed = code.replace(
            line, line.replace(compared.group(0), f"{compared.group(1)} {shown}", 1), 1
        )
        return problem_of(
            f"The question's {m.group(0)} are {shown} minutes, but your code makes the "
            f"durations minutes (* 60) and compares them with {number} "
            f"(`{compared.group(0)}`). Compare with {shown}; run your code again, print the "
            "result, then answer.",
            fixed,
        )
    return None


#: A conversion that failed on text where numbers belong, or on numbers where text belongs.
_FAILED_READ = re.compile(
    r"Can only use \.str accessor|not supported between instances of 'str'"
    r"|could not convert string to float|invalid literal for int|Unable to parse string"
)


@dataclass(frozen=True)
class ClockFix:
    """A failed cell whose own conversions of a column of durations written several ways
    give way to the files note's whole reading (``df['Brewhouse Time'] = <minutes>``)."""

    code: str
    column: str

    def note(self) -> str:
        """What the model (and the transcript) is told about the re-run."""
        return (
            f"Your cell failed converting {self.column!r}, whose durations are written "
            "several ways (see the files note). I re-ran your cell with the note's whole "
            f"reading in place of its own conversions: {self.column!r} set to minutes read "
            "every way. Output of the re-run:"
        )


def clock_cell_fix(question: str, result: ExecutionResult, code: str) -> ClockFix | None:
    """The cell with its top-level lines setting a durations-written-several-ways column
    (``df['Brewhouse Time'] = ...``) replaced by one line setting it to the note's reading
    in minutes, when it failed at one of them (or at a line using the column after them)
    with a conversion error, and what ran before can run again (fresh20: the reading copied
    into column assignments, the later ones reading ``.str`` of numbers)."""
    number = failed_at(result, code, _FAILED_READ)
    if number is None:
        return None
    lines, error = code.splitlines(), result.error
    assert error is not None  # (failed_at found it)
    for name, kind in note_column_kinds(question):
        m = CLOCK_MINUTES_READING.search(kind)
        reading = _READING.search(m.group(1)) if m is not None else None
        if reading is None:
            continue
        own = re.compile(rf"^(\w+)\s*\[\s*(['\"]){re.escape(name)}\2\s*\]\s*=(?!=)")
        sets = [i for i, ln in enumerate(lines) if own.match(ln)]
        frames = {own.match(lines[i]).group(1) for i in sets}  # type: ignore[union-attr]
        if not sets or len(frames) != 1 or sets[0] >= number:
            continue
        frame = frames.pop()
        fills = [r.removesuffix(")") for r in reading.group(2).split(_FILL)[1:]]
        whole = f"({reading.group(1)})" + "".join(f".fillna({r})" for r in fills)
        whole = whole.replace(f"df[{name!r}]", f"{frame}[{name!r}]")
        kept = [ln for i, ln in enumerate(lines) if i not in sets[1:]]
        kept[sets[0]] = f"{frame}[{name!r}] = {whole}"
        fixed = "\n".join(kept)
        if not safe_to_repeat(code, error.traceback):
            return None
        return ClockFix(code=fixed, column=name)
    return None
