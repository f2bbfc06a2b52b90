"""How the server process collects garbage while an app is serving (``ServerConfig.gc_threshold``).

Hundreds of concurrent streams allocate many short-lived containers (events, futures, timer
handles). With CPython's default young-generation threshold (700 allocations) the collector
runs hundreds of times a second, and every tenth young collection escalates; a full
collection walks every object the process holds — the imported modules, the app, uvicorn's
connections — and pauses all streams for tens of milliseconds. While an app serves, this
module moves what exists at startup into the permanent generation (``gc.freeze()``: never
walked again; what of it becomes garbage is freed when serving ends) and raises the young
threshold, so collections are rarer and full ones walk only what was made since.

Measured with ``benchmarks/server.py --anchor`` (200 paced streams): about 12 % less server
CPU per event. Several apps in one process share one policy: the first to start applies it,
the last to stop restores the previous thresholds and unfreezes.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator

#: The young-generation threshold while serving (CPython's default is 700).
DEFAULT_THRESHOLD = 10_000

_lock = threading.Lock()  # (apps may serve from several threads, each with its own loop)
_users = 0
_saved: tuple[int, int, int] | None = None
_froze = False


@contextlib.contextmanager
def serving_gc(threshold: int) -> Iterator[None]:
    """While inside: startup objects frozen and the young threshold at ``threshold``
    (0 or less: the process's collector is left as it is). A process that froze objects
    itself before (a server that preloads, then forks) keeps its freeze: nothing is frozen
    or unfrozen here then."""
    global _users, _saved, _froze
    if threshold <= 0:
        yield
        return
    with _lock:
        if _users == 0:
            _saved = gc.get_threshold()
            _froze = gc.get_freeze_count() == 0
            if _froze:
                gc.freeze()
            gc.set_threshold(threshold, _saved[1], _saved[2])
        _users += 1
    try:
        yield
    finally:
        with _lock:
            _users -= 1
            if _users == 0 and _saved is not None:
                gc.set_threshold(*_saved)
                if _froze:
                    gc.unfreeze()
                _saved, _froze = None, False
