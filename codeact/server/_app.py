"""The ASGI app: run, connect, cancel, history and health routes streaming AG-UI over SSE."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any, cast

import anyio
import anyio.to_thread
from ag_ui.core import RunAgentInput
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from codeact._messages import ChatMessage
from codeact.agents import Runnable as Runnable
from codeact.server import _cells, _http, _lifecycle, _turns
from codeact.server._auth import Principal, call_authenticate
from codeact.server._config import ServerConfig
from codeact.server._gcpolicy import serving_gc
from codeact.server._input import BadRequest, validate_run_input
from codeact.server._live import LiveRuns, ReaderResponse
from codeact.server._ownership import ThreadOwnership, principal_id
from codeact.server._replicas import ReplicaState
from codeact.server._runner import RunStarter
from codeact.server._runs import LiveRun, follow
from codeact.server._sessions import ThreadSession, ThreadSessions
from codeact.server._tasks import Tasks
from codeact.server._timed import TimedStore
from codeact.server.store import SessionKey, SessionStore

SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no", "Connection": "keep-alive"}
log = logging.getLogger("codeact.server")


class AGUIServer:
    """The routes over a few parts, each given what it needs when it is made: ``ownership``
    (who may use a thread), ``sessions`` (the threads' contexts here), ``runs`` (the live runs,
    their readers, the drain), ``replicas`` (what replicas sharing the store agree on),
    ``starter`` (a run from its request to its recorded end) and ``tasks`` (the task group
    they start tasks in, open while ``running()``)."""

    def __init__(
        self, agent: Runnable | Callable[[], Runnable], store: SessionStore, config: ServerConfig
    ) -> None:
        served = isinstance(agent, Runnable) and not isinstance(agent, type)
        self.agent = cast(Runnable, agent) if served else cast(Callable[[], Runnable], agent)()
        self.config = config
        self.tasks = Tasks()
        #: Every store call of the server answers within ``store_timeout`` (``TimedStore``).
        self.store = TimedStore(store, config.store_timeout, self.tasks)
        self.ownership = ThreadOwnership(self.store, config.authenticate is not None)
        self.runs = LiveRuns(self.ownership, config.live_frames)
        self.sessions = ThreadSessions(
            self.store, config, self.runs.busy, _lifecycle.runs_code(self.agent)
        )
        self.replicas = ReplicaState(self.store, self.sessions, self.runs, self.tasks)
        parts = (self.ownership, self.sessions, self.runs, self.replicas)
        self.starter = RunStarter(self.agent, config, self.store, parts, self.tasks)

    # -- identity and keys ---------------------------------------------------------------------
    async def principal(self, request: Request) -> Principal | None:
        """The request's principal (None without authentication; 401 when it has none)."""
        hook = self.config.authenticate
        if hook is None:
            return None
        who = await call_authenticate(hook, request)
        if who is None:
            raise BadRequest(401, "authentication required")
        return who

    def key(self, props: Any, thread_id: str, who: Principal | None) -> SessionKey:
        """The session key of a request's thread (400 for a thread id not in NFC form)."""
        _turns.check_thread_id(thread_id)
        props = props if isinstance(props, dict) else {}
        user = who.id if who is not None else self.config.resolve_user(props)
        return SessionKey(self.config.resolve_app(props), user, thread_id)

    async def read_json(self, request: Request, then: Callable[[Any], Any] | None = None) -> Any:
        """The parsed body (then ``then(data)``), in a worker thread when the body is large."""
        cfg = self.config
        body = await _http.read_body(request, cfg.max_body_bytes, cfg.body_timeout)
        data = await _http.parse_json(body or b"{}", cfg.max_json_depth)
        if then is None:
            return data
        if len(body) <= _http.THREAD_PARSE_BYTES:
            return then(data)
        return await anyio.to_thread.run_sync(then, data)  # (validation: short GIL holds)

    # -- runs ----------------------------------------------------------------------------------
    async def run_route(self, request: Request) -> Response:
        """``POST {path}``: start a run and stream its events (or re-attach: Last-Event-ID)."""
        who = await self.principal(request)
        limit = self.config.max_messages
        run_input: RunAgentInput = await self.read_json(
            request, lambda data: validate_run_input(data, limit)
        )
        run_input = _turns.check_run_input(run_input, self.config)
        key = self.key(run_input.forwarded_props, run_input.thread_id, who)
        again = await self._reattach(request, key, run_input.run_id, who)
        if again is not None:
            return again
        live = self.runs.claim(key, run_input.thread_id, run_input.run_id, principal_id(who))
        await self.starter.start(live, run_input)
        return self._stream(live, 0, request)

    def _stream(self, live: LiveRun, start: int, request: Request) -> StreamingResponse:
        if start > live.count:
            raise BadRequest(
                400,
                f"the last event id {start - 1} is past the end of run {live.run_id!r}",
                "bad_last_event_id",
            )
        if start == live.count and live.finished:
            start -= 1  # the client has every event: it gets the terminal one again

        async def leave() -> None:  # (before the run's end: the client went away)
            if self.config.cancel_on_disconnect and live.handler is not None:
                await live.handler.cancel()

        def backfill(begin: int, end: int) -> AsyncIterator[bytes]:
            return _turns.stored_frames(self.store, live.key, live.run_id, begin, end)

        frames = follow(
            live,
            start,
            request,
            heartbeat_s=self.config.heartbeat_s,
            interval=self.config.stream_interval_s,
            on_leave=leave,
            backfill=backfill,
        )
        return ReaderResponse(self.runs, frames, headers=SSE_HEADERS)

    async def _reattach(
        self, request: Request, key: SessionKey, run_id: str | None, who: Principal | None
    ) -> Response | None:
        """``Last-Event-ID`` on a run request: the events after it (live, or from the store)."""
        last = request.headers.get("last-event-id")
        if last is None:
            return None
        after = _turns.event_number(last, "Last-Event-ID")
        return await self._replay(request, key, run_id, after + 1, who)

    async def _replay(
        self,
        request: Request,
        key: SessionKey,
        run_id: str | None,
        start: int,
        who: Principal | None,
    ) -> Response | None:
        live = self.runs.of(key)
        mine = live is not None and self.ownership.follows(live.owner, principal_id(who))
        if live is not None and mine and run_id in (None, live.run_id):
            return self._stream(live, start, request)
        if run_id is None or not await self.ownership.allows(key, principal_id(who)):
            return None
        remote = await self.replicas.follow(key, run_id, start)
        if remote is not None:
            return StreamingResponse(remote, media_type="text/event-stream", headers=SSE_HEADERS)
        frames = await _turns.open_replay(self.store, key, run_id, start)
        if frames is None:
            return None
        return StreamingResponse(frames, media_type="text/event-stream", headers=SSE_HEADERS)

    async def connect_route(self, request: Request) -> Response:
        """Re-attach to the thread's live run (from ``lastEventId``), else its history."""
        who = await self.principal(request)
        data, thread_id = _turns.thread_request(await self.read_json(request))
        key = self.key(data.get("forwardedProps"), thread_id, who)
        run_id = data.get("runId") if isinstance(data.get("runId"), str) else None
        last = data.get("lastEventId", request.headers.get("last-event-id", -1))
        start = _turns.event_number(last, "lastEventId") + 1
        live = self.runs.of(key)
        if live is not None and self.ownership.follows(live.owner, principal_id(who)):
            return self._stream(live, start, request)
        run_id = run_id or await self.replicas.live_elsewhere(key)
        if run_id is not None:
            replay = await self._replay(request, key, run_id, start, who)
            if replay is not None:
                return replay
        return await self._history(key, thread_id, data, who)

    async def cancel_route(self, request: Request) -> Response:
        """``POST /cancel``: cancel the thread's live run (here or on another replica)."""
        who = await self.principal(request)
        data, thread_id = _turns.thread_request(await self.read_json(request))
        key = self.key(data.get("forwardedProps"), thread_id, who)
        live = self.runs.of(key)
        if live is None and await self.replicas.cancel_elsewhere(key, principal_id(who)):
            return JSONResponse({"status": "cancelled", "threadId": thread_id})
        mine = live is not None and self.ownership.follows(live.owner, principal_id(who))
        if live is None or live.handler is None or not mine:
            raise BadRequest(404, f"no run in progress for thread {thread_id!r}")
        await live.handler.cancel()
        with anyio.move_on_after(10):
            await live.done.wait()
        return JSONResponse({"status": "cancelled", "threadId": thread_id})

    async def history_route(self, request: Request) -> Response:
        """``POST /history``: the thread's messages, state, runs and cells as events."""
        who = await self.principal(request)
        data, thread_id = _turns.thread_request(await self.read_json(request))
        return await self._history(
            self.key(data.get("forwardedProps"), thread_id, who), thread_id, data, who
        )

    async def thread_messages(
        self, key: SessionKey, thread_id: str, who: Principal | None
    ) -> list[ChatMessage]:
        """The thread's messages for its owner (404 for another principal's thread)."""
        if not await self.ownership.allows(key, principal_id(who)):
            raise BadRequest(404, f"no thread {thread_id!r}")
        current = self._current(key)
        return current.ctx.memory.get_all() if current else await self.store.load_messages(key)

    async def _history(
        self, key: SessionKey, thread_id: str, data: dict[str, Any], who: Principal | None
    ) -> Response:
        messages = await self.thread_messages(key, thread_id, who)
        current = self._current(key)
        state = current.ctx.state if current else await self.store.load_state(key)
        runs = await self.store.list_runs(key)
        frames = _turns.history_frames(thread_id, data.get("runId"), messages, state, runs)
        frames = _cells.with_cells(frames, await _cells.stored_cells(self.store, key, runs))
        return StreamingResponse(
            _turns.iterate(frames), media_type="text/event-stream", headers=SSE_HEADERS
        )

    def _current(self, key: SessionKey) -> ThreadSession | None:
        """The thread's session here, when it is current (with replicas, another one may have
        run a later turn: the store knows)."""
        session = self.sessions.get(key)
        return session if not self.store.shared or key in self.runs.busy() else None

    async def healthz(self, request: Request) -> Response:
        """``GET /healthz``: 200, or 503 within ``HEALTH_S`` when the store does not answer."""
        return await _lifecycle.healthz(self.store, len(self.runs), self.runs.draining)

    # -- lifecycle -----------------------------------------------------------------------------
    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """The app's lifespan: runs a dead process left are marked interrupted, the collector is
        set for serving (``serving_gc``), the task group opens with the idle-session closer
        and the replicas' loop; on leaving, live runs end
        (``RUN_ERROR`` "shutdown", recorded), then sessions and the store are closed."""
        await self.recover()
        try:
            with serving_gc(self.config.gc_threshold):
                async with self.tasks.running():
                    self.tasks.start_soon(self.close_idle)
                    self.tasks.start_soon(self.replicas.serve)  # (replicas sharing the store)
                    yield
        finally:
            with anyio.CancelScope(shield=True):
                await self.close()

    async def recover(self) -> None:
        """Runs left ``running`` by a process that died are marked interrupted."""
        await _lifecycle.recover(self.store)

    async def drain(self, timeout: float) -> None:
        """Stop accepting runs, let live ones finish for ``timeout`` s, cancel the rest."""
        await self.runs.drain(timeout)

    async def close_idle(self) -> None:
        """Close the executor sessions of threads idle for ``idle_close_s``."""
        await self.sessions.close_idle(self.ownership.forget)

    async def close(self) -> None:
        """Cancel what still runs, close every session, then the store."""
        for live in self.runs.values():
            if live.handler is not None:
                with contextlib.suppress(Exception):
                    await live.handler.cancel()
        for s in self.sessions.values():
            with contextlib.suppress(Exception):
                await s.ctx.aclose()
        await self.store.aclose()
