"""The ASGI app: run, cancel and history routes streaming AG-UI events over SSE."""

from __future__ import annotations

import contextlib
import math
import time
import uuid
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio
from ag_ui.core import (
    BaseEvent,
    MessagesSnapshotEvent,
    RunAgentInput,
    RunFinishedEvent,
    RunStartedEvent,
)
from anyio.abc import TaskGroup
from anyio.streams.memory import MemoryObjectSendStream
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from codeact.agents._handler import RunHandler
from codeact.agents.base import BaseAgent
from codeact.agents.workflow import AgentWorkflow
from codeact.context import Context
from codeact.memory import ChatMemory
from codeact.server._input import BadRequest, parse_run_input, to_agui_messages, to_chat_message
from codeact.server.store import SessionKey, SessionStore, SQLiteStore
from codeact.server.translator import AfterHook, BeforeHook, Translator, encode_sse
from codeact.tools import ClientTool

Runnable = BaseAgent | AgentWorkflow
Resolver = Callable[[dict[str, Any]], str]
SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no", "Connection": "keep-alive"}


@dataclass
class ServerConfig:
    """Server options (see ``create_app``)."""

    path: str = "/"
    run_timeout: float = 3600.0
    cancel_on_disconnect: bool = False
    heartbeat_s: float | None = None
    reasoning: bool = False
    activity: bool = False
    idle_close_s: float = 600.0
    max_body_bytes: int = 10 * 1024 * 1024
    resolve_user: Resolver = lambda props: str(props.get("userId", "anonymous"))
    resolve_app: Resolver = lambda props: str(props.get("appName", "codeact"))
    #: Initial shared state of a new thread, from ``forwardedProps`` (None: none).
    resolve_initial_state: Callable[[dict[str, Any]], dict[str, Any] | None] = lambda props: None
    #: Extra ``run()`` options (e.g. ``{"max_iterations": 5}``) from ``forwardedProps``.
    resolve_run_options: Callable[[dict[str, Any]], dict[str, Any]] = lambda props: {}
    #: May rewrite the request before the run, or raise ``BadRequest`` to refuse it.
    input_hook: Callable[[RunAgentInput], RunAgentInput] | None = None
    before: list[BeforeHook] = field(default_factory=list)
    after: list[AfterHook] = field(default_factory=list)


@dataclass
class _LiveRun:
    handler: RunHandler
    translator: Translator
    events: list[bytes] = field(default_factory=list)
    subscribers: list[MemoryObjectSendStream[bytes | None]] = field(default_factory=list)
    done: anyio.Event = field(default_factory=anyio.Event)


@dataclass
class _Session:
    ctx: Context
    live: _LiveRun | None = None
    last_used: float = field(default_factory=time.monotonic)


