"""Amounts written with currency signs or codes or percent signs (``€1,234.50``, ``12.50
EUR``, ``GBP 47.94``, ``7.5%``): how the files note recognises them, says what they are and
converts them (split from ``_filenote``)."""

from __future__ import annotations

import re

from codeact.agents._cellforms import NO_VALUE

#: Currency codes written after or before an amount (``12.50 EUR``, ``USD 3``).
_CODES = "EUR|USD|GBP|CHF|JPY|CAD|AUD|SEK|NOK|DKK|PLN|INR|CNY"
#: Digits grouped by commas: in thousands (``5,350,380``) or the Indian way, in lakhs and
#: crores (``6,35,000``, ``1,23,45,678``).
GROUPED = r"\d{1,3}(?:,\d{3})+|\d{1,2}(?:,\d{2})+,\d{3}"
_AMOUNT = rf"[-+]?(?:{GROUPED}|\d+)(?:\.\d+)?"
#: A number with a currency sign or code or a percent sign (``$1,234.50``, ``-€3``, ``7.5%``,
#: ``12.50 EUR``).
SIGNED_NUMBER = (
    rf"[-+]?[$€£¥₹]\s?{_AMOUNT}|{_AMOUNT}\s?(?:[%€]|(?:{_CODES})(?![A-Za-z]))"
    rf"|[-+]?(?<![A-Za-z])(?:{_CODES})\s?{_AMOUNT}"
)
_CODE = re.compile(rf"(?<![A-Za-z])(?:{_CODES})(?![A-Za-z])")


def signs_of(values: list[str]) -> list[str]:
    """The currency and percent signs written in ``values``."""
    return sorted({c for v in values for c in v if c in "$€£¥₹%"})


def _codes(values: list[str]) -> list[str]:
    return sorted({m.group(0) for v in values for m in _CODE.finditer(v)})


def signed_conversion(values: list[str], column: str) -> str:
    """Pandas code turning ``column`` (an expression), whose ``values`` carry currency signs
    or codes or percent signs, into floats."""
    signs = re.escape("".join(signs_of(values)))
    codes = "".join(f"|{c}" for c in _codes(values))
    return f"{column}.str.replace(r'[{signs},\\s]{codes}', '', regex=True).astype(float)"


def _shown(values: list[str]) -> str:
    """The signs and codes written in ``values``, for the note (``'$' signs and 'USD' codes``)."""
    signs, codes = (" and ".join(repr(c) for c in f(values)) for f in (signs_of, _codes))
    return " and ".join([f"{signs} signs"] * bool(signs) + [f"{codes} codes"] * bool(codes))


def signed_hint(values: list[str], name: str) -> str:
    """The files note on a column of amounts with signs or codes: what they are (and whether
    in more than one currency: a sign and its own code, '£' and 'GBP', are one) and the
    conversion that makes them numbers."""
    shown = _shown(values)
    money = {c for c in signs_of(values) if c != "%"} | set(_codes(values))
    mixed = len({{"€": "EUR", "£": "GBP", "$": "USD"}.get(c, c) for c in money}) > 1
    warn = " (amounts in more than one currency: do not add them up as one)" if mixed else ""
    return (
        f"numbers stored as text with {shown}{warn}: "
        f"convert with {signed_conversion(values, f'df[{name!r}]')}{_fractions(values, name)}"
    )


def _fractions(values: list[str], name: str) -> str:
    """For percentages some of which are written as fractions without the sign (fresh18:
    ``'20%'`` beside ``'0.2'``): the line that makes those percent too; else ''."""
    signed = [v for v in values if v.endswith("%")]
    bare = [v for v in values if re.fullmatch(r"\d*\.?\d+", v)]
    if not signed or not bare or len(signed) + len(bare) < len(values):
        return ""
    percents = [float(n) for v in signed if re.fullmatch(r"\d*\.?\d+", n := v[:-1].strip())]
    if any(float(v) > 1 for v in bare) or not any(p > 1 for p in percents):
        return ""
    fraction = next((v for v in bare if 0 < float(v) < 1), bare[0])
    return (
        f"; the fractions written without '%' are percent too ({fraction!r} is "
        f"{float(fraction) * 100:g}%): with pct the converted column, pct = pct.where("
        f"df[{name!r}].str.contains('%', na=True), pct * 100)"
    )


