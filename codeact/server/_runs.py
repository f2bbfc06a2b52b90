"""Live runs: the event log every reader follows (and re-attaches to), and the driver that runs
an agent to its end whatever happens — failures of encoding, translation, hooks or the store end
that run alone, with a terminal ``RUN_ERROR`` and a log line."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field

import anyio
from ag_ui.core import ActivityDeltaEvent, BaseEvent, RunErrorEvent
from starlette.requests import Request

from codeact.agents import RunHandler
from codeact.events import AgentStream, Event
from codeact.server._sse import dumps_str, encode, text_delta_json
from codeact.server._sse import frame as frame
from codeact.server._timer import Timer
from codeact.server.store import SessionKey
from codeact.server.translator import Translator

log = logging.getLogger("codeact.server")

#: Stored events are written in batches, at most this often.
FLUSH_EVERY_S = 0.25
#: A reader woken with fewer frames than this waits this long for more, so that one write
#: carries many frames (fewer syscalls and wake-ups under load; a few ms more latency) — when
#: the run is bursty (its last write carried several frames): a paced run's reader, woken for
#: one frame at a time, would only pay a timer per event.
COALESCE_FRAMES = 32
COALESCE_S = 0.005
#: At most this many bytes per write to a reader, so that transport flow control applies
#: (a reader that does not read blocks its own stream, not the server's memory).
MAX_WRITE_BYTES = 256 * 1024
#: How often a live run wakes its readers when it is silent (disconnects, heartbeats).
PULSE_S = 0.5
#: How often coalesced live cell output (ACTIVITY events) is sent while a cell is silent.
TICK_S = 0.2
#: Final-flush attempts for events a store write failed to take.
FLUSH_ATTEMPTS = 3

Flush = Callable[["LiveRun", list[str], int], Awaitable[None]]
#: Frames ``[start, end)`` of a run read back from the store (for readers far behind), as
#: writes of at most about ``MAX_WRITE_BYTES``.
Backfill = Callable[[int, int], AsyncIterator[bytes]]


def chunks(frames: list[bytes], limit: int = MAX_WRITE_BYTES) -> list[bytes]:
    """Frames joined into writes of about ``limit`` bytes (a larger frame is one write)."""
    if len(frames) == 1:  # (a paced run's reader: one frame per wake-up)
        return frames
    out: list[bytes] = []
    part: list[bytes] = []
    size = 0
    for f in frames:
        if part and size + len(f) > limit:
            out.append(b"".join(part))
            part, size = [], 0
        part.append(f)
        size += len(f)
    if part:
        out.append(b"".join(part))
    return out


def stored_form(event: BaseEvent, data: str) -> str:
    """What the store keeps of an event: ACTIVITY_DELTA (live cell output, each carrying all
    the output so far) as a no-op delta, so stored runs and replays stay small; the cell's
    TOOL_CALL_RESULT holds its output. Event numbers are unchanged (one row per event)."""
    if type(event) is ActivityDeltaEvent:
        return _NOOP_DELTA % (dumps_str(event.message_id), dumps_str(event.activity_type))
    return data


def store_lost_frame(seq: int) -> bytes:
    """The terminal frame a reader gets when the store fails while its events are read back
    (a stored run, or a run live on another replica): the stream ends, never cut."""
    return frame(seq, _STORE_LOST)


_STORE_LOST = RunErrorEvent(
    message="the session store became unreachable while this run was being read; "
    "reconnect later to read the rest",
    code="store_unavailable",
).model_dump_json(exclude_none=True)
_NOOP_DELTA = '{"type":"ACTIVITY_DELTA","messageId":%s,"activityType":%s,"patch":[]}'


_TERMINAL = ("RUN_FINISHED", "RUN_ERROR")


@dataclass(eq=False)
class LiveRun:
    """A run in progress on one thread. ``frames[i]`` is the SSE frame of event ``base + i``;
    readers keep their own cursor into it, so a slow reader costs no queue and cannot stall
    the run. Once stored, old frames are dropped past ``max_frames`` (memory stays bounded); a
    reader that far behind reads them back from the store."""

    key: SessionKey
    thread_id: str
    run_id: str
    owner: str | None
    handler: RunHandler | None = None
    translator: Translator | None = None
    max_frames: int = 2048
    frames: list[bytes] = field(default_factory=list)
    base: int = 0  # the event number of ``frames[0]``
    pending: list[str] = field(default_factory=list)  # JSON not yet handed to the store
    flushed: int = 0  # events handed to the store
    stored: int = 0  # events the store has confirmed
    finished: bool = False  # the terminal event is in ``frames``
    #: A store write failed: later writes may repeat events that did land (the store skips them).
    retry: bool = False
    #: Called once, when the terminal event is appended (before readers are woken).
    on_finished: Callable[[], None] | None = None
    _waiters: list[asyncio.Future[None]] = field(default_factory=list)  # readers (``changed``)
    _enders: list[asyncio.Future[None]] = field(default_factory=list)  # readers (``settle``)
    done: anyio.Event = field(default_factory=anyio.Event)  # stored and released
    started: float = field(default_factory=time.monotonic)

    def publish(self, events: list[BaseEvent]) -> None:
        """Encode and append events (raises if one cannot be encoded)."""
        if not events or self.finished:
            return
        for event in events:
            if self.finished:
                break
            data = encode(event)
            self.frames.append(frame(self.base + len(self.frames), data))
            self.pending.append(stored_form(event, data))
            if event.type in _TERMINAL:
                self._end()
        self.notify()

    def publish_text(self, message_id: str, delta: str) -> None:
        """``publish([TextMessageContentEvent(message_id=..., delta=...)])``, made directly."""
        if self.finished:
            return
        data = text_delta_json(message_id, delta)
        frames = self.frames  # (``frame`` inlined: the most frequent event)
        frames.append(
            b"id: %d\ndata: %s\n\n" % (self.base + len(frames), data.encode("utf-8", "replace"))
        )
        self.pending.append(data)
        if self._waiters:
            self.notify()

    def publish_error(self, message: str, code: str = "internal_error") -> None:
        """A terminal ``RUN_ERROR`` that cannot fail to encode (no ids from the request)."""
        if self.finished:
            return
        data = RunErrorEvent(message=message, code=code).model_dump_json(exclude_none=True)
        self.frames.append(frame(self.count, data))
        self.pending.append(data)
        self._end()
        self.notify()

    def _end(self) -> None:
        self.finished = True
        if self.on_finished is not None:
            self.on_finished()
        enders, self._enders = self._enders, []
        for waiter in enders:
            _wake(waiter)

    def notify(self) -> None:
        """Wake the readers waiting in ``changed``."""
        if not self._waiters:
            return
        waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            if not waiter.done():  # (a reader cancelled meanwhile)
                waiter.set_result(None)

    def settle(self, seconds: float) -> asyncio.Future[None]:
        """A future done after ``seconds``, or sooner when the run ends (its terminal event
        goes out without waiting); new frames do not wake it (they wait to go out together)."""
        loop = asyncio.get_running_loop()
        waiter = loop.create_future()
        if self.finished:
            waiter.set_result(None)
            return waiter
        if len(self._enders) >= 16:  # (those woken by their timer: a long run makes many)
            self._enders = [w for w in self._enders if not w.done()]
        self._enders.append(waiter)
        loop.call_later(seconds, _wake, waiter)
        return waiter

    def changed(self) -> asyncio.Future[None]:
        """A future this reader awaits: done the next time frames are added, the run ends or
        it is pulsed. One per wait and reader (cancelling one reader's wait leaves the others'
        alone): cheaper than an event object per wait."""
        waiter = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        return waiter

    @property
    def count(self) -> int:
        """Events published so far."""
        return self.base + len(self.frames)

    def stored_up_to(self, end: int) -> None:
        """The store confirmed events ``< end``: drop old frames past ``max_frames``."""
        self.stored = max(self.stored, end)
        excess = len(self.frames) - self.max_frames
        if excess > 0:
            drop = min(excess + self.max_frames // 2, self.stored - self.base)
            if drop > 0:
                del self.frames[:drop]
                self.base += drop

    def take_pending(self) -> tuple[list[str], int]:
        batch, self.pending = self.pending, []
        start = self.flushed
        self.flushed += len(batch)
        return batch, start

    def put_back(self, batch: list[str], start: int) -> None:
        """A batch the store did not take goes back in front of the pending events."""
        self.pending[:0] = batch
        self.flushed = start
        self.retry = True


async def drive(live: LiveRun, flush: Flush) -> None:
    """Run the agent to its end, publishing AG-UI events and storing them in batches.

    Events are translated and published as the agent emits them, in the agent's task
    (``RunHandler.forward``): no queue and no task switch per event. The readers, woken
    once per turn of the event loop whatever the number of events, write them out."""
    assert live.handler is not None and live.translator is not None
    handler, translator = live.handler, live.translator
    attached = True

    def sink(event: Event) -> None:
        if not attached:  # (a run the server stops gets the server's terminal event)
            return
        piece = translator.text_delta(event) if type(event) is AgentStream else None
        if piece is not None:
            live.publish_text(*piece)
        else:
            live.publish(translator.translate(event))

    def text(delta: str) -> bool:  # (most events: no event object made, translated or encoded)
        if not attached:
            return True
        text_id = translator.text_piece(delta)
        if text_id is None:
            return False
        live.publish_text(text_id, delta)
        return True

    timer = Timer()
    # (a plain task, not a task group: a group's cancel scopes cost more than the run's
    # housekeeping; the timer ends it, and the run waits for it before its last flush)
    keeper = asyncio.ensure_future(_housekeeping(live, flush, translator, timer))
    keeper.add_done_callback(lambda task: _housekeeping_failed(task, handler))
    try:
        try:
            if not live.count:  # (the server publishes it at once, for the first byte)
                live.publish(translator.start())
            handler.forward(sink, text)
            await handler.wait()
            if handler.sink_error is not None:  # translation, a hook or encoding failed
                raise handler.sink_error
            if not live.finished:
                live.publish(translator.error("the run ended without a terminal event"))
        finally:  # (housekeeping ends now, or after the store write under way)
            timer.stop()
    except Exception as exc:
        attached = False
        log.exception("run %r on thread %r failed in the server", live.run_id, live.thread_id)
        with anyio.CancelScope(shield=True):
            await _stop(handler)
        leaf = _leaf(exc)
        live.publish_error(f"the server could not continue this run ({type(leaf).__name__})")
    finally:
        attached = False
        with anyio.CancelScope(shield=True):
            await asyncio.wait([keeper])  # (the store write under way completes first)
            if not live.finished:  # cancelled from outside (shutdown)
                await _stop(handler)
                live.publish_error("the server stopped this run", "shutdown")
            for _ in range(FLUSH_ATTEMPTS):
                if not await _flush(live, flush):
                    break
            if live.pending:  # (kept: stored with the run's end once the store is back)
                log.error(
                    "run %r: %d events could not be stored yet", live.run_id, len(live.pending)
                )


def _housekeeping_failed(task: asyncio.Task[None], handler: RunHandler) -> None:
    """Housekeeping raised (a hook failing on live cell output): the run stops as it does
    when its sink fails, and ends with a ``RUN_ERROR``."""
    exc = None if task.cancelled() else task.exception()
    if isinstance(exc, Exception):
        log.error("the housekeeping of a run failed", exc_info=exc)
        handler.fail_forwarding(exc)


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


async def _housekeeping(live: LiveRun, flush: Flush, translator: Translator, timer: Timer) -> None:
    """A run's one timer: every ``FLUSH_EVERY_S`` its pending events go to the store; when
    ``activity``, coalesced live cell output that waited long enough is published (every
    ``TICK_S``); when the run has been silent for ``PULSE_S``, its readers are woken (they
    notice a disconnect and send heartbeats; a run that publishes wakes them anyway). Plain
    sleeps, no cancel scope per wake-up; ``drive`` stops it when the run ends (a store write
    under way completes first; ``drive`` then stores what is left)."""
    period = min(FLUSH_EVERY_S, TICK_S) if translator.activity else FLUSH_EVERY_S
    seen, quiet = live.count, 0.0
    while await timer.sleep(period):
        if translator.activity and not live.finished:
            live.publish(translator.tick())
        if live.count != seen:
            seen, quiet = live.count, 0.0
        else:
            quiet += period
            if quiet >= PULSE_S:
                quiet = 0.0
                live.notify()
        if live.pending:
            await _flush(live, flush)


async def _flush(live: LiveRun, flush: Flush) -> bool:
    """Hand the pending events to the store; False when there was nothing or it worked, True
    when it failed (the batch is back in ``pending`` for the next attempt)."""
    if not live.pending:
        return False
    batch, start = live.take_pending()
    try:
        await flush(live, batch, start)
    except Exception:
        log.exception("storing %d events of run %r failed (will retry)", len(batch), live.run_id)
        live.put_back(batch, start)
        return True
    except BaseException:  # cancelled (the server stops): ``drive``'s last flush retries it
        live.put_back(batch, start)
        raise
    live.stored_up_to(start + len(batch))
    return False


def _wake(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():  # (woken already, or its reader cancelled)
        waiter.set_result(None)


async def follow(
    live: LiveRun,
    start: int,
    request: Request,
    *,
    heartbeat_s: float | None,
    interval: float = 0.0,
    on_leave: Callable[[], Awaitable[None]] | None = None,
    backfill: Backfill | None = None,
) -> AsyncIterator[bytes]:
    """The run's frames from ``start`` on, then new ones as they come (all that are ready in
    one write, and after a write none for ``interval`` s unless the run ended: what comes
    meanwhile goes out together), heartbeats while silent; ends after the terminal event
    (``on_leave`` is awaited when the reader leaves before it: a disconnect)."""
    cursor = max(0, start)
    complete = bursty = False
    try:
        last_sent = time.monotonic()
        while True:
            base = live.base
            if cursor < base:  # dropped from memory: read back from the store
                if backfill is not None:
                    async for part in backfill(cursor, base):
                        yield part
                cursor = base
                continue
            ready = live.frames[cursor - base :]  # (a copy: frames may be dropped meanwhile)
            if ready:
                bursty = len(ready) > 1
                cursor += len(ready)
                for part in chunks(ready):
                    yield part
                last_sent = time.monotonic()
                if interval and not live.finished:
                    await live.settle(interval)  # (woken early by the run's end)
                continue
            if live.finished:
                complete = True
                return
            await live.changed()  # (new frames, the end, or the run's pulse)
            behind = live.base + len(live.frames) - cursor  # (live.count, inlined: per event)
            if behind > 0:
                few = behind < COALESCE_FRAMES
                if few and bursty and not live.finished:
                    await asyncio.sleep(COALESCE_S)
                continue
            if await request.is_disconnected():
                return  # the client went away while the run was silent
            if heartbeat_s and time.monotonic() - last_sent >= heartbeat_s:
                yield b": ping\n\n"
                last_sent = time.monotonic()
    finally:
        if on_leave is not None and not complete:
            with anyio.CancelScope(shield=True):
                await on_leave()
