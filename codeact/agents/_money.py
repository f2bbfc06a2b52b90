"""Amounts written with currency signs or codes or percent signs (``€1,234.50``, ``12.50
EUR``, ``GBP 47.94``, ``7.5%``): how the files note recognises them, says what they are and
converts them (split from ``_filenote``)."""

from __future__ import annotations

import re

#: Currency codes written after or before an amount (``12.50 EUR``, ``USD 3``).
_CODES = "EUR|USD|GBP|CHF|JPY|CAD|AUD|SEK|NOK|DKK|PLN|INR|CNY"
_AMOUNT = r"[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
#: A number with a currency sign or code or a percent sign (``$1,234.50``, ``-€3``, ``7.5%``,
#: ``12.50 EUR``).
SIGNED_NUMBER = (
    rf"[-+]?[$€£¥]\s?{_AMOUNT}|{_AMOUNT}\s?(?:[%€]|(?:{_CODES})(?![A-Za-z]))"
    rf"|[-+]?(?<![A-Za-z])(?:{_CODES})\s?{_AMOUNT}"
)
_CODE = re.compile(rf"(?<![A-Za-z])(?:{_CODES})(?![A-Za-z])")


def signs_of(values: list[str]) -> list[str]:
    """The currency and percent signs written in ``values``."""
    return sorted({c for v in values for c in v if c in "$€£¥%"})


def _codes(values: list[str]) -> list[str]:
    return sorted({m.group(0) for v in values for m in _CODE.finditer(v)})


def signed_conversion(values: list[str], column: str) -> str:
    """Pandas code turning ``column`` (an expression), whose ``values`` carry currency signs
    or codes or percent signs, into floats."""
    signs = re.escape("".join(signs_of(values)))
    codes = "".join(f"|{c}" for c in _codes(values))
    return f"{column}.str.replace(r'[{signs},\\s]{codes}', '', regex=True).astype(float)"


def signed_hint(values: list[str], name: str) -> str:
    """The files note on a column of amounts with signs or codes: what they are (and whether
    in more than one currency: a sign and its own code, '£' and 'GBP', are one) and the
    conversion that makes them numbers."""
    signs, codes = (" and ".join(repr(c) for c in f(values)) for f in (signs_of, _codes))
    shown = " and ".join([f"{signs} signs"] * bool(signs) + [f"{codes} codes"] * bool(codes))
    money = {c for c in signs_of(values) if c != "%"} | set(_codes(values))
    mixed = len({{"€": "EUR", "£": "GBP", "$": "USD"}.get(c, c) for c in money}) > 1
    warn = " (amounts in more than one currency: do not add them up as one)" if mixed else ""
    return (
        f"numbers stored as text with {shown}{warn}: "
        f"convert with {signed_conversion(values, f'df[{name!r}]')}"
    )