#: An amount written the European way: a dot between thousands, a comma before the decimals
#: (``1.045,71``, ``1816,66``, ``12``).
_EU_AMOUNT = r"[-+]?(?:\d{1,3}(?:\.\d{3})+|\d+)(?:,\d{1,2})?"
_EU_SIGNED = re.compile(
    rf"^(?:[-+]?[$€£¥]\s?{_EU_AMOUNT}|{_EU_AMOUNT}\s?(?:[€%]|(?:{_CODES})(?![A-Za-z]))"
    rf"|[-+]?(?:{_CODES})\s?{_EU_AMOUNT})$"
)
_EU_TELLS = re.compile(r"\d,\d{1,2}(?!\d)|\d\.\d{3},")  # (a decimal comma: '109,66')
_PLAIN_EU = re.compile(rf"^{_EU_AMOUNT}$")


def european_hint(values: list[str], name: str) -> str:
    """The files note on amounts with signs or codes written the European way (fresh17:
    ``€1.045,71``, ``EUR 1816,66``, ``1.234,50 €``), when every value is one (or a plain
    number) and some comma is plainly a decimal comma; else ''."""
    if not all(_EU_SIGNED.match(v) or _PLAIN_EU.match(v) for v in values):
        return ""
    if not any(_EU_SIGNED.match(v) for v in values) or not any(_EU_TELLS.search(v) for v in values):
        return ""
    signs = re.escape("".join(signs_of(values)))
    codes = "".join(f"|{c}" for c in _codes(values))
    shown = " and ".join(repr(c) for c in [*signs_of(values), *_codes(values)])
    column = f"df[{name!r}]"
    return (
        f"amounts stored as text with {shown}, written the European way (a dot between "
        "thousands, a comma before the decimals: '1.045,71' is 1045.71): convert with "
        f"{column}.str.replace(r'[{signs}\\s.]{codes}', '', regex=True).str.replace(',', '.')"
        ".astype(float)"
    )


#: An amount with or without a currency sign, plain or with commas between thousands.
_PLAIN_OR_SIGNED = re.compile(rf"^(?:{SIGNED_NUMBER}|{_AMOUNT})$")
#: A negative amount the accountants' way: in parentheses (``($45.00)``, ``(1,234.50)``).
_BRACKETED = re.compile(r"^\(\s*([^()+-][^()]*?)\s*\)$")


def accounting_hint(values: list[str], name: str) -> str:
    """The files note on amounts some of which are negatives in parentheses (fresh18, a US
    export: ``($45.00)`` beside ``-$45.00``, ``$1,234.50`` and ``1234.50``), when every value
    is such an amount; else ''. The conversion makes the brackets a minus first."""
    inner = [m.group(1) if (m := _BRACKETED.match(v)) else v for v in values]
    if not any(_BRACKETED.match(v) for v in values):
        return ""
    if not all(_PLAIN_OR_SIGNED.match(v) for v in inner):
        return ""
    signs = re.escape("".join(signs_of(values)))
    codes = "".join(f"|{c}" for c in _codes(values))
    shown = _shown(values)
    example = next(v for v in values if _BRACKETED.match(v))
    number = re.sub(r"[^\d.]", "", example)
    column = f"df[{name!r}]"
    shown = f"{shown}, negatives" if shown else "negatives"  # ("with": the rules read it)
    return (
        f"numbers stored as text with {shown} in parentheses ({example!r} is -{number}): "
        f"convert with {column}.str.strip().str.replace(r'^\\((.*)\\)$', r'-\\1', regex=True)"
        f".str.replace(r'[{signs},\\s]{codes}', '', regex=True).astype(float)"
    )


#: A number with spaces between thousands (``57 265,34``, ``2 850``, ``1 234.50``; the space
#: may be a no-break one), or a plain one, with a currency or unit word after or a sign before.
_SPACED = re.compile(
    r"^(?P<sign>[$€£¥]\s?)?(?P<number>-?(?:\d{1,3}(?:[ \u00a0\u202f]\d{3})+|\d+)"
    r"(?:[.,]\d+)?)(?:\s?(?P<word>[^\W\d_]{1,3}|[€£$%]))?$"
)
_SPACE_GROUP = re.compile(r"\d[ \u00a0\u202f]\d{3}(?!\d)")
#: Signs and words standing for no number beside such amounts (``'-'``, ``'n/a'``).
_NONE_WORDS = {"-", "--", "—", "n/a", "na", "none", "?", "x"}
#: Names of columns whose spaced digits are no amounts.
_NOT_AMOUNTS = re.compile(r"phone|tel\b|mobile|fax|zip|post ?code|iban|account|card|\bid\b", re.I)


