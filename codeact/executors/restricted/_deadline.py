"""A cell's deadline, checked from inside the sandbox: ``set_deadline`` when a cell starts in a
thread, ``leave_cell`` when it ends, ``check_timeout`` (the compiled cell's ``_check_timeout_``,
in every ``except``, ``finally`` and ``__exit__``) and ``safe_sleep`` raise ``CellTimeout`` once
the thread's cell is late or when no cell runs there."""

from __future__ import annotations

import threading
import time


class CellTimeout(KeyboardInterrupt):
    """Raised inside a cell when its deadline passes.

    A ``KeyboardInterrupt`` so that asyncio lets it through: a task's step keeps any other
    exception as the task's result and the loop goes on with the next ready task (one
    interrupt would end one spinning task out of many); an interrupt stops the loop."""


_cell = threading.local()


#: The deadline of a thread that runs no cell: sandbox code running there (a generator's
#: ``finally`` run by the garbage collector, a callback from host code) is past it at once.
_OUTSIDE = float("-inf")


def set_deadline(deadline: float | None) -> None:
    """Start the cell running in this thread: its monotonic deadline (``None``: no limit)."""
    _cell.deadline = float("inf") if deadline is None else deadline


def leave_cell() -> None:
    """End this thread's cell: from now on every ``_check_timeout_`` here raises."""
    _cell.deadline = _OUTSIDE


def check_timeout() -> None:
    """Raise ``CellTimeout`` if this thread's cell is past its deadline (``_check_timeout_``),
    or if no cell runs in this thread: the check sits in every ``except`` handler, ``finally``
    body and ``__exit__`` of sandbox code, so once late (or outside a cell) none can swallow
    the timeout."""
    if time.monotonic() > getattr(_cell, "deadline", _OUTSIDE):
        raise CellTimeout()


def time_left() -> float:
    """Seconds until this thread's cell is late (negative once it is; ``-inf`` outside a
    cell)."""
    return float(getattr(_cell, "deadline", _OUTSIDE)) - time.monotonic()


def safe_sleep(seconds: float) -> None:
    """``time.sleep`` for the sandbox: sleeps in slices so the cell's deadline still applies."""
    end = time.monotonic() + float(seconds)
    while True:
        left = end - time.monotonic()
        if left <= 0:
            return
        time.sleep(min(left, 0.05))
        check_timeout()
