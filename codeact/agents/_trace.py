"""Does a value of the answer come from a cell? Tracing answer values to what code printed.

A value *traces* when a cell of the turn that ran without an error printed it (its stdout, the
repr of its last expression, or its ``final_answer``): the same number, or a more precise one
that rounds to it (half-up, half-even or binary float rounding all count), or the same text
(case-insensitive, as a whole word). ``nan`` is a value like any other.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

from codeact.agents._placeholders import (
    TOKEN,
    integer_names,
    required_placeholders,
    rounding,
    templates,
)

if TYPE_CHECKING:
    from codeact.agents._candidate import CellRun

NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?")
_PLAIN_NUMBER = re.compile(r"(?<![\w.])[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
#: Just before a number: a code's capital letters and a hyphen, as in ``BR-02`` or ``SKU-7``
#: (not a month, ``SEP-2017``; not a word, ``lane-3`` or ``17-Sep-2017``).
_IN_LABEL = re.compile(
    r"(?<![A-Za-z])(?!(?:JAN|FEB|MAR|APR|MAY|JUN|JUL|AUG|SEP|OCT|NOV|DEC)-)[A-Z]{1,5}-$"
)
_NUMERIC_VALUE = re.compile(r"^[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?%?$")
#: Values that say "no value": a placeholder holding one is not answered.
EMPTY_VALUES = frozenset(
    {"", "value", "none", "null", "n/a", "na", "not available", "unknown", "?", "...", "tbd"}
)
_SYNONYMS = {"yes": ("true",), "no": ("false",), "true": ("yes",), "false": ("no",)}


@dataclass(frozen=True)
class TracedValue:
    """One ``@name[value]`` of an answer and whether a successful cell printed it."""

    value: str
    computed: bool


def computed_texts(cells: Iterable[CellRun]) -> list[str]:
    """What the successful cells showed: stdout, the last expression's repr, ``final_answer``."""
    out = []
    for cell in cells:
        if cell.error is not None:
            continue
        out.append(cell.stdout)
        if cell.value:
            out.append(cell.value)
        if cell.final_answer is not None:
            out.append(str(cell.final_answer))
    return [t for t in out if t]


def as_decimal(text: str) -> Decimal | None:
    """``text`` as a number (thousands separators and a trailing ``%`` allowed), or None."""
    s = text.strip().strip("'\"").strip()
    if not _NUMERIC_VALUE.match(s):
        return None
    try:
        return Decimal(s.rstrip("%").replace(",", ""))
    except InvalidOperation:
        return None


def _printed_numbers(texts: Sequence[str]) -> list[Decimal]:
    out = []
    for text in texts:
        for pattern in (NUMBER, _PLAIN_NUMBER):  # "12,345" is one number, or a list of two
            for m in pattern.finditer(text):
                if _IN_LABEL.search(text, max(0, m.start() - 7), m.start()):
                    continue  # (the 02 of 'BR-02' is part of a label, not a number printed)
                try:
                    out.append(Decimal(m.group(0).replace(",", "")))
                except InvalidOperation:
                    continue
    return out


def decimals_of(text: str) -> int:
    """Digits after the decimal point of a written number."""
    s = text.strip().rstrip("%")
    return len(s.split(".", 1)[1]) if "." in s and "e" not in s.lower() else 0


def roundings(y: Decimal, places: int) -> set[Decimal]:
    """``y`` rounded to ``places`` decimals the ways code commonly rounds."""
    q = Decimal(1).scaleb(-places)
    out = {y.quantize(q, ROUND_HALF_UP), y.quantize(q, ROUND_HALF_EVEN)}
    with contextlib.suppress(OverflowError, ValueError):
        out.add(Decimal(f"{float(y):.{places}f}"))
    return out


def _source(x: Decimal, places: int, printed: Sequence[Decimal]) -> Decimal | None:
    """The printed number that ``x`` (written with ``places`` decimals) comes from."""
    for y in printed:
        if y == x:
            return y
    for y in printed:
        if y.is_finite() and x in roundings(y, places):
            return y
    return None