def spaced_hint(values: list[str], name: str) -> str:
    """The files note on numbers with a space between thousands (a Czech export: ``'57 265,34'``
    beside ``'37897,74'`` and ``'53 422,56 Kč'``; ``'2 850'``), when every value is one (or a
    sign such as ``'-'`` for none), some has such a space, and one mark (a comma or a point)
    is the decimal one; else ''. Phone numbers (``'602 123 456'``) are no amounts."""
    if _NOT_AMOUNTS.search(name):
        return ""
    found: list[re.Match[str]] = []
    nones: set[str] = set()
    for v in values:  # (the first value that is neither ends it: most columns are no amounts)
        if m := _SPACED.match(v):
            found.append(m)
        elif v.lower() in _NONE_WORDS and len(nones) < 2:
            nones.add(v)
        else:
            return ""
    if not any(_SPACE_GROUP.search(m.group("number")) for m in found):
        return ""
    marks = {c for m in found for c in ",." if c in m.group("number")}
    words = sorted({w for m in found for w in (m.group("word"), m.group("sign")) if w})
    if len(marks) > 1 or len(words) > 1:
        return ""  # (both marks, or several units: another note's)
    digits = {len(re.sub(r"\D", "", m.group("number"))) for m in found}
    if not marks and not words and len(digits) == 1 and digits.pop() >= 8:
        return ""  # (numbers all of one length past eight digits: phone numbers, ids)
    comma = marks == {","}
    tails = {len(m.group("number").rpartition(",")[2]) for m in found if "," in m.group("number")}
    if tails == {3}:
        return ""  # ('1,250' beside '2 500': a comma of thousands or a decimal one, unknown)
    example = next(v for v in values if _SPACE_GROUP.search(v))
    number = float(re.sub(r"[^\d.-]", "", example.replace(",", ".") if comma else example))
    column = f"df[{name!r}]"
    where = "after" if any(m.group("word") for m in found) else "before"
    said = f", some with {words[0].strip()!r} {where}" if words else ""
    kind = "a space between thousands" + " and a decimal comma" * comma
    keep, point = ("[^\\d,-]", ".str.replace(',', '.')") if comma else ("[^\\d.-]", "")
    read = f"{column}.str.replace(r'{keep}', '', regex=True){point}"
    if nones:
        shown = " and ".join(repr(w) for w in sorted(nones))
        said += f", {shown} standing for no number"
        return (
            f"numbers stored as text with {kind} ({example!r} is {number:.12g}){said}: convert "
            f"with pd.to_numeric({read}, errors='coerce')"
        )
    return (
        f"numbers stored as text with {kind} ({example!r} is {number:.12g}){said}: convert with "
        f"{read}.astype(float)"
    )


def amount_hint(values: list[str], name: str) -> str:
    """The files note on amounts written the European way, the accountants' way or with
    spaces between thousands; '' when they are none of these."""
    return european_hint(values, name) or accounting_hint(values, name) or spaced_hint(values, name)


_FILE_DECIMAL = "numbers with decimal commas: read the file with decimal=',', thousands='.'"


def per_column_decimals(line: str) -> str:
    """A comma-separated file's column line whose numbers have decimal commas, told to read
    them column by column (fresh20: ``decimal=','`` on the whole file made part of another
    column, ``'37897,74'`` beside ``'57 265,34'``, floats that the column's own conversion
    then lost); other lines as they are."""
    if _FILE_DECIMAL not in line:
        return line
    name = re.match(r"  - ('(?:[^'\\]|\\.)*'|\"[^\"]*\")", line)
    if name is None:
        return line
    return line.replace(
        _FILE_DECIMAL,
        f"numbers with decimal commas: convert with pd.to_numeric(df[{name.group(1)}]"
        ".str.replace('.', '').str.replace(',', '.'), errors='coerce')",
    )


#: An amount with a currency sign, in full or shortened: ``k`` for thousands, ``m`` for
#: millions (``£140,000``, ``£318.5k``, ``$1.2M``, ``€3bn``), ``L`` for lakhs and ``Cr`` for
#: crores of rupees (``7.25 L``, ``₹ 1.2 Cr``).
_SCALED = re.compile(
    rf"^[-+]?([$€£¥₹])?\s?(?:{GROUPED}|\d+)(?:\.\d+)?\s?"
    r"(k|m|bn|lakhs?|lacs?|l|crores?|cr)?\.?$",
    re.I,
)
#: What each shortening stands for, longest first (the extract tries them in this order).
_WORTH = {
    "bn": "1,000,000,000",
    "k": "1,000",
    "m": "1,000,000",
    "lakhs": "1,00,000",
    "lakh": "1,00,000",
    "lacs": "1,00,000",
    "lac": "1,00,000",
    "l": "1,00,000",
    "crores": "1,00,00,000",
    "crore": "1,00,00,000",
    "cr": "1,00,00,000",
}
_INDIAN = {x for x, worth in _WORTH.items() if worth.startswith("1,00,")}  # (lakhs, crores)
#: A name (or sign) saying the amounts are rupees (``Ex-Showroom (₹)``, ``Discount (Rs)``).
_RUPEES = re.compile(r"₹|\bRs\b|\bINR\b|rupee", re.I)
#: ``€1.500``: a dot that may be a thousands separator.
_DOTTED_THOUSANDS = re.compile(r"\d\.\d{3}(?!\d)\s*$")


