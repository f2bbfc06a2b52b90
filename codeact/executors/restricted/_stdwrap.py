"""Wrapped standard-library names (see the notes in ``_stdlib``): what cells get instead of
``contextlib.suppress``/``ExitStack``, the ``queue`` classes and ``functools.singledispatch``.

The per-session modules (``warnings``, ``pprint``) are in ``_stdsession``.
"""

from __future__ import annotations

import contextlib
import decimal
import functools
import queue
import struct
import time
import types
from collections.abc import Callable
from typing import Any

from codeact.executors.restricted._deadline import check_timeout, safe_sleep
from codeact.executors.restricted._guards import (
    TYPE_STANDINS,
    WRITABLE_TYPES,
    WRITE_WRAPPERS,
)
from codeact.executors.restricted._sizes import MAX_STR_BYTES
from codeact.executors.restricted._standins import GuardedType

_SLICE_S = 0.05


class suppress(contextlib.suppress):
    """``contextlib.suppress`` whose ``__exit__`` never swallows the cell's deadline."""

    def __exit__(self, *exc: Any) -> bool:
        check_timeout()
        return bool(super().__exit__(*exc))


class ExitStack(contextlib.ExitStack):
    """``contextlib.ExitStack``: once its callbacks ran (one of them may have swallowed the
    deadline), a cell past its deadline is stopped."""

    def __exit__(self, *exc: Any) -> bool:
        try:
            return bool(super().__exit__(*exc))
        finally:
            check_timeout()


class AsyncExitStack(contextlib.AsyncExitStack):
    """``contextlib.AsyncExitStack`` with the same deadline check as ``ExitStack``."""

    async def __aexit__(self, *exc: Any) -> bool:
        try:
            return bool(await super().__aexit__(*exc))
        finally:
            check_timeout()


# -- queue ---------------------------------------------------------------------------------------


def _sliced(op: Callable[..., Any], args: tuple[Any, ...], block: bool, timeout: Any) -> Any:
    """``op(*args, block, timeout)`` waiting in slices, so the cell's deadline applies."""
    if not block:
        return op(*args, False)
    if timeout is not None and timeout < 0:
        raise ValueError("'timeout' must be a non-negative number")
    end = None if timeout is None else time.monotonic() + timeout
    while True:
        left = _SLICE_S if end is None else min(_SLICE_S, max(end - time.monotonic(), 0.0))
        try:
            return op(*args, True, left)
        except (queue.Empty, queue.Full):
            if end is not None and time.monotonic() >= end:
                raise
            check_timeout()


class Queue:
    """``queue.Queue`` for the sandbox: the same methods; the items live in a real queue the
    cell cannot reach (no ``mutex``/``not_empty`` to block on forever)."""

    # The real queue is the wrapper's own slot, never looked up by the cell's __hash__/__eq__
    # in a table shared by every session; the guards keep its name from the cell's subclasses.
    __slots__ = ("__weakref__", "_real")

    def __init__(self, maxsize: int = 0) -> None:
        kind = next(_KINDS[c] for c in type(self).__mro__ if c in _KINDS)
        self._real: queue.Queue[Any] = kind(maxsize)

    def put(self, item: Any, block: bool = True, timeout: float | None = None) -> None:
        """Put an item (waiting for room up to ``timeout`` when full)."""
        _sliced(self._real.put, (item,), block, timeout)

    def get(self, block: bool = True, timeout: float | None = None) -> Any:
        """Remove and return an item (waiting up to ``timeout`` when empty)."""
        return _sliced(self._real.get, (), block, timeout)

    def put_nowait(self, item: Any) -> None:
        """Put an item without waiting (``queue.Full`` when full)."""
        self._real.put_nowait(item)

    def get_nowait(self) -> Any:
        """Remove and return an item without waiting (``queue.Empty`` when empty)."""
        return self._real.get_nowait()

    def qsize(self) -> int:
        """The number of items."""
        return self._real.qsize()

    def empty(self) -> bool:
        """True when there is no item."""
        return self._real.empty()

    def full(self) -> bool:
        """True when the queue is at ``maxsize``."""
        return self._real.full()

    def task_done(self) -> None:
        """Mark one fetched item as processed."""
        self._real.task_done()

    def join(self) -> None:
        """Wait until every item was marked done (in slices: the deadline applies)."""
        real = self._real
        while real.unfinished_tasks:
            safe_sleep(_SLICE_S / 5)

    @property
    def maxsize(self) -> int:
        """The queue's capacity (0: unbounded)."""
        return self._real.maxsize

    def __repr__(self) -> str:
        return f"<queue.{type(self).__name__} object ({self.qsize()} items)>"


