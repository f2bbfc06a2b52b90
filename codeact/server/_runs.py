"""Live runs: the event log every reader follows (and re-attaches to), and the driver that runs
an agent to its end whatever happens — failures of encoding, translation, hooks or the store end
that run alone, with a terminal ``RUN_ERROR`` and a log line."""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field

import anyio
from ag_ui.core import BaseEvent, RunErrorEvent
from starlette.requests import Request

from codeact.agents._handler import RunHandler
from codeact.server.store import SessionKey
from codeact.server.translator import Translator

log = logging.getLogger("codeact.server")

#: Stored events are written in batches: at most this often, or when this many are pending.
FLUSH_EVERY_S = 0.25
FLUSH_EVENTS = 512

Flush = Callable[["LiveRun", list[str], int], Awaitable[None]]


def frame(seq: int, data: str) -> bytes:
    """One SSE frame with its id (for ``Last-Event-ID``): LF framing, one event per data."""
    return b"id: %d\ndata: %s\n\n" % (seq, data.encode())


@dataclass(eq=False)
class LiveRun:
    """A run in progress on one thread. ``frames[i]`` is the SSE frame of event ``i``; readers
    keep their own cursor into it, so a slow reader costs no queue and cannot stall the run."""

    key: SessionKey
    thread_id: str
    run_id: str
    owner: str | None
    handler: RunHandler | None = None
    translator: Translator | None = None
    frames: list[bytes] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)  # JSON not yet in the store
    flushed: int = 0  # events already in the store
    finished: bool = False  # the terminal event is in ``frames``
    changed: anyio.Event = field(default_factory=anyio.Event)
    done: anyio.Event = field(default_factory=anyio.Event)  # stored and released
    started: float = field(default_factory=time.monotonic)

    def publish(self, events: list[BaseEvent]) -> None:
        """Encode and append events (raises if one cannot be encoded)."""
        if not events or self.finished:
            return
        for event in events:
            if self.finished:
                break
            data = event.model_dump_json(by_alias=True, exclude_none=True)
            self.frames.append(frame(len(self.frames), data))
            self.pending.append(data)
            if event.type in ("RUN_FINISHED", "RUN_ERROR"):
                self.finished = True
        self.notify()

    def publish_error(self, message: str, code: str = "internal_error") -> None:
        """A terminal ``RUN_ERROR`` that cannot fail to encode (no ids from the request)."""
        if self.finished:
            return
        data = RunErrorEvent(message=message, code=code).model_dump_json(exclude_none=True)
        self.frames.append(frame(len(self.frames), data))
        self.pending.append(data)
        self.finished = True
        self.notify()

    def notify(self) -> None:
        changed, self.changed = self.changed, anyio.Event()
        changed.set()

    def take_pending(self) -> tuple[list[str], int]:
        batch, self.pending = self.pending, []
        start = self.flushed
        self.flushed += len(batch)
        return batch, start


async def drive(live: LiveRun, flush: Flush) -> None:
    """Run the agent to its end, publishing AG-UI events and storing them in batches."""
    assert live.handler is not None and live.translator is not None
    handler, translator = live.handler, live.translator
    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(_flusher, live, flush)
            try:
                live.publish(translator.start())
                async for event in handler.stream_events():
                    live.publish(translator.translate(event))
                if not live.finished:
                    live.publish(translator.error("the run ended without a terminal event"))
            finally:
                tg.cancel_scope.cancel()
    except Exception as exc:
        log.exception("run %r on thread %r failed in the server", live.run_id, live.thread_id)
        with anyio.CancelScope(shield=True):
            await _stop(handler)
        leaf = _leaf(exc)
        live.publish_error(f"the server could not continue this run ({type(leaf).__name__})")
    finally:
        with anyio.CancelScope(shield=True):
            if not live.finished:  # cancelled from outside (shutdown)
                await _stop(handler)
                live.publish_error("the server stopped this run", "shutdown")
            await _flush(live, flush)


def _leaf(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


async def _stop(handler: RunHandler) -> None:
    try:
        with anyio.move_on_after(10):
            await handler.cancel()
    except Exception:
        log.exception("cancelling a run failed")


async def _flusher(live: LiveRun, flush: Flush) -> None:
    while True:
        await anyio.sleep(FLUSH_EVERY_S)
        if live.pending:
            await _flush(live, flush)


async def _flush(live: LiveRun, flush: Flush) -> None:
    if not live.pending:
        return
    batch, start = live.take_pending()
    try:
        await flush(live, batch, start)
    except Exception:
        log.exception("storing %d events of run %r failed", len(batch), live.run_id)


async def follow(
    live: LiveRun,
    start: int,
    request: Request,
    *,
    heartbeat_s: float | None,
    on_leave: Callable[[bool], Awaitable[None]] | None = None,
) -> AsyncIterator[bytes]:
    """The run's frames from ``start`` on, then new ones as they come (all that are ready in
    one write), heartbeats while silent; ends after the terminal event."""
    cursor = max(0, start)
    complete = False
    try:
        last_sent = time.monotonic()
        while True:
            changed = live.changed
            if cursor < len(live.frames):
                end = len(live.frames)
                chunk = b"".join(live.frames[cursor:end])
                cursor = end
                yield chunk
                last_sent = time.monotonic()
                continue
            if live.finished:
                complete = True
                return
            wait = min(heartbeat_s or 0.5, 0.5)
            with anyio.move_on_after(wait):
                await changed.wait()
            if cursor < len(live.frames):
                continue
            if await request.is_disconnected():
                return  # the client went away while the run was silent
            if heartbeat_s and time.monotonic() - last_sent >= heartbeat_s:
                yield b": ping\n\n"
                last_sent = time.monotonic()
    finally:
        if on_leave is not None:
            with anyio.CancelScope(shield=True):
                await on_leave(complete)
