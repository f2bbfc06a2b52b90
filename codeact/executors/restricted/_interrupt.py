"""Deadlines that a cell cannot swallow.

In-process (``InlineWatchdog``): one daemon thread injects ``CellTimeout`` into the thread running
a late cell with ``PyThreadState_SetAsyncExc``, and again every ``REPEAT_S`` until the cell ends.
Together with the ``_check_timeout_()`` call the policy puts at the top of every ``except``
handler and ``__exit__`` method, ``except BaseException: pass`` cannot keep a loop alive. A single
long C call (``sum(range(10**13))``) is not interrupted until it returns: that needs process
isolation, where ``SignalAlarm`` does the same with ``SIGALRM`` and the host kills the worker as a
last resort.
"""

from __future__ import annotations

import ctypes
import signal
import threading
import time
from typing import Any

from codeact.executors.restricted._deadline import CellTimeout

REPEAT_S = 0.25

_set_async_exc = ctypes.pythonapi["PyThreadState_SetAsyncExc"]
_set_async_exc.argtypes = [ctypes.c_ulong, ctypes.py_object]
_set_async_exc.restype = ctypes.c_int
_clear_async_exc = ctypes.pythonapi["PyThreadState_SetAsyncExc"]
_clear_async_exc.argtypes = [ctypes.c_ulong, ctypes.c_void_p]
_clear_async_exc.restype = ctypes.c_int


class InlineWatchdog:
    """Delivers ``CellTimeout`` to threads whose cell passed its deadline."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._armed: dict[int, float] = {}
        self._thread: threading.Thread | None = None

    def arm(self, thread_id: int, deadline: float) -> None:
        """Interrupt ``thread_id`` at ``deadline`` (monotonic) unless disarmed first."""
        with self._cond:
            self._armed[thread_id] = deadline
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="codeact-cell-watchdog", daemon=True
                )
                self._thread.start()
            self._cond.notify()

    def disarm(self, thread_id: int) -> None:
        """Stop watching ``thread_id`` and drop an interrupt not yet delivered."""
        with self._cond:
            if self._armed.pop(thread_id, None) is not None:
                _clear_async_exc(thread_id, None)

    def interrupt_now(self, thread_id: int) -> None:
        """Move ``thread_id``'s deadline to now (used when a run is cancelled)."""
        with self._cond:
            if thread_id in self._armed:
                self._armed[thread_id] = time.monotonic()
                self._cond.notify()

    def _run(self) -> None:
        with self._cond:
            while True:
                if not self._armed:
                    self._cond.wait()
                    continue
                thread_id, when = min(self._armed.items(), key=lambda kv: kv[1])
                delay = when - time.monotonic()
                if delay > 0:
                    self._cond.wait(delay)
                    continue
                _set_async_exc(thread_id, CellTimeout)
                self._armed[thread_id] = time.monotonic() + REPEAT_S


WATCHDOG = InlineWatchdog()


class SignalAlarm:
    """The worker process's interrupter: ``SIGALRM`` raises ``CellTimeout`` in the main thread."""

    def __init__(self) -> None:
        self._armed = False
        signal.signal(signal.SIGALRM, self._on_alarm)

    def _on_alarm(self, signum: int, frame: Any) -> None:
        if self._armed:
            signal.setitimer(signal.ITIMER_REAL, REPEAT_S)
            raise CellTimeout()

    def arm(self, deadline: float) -> None:
        """Raise ``CellTimeout`` at ``deadline`` (monotonic) and repeatedly after it."""
        self._armed = True
        signal.setitimer(signal.ITIMER_REAL, max(deadline - time.monotonic(), 0.001))

    def disarm(self) -> None:
        """Cancel the alarm."""
        self._armed = False
        signal.setitimer(signal.ITIMER_REAL, 0)