class LifoQueue(Queue):
    """``queue.LifoQueue`` for the sandbox (see ``Queue``)."""

    __slots__ = ()


class PriorityQueue(Queue):
    """``queue.PriorityQueue`` for the sandbox (see ``Queue``)."""

    __slots__ = ()


class SimpleQueue(Queue):
    """``queue.SimpleQueue`` for the sandbox: an unbounded ``Queue``."""

    __slots__ = ()

    def __init__(self) -> None:
        super().__init__(0)


#: The real class behind each wrapper (not a class attribute: a sandbox subclass could read it).
_KINDS: dict[type, Any] = {
    Queue: queue.Queue,
    LifoQueue: queue.LifoQueue,
    PriorityQueue: queue.PriorityQueue,
    SimpleQueue: queue.Queue,
}


# -- functools.singledispatch ---------------------------------------------------------------------
def _real_class(cls: Any) -> Any:
    return object.__getattribute__(cls, "_type") if isinstance(cls, GuardedType) else cls


def _annotated_class(func: Any) -> Any:
    """The class of ``func``'s first annotated parameter, refusing strings (functools would
    ``eval`` them, past the policy)."""
    hints = getattr(func, "__annotations__", None) or {}
    for name, hint in hints.items():
        if name == "return":
            continue
        if isinstance(hint, str):
            raise TypeError(
                f"singledispatch: the annotation of {name!r} is the string {hint!r}; the "
                "sandbox does not evaluate strings: use the class itself, or register(cls)"
            )
        return _real_class(hint)
    raise TypeError(f"singledispatch: {func!r} has no annotated first parameter; use register(cls)")


def singledispatch(func: Callable[..., Any]) -> Callable[..., Any]:
    """``functools.singledispatch`` whose ``register`` takes classes (the sandbox's ``list``
    stand-ins included) and annotations that are classes, never strings."""
    dispatcher = functools.singledispatch(func)
    real_register = dispatcher.register

    def register(cls: Any, func: Callable[..., Any] | None = None) -> Any:
        if func is None and not isinstance(cls, (type, GuardedType, types.UnionType)):
            return real_register(_annotated_class(cls), cls)  # @register with annotations
        cls = _real_class(cls)
        return real_register(cls) if func is None else real_register(cls, func)

    dispatcher.register = register  # type: ignore[method-assign]
    return dispatcher


# -- struct ----------------------------------------------------------------------------------
def _checked_format(fmt: Any) -> Any:
    """Refuse a struct format whose packed size is over the limit of one string."""
    size = struct.calcsize(fmt)
    if size > MAX_STR_BYTES:
        raise MemoryError(f"refusing to pack {size:,} bytes with struct (limit {MAX_STR_BYTES:,})")
    return fmt


def struct_pack(fmt: Any, /, *values: Any) -> bytes:
    """``struct.pack`` with the format's size checked first (``'300000000x'``)."""
    return struct.pack(_checked_format(fmt), *values)


class _StructType(GuardedType):
    """``struct.Struct`` whose format's size is checked when it is made."""

    __slots__ = ()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        obj = self._type(*args, **kwargs)
        _checked_format(obj.format)
        return obj


# -- decimal ---------------------------------------------------------------------------------
#: The largest precision and exponent a cell's decimal contexts may have, and the most digits
#: of a Decimal made from a literal. CPython allows far more, and some operations are one
#: uninterruptible C call whose time grows with them: ``int(Decimal('1e999999'))`` about a
#: minute; ``ln``/``log10``/``**`` grow as precision^2.5 (here, at 5,000 digits: 1.4 / 2.6 /
#: 2.8 s; at 10,000: 8 / 11.5 / 10 s; at 50,000: minutes).
MAX_DECIMAL_PREC = 5_000
MAX_DECIMAL_EXP = 100_000
MAX_DECIMAL_DIGITS = 100_000


def session_decimal_context() -> decimal.Context:
    """A session's decimal context: CPython's defaults with the exponent bounded."""
    return decimal.Context(Emax=MAX_DECIMAL_EXP, Emin=-MAX_DECIMAL_EXP)


