"""Size guards for single operations: ``*``, ``**``, ``<<``, ``%``, format widths, padding.

In-process, the host's memory is not capped, so one operation that would build a gigantic
object (``'a' * 10**12``, ``[0] * 10**12``, ``10 ** 10 ** 10``, ``'%999999999d' % 1``,
``f'{x:>999999999}'``, ``'x'.center(10**9)``) is refused with ``MemoryError`` before it runs.
These functions run on every guarded operation, so the common case (two small numbers) is tested
first with literal bounds: no attribute lookups, no method calls.
"""

from __future__ import annotations

import _string  # type: ignore[import-not-found]
import operator
import re
from collections.abc import Callable
from typing import Any

#: Limits of single operations.
MAX_INT_BITS = 4_000_000  # about 1.2 million decimal digits
MAX_SEQ_ITEMS = 50_000_000
MAX_STR_BYTES = 200_000_000
#: Width or precision in a format specification above which formatting is refused.
MAX_WIDTH = MAX_STR_BYTES

_SEQS = (str, bytes, bytearray, list, tuple)
_TEXT = (str, bytes, bytearray)


def _refuse(what: str, size: int, limit: int) -> MemoryError:
    return MemoryError(f"refusing to build {what} of {size:,} items (limit {limit:,})")


def guarded_mul(a: Any, b: Any) -> Any:
    """``a * b`` refusing sequence repetitions and integer products that would exhaust memory."""
    ta = type(a)
    if ta is int:
        tb = type(b)
        if tb is int:
            if -4611686018427387904 < a < 4611686018427387904 and (
                -4611686018427387904 < b < 4611686018427387904
            ):
                return a * b
            if a.bit_length() + b.bit_length() > MAX_INT_BITS:
                raise MemoryError("refusing to multiply integers this large")
            return a * b
        if tb is float:
            return a * b
    elif ta is float:
        tb = type(b)
        if tb is float or tb is int:
            return a * b
    return _mul_slow(a, b)


def _mul_slow(a: Any, b: Any) -> Any:
    if isinstance(a, _SEQS) and type(b) is int:
        seq, count = a, b
    elif isinstance(b, _SEQS) and type(a) is int:
        seq, count = b, a
    else:
        return a * b
    if count > 1:
        size = len(seq) * count
        limit = MAX_STR_BYTES if isinstance(seq, _TEXT) else MAX_SEQ_ITEMS
        if size > limit:
            raise _refuse(f"a {type(seq).__name__}", size, limit)
    return a * b


def guarded_pow(a: Any, b: Any) -> Any:
    """``a ** b`` refusing integer results too big to compute safely."""
    if type(b) is int and b > 64 and type(a) is int and a not in (0, 1, -1):
        bits = abs(a).bit_length() * b
        if bits > MAX_INT_BITS:
            raise MemoryError(
                f"refusing to compute an integer power with about {bits:,} bits "
                f"(limit {MAX_INT_BITS:,})"
            )
    return a**b


def guarded_pow_builtin(base: Any, exp: Any, mod: Any = None) -> Any:
    """The ``pow`` builtin: three-argument pow is cheap; two-argument pow is size-checked."""
    if mod is not None:
        return pow(base, exp, mod)
    return guarded_pow(base, exp)


def guarded_lshift(a: Any, b: Any) -> Any:
    """``a << b`` refusing huge integer results."""
    if type(b) is int and b > MAX_INT_BITS and type(a) is int and a != 0:
        raise MemoryError(f"refusing to shift an integer by {b:,} bits (limit {MAX_INT_BITS:,})")
    return a << b


# -- formatting widths ----------------------------------------------------------------------------
#: A %-conversion: flags, width and precision (each a number or ``*``).
_PERCENT = re.compile(rb"%(?:\([^)]*\))?[-#0 +]*(\*|\d+)?(?:\.(\*|\d+))?")
_DIGITS = re.compile(r"\d+")


def _too_wide(number: str | bytes) -> bool:
    return len(number) > 9 or int(number) > MAX_WIDTH


def percent_template_ok(template: str | bytes | bytearray) -> bool:
    """True when a %-template has no ``*`` width and no width or precision above the limit."""
    return _percent_problem(template) is None


def _percent_problem(template: str | bytes | bytearray) -> str | None:
    """``"wide"`` (a literal width above the limit), ``"star"`` (``*`` widths) or None."""
    data = template.encode("utf-8", "surrogatepass") if isinstance(template, str) else template
    if b"%" not in data:
        return None
    problem = None
    for match in _PERCENT.finditer(bytes(data)):
        for part in match.groups():
            if part == b"*":
                problem = "star"
            elif part is not None and _too_wide(part):
                return "wide"
    return problem


