"""RunHandler: the handle ``agent.run(...)`` returns — await it, stream its events, cancel it."""

from __future__ import annotations

import asyncio
import math
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Generator
from contextlib import nullcontext, suppress
from typing import Any, TypeVar

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from codeact._messages import ToolCallRequest
from codeact.context import Context
from codeact.errors import RunCancelledError, RunTimeoutError, UserError
from codeact.events import (
    AgentOutput,
    AgentStream,
    Event,
    RunCancelled,
    RunFailed,
    RunFinished,
    RunTimedOut,
    TextBuffer,
)

E = TypeVar("E", bound=Event)
RunBody = Callable[["RunHandler"], Awaitable[AgentOutput]]


class RunHandler:
    """A running (or about to run) agent run.

    ``await handler`` returns the final ``AgentOutput`` (or raises the run's error);
    ``async for ev in handler.stream_events()`` yields every event, ending with exactly one
    terminal event; ``await handler.cancel()`` stops LLM and tool work promptly. The run starts
    at once when created inside an event loop, otherwise on the first await or stream.
    """

    def __init__(self, body: RunBody, ctx: Context, *, timeout: float | None = None) -> None:
        self.run_id = uuid.uuid4().hex
        self.ctx = ctx
        self.timeout = timeout
        self.agent_name = ctx.current_agent_name or ""
        self._body = body
        self._seq = 0
        self._send: MemoryObjectSendStream[Event]
        self._recv: MemoryObjectReceiveStream[Event]
        self._send, self._recv = anyio.create_memory_object_stream[Event](math.inf)
        self._streamed = False
        self._sink: Callable[[Event], None] | None = None
        #: ``forward``'s text sink: plain text pieces go to it with no event made.
        self._text_sink: Callable[[str], bool] | None = None
        self._sink_error: BaseException | None = None
        self._cancel_requested = False
        self._scope: anyio.CancelScope | None = None
        self._task: asyncio.Task[None] | None = None
        self._result: AgentOutput | None = None
        self._error: BaseException | None = None
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return
        self._start()

    # -- driving -------------------------------------------------------------------------------
    def _start(self) -> asyncio.Task[None]:
        if self._task is None:
            # The one detached task of a run: run() is synchronous and returns this handle, so the
            # run must live beyond the caller's frame (as LlamaIndex users expect).
            self._task = asyncio.ensure_future(self._main())
        return self._task

    async def _main(self) -> None:
        timed_out = False
        try:
            with anyio.CancelScope() as scope:
                self._scope = scope
                if self._cancel_requested:
                    scope.cancel()
                timeout_ctx = anyio.move_on_after(self.timeout) if self.timeout else nullcontext()
                with timeout_ctx as tscope:
                    self._result = await self._body(self)
                timed_out = bool(tscope is not None and tscope.cancelled_caught)
            if timed_out:
                assert self.timeout is not None
                self._result = None
                self._error = RunTimeoutError(self.timeout)
                self.emit(RunTimedOut(timeout=self.timeout))
            elif scope.cancelled_caught or self._result is None:
                self._error = RunCancelledError("The run was cancelled.")
                self.emit(RunCancelled())
            else:
                self.emit(RunFinished(result=self._result))
        except Exception as exc:
            self._error = exc
            self.emit(RunFailed(error_type=type(exc).__name__, message=str(exc), exception=exc))
        finally:
            self._send.close()

    def emit(self, event: E) -> E:
        """Publish a copy of ``event`` stamped with run id, agent, sequence number and time,
        and return that copy (events are frozen: the one given is left as it was)."""
        stamped = _stamped(
            event, self.run_id, event.agent_name or self.agent_name, self._seq, time.time()
        )
        self._seq += 1
        return self._deliver(stamped)

    def _emit_piece(
        self,
        buffer: TextBuffer,
        delta: str,
        *,
        appended: bool = False,
        message_id: str = "",
        thinking_delta: str | None = None,
        tool_calls: list[ToolCallRequest] | None = None,
    ) -> AgentStream:
        """``emit(AgentStream.piece(buffer, delta, ...))`` in one step: the event is made
        already stamped (no copy) — the per-chunk path of the agents (plain text pieces come
        through ``_emit_text``, which offers them to ``forward``'s text sink first)."""
        offset = len(buffer) - len(delta) if appended else buffer.append(delta)
        stamp = (self.run_id, self.agent_name, self._seq, time.time())
        if tool_calls or not _plain(delta, message_id, thinking_delta):
            event = AgentStream(
                delta=delta,
                offset=offset,
                text_buffer=buffer,
                message_id=message_id,
                thinking_delta=thinking_delta or None,
                tool_calls=tool_calls or [],
                **dict(zip(_STAMP, stamp, strict=True)),
            )
        else:  # (most chunks: values of the right types already, as validation would leave)
            event = _stream_piece(stamp, delta, offset, buffer, message_id, thinking_delta)
        self._seq += 1
        return self._deliver(event)

    def _emit_text(self, buffer: TextBuffer, delta: str, message_id: str) -> None:
        """``_emit_piece(buffer, delta, message_id=message_id)`` for a plain text piece (a
        non-empty ``str``): the most frequent event, offered to the text sink directly."""
        if self._text_sink is None:
            self._emit_piece(buffer, delta, message_id=message_id)
            return
        buffer.append(delta)
        if not self._offer_text(delta):
            self._emit_piece(buffer, delta, appended=True, message_id=message_id)

    def _offer_text(self, delta: str) -> bool:
        """Whether ``forward``'s text sink took ``delta`` (numbered as the event it stands
        for); a sink that raises stops the run as ``_to_sink`` does (the piece is dropped)."""
        assert self._text_sink is not None
        try:
            taken = self._text_sink(delta)
        except Exception as exc:
            self._sink_failed(exc)
            taken = True
        if taken:
            self._seq += 1
        return taken

    def _deliver(self, stamped: E) -> E:
        if self._sink is not None:
            self._to_sink(stamped)
            return stamped
        # A reader that went away (its stream_events() loop cancelled, e.g. by Ctrl-C) leaves
        # nobody to see this event, and the run must still end cleanly.
        with suppress(anyio.BrokenResourceError):
            self._send.send_nowait(stamped)
        return stamped

    def _to_sink(self, event: Event) -> None:
        assert self._sink is not None
        try:
            self._sink(event)
        except Exception as exc:
            self._sink_failed(exc)

    def _sink_failed(self, exc: Exception) -> None:
        """The consumer failed: the run stops, the emitter goes on."""
        self._sink = self._text_sink = None
        self._sink_error = exc
        self._cancel_requested = True
        if self._scope is not None:
            self._scope.cancel()

    # -- public API ----------------------------------------------------------------------------
    def __await__(self) -> Generator[Any, None, AgentOutput]:
        return self._wait().__await__()

    async def _wait(self) -> AgentOutput:
        await self._start()
        if self._error is not None:
            raise self._error
        assert self._result is not None
        return self._result

    async def stream_events(self) -> AsyncIterator[Event]:
        """Yield every event of the run in order; the last one is terminal. Once per handler."""
        if self._streamed:
            raise UserError("stream_events() can be consumed only once per handler")
        self._streamed = True
        self._start()
        async with self._recv:
            async for event in self._recv:
                yield event

    async def stream_batches(self, limit: int = 64) -> AsyncIterator[list[Event]]:
        """Like ``stream_events``, but each item is the events ready at that moment (in order,
        at most ``limit``): a fast consumer pays one wake-up per batch instead of one per
        event, and still lets other tasks run between batches."""
        if self._streamed:
            raise UserError("stream_events() can be consumed only once per handler")
        self._streamed = True
        self._start()
        async with self._recv:
            while True:
                try:
                    batch = [await self._recv.receive()]
                except anyio.EndOfStream:
                    return
                while len(batch) < limit:
                    try:
                        batch.append(self._recv.receive_nowait())
                    except (anyio.WouldBlock, anyio.EndOfStream):
                        break
                yield batch

    def forward(
        self, sink: Callable[[Event], None], text: Callable[[str], bool] | None = None
    ) -> None:
        """Hand every event to ``sink`` as it is emitted, in the emitting task, instead of
        streaming them (no queue and no task switch per event; the events emitted so far are
        handed over at once). Once per handler, instead of ``stream_events``. ``sink`` must be
        quick; if it raises, it gets no more events and the run is cancelled (``sink_error``
        has the exception). Wait for the run's end with ``await handler.wait()``.

        ``text``, if given, is offered each plain text piece (an ``AgentStream`` with only a
        ``delta``) first: when it returns True the piece is taken and no event is made for
        ``sink`` (the sequence number is still used); False hands the event to ``sink``."""
        if self._streamed:
            raise UserError("stream_events() can be consumed only once per handler")
        self._streamed = True
        self._sink = sink
        self._text_sink = text
        while self._sink is not None:
            try:
                event = self._recv.receive_nowait()
            except (anyio.WouldBlock, anyio.EndOfStream):
                break
            self._to_sink(event)
        self._start()

    def fail_forwarding(self, exc: Exception) -> None:
        """The consumer of ``forward`` failed outside its sink (its own housekeeping, say):
        the run stops as when the sink raises (``sink_error`` is ``exc``)."""
        self._sink_failed(exc)

    @property
    def sink_error(self) -> BaseException | None:
        """The exception the ``forward`` sink raised, if it did."""
        return self._sink_error

    async def wait(self) -> None:
        """Wait until the run has ended (any way), without raising its error."""
        await asyncio.wait([self._start()])

    async def cancel(self) -> None:
        """Stop the run: in-flight LLM and tool work is cancelled, memory stays consistent."""
        self._cancel_requested = True
        if self._scope is not None:
            self._scope.cancel()
        await self.wait()

    def done(self) -> bool:
        """True when the run has ended (any way)."""
        return self._task is not None and self._task.done()

    @property
    def result(self) -> AgentOutput | None:
        """The final output once the run has finished successfully."""
        return self._result

    @property
    def error(self) -> BaseException | None:
        """The error the run ended with, if any."""
        return self._error


