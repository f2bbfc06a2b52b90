"""Translator: codeact events → AG-UI events, keeping every stream opened closed.

One translator per run. Users can register ``before``/``after`` callbacks: ``before(event)``
may return a replacement codeact event or None to drop it; ``after(agui_events)`` may rewrite the
list of AG-UI events produced for one codeact event.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from typing import Any

from ag_ui.core import (
    ActivityDeltaEvent,
    ActivitySnapshotEvent,
    BaseEvent,
    CustomEvent,
    ReasoningEndEvent,
    ReasoningMessageContentEvent,
    ReasoningMessageEndEvent,
    ReasoningMessageStartEvent,
    ReasoningStartEvent,
    RunErrorEvent,
    RunFinishedCancelledOutcome,
    RunFinishedEvent,
    RunStartedEvent,
    StateDeltaEvent,
    StateSnapshotEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)

from codeact import events as ev
from codeact.server._cells import cell_event

#: Live cell output shown in ACTIVITY events is capped (every ACTIVITY_DELTA carries all of
#: it, so an uncapped stream would cost O(n²)); the TOOL_CALL_RESULT has the real result.
ACTIVITY_MAX_CHARS = 64 * 1024
ACTIVITY_TRUNCATED = "\n[live output truncated here; the cell's result follows]"
#: Live output is coalesced: one ACTIVITY event per cell at most every ACTIVITY_EVERY_S seconds,
#: or as soon as ACTIVITY_FLUSH_CHARS new characters are waiting.
ACTIVITY_EVERY_S = 0.2
ACTIVITY_FLUSH_CHARS = 16 * 1024
#: At most this many ACTIVITY events and this many characters of them per cell (a cell printing
#: slowly for an hour would otherwise send 5 growing snapshots a second); past either, the live
#: view stops with ACTIVITY_TRUNCATED and the cell's result tells the rest.
ACTIVITY_MAX_EVENTS = 100
ACTIVITY_MAX_TOTAL_CHARS = 2 * 1024 * 1024


class _Cell:
    """Live output of one cell: what was sent, what waits, and the budget spent."""

    __slots__ = ("closed", "events", "last", "sent", "spent", "text")

    def __init__(self) -> None:
        self.text = ""  # all output so far (capped at ACTIVITY_MAX_CHARS)
        self.sent = 0  # characters of ``text`` already sent
        self.events = 0
        self.spent = 0  # characters carried by the events sent
        self.last = 0.0  # monotonic time of the last event
        self.closed = False  # the budget is spent or the cap reached: nothing more is sent


def result_message_id(tool_call_id: str) -> str:
    """The id of a tool call's result message: live (TOOL_CALL_RESULT) and in history."""
    return f"tool-result-{tool_call_id}"


BeforeHook = Callable[[ev.Event], "ev.Event | None"]
AfterHook = Callable[[list[BaseEvent]], list[BaseEvent]]