def scaled_amounts(values: list[str], name: str) -> str:
    """Money written in full or shortened with ``k``/``m``/``bn`` (``£175k``, ``£1m``,
    ``£140,000``), or rupees with ``L``/``Cr`` (``7.25 L`` beside ``6,35,000``), a few
    values of a sign or word standing for none aside (``'Nil'``, ``'-'``): stripping the signs
    alone reads ``£175k`` as 175 (or fails). The conversion that multiplies each number by
    what its letter stands for."""
    marks = sorted(  # (words or signs for none: no digit in them)
        v
        for v in set(values)
        if not _SCALED.match(v)
        and not any(c.isdigit() for c in v)
        and (v.lower() in NO_VALUE or not v.isalnum())
    )
    found = [m for v in values if (m := _SCALED.match(v))]
    if len(found) + sum(v in marks for v in values) < len(values) or len(marks) > 3:
        return ""
    short = [m for m in found if m.group(2)]
    if not short:
        return ""
    rupees = bool(_RUPEES.search(name)) or any(m.group(1) == "₹" for m in found)
    if any(m.group(2).lower() in _INDIAN for m in short) and not rupees:
        return ""  # (``7.5 l`` of a volume is litres)
    if sum(bool(m.group(1)) for m in short) < 0.8 * len(short) and not rupees:
        return ""  # (``12m`` without a currency sign may be metres)
    if len({m.group(1) for m in found if m.group(1)}) > 1 or any(
        (v.lstrip().startswith("-") and v not in marks) or _DOTTED_THOUSANDS.search(v)
        for v in values
    ):
        return ""  # (two currencies, a sign, or '€1.500' read as 1.5: no one-line answer)
    used = {m.group(2).lower() for m in short}
    letters = [x for x in _WORTH if x in used]
    written = {m.group(2).lower(): m.group(2) for m in reversed(short)}  # (first as written)
    shown = ", ".join(f"{written[x]!r} = {_WORTH[x]}" for x in letters)
    scale = ", ".join(f"'{x}': {_WORTH[x].replace(',', '')}" for x in letters)
    column = f"df[{name!r}]"
    none = (
        f"; {' and '.join(repr(v) for v in marks)} stand for no amount (NaN after this)"
        if marks
        else ""
    )
    return (
        f"amounts as text, some shortened ({shown}): convert with pd.to_numeric({column}.str."
        f"extract(r'([\\d.,]+)')[0].str.replace(',', ''), errors='coerce') * {column}.str.lower()"
        f".str.extract(r'\\d\\s*({'|'.join(letters)})\\.?\\s*$')[0].map({{{scale}}}).fillna(1)"
        f"{none}"
    )


#: Whole numbers; numbers with a decimal comma (``'7,8'``, ``'1.234,5'``); numbers with dots
#: between thousands (``'1.234'``).
INT = re.compile(r"^[-+]?\d+$")
DECIMAL_COMMA = re.compile(r"^[-+]?(?:\d{1,3}(?:\.\d{3})+|\d+),\d+$")
DOTTED = re.compile(r"^[-+]?\d{1,3}(?:\.\d{3})+$")
_TELLS_COMMA = re.compile(r",(?!\d{3}$)|^[-+]?0,|\.\d{3},")


def marked_commas(values: list[str], column: str) -> str:
    """Numbers with decimal commas beside a sign or a word or two standing for no number
    (fresh22: ``'7,8'`` beside ``'k.A.'`` and ``'-'``), or ``""``."""
    words = [v for v in values if not (DECIMAL_COMMA.match(v) or INT.match(v) or DOTTED.match(v))]
    # (a comma before three digits may be one of thousands, '21,000': one value must tell)
    first = next((v for v in values if DECIMAL_COMMA.match(v) and _TELLS_COMMA.search(v)), None)
    kinds = sorted(set(words))
    if first is None or not 0 < len(kinds) <= 3 or len(words) * 2 >= len(values):
        return ""
    if any(any(c.isalnum() for c in w) and w.lower() not in NO_VALUE for w in kinds):
        return ""
    worth = float(first.replace(".", "").replace(",", "."))
    return (
        f"numbers with decimal commas ({first!r} is {worth:g}) as text, {len(words)} values "
        f"{' and '.join(repr(w) for w in kinds)} standing for no number: convert with "
        f"pd.to_numeric({column}.str.replace('.', '').str.replace(',', '.'), errors='coerce')"
    )