def guarded_mod(a: Any, b: Any) -> Any:
    """``a % b``: numbers as usual; %-formatting of text refused when a width is huge."""
    ta = type(a)
    if ta is int or ta is float:
        return a % b
    if isinstance(a, _TEXT):
        problem = _percent_problem(a)
        if problem == "wide":
            raise MemoryError(
                f"refusing a %-format whose width or precision exceeds {MAX_WIDTH:,} characters"
            )
        if problem == "star":
            for value in b if type(b) is tuple else (b,):
                if type(value) is int and value > MAX_WIDTH:
                    raise _refuse("a formatted string", value, MAX_WIDTH)
    return a % b


def check_format_spec(spec: str) -> str:
    """Refuse a format specification (``'>999999999'``) whose width or precision is huge."""
    for number in _DIGITS.findall(spec):
        if _too_wide(number):
            raise MemoryError(
                f"refusing a format width or precision of {int(number):,} characters "
                f"(limit {MAX_WIDTH:,})"
            )
    return spec


def guarded_spec_value(value: Any) -> Any:
    """A value nested in an f-string's format spec (``f'{x:{w}}'``), checked before use."""
    if type(value) is int:
        if value > MAX_WIDTH:
            raise _refuse("a formatted string", value, MAX_WIDTH)
        return value
    text = value if type(value) is str else format(value)
    check_format_spec(text)
    return text


def refuse_width(value: Any) -> Any:
    """Stands in for an f-string field whose constant format spec is too wide."""
    raise MemoryError(f"refusing a format width or precision above {MAX_WIDTH:,} characters")


#: Templates whose fields are all plain (no attribute or index walks, no nested fields).
_PLAIN_TEMPLATES: dict[str, bool] = {}


def plain_literal(template: str) -> bool:
    """``plain_template`` for a template written in the cell: False (checked at run time
    instead) when it is malformed or a width is too large."""
    try:
        return plain_template(template)
    except (MemoryError, ValueError):
        return False


def plain_template(template: str) -> bool:
    """True when ``template`` can go to the native ``str.format`` (widths checked, cached)."""
    known = _PLAIN_TEMPLATES.get(template)
    if known is not None:
        return known
    plain = True
    for _literal, field, spec, _conv in _string.formatter_parser(template):
        if field is None:
            continue
        if "." in field or "[" in field or (spec and "{" in spec):
            plain = False
            break
        if spec:
            check_format_spec(spec)
    if len(_PLAIN_TEMPLATES) > 4096:
        _PLAIN_TEMPLATES.clear()
    _PLAIN_TEMPLATES[template] = plain
    return plain


# -- padding methods -------------------------------------------------------------------------------
PADDING_METHODS = frozenset({"center", "ljust", "rjust", "zfill", "expandtabs"})


def padding_method(obj: Any, name: str) -> Callable[..., Any]:
    """``s.center``/``ljust``/``rjust``/``zfill``/``expandtabs`` with the width checked."""
    method = getattr(obj, name)

    def padded(*args: Any, **kwargs: Any) -> Any:
        width = args[0] if args else kwargs.get("width", kwargs.get("tabsize", 0))
        if type(width) is int:
            size = width * (obj.count("\t") if name == "expandtabs" else 1)
            if size > MAX_STR_BYTES:
                raise _refuse(f"a padded {type(obj).__name__}", size, MAX_STR_BYTES)
        return method(*args, **kwargs)

    padded.__name__ = name
    return padded


# -- constructors that materialise an iterable ----------------------------------------------------
def too_many(what: str, args: tuple[Any, ...]) -> None:
    """Refuse building a container from an iterable that says it is huge
    (``list(range(10**12))``)."""
    if not args:
        return
    first = args[0]
    if type(first) is int:
        n = first if what in ("bytes", "bytearray") else 0
    elif isinstance(first, (str, bytes, list, tuple, dict, set, frozenset)):
        return  # already materialised: copying it is bounded by what exists
    else:
        n = operator.length_hint(first, 0)
    if n > MAX_SEQ_ITEMS:
        raise _refuse(f"a {what}", n, MAX_SEQ_ITEMS)


def limit_items(fn: Callable[..., Any], what: str) -> Callable[..., Any]:
    """Wrap a function that materialises an iterable so huge ranges are refused first."""

    def guarded(*args: Any, **kwargs: Any) -> Any:
        too_many(what, args)
        return fn(*args, **kwargs)

    guarded.__name__ = what
    guarded.__qualname__ = what
    guarded.__doc__ = getattr(fn, "__doc__", None)
    return guarded