class Translator:
    """Turns one run's codeact events into AG-UI events."""

    def __init__(
        self,
        thread_id: str,
        run_id: str,
        *,
        reasoning: bool = False,
        activity: bool = False,
        protocol_1_0: bool = False,
        before: list[BeforeHook] | None = None,
        after: list[AfterHook] | None = None,
        state: Callable[[], dict[str, Any]] | None = None,
    ) -> None:
        self.thread_id = thread_id
        self.run_id = run_id
        self.reasoning = reasoning
        self.activity = activity
        self.protocol_1_0 = protocol_1_0
        self.before = list(before or [])
        self.after = list(after or [])
        self._text_id: str | None = None
        self._step_text_id: str | None = None  # the assistant text of the current LLM step
        self._reasoning_id: str | None = None
        self._activity: dict[str, _Cell] = {}
        self._state = state
        self._sent_state: str | None = None
        self.finished = False
        #: The agent that wrote each assistant message (by message id) and made each tool
        #: call (by call id): stored with the thread, so history shows handoffs as live.
        self.agent_name: str | None = None
        self.names: dict[str, str] = {}
        #: The assistant text streamed so far, by message id (a cancelled run keeps it).
        self.texts: dict[str, list[str]] = {}

    def start(self) -> list[BaseEvent]:
        """The first events of the run: RUN_STARTED, and STATE_SNAPSHOT when there is state."""
        out: list[BaseEvent] = [RunStartedEvent(thread_id=self.thread_id, run_id=self.run_id)]
        return out + self._state_events()

    def _state_events(self) -> list[BaseEvent]:
        """STATE_SNAPSHOT the first time, then STATE_DELTA (JSON Patch) when it changed."""
        if self._state is None:
            return []
        state = self._state()
        text = json.dumps(state, sort_keys=True, default=str)
        if text == self._sent_state or (self._sent_state is None and not state):
            return []
        previous = json.loads(self._sent_state) if self._sent_state else None
        self._sent_state = text
        plain = json.loads(text)
        if previous is None:
            return [StateSnapshotEvent(snapshot=plain)]
        return [StateDeltaEvent(delta=state_patch(previous, plain))]

    def translate(self, event: ev.Event) -> list[BaseEvent]:
        """AG-UI events for one codeact event (empty when it has no AG-UI form)."""
        if type(event) is ev.AgentStream and not (self.before or self.after or self.finished):
            return self._stream(event)  # (most events: a streamed piece, no hooks)
        current: ev.Event | None = event
        for hook in self.before:
            current = hook(current) if current is not None else None
        if current is None or self.finished:
            return []
        out = self._translate(current)
        if isinstance(current, ev.ToolCallResult | ev.AgentOutput):
            out += self._state_events()
        elif isinstance(current, ev.TerminalEvent):
            out[-1:-1] = self._state_events()
        for after in self.after:
            out = after(out)
        return out

    def _translate(self, e: ev.Event) -> list[BaseEvent]:
        if isinstance(e, ev.AgentStream):
            return self._stream(e)
        if isinstance(e, ev.AgentInput):
            self._step_text_id = None
            return []
        if isinstance(e, ev.AgentSetup):  # which agent is active (handoffs are visible)
            self.agent_name = e.agent_name
            value = {"agentName": e.agent_name, "tools": e.tools}
            return [CustomEvent(name="codeact.agent", value=value)]
        if isinstance(e, ev.AgentOutput):
            return self._close_text() + self._close_reasoning()
        if isinstance(e, ev.ToolCall):
            return self._tool_call(e)
        if isinstance(e, ev.CodeOutputStream):
            return self._code_output(e)
        if isinstance(e, ev.ToolCallResult):
            result = ToolCallResultEvent(
                message_id=result_message_id(e.tool_id),
                tool_call_id=e.tool_id,
                content=e.tool_output.content,
                role="tool",
            )
            return [*self._flush_cell(e.tool_id), result, *cell_event(e)]  # rich cell: _cells.py
        if isinstance(e, ev.AnswerRetry):  # the agent sent the model back (code first, format)
            retry: dict[str, Any] = {
                "reason": e.reason,
                "message": e.message,
                "attempt": e.attempt,
            }
            return [CustomEvent(name="codeact.answer_retry", value=retry)]
        if isinstance(e, ev.TerminalEvent):
            return self._terminal(e)
        return []

    def text_delta(self, e: ev.AgentStream) -> tuple[str, str] | None:
        """The server's fast path for most events: ``(message id, delta)`` when ``e`` only
        continues the open text message (no hooks, thinking or reasoning; the caller sends
        it as ``TEXT_MESSAGE_CONTENT``); None when ``translate`` must handle it."""
        if e.thinking_delta:
            return None
        text_id = self.text_piece(e.delta)
        return None if text_id is None else (text_id, e.delta)

    def text_piece(self, delta: str) -> str | None:
        """The open text message's id when a plain text piece ``delta`` only continues it
        (recorded; the caller sends it as ``TEXT_MESSAGE_CONTENT``); None when ``translate``
        must handle it."""
        text_id = self._text_id
        if text_id is None or not delta or self._reasoning_id is not None:
            return None
        if self.before or self.after or self.finished:
            return None
        self.texts[text_id].append(delta)
        return text_id

    def _stream(self, e: ev.AgentStream) -> list[BaseEvent]:
        out: list[BaseEvent] = []
        if e.thinking_delta and self.reasoning:
            if self._reasoning_id is None:
                self._reasoning_id = f"reasoning-{uuid.uuid4().hex[:12]}"
                out += [
                    ReasoningStartEvent(message_id=self._reasoning_id),
                    ReasoningMessageStartEvent(message_id=self._reasoning_id, role="reasoning"),
                ]
            out.append(
                ReasoningMessageContentEvent(message_id=self._reasoning_id, delta=e.thinking_delta)
            )
        if e.delta:
            if self._reasoning_id is not None:
                out += self._close_reasoning()
            if self._text_id is None:
                self._text_id = self._step_text_id = e.message_id or f"msg-{uuid.uuid4().hex[:12]}"
                self._name(self._text_id)
                out.append(TextMessageStartEvent(message_id=self._text_id, role="assistant"))
            out.append(TextMessageContentEvent(message_id=self._text_id, delta=e.delta))
            self.texts.setdefault(self._text_id, []).append(e.delta)
        return out

    def _name(self, message_or_call_id: str) -> None:
        if self.agent_name is not None:
            self.names[message_or_call_id] = self.agent_name

    def _tool_call(self, e: ev.ToolCall) -> list[BaseEvent]:
        parent = self._text_id or self._step_text_id
        self._name(e.tool_id)
        out = self._close_text() + self._close_reasoning()
        start = ToolCallStartEvent(tool_call_id=e.tool_id, tool_call_name=e.tool_name)
        if parent is not None:
            start.parent_message_id = parent
        out.append(start)
        args = json.dumps(e.tool_kwargs, ensure_ascii=False)
        if args:
            out.append(ToolCallArgsEvent(tool_call_id=e.tool_id, delta=args))
        out.append(ToolCallEndEvent(tool_call_id=e.tool_id))
        return out

    def _code_output(self, e: ev.CodeOutputStream) -> list[BaseEvent]:
        if not self.activity or not e.text:
            return []
        cell = self._activity.get(e.tool_id)
        if cell is None:
            cell = self._activity[e.tool_id] = _Cell()
        if cell.closed or len(cell.text) >= ACTIVITY_MAX_CHARS:
            return []
        cell.text += e.text
        now = time.monotonic()
        waiting = len(cell.text) - cell.sent
        soon = now - cell.last < ACTIVITY_EVERY_S and waiting < ACTIVITY_FLUSH_CHARS
        if cell.events and soon and len(cell.text) < ACTIVITY_MAX_CHARS:
            return []  # coalesced: sent by ``tick`` or the next output after the interval
        return self._activity_event(e.tool_id, cell, now)

    def tick(self) -> list[BaseEvent]:
        """ACTIVITY events for cells whose output waited ``ACTIVITY_EVERY_S`` (the server calls
        this a few times a second, so output followed by silence still shows)."""
        now = time.monotonic()
        out: list[BaseEvent] = []
        for tool_id, cell in self._activity.items():
            if cell.sent < len(cell.text) and now - cell.last >= ACTIVITY_EVERY_S:
                out += self._activity_event(tool_id, cell, now)
        for after in self.after if out else ():
            out = after(out)
        return out

    def _flush_cell(self, tool_id: str) -> list[BaseEvent]:
        """The cell's waiting output (before its result), and forget the cell."""
        cell = self._activity.pop(tool_id, None)
        if cell is None or cell.sent >= len(cell.text):
            return []
        return self._activity_event(tool_id, cell, time.monotonic())

    def _activity_event(self, tool_id: str, cell: _Cell, now: float) -> list[BaseEvent]:
        if cell.closed:
            return []
        text = cell.text
        over = len(text) >= ACTIVITY_MAX_CHARS
        if over:
            text = text[:ACTIVITY_MAX_CHARS]
        last = (
            over
            or cell.events + 1 >= ACTIVITY_MAX_EVENTS
            or cell.spent + 2 * len(text) > ACTIVITY_MAX_TOTAL_CHARS
        )
        if last:
            text += ACTIVITY_TRUNCATED
            cell.closed = True
        cell.sent, cell.last = len(cell.text), now
        cell.events += 1
        cell.spent += len(text)
        message_id = f"activity-{tool_id}"
        if cell.events == 1:
            content: dict[str, Any] = {"toolCallId": tool_id, "output": text}
            return [
                ActivitySnapshotEvent(
                    message_id=message_id, activity_type="code_output", content=content
                )
            ]
        patch = [{"op": "replace", "path": "/output", "value": text}]
        return [ActivityDeltaEvent(message_id=message_id, activity_type="code_output", patch=patch)]

    def _terminal(self, e: ev.TerminalEvent) -> list[BaseEvent]:
        out = self.close_all()
        if isinstance(e, ev.RunFinished):
            out.append(RunFinishedEvent(thread_id=self.thread_id, run_id=self.run_id))
        elif isinstance(e, ev.RunCancelled):
            done = RunFinishedEvent(thread_id=self.thread_id, run_id=self.run_id)
            if self.protocol_1_0:
                done.outcome = RunFinishedCancelledOutcome()
            out.append(done)
        elif isinstance(e, ev.RunTimedOut):
            out.append(
                RunErrorEvent(message=f"The run timed out after {e.timeout:g} s", code="timeout")
            )
        elif isinstance(e, ev.RunFailed):
            out.append(RunErrorEvent(message=f"{e.error_type}: {e.message}", code=e.error_type))
        self.finished = True
        return out

    def error(self, message: str, code: str = "error") -> list[BaseEvent]:
        """Close everything and end with RUN_ERROR (used when the run itself could not run)."""
        if self.finished:
            return []
        self.finished = True
        return [*self.close_all(), RunErrorEvent(message=message, code=code)]

    def close_all(self) -> list[BaseEvent]:
        """End events for every text and reasoning stream still open (tool calls are sent
        START/ARGS/END at once, so none is ever left open)."""
        return self._close_text() + self._close_reasoning()

    def _close_text(self) -> list[BaseEvent]:
        if self._text_id is None:
            return []
        msg_id, self._text_id = self._text_id, None
        return [TextMessageEndEvent(message_id=msg_id)]

    def _close_reasoning(self) -> list[BaseEvent]:
        if self._reasoning_id is None:
            return []
        rid, self._reasoning_id = self._reasoning_id, None
        return [ReasoningMessageEndEvent(message_id=rid), ReasoningEndEvent(message_id=rid)]


def state_patch(old: dict[str, Any], new: dict[str, Any]) -> list[dict[str, Any]]:
    """A JSON Patch (RFC 6902) turning ``old`` into ``new``, key by key at the top level."""

    def path(key: str) -> str:
        return "/" + key.replace("~", "~0").replace("/", "~1")

    ops: list[dict[str, Any]] = [{"op": "remove", "path": path(k)} for k in old if k not in new]
    for k, v in new.items():
        if k not in old:
            ops.append({"op": "add", "path": path(k), "value": v})
        elif old[k] != v:
            ops.append({"op": "replace", "path": path(k), "value": v})
    return ops


def encode_sse(event: BaseEvent) -> bytes:
    """One SSE frame: ``data: <camelCase JSON>\\n\\n`` (LF framing, no nulls)."""
    return b"data: " + event.model_dump_json(by_alias=True, exclude_none=True).encode() + b"\n\n"
