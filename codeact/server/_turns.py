"""One turn of a thread: checking the request, starting the agent, history and replays."""

from __future__ import annotations

import json
import logging
import math
import unicodedata
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any

from ag_ui.core import (
    CustomEvent,
    MessagesSnapshotEvent,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedEvent,
    RunStartedEvent,
    StateSnapshotEvent,
)

from codeact._messages import ChatMessage
from codeact.agents import RunHandler, Runnable
from codeact.context import Context
from codeact.server._config import ServerConfig
from codeact.server._input import BadRequest, to_agui_messages, to_chat_message
from codeact.server._runs import chunks, frame, store_lost_frame
from codeact.server.store import SessionKey, SessionStore
from codeact.server.translator import Translator
from codeact.tools import ClientTool

log = logging.getLogger("codeact.server")


def check_run_input(run_input: RunAgentInput, config: ServerConfig) -> RunAgentInput:
    if not run_input.thread_id or not run_input.run_id:
        raise BadRequest(422, "threadId and runId must be non-empty strings")
    if not run_input.messages:
        raise BadRequest(400, "messages is empty: send at least the user's message")
    if config.input_hook is not None:
        run_input = config.input_hook(run_input)
    tail = run_input.messages[-1]
    if tail.role not in ("user", "tool"):
        raise BadRequest(
            400, f"the last message must be the user's or tool results (got {tail.role!r})"
        )
    if config.system_messages == "refuse":
        for m in run_input.messages:
            if m.role in ("system", "developer"):
                raise BadRequest(400, f"this server does not accept {m.role} messages from callers")
    return run_input


def thread_request(data: Any) -> tuple[dict[str, Any], str]:
    """A cancel/history/connect body and its ``threadId``."""
    if not isinstance(data, dict):
        raise BadRequest(400, "the body must be a JSON object")
    thread_id = data.get("threadId")
    if not isinstance(thread_id, str) or not thread_id:
        raise BadRequest(400, "threadId (a non-empty string) is required")
    return data, thread_id


#: The largest event number accepted from a client (JSON's safe integers).
MAX_EVENT_NUMBER = 2**53 - 1


def event_number(value: Any, what: str) -> int:
    """A client's last event id: an integer from -1 to ``MAX_EVENT_NUMBER`` (a JSON integer,
    or its decimal text in a header); 400 for anything else (``1.5``, ``true``, ``1e3``)."""
    text = value.strip() if isinstance(value, str) else ""
    if text.isascii() and text.removeprefix("-").isdigit() and len(text) < 20:
        value = int(text)
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadRequest(400, f"{what} must be an event number (an integer)")
    if not -1 <= value <= MAX_EVENT_NUMBER:
        raise BadRequest(400, f"{what} must be between -1 and {MAX_EVENT_NUMBER}")
    return value


def check_thread_id(thread_id: str) -> None:
    """Thread ids are kept as sent, so one spelling is one thread: ids not in Unicode NFC
    form (``'e\u0301'`` for ``'é'``) are refused (400) instead of becoming a second thread."""
    if not thread_id.isascii() and unicodedata.normalize("NFC", thread_id) != thread_id:
        raise BadRequest(
            400, "threadId must be in Unicode NFC form (normalise it before sending)", "bad_id"
        )


def append_tool_results(ctx: Context, run_input: RunAgentInput) -> None:
    """Continue a turn: the tail of ``tool`` messages answers the calls the caller executed."""
    tail = []
    for message in reversed(run_input.messages):
        if message.role != "tool":
            break
        tail.append(message)
    tail.reverse()
    history = ctx.memory.get_all()
    pending = {c.id for m in history if m.role == "assistant" for c in m.tool_calls}
    waiting = pending - {m.tool_call_id for m in history if m.role == "tool"}
    for message in tail:
        if message.tool_call_id not in waiting:
            raise BadRequest(
                400,
                f"tool result for {message.tool_call_id!r} answers no pending tool call of "
                "this thread",
            )
    for message in tail:
        ctx.memory.put(to_chat_message(message))


def apply_request_state(ctx: Context, run_input: RunAgentInput) -> None:
    """A non-empty request ``state`` becomes the thread's shared state (the client's copy
    wins: it is what the user sees); an empty one leaves the server's state alone."""
    state = run_input.state
    if isinstance(state, dict) and state:
        ctx.set_state(json.loads(json.dumps(state)))
    elif state not in (None, {}) and not isinstance(state, dict):
        raise BadRequest(400, "state must be a JSON object")