def traces(value: str, texts: Sequence[str]) -> bool:
    """True when ``value`` comes from what the successful cells showed (``texts``)."""
    v = value.strip().strip("'\"").strip()
    if not v:
        return False
    x = as_decimal(v)
    if x is not None:
        return _source(x, decimals_of(v), _printed_numbers(texts)) is not None
    if _word_in(v, texts):
        return True
    if any(_word_in(s, texts) for s in _SYNONYMS.get(v.lower(), ())):
        return True
    parts = [p.strip() for p in re.split(r"[,;]", v.strip("[]()")) if p.strip()]
    return len(parts) > 1 and all(traces(p, texts) for p in parts)


def _word_in(word: str, texts: Sequence[str]) -> bool:
    pattern = re.compile(r"(?<!\w)" + re.escape(word) + r"(?!\w)", re.IGNORECASE)
    return any(pattern.search(t) for t in texts)


def round_as_asked(value: str, places: int, texts: Sequence[str]) -> str:
    """A numeric ``value`` written with the asked ``places`` decimals, re-rounded from the
    printed number it comes from when there is one; other values unchanged."""
    x = as_decimal(value)
    if x is None or value.strip().endswith("%"):
        return value
    source = _source(x, decimals_of(value), _printed_numbers(texts)) or x
    try:
        return f"{source.quantize(Decimal(1).scaleb(-places), ROUND_HALF_UP):f}"
    except InvalidOperation:  # (more digits than the context holds: '1e400', 30 digits)
        return value


def drop_untraced_extras(text: str, wanted: Sequence[str], texts: Sequence[str]) -> str:
    """``text`` without the ``@name[value]`` tokens the question does not ask for whose value
    no cell printed (``@Engineering[70632.00]`` copied from the files note's first lines)."""

    def keep(m: re.Match[str]) -> str:
        return m.group(0) if m.group(1) in wanted or traces(m.group(2), texts) else ""

    return TOKEN.sub(keep, text)


def round_asked(text: str, question: str, texts: Sequence[str]) -> str:
    """``text`` with each ``@name[value]`` written as the question asks (``as_asked``); other
    tokens as they are."""
    places, whole = rounding(question), integer_names(question)

    def asked(m: re.Match[str]) -> str:
        name, value = m.group(1), m.group(2)
        return f"@{name}[{as_asked(value, places.get(name), name in whole, texts)}]"

    return TOKEN.sub(asked, text)


def as_asked(value: str, places: int | None, whole: bool, texts: Sequence[str]) -> str:
    """``value`` with the asked ``places`` decimals (``round_as_asked``), or, asked as an
    integer (``whole``) with no decimals asked, without a zero fraction (``179174.0``:
    ``179174``); else as it is."""
    if places is not None:
        return round_as_asked(value, places, texts)
    return as_whole(value) if whole else value


def as_whole(value: str) -> str:
    """``value`` without its fraction when that is zero (``'179174.0'``: ``'179174'``)."""
    return value.strip().split(".")[0] if _ZERO_FRACTION.match(value.strip()) else value


_ZERO_FRACTION = re.compile(r"^-?\d+\.0+$")


def given_values(text: str, template: dict[str, str] | None = None) -> dict[str, str]:
    """``@name[value]`` tokens of ``text`` holding a value (the last of a name wins): not empty,
    not a "no value" word, not the question's own template text."""
    out = {}
    for name, raw in TOKEN.findall(text or ""):
        v = raw.strip()
        if v.lower() in EMPTY_VALUES or v.lower() == (template or {}).get(name, "").lower():
            continue
        out[name] = v
    return out


def trace_answer(question: str, answer: str, cells: Sequence[CellRun]) -> dict[str, TracedValue]:
    """Each required ``@name[value]`` given in ``answer``, and whether it traces to a cell."""
    texts = computed_texts(cells)
    wanted = required_placeholders(question)
    given = given_values(answer, templates(question))
    return {n: TracedValue(given[n], traces(given[n], texts)) for n in wanted if n in given}


#: A template asking for a label, not a number (``@tariff[tariff_code]``, ``@city[name]``).
_LABEL_TEMPLATE = re.compile(r"(?:^|_)(?:name|code|label|id|title|category)(?:_|$)", re.I)
#: A template asking for a name (an id or a code may be a number: ``member_id``).
_NAMED = re.compile(r"(?:^|_)(?:name|label|title|category)(?:_|$)", re.I)
#: A label and its value on one line, as ``print(s.idxmin(), s.min())`` shows them.
_LABEL_AND_NUMBER = re.compile(
    r"([^\s\d@\[\]][^\s@\[\]]*)\s+[-+]?\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?"
)


