"""``LiveRuns``: the runs live in this process (one per thread claim), those whose end is not
stored yet, and the clients reading them; the drain on shutdown waits on these."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from typing import Any

import anyio
from starlette.responses import StreamingResponse
from starlette.types import Receive, Scope, Send

from codeact.server._input import BadRequest
from codeact.server._ownership import Claim, ThreadOwnership
from codeact.server._runs import LiveRun
from codeact.server.store import SessionKey

log = logging.getLogger("codeact.server")
#: The drain waits this long at most for its clients to be sent their runs' terminal events.
READERS_S = 5.0
#: ...and this long for runs it cancelled to record their end.
CANCELLED_S = 10.0


class LiveRuns:
    """Live runs by claim; ``unrecorded`` those whose end is not stored yet (the thread's
    session is busy until it is); ``readers`` the responses streaming a live run."""

    def __init__(self, ownership: ThreadOwnership, max_frames: int) -> None:
        self.ownership = ownership
        self.max_frames = max_frames
        self._by_claim: dict[Claim, LiveRun] = {}
        #: Runs not yet recorded as ended in the store (the drain waits for them too).
        self.unrecorded: set[LiveRun] = set()
        self.readers = 0
        self.draining = False
        self._quiet: anyio.Event | None = None  # set when the last reader leaves

    def __len__(self) -> int:
        return len(self._by_claim)

    def values(self) -> list[LiveRun]:
        """The live runs (a copy)."""
        return list(self._by_claim.values())

    def of(self, key: SessionKey) -> LiveRun | None:
        """The thread's live run in this process."""
        return self._by_claim.get(self.ownership.claim(key))

    def on_claim(self, claim: Claim) -> LiveRun | None:
        """The live run on ``claim`` (as another replica names it)."""
        return self._by_claim.get(claim)

    def busy(self) -> set[SessionKey]:
        """Threads whose session is in use: a live run, or one whose end is not yet stored."""
        return {live.key for live in self._by_claim.values()} | {
            live.key for live in self.unrecorded
        }

    def claim(self, key: SessionKey, thread: str, run_id: str, user: str | None) -> LiveRun:
        """Synchronous check-and-register: the one-live-run rule cannot race (403 for another
        principal's thread, 409 while it has a live run, 503 while draining)."""
        if self.draining:
            raise BadRequest(503, "the server is shutting down; retry on another instance")
        claim = self.ownership.claim(key)
        current = self._by_claim.get(claim)
        if self.ownership.refuses_start(key, user, current.owner if current else None):
            raise BadRequest(403, f"thread {thread!r} belongs to another user")
        if current is not None:
            raise thread_busy(thread)
        live = LiveRun(key, thread, run_id, user)
        live.max_frames = self.max_frames
        self._by_claim[claim] = live
        return live

    def release(self, live: LiveRun) -> None:
        """The thread takes a new run again (its claim is free)."""
        claim = self.ownership.claim(live.key)
        if self._by_claim.get(claim) is live:
            del self._by_claim[claim]

    def launched(self, live: LiveRun) -> None:
        """The run runs: its thread is free at its terminal event, its end is still to store."""
        live.on_finished = lambda: self.release(live)
        self.unrecorded.add(live)

    def recorded(self, live: LiveRun) -> None:
        """The run's end is stored (or kept for a retry): the run is over."""
        self.unrecorded.discard(live)
        live.done.set()
        live.notify()

    def abandoned(self, live: LiveRun) -> None:
        """The claimed run did not start: the thread is free, and nothing waits for it."""
        self.release(live)
        live.done.set()

    async def _settled(self) -> None:
        """Until every run has ended and its end is recorded (a run claimed before the drain
        began and still starting too: it runs like the others)."""
        while True:
            live = next(iter(self.unrecorded), None) or next(iter(self._by_claim.values()), None)
            if live is None:
                return
            await live.done.wait()

    @contextlib.contextmanager
    def reading(self) -> Iterator[None]:
        """Count a client reading a live run while inside."""
        self.readers += 1
        try:
            yield
        finally:
            self.readers -= 1
            if not self.readers and self._quiet is not None:
                self._quiet.set()
                self._quiet = None

    async def drain(self, timeout: float) -> None:
        """Stop taking runs, let live ones finish for ``timeout`` s, cancel the rest, then wait
        until their clients were sent the terminal events."""
        self.draining = True
        with anyio.move_on_after(timeout):
            await self._settled()
        for live in self.values():
            if live.handler is not None:
                log.warning("drain timeout: cancelling run %r", live.run_id)
                with contextlib.suppress(Exception):
                    await live.handler.cancel()
        with anyio.move_on_after(CANCELLED_S):
            await self._settled()
        with anyio.move_on_after(READERS_S):
            while self.readers:
                self._quiet = self._quiet or anyio.Event()
                await self._quiet.wait()


class ReaderResponse(StreamingResponse):
    """A stream of a live run's events, counted in ``runs.readers`` while it is sent."""

    def __init__(self, runs: LiveRuns, content: Any, headers: dict[str, str]) -> None:
        super().__init__(content, media_type="text/event-stream", headers=headers)
        self.runs = runs

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        with self.runs.reading():
            await super().__call__(scope, receive, send)


def thread_busy(thread: str) -> BadRequest:
    """409: the thread has a run in progress."""
    return BadRequest(
        409, f"thread {thread!r} already has a run in progress; wait for it or POST /cancel"
    )
