"""Ctrl-C and SIGTERM for the commands: stop the work cleanly, then say which signal it was.

``interruptible(fn)`` runs ``await fn()`` and, on the first SIGINT or SIGTERM, cancels it (so its
own clean-up runs: runs cancelled, sandboxes removed) instead of letting Python raise
``KeyboardInterrupt`` wherever the main thread happens to be. Later signals are ignored while
that clean-up runs (it is bounded: each sandbox close has its own grace period), so a second
Ctrl-C cannot leave a sandbox behind or print a traceback.
"""

from __future__ import annotations

import signal
from collections.abc import Awaitable, Callable
from typing import TypeVar

import anyio
import anyio.abc

T = TypeVar("T")

#: Exit codes of a command stopped by a signal, as shells report them (128 + the signal).
EXIT_INTERRUPTED = 130  # SIGINT (Ctrl-C)
EXIT_TERMINATED = 143  # SIGTERM


def exit_code(signum: int) -> int:
    """The exit code for a command stopped by ``signum`` (130 for SIGINT, 143 for SIGTERM)."""
    return EXIT_TERMINATED if signum == signal.SIGTERM else EXIT_INTERRUPTED


async def interruptible(
    fn: Callable[[], Awaitable[T]], on_signal: Callable[[int], object] | None = None
) -> tuple[T | None, int | None]:
    """Run ``await fn()``; the first SIGINT or SIGTERM cancels it. Returns ``(result, signum)``:
    ``result`` is None when the work was cancelled, ``signum`` None when no signal came.

    ``on_signal(signum)`` is called at the first signal, before the work is cancelled (to say
    that the clean-up has begun). Must run in the main thread (signals are delivered there).
    """
    got: list[int] = []
    result: T | None = None
    async with anyio.create_task_group() as tg:
        with anyio.CancelScope() as work:

            async def watch(*, task_status: anyio.abc.TaskStatus[None]) -> None:
                with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
                    task_status.started()
                    async for signum in signals:
                        if not got:
                            got.append(int(signum))
                            if on_signal is not None:
                                on_signal(int(signum))
                            work.cancel()

            await tg.start(watch)  # the handlers are in place before the work begins
            result = await fn()
        tg.cancel_scope.cancel()
    return result, (got[0] if got else None)