#: More digits than any 64-bit integer has: text digits joined end to end (an ID or a sum
#: computed by pandas has at most 19).
_JOINED_DIGITS = re.compile(r"[-+]?\d{20,}")
_REPR_PIECE = re.compile(r"\b(?:dtype|Name|Length|Freq)\s*:|\b(?:Index|Series|DataFrame)\(")


def garbled(value: str) -> str | None:
    """Why a printed value cannot be an answer, or None: digits of text values joined end to
    end by ``.sum()`` on a text column (``332111132141``), or a piece of how pandas prints a
    Series (``Branch, dtype: str``)."""
    v = value.strip()
    if _JOINED_DIGITS.fullmatch(v):
        return (
            "is not a number: .sum() on a column of text joins the values end to end. Convert "
            "the values to numbers first (.astype(int), or as the files note says)"
        )
    if _REPR_PIECE.search(v):
        return (
            "is a piece of how pandas prints a Series or an index, not a value. Print the one "
            "value asked for (for example s.idxmax(), s.max() or s.iloc[0])"
        )
    return None


def best_traced_values(question: str, cells: Sequence[CellRun]) -> dict[str, str]:
    """For each required placeholder, the value the successful cells printed for it (latest
    first): as ``@name[value]``, on a line labelled with the name, the only number the last
    cell printed when one value is asked, or else the last line the last cell printed when it
    is one value per asked name (``Engineering 94253.379``, in the asked order); rounded as
    asked."""
    wanted = required_placeholders(question)
    ok = [c for c in cells if c.error is None]
    texts = computed_texts(ok)
    found: dict[str, str] = {}
    for cell in reversed(ok):
        shown = "\n".join(computed_texts([cell]))
        printed = given_values(shown, templates(question))
        for name in wanted:
            if name not in found:
                label = bool(_NAMED.search(templates(question).get(name, "")))
                value = printed.get(name) or _labelled(name, shown, label=label)
                if value is not None and garbled(value) is None:
                    found[name] = value
    unlabelled = [n for n in wanted if n not in found] if ok else []
    for name in unlabelled:  # (a value the format lists: "is Q1, Q2, Q3 or Q4")
        said = [o for o in _options(question, name) if re.search(rf"\b{re.escape(o)}\b", texts[-1])]
        if len(said) == 1:
            found[name] = said[0]
    if len(wanted) == 1 and not found and ok:
        last = "\n".join(computed_texts([ok[-1]]))
        numbers = NUMBER.findall(last)
        pair = _LABEL_AND_NUMBER.fullmatch(last.strip())
        if pair and _LABEL_TEMPLATE.search(templates(question).get(wanted[0], "")):
            found[wanted[0]] = pair.group(1)  # ("EV 20.77" for @tariff[tariff_code])
        elif len(numbers) == 1:
            found[wanted[0]] = numbers[0]
    if len(wanted) > 1 and not found and ok:  # the last line: one value per asked name
        lines = [ln for ln in "\n".join(computed_texts([ok[-1]])).splitlines() if ln.strip()]
        if lines:
            found.update(bare_values(lines[-1], wanted, texts))
            found.update(renamed_values(lines[-1], wanted, texts))
    places, whole = rounding(question), integer_names(question)
    return {n: as_asked(v, places.get(n), n in whole, texts) for n, v in found.items()}


def _options(question: str, name: str) -> list[str]:
    """The values the format allows for ``name`` when it lists them (``where "quarter_label"
    is Q1, Q2, Q3 or Q4``)."""
    template = templates(question).get(name, "")
    listed = re.search(
        rf"\"{re.escape(template)}\" is ((?:[\w-]+, )+[\w-]+,? or [\w-]+)\b", question
    )
    return re.split(r",? or |, ", listed.group(1)) if template and listed else []