class AGUIServer:
    """Holds the sessions, live runs and the store behind the routes."""

    def __init__(
        self, agent: Runnable | Callable[[], Runnable], store: SessionStore, config: ServerConfig
    ) -> None:
        self.agent = agent if isinstance(agent, (BaseAgent, AgentWorkflow)) else agent()
        self.store = store
        self.config = config
        self.sessions: dict[SessionKey, _Session] = {}
        self.tg: TaskGroup | None = None

    def key(self, props: Any, thread_id: str) -> SessionKey:
        props = props if isinstance(props, dict) else {}
        return (self.config.resolve_app(props), self.config.resolve_user(props), thread_id)

    async def session(self, key: SessionKey, props: Any = None) -> _Session:
        s = self.sessions.get(key)
        if s is None:
            history = await self.store.load_messages(key)
            state = self.config.resolve_initial_state(props if isinstance(props, dict) else {})
            ctx = Context(memory=ChatMemory(history), state=state)
            ctx._initialised = state is not None  # resolved state wins over the agent's own
            s = self.sessions[key] = _Session(ctx=ctx)
        s.last_used = time.monotonic()
        return s

    # -- routes --------------------------------------------------------------------------------
    async def run_route(self, request: Request) -> Response:
        try:
            body = await _body(request, self.config.max_body_bytes)
            run_input = parse_run_input(body)
            if not run_input.messages:
                raise BadRequest(400, "messages is empty: send at least the user's message")
            tail = run_input.messages[-1]
            if tail.role not in ("user", "tool"):
                raise BadRequest(
                    400, f"the last message must be the user's or tool results (got {tail.role!r})"
                )
            if self.config.input_hook is not None:
                run_input = self.config.input_hook(run_input)
                tail = run_input.messages[-1]
            user_msg = to_chat_message(tail) if tail.role == "user" else None
        except BadRequest as exc:
            return JSONResponse({"error": exc.message}, status_code=exc.status)
        key = self.key(run_input.forwarded_props, run_input.thread_id)
        session = await self.session(key, run_input.forwarded_props)
        if session.live is not None:
            return JSONResponse(
                {
                    "error": f"thread {run_input.thread_id!r} already has a run in progress; "
                    "wait for it or POST /cancel"
                },
                status_code=409,
            )
        if user_msg is None:
            try:
                _append_tool_results(session.ctx, run_input)
            except BadRequest as exc:
                return JSONResponse({"error": exc.message}, status_code=exc.status)
        live = self._start(key, session, run_input, user_msg)
        return StreamingResponse(
            self._sse(live, request), media_type="text/event-stream", headers=SSE_HEADERS
        )

    def _start(
        self, key: SessionKey, session: _Session, run_input: RunAgentInput, user_msg: Any
    ) -> _LiveRun:
        props = run_input.forwarded_props if isinstance(run_input.forwarded_props, dict) else {}
        timeout = self.config.run_timeout or math.inf
        requested = props.get("timeout")
        if isinstance(requested, (int, float)) and requested > 0:
            timeout = min(timeout, float(requested))
        client_tools = [
            ClientTool(
                t.name, t.description, t.parameters if isinstance(t.parameters, dict) else None
            )
            for t in run_input.tools or []
        ]
        options = dict(self.config.resolve_run_options(props))
        handler = self.agent.run(
            user_msg,
            ctx=session.ctx,
            client_tools=client_tools,
            timeout=None if math.isinf(timeout) else timeout,
            **{
                k: v for k, v in options.items() if k in ("max_iterations", "early_stopping_method")
            },
        )
        translator = Translator(
            run_input.thread_id,
            run_input.run_id,
            reasoning=self.config.reasoning,
            activity=self.config.activity,
            protocol_1_0=_is_1_0(
                getattr(run_input, "protocol_version", None) or props.get("protocolVersion")
            ),
            before=self.config.before,
            after=self.config.after,
        )
        live = _LiveRun(handler=handler, translator=translator)
        session.live = live
        assert self.tg is not None
        self.tg.start_soon(self._drive, key, session, live)
        return live

    async def _drive(self, key: SessionKey, session: _Session, live: _LiveRun) -> None:
        """Runs the agent to the end whatever happens to the client; records everything."""
        recorded: list[dict[str, Any]] = []

        def publish(events: list[BaseEvent]) -> None:
            for event in events:
                frame = encode_sse(event)
                live.events.append(frame)
                recorded.append(event.model_dump(by_alias=True, exclude_none=True, mode="json"))
                for sub in list(live.subscribers):
                    with contextlib.suppress(
                        anyio.WouldBlock, anyio.BrokenResourceError, anyio.ClosedResourceError
                    ):
                        sub.send_nowait(frame)

        publish(live.translator.start())
        try:
            async for event in live.handler.stream_events():
                publish(live.translator.translate(event))
        except Exception as exc:  # a failure outside the run's own error handling
            publish(live.translator.error(f"{type(exc).__name__}: {exc}"))
        finally:
            if not live.translator.finished:
                publish(live.translator.error("the run ended unexpectedly"))
            with anyio.CancelScope(shield=True):
                await self.store.save_messages(key, session.ctx.memory.get_all())
                await self.store.append_events(key, live.translator.run_id, recorded)
            session.live = None
            session.last_used = time.monotonic()
            for sub in live.subscribers:
                with contextlib.suppress(Exception):
                    sub.send_nowait(None)
            live.done.set()

    async def _sse(self, live: _LiveRun, request: Request) -> AsyncIterator[bytes]:
        send, recv = anyio.create_memory_object_stream[bytes | None](math.inf)
        backlog = list(live.events)
        live.subscribers.append(send)
        finished = False
        try:
            for past in backlog:
                yield past
            if live.done.is_set():
                finished = True
                return
            last_sent = time.monotonic()
            while True:
                with anyio.move_on_after(0.5):
                    frame = await recv.receive()
                    if frame is None:
                        finished = True
                        return
                    yield frame
                    last_sent = time.monotonic()
                    continue
                if await request.is_disconnected():
                    return  # the client went away while the run was silent
                beat = self.config.heartbeat_s
                if beat and time.monotonic() - last_sent >= beat:
                    yield b": ping\n\n"
                    last_sent = time.monotonic()
        finally:
            with contextlib.suppress(ValueError):
                live.subscribers.remove(send)
            if not finished and self.config.cancel_on_disconnect:
                with anyio.CancelScope(shield=True):
                    await live.handler.cancel()

    async def _thread_request(self, request: Request) -> tuple[dict[str, Any], str]:
        """The JSON body of a cancel/history request and its ``threadId``."""
        data = _json_object(await _body(request, self.config.max_body_bytes))
        thread_id = data.get("threadId")
        if not isinstance(thread_id, str):
            raise BadRequest(400, "threadId (a string) is required")
        return data, thread_id

    async def cancel_route(self, request: Request) -> Response:
        try:
            data, thread_id = await self._thread_request(request)
        except BadRequest as exc:
            return JSONResponse({"error": exc.message}, status_code=exc.status)
        session = self.sessions.get(self.key(data.get("forwardedProps"), thread_id))
        if session is None or session.live is None:
            return JSONResponse(
                {"error": f"no run in progress for thread {thread_id!r}"}, status_code=404
            )
        live = session.live
        await live.handler.cancel()
        with anyio.move_on_after(10):
            await live.done.wait()
        return JSONResponse({"status": "cancelled", "threadId": thread_id})

    async def history_route(self, request: Request) -> Response:
        try:
            data, thread_id = await self._thread_request(request)
        except BadRequest as exc:
            return JSONResponse({"error": exc.message}, status_code=exc.status)
        run_id = (
            data.get("runId")
            if isinstance(data.get("runId"), str)
            else f"history-{uuid.uuid4().hex[:8]}"
        )
        key = self.key(data.get("forwardedProps"), thread_id)
        session = self.sessions.get(key)
        messages = session.ctx.memory.get_all() if session else await self.store.load_messages(key)
        snapshot = MessagesSnapshotEvent.model_validate({"messages": to_agui_messages(messages)})
        frames = [
            encode_sse(RunStartedEvent(thread_id=thread_id, run_id=run_id)),
            encode_sse(snapshot),
            encode_sse(RunFinishedEvent(thread_id=thread_id, run_id=run_id)),
        ]

        async def gen() -> AsyncIterator[bytes]:
            for f in frames:
                yield f

        return StreamingResponse(gen(), media_type="text/event-stream", headers=SSE_HEADERS)

    async def close_idle(self) -> None:
        """Close the executor sessions of threads idle for ``idle_close_s``."""
        while True:
            await anyio.sleep(min(self.config.idle_close_s, 30))
            now = time.monotonic()
            for key, s in list(self.sessions.items()):
                if s.live is None and now - s.last_used > self.config.idle_close_s:
                    del self.sessions[key]
                    await s.ctx.aclose()