def instructions(run_input: RunAgentInput) -> list[str]:
    """System/developer messages and ``context`` entries of the request, as extra system
    instructions for this run (not stored: the caller sends them with every request)."""
    out = [str(m.content) for m in run_input.messages if m.role in ("system", "developer")]
    entries = [f"- {c.description}: {c.value}" for c in run_input.context or []]
    if entries:
        out.append("Context from the application:\n" + "\n".join(entries))
    return [t for t in out if t.strip()]


def requested_timeout(props: Any) -> float | None:
    """``forwardedProps.timeout``: a finite positive number of seconds (400 otherwise)."""
    value = props.get("timeout") if isinstance(props, dict) else None
    if value is None:
        return None
    bad = BadRequest(400, "forwardedProps.timeout must be a positive number of seconds")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise bad
    try:
        seconds = float(value)
    except OverflowError:
        raise bad from None
    if not math.isfinite(seconds) or seconds <= 0:
        raise bad
    return seconds


Launch = Callable[[], RunHandler]


def prepare(
    agent: Runnable,
    ctx: Context,
    run_input: RunAgentInput,
    user_msg: ChatMessage | None,
    extra: list[str],
    config: ServerConfig,
) -> tuple[Launch, Translator]:
    """Everything that can fail about a run, done before it is recorded as started: the
    translator, and a ``launch()`` that starts the agent."""
    props = run_input.forwarded_props if isinstance(run_input.forwarded_props, dict) else {}
    timeout = config.run_timeout or math.inf
    requested = requested_timeout(props)
    if requested is not None:
        timeout = min(timeout, requested)
    client_tools = [
        ClientTool(t.name, t.description, t.parameters if isinstance(t.parameters, dict) else None)
        for t in run_input.tools or []
    ]
    options = dict(config.resolve_run_options(props))
    translator = Translator(
        run_input.thread_id,
        run_input.run_id,
        reasoning=config.reasoning,
        activity=config.activity,
        protocol_1_0=_is_1_0(
            getattr(run_input, "protocol_version", None) or props.get("protocolVersion")
        ),
        before=config.before,
        after=config.after,
        state=lambda: ctx.state,
    )
    run_options = {k: v for k, v in options.items() if k in _RUN_OPTIONS}

    def launch() -> RunHandler:
        return agent.run(
            user_msg,
            ctx=ctx,
            client_tools=client_tools,
            timeout=None if math.isinf(timeout) else timeout,
            instructions=extra,
            **run_options,
        )

    return launch, translator


_RUN_OPTIONS = ("max_iterations", "early_stopping_method")


def _is_1_0(version: Any) -> bool:
    try:
        return int(str(version).split(".")[0]) >= 1
    except ValueError:
        return False


def name_messages(messages: list[ChatMessage], names: dict[str, str]) -> None:
    """Assistant messages get the name of the agent that wrote them (by message id, or by
    the id of one of their tool calls), from what the run's translator saw."""
    if not names:
        return
    for m in messages:
        if m.role != "assistant" or m.name:
            continue
        found = names.get(m.id or "") or next(
            (names[c.id] for c in m.tool_calls if c.id in names), None
        )
        if found is not None:
            m.name = found


def partial_answers(
    messages: list[ChatMessage], texts: dict[str, list[str]], names: dict[str, str]
) -> list[ChatMessage]:
    """The assistant texts a run streamed that its messages lack (it was stopped while the
    model was writing them): kept, as a run killed mid-answer keeps them."""
    have = {m.id for m in messages if m.id}
    out = []
    for message_id, parts in texts.items():
        if message_id not in have and "".join(parts).strip():
            partial = ChatMessage.assistant("".join(parts))
            partial.id, partial.name = message_id, names.get(message_id)
            out.append(partial)
    return out


def _data(event: Any) -> str:
    return str(event.model_dump_json(by_alias=True, exclude_none=True))


def history_frames(
    thread_id: str,
    run_id: Any,
    messages: list[ChatMessage],
    state: dict[str, Any] | None,
    runs: list[dict[str, Any]],
) -> list[bytes]:
    """RUN_STARTED, MESSAGES_SNAPSHOT, STATE_SNAPSHOT (when there is state), CUSTOM
    ``codeact.runs`` (each run's status: an interrupted turn shows as ``interrupted``), and
    RUN_FINISHED."""
    rid = run_id if isinstance(run_id, str) and run_id else f"history-{uuid.uuid4().hex[:8]}"
    events: list[Any] = [
        RunStartedEvent(thread_id=thread_id, run_id=rid),
        MessagesSnapshotEvent.model_validate({"messages": to_agui_messages(messages)}),
    ]
    if state:
        events.append(StateSnapshotEvent(snapshot=state))
    if runs:
        events.append(CustomEvent(name="codeact.runs", value=runs))
    events.append(RunFinishedEvent(thread_id=thread_id, run_id=rid))
    return [frame(i, _data(e)) for i, e in enumerate(events)]