def _check_context_values(prec: Any = None, Emax: Any = None, Emin: Any = None) -> None:
    if type(prec) is int and prec > MAX_DECIMAL_PREC:
        raise ValueError(f"decimal precision {prec:,} is over the sandbox's {MAX_DECIMAL_PREC:,}")
    if type(Emax) is int and Emax > MAX_DECIMAL_EXP:
        raise ValueError(f"decimal Emax {Emax:,} is over the sandbox's {MAX_DECIMAL_EXP:,}")
    if type(Emin) is int and Emin < -MAX_DECIMAL_EXP:
        raise ValueError(f"decimal Emin {Emin:,} is under the sandbox's {-MAX_DECIMAL_EXP:,}")


def _checked_context(ctx: Any) -> Any:
    if isinstance(ctx, decimal.Context):
        _check_context_values(ctx.prec, ctx.Emax, ctx.Emin)
    return ctx


class DecimalContextWriter:
    """What ``ctx.prec = ...`` writes through for a decimal context: the bounds checked."""

    __slots__ = ("_ctx",)

    def __init__(self, ctx: decimal.Context) -> None:
        object.__setattr__(self, "_ctx", ctx)

    def __setattr__(self, name: str, value: Any) -> None:
        if name in ("prec", "Emax", "Emin"):
            _check_context_values(**{name: value})
        setattr(object.__getattribute__(self, "_ctx"), name, value)


class _DecimalType(GuardedType):
    """``decimal.Decimal`` whose values are bounded when made (the constructor ignores the
    context: ``Decimal('1e999999')``); arithmetic is bounded by the session's context."""

    __slots__ = ()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        value = self._type(*args, **kwargs)
        if value.is_finite() and abs(value.adjusted()) > MAX_DECIMAL_EXP:
            raise MemoryError(
                f"refusing a Decimal with exponent {value.adjusted():,} (limit {MAX_DECIMAL_EXP:,})"
            )
        if len(value.as_tuple().digits) > MAX_DECIMAL_DIGITS:
            raise MemoryError(f"refusing a Decimal of over {MAX_DECIMAL_DIGITS:,} digits")
        return value


class _ContextType(GuardedType):
    """``decimal.Context`` with the precision and exponents bounded (an exponent left unset is
    the sandbox's bound, as in the session's own context)."""

    __slots__ = ()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if len(args) < 3 and kwargs.get("Emin") is None:  # unset: the sandbox's, not CPython's
            kwargs["Emin"] = -MAX_DECIMAL_EXP
        if len(args) < 4 and kwargs.get("Emax") is None:
            kwargs["Emax"] = MAX_DECIMAL_EXP
        return _checked_context(self._type(*args, **kwargs))


_DECIMAL = _DecimalType(decimal.Decimal)
_CONTEXT = _ContextType(decimal.Context)


def _decimal_standin(tp: type) -> Any:
    """``type(x)`` of a Decimal or a context is the bounded stand-in."""
    return _DECIMAL if tp is decimal.Decimal else _CONTEXT if tp is decimal.Context else tp


def decimal_localcontext(ctx: Any = None, **kwargs: Any) -> Any:
    """``decimal.localcontext`` with the context and the changes bounded."""
    _checked_context(ctx)
    _check_context_values(kwargs.get("prec"), kwargs.get("Emax"), kwargs.get("Emin"))
    return decimal.localcontext(ctx, **kwargs)


def decimal_setcontext(ctx: Any) -> None:
    """``decimal.setcontext`` with the context bounded."""
    decimal.setcontext(_checked_context(ctx))


#: Wrapped names by (module, attribute).
WRAPPED: dict[tuple[str, str], Any] = {
    ("contextlib", "suppress"): suppress,
    ("contextlib", "ExitStack"): ExitStack,
    ("contextlib", "AsyncExitStack"): AsyncExitStack,
    ("queue", "Queue"): Queue,
    ("queue", "LifoQueue"): LifoQueue,
    ("queue", "PriorityQueue"): PriorityQueue,
    ("queue", "SimpleQueue"): SimpleQueue,
    ("functools", "singledispatch"): singledispatch,
    ("struct", "pack"): struct_pack,
    ("struct", "Struct"): _StructType(struct.Struct),
    ("decimal", "Decimal"): _DECIMAL,
    ("decimal", "Context"): _CONTEXT,
    ("decimal", "localcontext"): decimal_localcontext,
    ("decimal", "setcontext"): decimal_setcontext,
}

WRITABLE_TYPES.add(types.SimpleNamespace)  # a plain attribute bag: ``ns.x = 1`` as in CPython
WRITE_WRAPPERS[decimal.Context] = DecimalContextWriter
TYPE_STANDINS.append(_decimal_standin)