_STAMP = ("run_id", "agent_name", "seq", "timestamp")
_STAMP_SET = frozenset(_STAMP)
_PIECE_SET = frozenset({*_STAMP, "delta", "offset", "text_buffer", "message_id"})
_new = object.__new__
_set = object.__setattr__


def _stamped(event: E, run_id: str, agent_name: str, seq: int, timestamp: float) -> E:
    """``event.model_copy(update={...the stamp...})`` without its generic machinery (every
    event of a run is stamped; ``tests/agents/test_handler_forward.py`` checks they agree)."""
    copy = _new(type(event))
    values = event.__dict__.copy()
    values["run_id"], values["agent_name"] = run_id, agent_name
    values["seq"], values["timestamp"] = seq, timestamp
    _set(copy, "__dict__", values)
    _set(copy, "__pydantic_fields_set__", event.__pydantic_fields_set__ | _STAMP_SET)
    extra, private = event.__pydantic_extra__, event.__pydantic_private__
    _set(copy, "__pydantic_extra__", None if extra is None else dict(extra))
    _set(copy, "__pydantic_private__", None if private is None else dict(private))
    return copy


def _plain(delta: object, message_id: object, thinking_delta: object) -> bool:
    return (
        type(delta) is str
        and type(message_id) is str
        and (thinking_delta is None or type(thinking_delta) is str)
    )


def _stream_piece(
    stamp: tuple[str, str, int, float],
    delta: str,
    offset: int,
    buffer: TextBuffer,
    message_id: str,
    thinking_delta: str | None,
) -> AgentStream:
    """The ``AgentStream`` validation would make from these values (already of their types):
    what ``model_construct`` does, without its Python loop over the fields (the per-chunk
    path; ``tests/agents/test_handler_forward.py`` checks it equals the validated event)."""
    event = _new(AgentStream)
    run_id, agent_name, seq, timestamp = stamp
    values = {
        "run_id": run_id,
        "agent_name": agent_name,
        "seq": seq,
        "timestamp": timestamp,
        "type": "agent_stream",
        "delta": delta,
        "offset": offset,
        "message_id": message_id,
        "thinking_delta": thinking_delta or None,
        "tool_calls": [],
        "text_buffer": buffer,
    }
    _set(event, "__dict__", values)
    fields_set = set(_PIECE_SET)
    if thinking_delta:
        fields_set.add("thinking_delta")
    _set(event, "__pydantic_fields_set__", fields_set)
    _set(event, "__pydantic_extra__", None)
    _set(event, "__pydantic_private__", None)
    return event
