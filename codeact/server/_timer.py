"""A run's timer (``Timer``): sleeps that ``stop`` ends at once, without cancel scopes."""

from __future__ import annotations

import asyncio


class Timer:
    """A run's timer: ``sleep`` like ``asyncio.sleep``, or until ``stop`` (no cancellation,
    and so no cancel scope to shield a store write under way)."""

    __slots__ = ("_waiter", "stopped")

    def __init__(self) -> None:
        self.stopped = False
        self._waiter: asyncio.Future[None] | None = None

    async def sleep(self, seconds: float) -> bool:
        """False once stopped."""
        if self.stopped:
            return False
        loop = asyncio.get_running_loop()
        waiter = self._waiter = loop.create_future()
        handle = loop.call_later(seconds, _wake, waiter)
        try:
            await waiter
        finally:
            handle.cancel()
            self._waiter = None
        return not self.stopped

    def stop(self) -> None:
        self.stopped = True
        if self._waiter is not None:
            _wake(self._waiter)


def _wake(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)