def _append_tool_results(ctx: Context, run_input: RunAgentInput) -> None:
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


def _is_1_0(version: Any) -> bool:
    try:
        return int(str(version).split(".")[0]) >= 1
    except ValueError:
        return False


async def _body(request: Request, limit: int) -> bytes:
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > limit:
        raise BadRequest(413, f"the body is larger than {limit} bytes")
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise BadRequest(413, f"the body is larger than {limit} bytes")
    return body


def _json_object(body: bytes) -> dict[str, Any]:
    import json

    try:
        data = json.loads(body or b"{}")
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise BadRequest(400, f"the body is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise BadRequest(400, "the body must be a JSON object")
    return data


def create_app(
    agent: Runnable | Callable[[], Runnable],
    *,
    store: SessionStore | None = None,
    cors_origins: Sequence[str] = (),
    **options: Any,
) -> Starlette:
    """An ASGI app serving ``agent`` over AG-UI: ``POST {path}`` runs (SSE), ``POST /cancel``,
    ``POST /history``. Options are ``ServerConfig`` fields. The default store is a SQLite file
    ``codeact-sessions.db`` in the working directory."""
    config = ServerConfig(**options)
    server = AGUIServer(agent, store or SQLiteStore("codeact-sessions.db"), config)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with anyio.create_task_group() as tg:
            server.tg = tg
            tg.start_soon(server.close_idle)
            try:
                yield
            finally:
                tg.cancel_scope.cancel()
                for s in list(server.sessions.values()):
                    with anyio.CancelScope(shield=True):
                        if s.live is not None:
                            await s.live.handler.cancel()
                        await s.ctx.aclose()
                await server.store.aclose()

    base = config.path.rstrip("/")
    routes = [
        Route(config.path, server.run_route, methods=["POST"]),
        Route(f"{base}/cancel", server.cancel_route, methods=["POST"]),
        Route(f"{base}/history", server.history_route, methods=["POST"]),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    if cors_origins:
        from starlette.middleware.cors import CORSMiddleware

        app.add_middleware(
            CORSMiddleware,
            allow_origins=list(cors_origins),
            allow_methods=["POST"],
            allow_headers=["*"],
        )
    app.state.server = server
    return app