def _labelled(name: str, shown: str, *, label: bool = False) -> str | None:
    """The value on the last printed line that names ``name``'s words: its last number (for
    a ``label``, asked as a name, only the text after ``:`` or ``=``: "the booking.com
    channel, with 174 bookings" gives no channel)."""
    words = [w for w in name.lower().split("_") if w]
    for line in reversed(shown.splitlines()):
        if TOKEN.search(line):  # (placeholders are read by their names: ``renamed_values``)
            continue
        low = re.sub(r"[^a-z0-9]+", " ", line.lower())
        if not words or not all(re.search(rf"\b{re.escape(w)}", low) for w in words):
            continue
        tail = re.split(r"[:=]", line, maxsplit=1)
        rest = tail[1] if len(tail) > 1 else line
        numbers = NUMBER.findall(rest)
        if numbers and not label:
            return str(numbers[-1])
        if len(tail) > 1 and rest.strip():
            return rest.strip().strip("'\"")
    return None


def best_traced_answer(question: str, cells: Sequence[CellRun]) -> str | None:
    """The best answer made only of values the successful cells printed, or None.

    With placeholders: ``@name[value]`` for each one found. Without: what the last successful
    cell printed (its last lines)."""
    if required_placeholders(question):
        found = best_traced_values(question, cells)
        wanted = required_placeholders(question)
        tokens = [f"@{n}[{found[n]}]" for n in wanted if n in found]
        return " ".join(tokens) or None
    ok = [c for c in cells if c.error is None and computed_texts([c])]
    if not ok:
        return None
    shown = "\n".join(computed_texts([ok[-1]])).strip().splitlines()
    return "\n".join(shown[-10:])[-800:] or None


def jsonable(traced: dict[str, TracedValue]) -> dict[str, Any]:
    """``trace_answer``'s result as plain data (the CLI's ``--json``)."""
    return {n: {"value": t.value, "computed": t.computed} for n, t in traced.items()}


_BARE = re.compile(r"^[\s,;]*@?([^\s,;@\[\]]+)")
MAX_BARE_CHARS = 200


def bare_values(text: str, wanted: Sequence[str], texts: Sequence[str]) -> dict[str, str]:
    """The asked placeholders filled in order from an answer that is nothing but their values
    (``@Graz @503.4``, ``East 221``: the names left out), when there is one value per name
    and every value comes from a cell (``traces``); else empty."""
    rest = (text or "").strip()
    if not wanted or len(rest) > MAX_BARE_CHARS or TOKEN.search(rest):
        return {}
    values = []
    while rest.strip(" \t\n,;"):
        m = _BARE.match(rest)
        if m is None:
            return {}
        values.append(m.group(1).rstrip(".:"))
        rest = rest[m.end() :]
    if len(values) != len(wanted) or not all(v and traces(v, texts) for v in values):
        return {}
    return dict(zip(wanted, values, strict=True))


def renamed_values(text: str, wanted: Sequence[str], texts: Sequence[str]) -> dict[str, str]:
    """The asked placeholders filled in order from placeholders under other names
    (``@largest_sales_city[Lyon] @largest_sales[85484554]`` for ``@city`` and
    ``@city_sales``; ``@rebsorte[Riesling] @tonnes[588.39]`` for ``@variety`` and ``@tonnes``),
    when there is one per asked name, each under its asked name or one not asked, in the
    asked order, some renamed (beside asked names only labels: ``@total_orders[1234]`` is
    no ``@total_sales``), and every value comes from a cell (``traces``); else empty."""
    tokens = [(n, v.strip()) for n, v in TOKEN.findall(text or "")]
    if not wanted or len(tokens) != len(wanted):
        return {}
    pairs = list(zip(wanted, tokens, strict=True))
    if any(n != asked and n in wanted for asked, (n, _) in pairs):
        return {}
    kept = [n == asked for asked, (n, _) in pairs]
    if all(kept):
        return {}
    renamed = [v for k, (_, v) in zip(kept, tokens, strict=True) if not k]
    if any(kept) and any(NUMBER.fullmatch(v) for v in renamed):
        return {}  # (beside an asked name, a number renamed may be another quantity)
    if not all(v and traces(v, texts) for _, v in tokens):
        return {}
    return {name: value for name, (_, value) in zip(wanted, tokens, strict=True)}