#: Stored events read per store call when replaying a run.
PAGE_EVENTS = 256


async def stored_frames(
    store: SessionStore,
    key: SessionKey,
    run_id: str,
    start: int,
    end: int | None = None,
    first: list[tuple[int, str]] | None = None,
    drop: int = 0,
) -> AsyncIterator[bytes]:
    """Frames of stored events ``[start, end)``, read a page at a time and written in chunks
    of at most ``MAX_WRITE_BYTES`` (a reader that does not read holds one page, not the run).
    ``first`` is the page already read (events from ``start - drop`` on)."""
    seq, after, skip, page = start, 0, start, first
    while end is None or seq < end:
        if page is None:
            try:
                page = await store.event_page(
                    key, run_id, after=after, skip=skip, limit=PAGE_EVENTS
                )
            except Exception:
                log.exception("reading run %r back from the store failed", run_id)
                yield store_lost_frame(seq)
                return
        if not page:
            return
        full = len(page) >= PAGE_EVENTS
        frames = []
        for _cursor, data in page[drop:]:
            if end is not None and seq >= end:
                break
            frames.append(frame(seq, data))
            seq += 1
        after, skip, drop, page = page[-1][0], 0, 0, None
        for part in chunks(frames):
            yield part
        if not full:
            return


async def open_replay(
    store: SessionStore, key: SessionKey, run_id: str, start: int
) -> AsyncIterator[bytes] | None:
    """A stored run's frames from event ``start`` on; None when the run has no events; 400
    when ``start`` is past its end; the terminal event again when the client has it all."""
    start = max(0, start)
    back = 1 if start else 0  # read the event before ``start`` too: is ``start`` in range?
    first = await store.event_page(key, run_id, after=0, skip=start - back, limit=PAGE_EVENTS)
    if not first:
        if start and await store.event_page(key, run_id, after=0, skip=0, limit=1):
            raise BadRequest(
                400,
                f"the last event id {start - 1} is past the end of run {run_id!r}",
                "bad_last_event_id",
            )
        return None
    if back and len(first) == 1 and is_terminal(first[0][1]):
        return stored_frames(store, key, run_id, start - 1, first=first)  # caught up
    return stored_frames(store, key, run_id, start, first=first, drop=back)


def is_terminal(data: str) -> bool:
    try:
        return bool(json.loads(data).get("type") in ("RUN_FINISHED", "RUN_ERROR"))
    except (ValueError, AttributeError):
        return False


async def iterate(frames: list[bytes]) -> AsyncIterator[bytes]:
    for part in chunks(frames):
        yield part


async def mark_interrupted(store: SessionStore, key: SessionKey, run_id: str) -> None:
    """After a crash: close the run's event record with RUN_ERROR ``interrupted`` and keep
    the partial answer (the text streamed so far) in the thread's messages."""
    texts: dict[str, list[str]] = {}
    ended = False
    after = 0
    while True:  # page by page: a long run is never all in memory
        page = await store.event_page(key, run_id, after=after, skip=0, limit=PAGE_EVENTS)
        for after, data in page:  # noqa: B007  (the cursor of the last one is the next start)
            e = json.loads(data)
            if e.get("type") == "TEXT_MESSAGE_CONTENT" and isinstance(e.get("delta"), str):
                texts.setdefault(str(e.get("messageId")), []).append(e["delta"])
            ended = ended or e.get("type") in ("RUN_FINISHED", "RUN_ERROR")
        if len(page) < PAGE_EVENTS:
            break
    if not ended:
        end = RunErrorEvent(
            message="the run was interrupted: the server stopped while it was running",
            code="interrupted",
        )
        await store.append_event_json(key, run_id, [_data(end)])
    messages = await store.load_messages(key)
    for message_id, parts in texts.items():
        partial = ChatMessage.assistant("".join(parts))
        partial.id = message_id
        messages.append(partial)
    await store.finish_run(key, run_id, "interrupted", messages)
