"""Values crossing the sandbox's edge: plain data for tools and answers, bounded reprs, error
descriptions, tool payload caps, and the stand-ins for ``type``, ``dir`` and refused builtins."""

from __future__ import annotations

import datetime
import decimal
import fractions
import json
from collections.abc import Callable
from typing import Any

from codeact.executors.restricted import _guards as g
from codeact.executors.restricted._compile import CELL_SOURCES

MAX_REPR = 20_000


class ToolError(Exception):
    """Raised in the sandbox when a tool call fails; the message says why."""


class _TypeMeta(type):
    """The metaclass of the sandbox's ``type``: ``isinstance``/``issubclass`` answer as for the
    real ``type``, and calling it gives an object's type, never a new class."""

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, type)

    def __subclasscheck__(cls, sub: Any) -> bool:
        return isinstance(sub, type) and issubclass(sub, type)

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        if len(args) != 1 or kwargs:
            raise g.PolicyError("type() with three arguments is not allowed; use a class")
        tp = type(args[0])
        if tp is type or tp is _TypeMeta:
            return cls  # as type(type) is type: the real ``type`` is never handed out
        guarded: dict[type, Any] = type.__getattribute__(cls, "_guarded")
        found = guarded.get(tp)
        if found is not None:
            return found
        for standin in g.TYPE_STANDINS:
            tp = standin(tp)
        return tp


def sandbox_type(guarded: dict[type, Any]) -> Any:
    """The sandbox's ``type`` for one session (``guarded``: real → guarded stand-in types)."""
    return _TypeMeta("type", (), {"_guarded": guarded, "__slots__": (), "__module__": "builtins"})


def refuse(name: str) -> Callable[..., Any]:
    def refused(*args: Any, **kwargs: Any) -> Any:
        raise g.PolicyError(f"{name}() is not available in the sandbox")

    refused.__name__ = name
    return refused


#: Largest tool payload (arguments or result, as JSON) in every isolation mode: what one frame
#: of the process worker's protocol carries with room to spare.
MAX_TOOL_PAYLOAD = 12 * 1024 * 1024


def check_payload(tool: str, what: str, value: Any) -> Any:
    """Refuse a tool payload over ``MAX_TOOL_PAYLOAD`` (the same limit inline and in process
    mode); small payloads are measured without encoding them."""
    if isinstance(value, (int, float, bool)) or value is None:
        return value
    if isinstance(value, (str, bytes)) and len(value) * 6 + 2 <= MAX_TOOL_PAYLOAD:
        return value  # even fully escaped it fits
    size = len(json.dumps(value, default=str, ensure_ascii=False).encode("utf-8", "replace"))
    if size > MAX_TOOL_PAYLOAD:
        raise ToolError(
            f"tool {tool!r} {what} too large: {size:,} bytes of JSON "
            f"(limit {MAX_TOOL_PAYLOAD:,}); pass a file name or a smaller slice instead"
        )
    return value


def safe_dir(*args: Any) -> list[str]:
    if not args:
        raise g.PolicyError("dir() without an argument is not available in the sandbox")
    return [n for n in dir(args[0]) if not n.startswith("_")]


def bounded_repr(value: Any) -> str:
    text = repr(value)
    if len(text) > MAX_REPR:
        text = (
            text[: MAX_REPR // 2]
            + f" ...[{len(text) - MAX_REPR} chars cut]... "
            + text[-MAX_REPR // 2 :]
        )
    return text


def describe_error(exc: BaseException) -> dict[str, str]:
    """Type, message and a traceback showing only the cells' own frames and lines."""
    lines = ["Traceback (most recent call last):"]
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        filename = code.co_filename
        if filename.startswith("<cell-"):
            label = filename.rsplit("-", 1)[0] + ">"
            lines.append(f'  File "{label}", line {tb.tb_lineno}, in {code.co_name}')
            src = CELL_SOURCES.get(filename)
            if src is not None:
                src_lines = src.splitlines()
                if 0 < tb.tb_lineno <= len(src_lines):
                    lines.append("    " + src_lines[tb.tb_lineno - 1].strip())
        tb = tb.tb_next
    try:
        message = str(exc)
    except BaseException:
        message = "<the exception's message could not be computed>"
    name = type(exc).__name__
    lines.append(f"{name}: {message}" if message else name)
    return {"type": name, "message": message, "traceback": "\n".join(lines)}


def to_plain(value: Any, *, lenient: bool = False, _depth: int = 0) -> Any:
    """A plain-data copy of ``value`` (JSON types) for crossing the sandbox boundary.

    Tuples become lists; dates become ISO strings; Decimals and Fractions become strings;
    numpy/pandas values become lists/dicts. Anything else raises ``TypeError`` — or, with
    ``lenient``, becomes its ``repr``.
    """
    if _depth > 50:
        raise ValueError("value is nested too deeply to cross the sandbox boundary")
    if value is None or type(value) in (bool, int, float, str):
        return value
    if isinstance(value, (list, tuple)):
        return [to_plain(v, lenient=lenient, _depth=_depth + 1) for v in value]
    if isinstance(value, (set, frozenset)):
        items = [to_plain(v, lenient=lenient, _depth=_depth + 1) for v in value]
        try:
            return sorted(items)
        except TypeError:
            return items
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            key = k if isinstance(k, str) else str(to_plain(k, lenient=True, _depth=_depth + 1))
            out[key] = to_plain(v, lenient=lenient, _depth=_depth + 1)
        return out
    if isinstance(value, (int, float, str)):  # subclasses (IntEnum, str subclasses...)
        return _builtin_copy(value)
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, (decimal.Decimal, fractions.Fraction)):
        return str(value)
    module = type(value).__module__.split(".")[0]
    if module in ("numpy", "pandas"):
        for attr in ("tolist", "item", "to_dict"):
            fn = getattr(value, attr, None)
            if callable(fn):
                try:
                    return to_plain(fn(), lenient=lenient, _depth=_depth + 1)
                except Exception:
                    continue
    if lenient:
        return bounded_repr(value)
    raise TypeError(
        f"{type(value).__name__} objects cannot cross the sandbox boundary; pass plain data "
        "(str, int, float, bool, None, list, dict)"
    )


def _builtin_copy(value: Any) -> Any:
    for base in (bool, int, float, str):
        if isinstance(value, base):
            return base(value)
    return value
