"""One turn of a thread: checking the request, starting the agent, history and replays."""

from __future__ import annotations

import json
import math
import uuid
from collections.abc import AsyncIterator
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
from codeact.agents._handler import RunHandler
from codeact.agents.base import BaseAgent
from codeact.agents.workflow import AgentWorkflow
from codeact.context import Context
from codeact.server._config import ServerConfig
from codeact.server._input import BadRequest, to_agui_messages, to_chat_message
from codeact.server._runs import frame
from codeact.server.store import SessionKey, SessionStore
from codeact.server.translator import Translator
from codeact.tools import ClientTool


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
        ctx.state = json.loads(json.dumps(state))
        ctx._initialised = True
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


def start(
    agent: BaseAgent | AgentWorkflow,
    ctx: Context,
    run_input: RunAgentInput,
    user_msg: ChatMessage | None,
    extra: list[str],
    config: ServerConfig,
) -> tuple[RunHandler, Translator]:
    props = run_input.forwarded_props if isinstance(run_input.forwarded_props, dict) else {}
    timeout = config.run_timeout or math.inf
    requested = props.get("timeout")
    if isinstance(requested, (int, float)) and requested > 0:
        timeout = min(timeout, float(requested))
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
    handler = agent.run(
        user_msg,
        ctx=ctx,
        client_tools=client_tools,
        timeout=None if math.isinf(timeout) else timeout,
        instructions=extra,
        **{k: v for k, v in options.items() if k in ("max_iterations", "early_stopping_method")},
    )
    return handler, translator


def _is_1_0(version: Any) -> bool:
    try:
        return int(str(version).split(".")[0]) >= 1
    except ValueError:
        return False


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


def replay_frames(stored: list[dict[str, Any]], start: int) -> list[bytes]:
    return [
        frame(i, json.dumps(e, ensure_ascii=False, separators=(",", ":")))
        for i, e in enumerate(stored)
        if i >= start
    ]


async def iterate(frames: list[bytes]) -> AsyncIterator[bytes]:
    yield b"".join(frames)


async def mark_interrupted(store: SessionStore, key: SessionKey, run_id: str) -> None:
    """After a crash: close the run's event record with RUN_ERROR ``interrupted`` and keep
    the partial answer (the text streamed so far) in the thread's messages."""
    events = await store.load_events(key, run_id)
    texts: dict[str, list[str]] = {}
    for e in events:
        if e.get("type") == "TEXT_MESSAGE_CONTENT" and isinstance(e.get("delta"), str):
            texts.setdefault(str(e.get("messageId")), []).append(e["delta"])
    if not any(e.get("type") in ("RUN_FINISHED", "RUN_ERROR") for e in events):
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
