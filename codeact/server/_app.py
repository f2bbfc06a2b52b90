"""The ASGI app: run, connect, cancel, history and health routes streaming AG-UI over SSE."""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator, Callable
from typing import Any, cast

import anyio
import anyio.to_thread
from ag_ui.core import RunAgentInput
from anyio.abc import TaskGroup
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from codeact._messages import ChatMessage
from codeact.agents import Runnable as Runnable
from codeact.errors import RunCancelledError
from codeact.server import _cells, _http, _lifecycle, _replicas, _turns
from codeact.server._auth import Principal, call_authenticate
from codeact.server._config import ServerConfig
from codeact.server._input import BadRequest, to_chat_message, validate_run_input
from codeact.server._runs import LiveRun, drive, follow
from codeact.server._sessions import Session, Sessions
from codeact.server._timed import TimedStore
from codeact.server.store import (
    RunStatus,
    SessionKey,
    SessionStore,
    StoreUnavailable,
    ThreadBusy,
    state_from_text,
    state_text,
)

SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no", "Connection": "keep-alive"}
log = logging.getLogger("codeact.server")


class AGUIServer:
    """Holds the sessions, live runs and the store behind the routes."""

    def __init__(
        self, agent: Runnable | Callable[[], Runnable], store: SessionStore, config: ServerConfig
    ) -> None:
        served = isinstance(agent, Runnable) and not isinstance(agent, type)
        self.agent = cast(Runnable, agent) if served else cast(Callable[[], Runnable], agent)()
        #: Every store call of the server answers within ``store_timeout`` (``TimedStore``).
        self.store = TimedStore(store, config.store_timeout)
        self.config = config
        self.pool = Sessions(self.store, config, self._busy)
        self.pool.runs_code = _lifecycle.runs_code(self.agent)
        #: A workflow of several agents: assistant messages are stored with their agent's name.
        self.names_agents = _lifecycle.is_workflow(self.agent)
        self.sessions = self.pool.items
        #: Live runs by thread claim (registered before any await: one live run per thread).
        self.live: dict[tuple[str, ...], LiveRun] = {}
        #: Runs not yet recorded as ended in the store (the drain waits for them too).
        self.unrecorded: set[LiveRun] = set()
        self.owners: dict[tuple[str, str], str] = {}
        self.draining = False
        self.tg: TaskGroup | None = None
        #: Replicas share the store: cancels, replays and the one-live-run rule go through it.
        self.coordinator = store.coordinator()
        self.replicas = _replicas.ReplicaState(self)

    # -- identity and keys ---------------------------------------------------------------------
    async def principal(self, request: Request) -> Principal | None:
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
        return (self.config.resolve_app(props), user, thread_id)

    def claim_key(self, key: SessionKey) -> tuple[str, ...]:
        """With authentication a thread id is one thread per app (it has one owner)."""
        return (key[0], key[2]) if self.config.authenticate is not None else key

    async def owner_of(self, key: SessionKey) -> str | None:
        if self.config.authenticate is None:
            return key[1]
        owner = self.owners.get((key[0], key[2]))
        if owner is None:
            owner = await self.store.thread_owner(key[0], key[2])
            if owner is not None:
                self.owners[(key[0], key[2])] = owner
        return owner

    def _busy(self) -> set[SessionKey]:
        """Threads whose session is in use: a live run, or one whose end is not yet stored."""
        return {live.key for live in self.live.values()} | {live.key for live in self.unrecorded}

    async def _json(self, request: Request, then: Callable[[Any], Any] | None = None) -> Any:
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
        who = await self.principal(request)
        limit = self.config.max_messages
        run_input: RunAgentInput = await self._json(
            request, lambda data: validate_run_input(data, limit)
        )
        run_input = _turns.check_run_input(run_input, self.config)
        key = self.key(run_input.forwarded_props, run_input.thread_id, who)
        again = await self._reattach(request, key, run_input.run_id, who)
        if again is not None:
            return again
        if self.draining:
            raise BadRequest(503, "the server is shutting down; retry on another instance")
        live = self._claim(key, run_input, who)
        try:
            await self._begin(live, run_input)
        except BaseException:
            self._release(live)
            raise
        return self._stream(live, 0, request)

    def _claim(self, key: SessionKey, run_input: RunAgentInput, who: Principal | None) -> LiveRun:
        """Synchronous check-and-register: the one-live-run rule cannot race."""
        ck = self.claim_key(key)
        thread = run_input.thread_id
        known = self.owners.get((key[0], thread)) if who is not None else None
        current = self.live.get(ck)
        if who is not None and (known or (current and current.owner)) not in (None, who.id):
            raise BadRequest(403, f"thread {thread!r} belongs to another user")
        if current is not None:
            raise _thread_busy(thread)
        live = LiveRun(key, thread, run_input.run_id, who.id if who else None)
        live.max_frames = self.config.live_frames
        self.live[ck] = live
        return live

    def _release(self, live: LiveRun) -> None:
        ck = self.claim_key(live.key)
        if self.live.get(ck) is live:
            del self.live[ck]

    async def _begin(self, live: LiveRun, run_input: RunAgentInput) -> None:
        key = live.key
        if live.owner is not None:
            owner = await self.owner_of(key)
            if owner not in (None, live.owner):
                raise BadRequest(403, f"thread {live.thread_id!r} belongs to another user")
            self.owners[(key[0], key[2])] = live.owner
        try:  # (bounded by the store timeout: TimedStore)
            taken = await self.store.run_status(key, live.run_id)
        except Exception as exc:
            log.exception("the store could not be asked about run %r", live.run_id)
            raise BadRequest(
                503, "the session store is unavailable; the run was not started"
            ) from exc
        if taken is not None:
            raise BadRequest(
                409,
                f"thread {live.thread_id!r} already has a run {live.run_id!r}: use a new runId "
                "(or Last-Event-ID / POST /connect to re-attach to it)",
                "run_id_taken",
            )
        if any(k == key for k, _ in self.replicas.unstored):  # (a shared store: its claim)
            raise BadRequest(
                503, "the end of the thread's previous run is not stored yet; retry shortly"
            )
        await self.replicas.forget_stale(key)
        session = await self.pool.get(key, run_input.forwarded_props)
        tail = run_input.messages[-1]
        user_msg = to_chat_message(tail) if tail.role == "user" else None
        if user_msg is None:
            _turns.append_tool_results(session.ctx, run_input)
        _turns.apply_request_state(session.ctx, run_input)
        extra = _turns.instructions(run_input)
        launch, live.translator = _turns.prepare(
            self.agent, session.ctx, run_input, user_msg, extra, self.config
        )
        start = session.ctx.memory.get_all() + ([user_msg] if user_msg else [])
        try:
            async with session.writes:  # the previous run's end is written first
                await self.store.start_run(key, live.run_id, start, claim=self.claim_key(key))
        except ThreadBusy:  # (on another replica)
            raise _thread_busy(live.thread_id) from None
        except Exception as exc:
            log.exception("the store refused the start of run %r", live.run_id)
            raise BadRequest(
                503, "the session store is unavailable; the run was not started"
            ) from exc
        try:
            live.handler = launch()
            live.publish(live.translator.start())  # RUN_STARTED is ready when the response starts
        except Exception:
            log.exception("run %r could not be started", live.run_id)
            with anyio.CancelScope(shield=True):
                await self._abort(live, session)
            raise BadRequest(500, "the run could not be started (logged by the server)") from None
        assert self.tg is not None
        self.replicas.last_runs[key] = live.run_id
        live.on_finished = lambda: self._release(live)  # the thread is free at the terminal event
        self.unrecorded.add(live)
        self.tg.start_soon(self._run, live, session)

    async def _abort(self, live: LiveRun, session: Session) -> None:
        """A run recorded as started that could not start: its end is stored as an error."""
        live.frames.clear()
        live.pending.clear()
        live.publish_error("the run could not be started")
        try:
            with anyio.fail_after(self.config.store_timeout):
                await self._flush(live, live.pending, 0)
                async with session.writes:
                    await self.store.finish_run(
                        live.key, live.run_id, "error", session.ctx.memory.get_all()
                    )
        except Exception:
            log.exception("storing the failed start of run %r failed", live.run_id)

    async def _run(self, live: LiveRun, session: Session) -> None:
        try:
            await drive(live, self._flush)
        finally:
            with anyio.CancelScope(shield=True):
                await self._finish(live, session)

    async def _flush(self, live: LiveRun, batch: list[str], start: int) -> None:
        try:  # (bounded by the store timeout: TimedStore)
            if live.retry:  # an earlier write may have landed after it was given up on
                await self.store.append_event_json_at(live.key, live.run_id, start, batch)
            else:
                await self.store.append_event_json(live.key, live.run_id, batch)
        except StoreUnavailable as exc:
            self.replicas.store_lost(live, exc)
            raise

    async def _finish(self, live: LiveRun, session: Session) -> None:
        handler = live.handler
        status: RunStatus = "error"
        if handler is not None and handler.result is not None:
            status = "finished"
        elif handler is not None and isinstance(handler.error, RunCancelledError):
            status = "cancelled"
        if live in self.replicas.lost:
            status = "error"
        self._release(live)
        messages = session.ctx.memory.get_all()
        if live.translator is not None:
            names = live.translator.names
            if status != "finished":  # (cancelled, stopped: what the client saw is kept)
                for partial in _turns.partial_answers(messages, live.translator.texts, names):
                    session.ctx.memory.put(partial)
                messages = session.ctx.memory.get_all()
            if self.names_agents:
                _turns.name_messages(messages, names)
        state_json = state_text(session.ctx.state)  # (what the run left, as stored)
        changed = state_json != (session.stored_state or "{}")
        state = state_from_text(state_json) if changed else None  # (a copy)
        try:
            if live.pending:  # the events the client got and the store did not take yet
                raise StoreUnavailable(f"{len(live.pending)} events of the run are not stored")
            async with session.writes:  # (the state with the end, fenced alike)
                await self.store.end_run(live.key, live.run_id, status, messages, state)
                session.stored_state = state_json
        except Exception:
            log.exception("storing the end of run %r failed", live.run_id)
            self.replicas.unstored_end(live, status, messages, state)
        self.replicas.lost.discard(live)
        session.last_used = time.monotonic()
        self.unrecorded.discard(live)
        live.done.set()
        live.notify()

    def _stream(self, live: LiveRun, start: int, request: Request) -> StreamingResponse:
        if start > live.count:
            raise BadRequest(
                400,
                f"the last event id {start - 1} is past the end of run {live.run_id!r}",
                "bad_last_event_id",
            )
        if start == live.count and live.finished:
            start -= 1  # the client has every event: it gets the terminal one again

        async def leave(complete: bool) -> None:
            if not complete and self.config.cancel_on_disconnect and live.handler is not None:
                await live.handler.cancel()

        def backfill(begin: int, end: int) -> AsyncIterator[bytes]:
            return _turns.stored_frames(self.store, live.key, live.run_id, begin, end)

        frames = follow(
            live,
            start,
            request,
            heartbeat_s=self.config.heartbeat_s,
            on_leave=leave,
            backfill=backfill,
        )
        return StreamingResponse(frames, media_type="text/event-stream", headers=SSE_HEADERS)

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
        live = self.live.get(self.claim_key(key))
        mine = live is not None and (who is None or live.owner == who.id)
        if live is not None and mine and run_id in (None, live.run_id):
            return self._stream(live, start, request)
        if run_id is None or await self.owner_of(key) not in (None, key[1]):
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
        data, thread_id = _turns.thread_request(await self._json(request))
        key = self.key(data.get("forwardedProps"), thread_id, who)
        run_id = data.get("runId") if isinstance(data.get("runId"), str) else None
        last = data.get("lastEventId", request.headers.get("last-event-id", -1))
        start = _turns.event_number(last, "lastEventId") + 1
        live = self.live.get(self.claim_key(key))
        if live is not None and (who is None or live.owner == who.id):
            return self._stream(live, start, request)
        run_id = run_id or await self.replicas.live_elsewhere(key)
        if run_id is not None:
            replay = await self._replay(request, key, run_id, start, who)
            if replay is not None:
                return replay
        return await self._history(key, thread_id, data, who)

    async def cancel_route(self, request: Request) -> Response:
        who = await self.principal(request)
        data, thread_id = _turns.thread_request(await self._json(request))
        key = self.key(data.get("forwardedProps"), thread_id, who)
        live = self.live.get(self.claim_key(key))
        if live is None and await self.replicas.cancel_elsewhere(key, who):
            return JSONResponse({"status": "cancelled", "threadId": thread_id})
        if live is None or live.handler is None or (who is not None and live.owner != who.id):
            raise BadRequest(404, f"no run in progress for thread {thread_id!r}")
        await live.handler.cancel()
        with anyio.move_on_after(10):
            await live.done.wait()
        return JSONResponse({"status": "cancelled", "threadId": thread_id})

    async def history_route(self, request: Request) -> Response:
        who = await self.principal(request)
        data, thread_id = _turns.thread_request(await self._json(request))
        return await self._history(
            self.key(data.get("forwardedProps"), thread_id, who), thread_id, data, who
        )

    async def thread_messages(
        self, key: SessionKey, thread_id: str, who: Principal | None
    ) -> list[ChatMessage]:
        """The thread's messages for its owner (404 for another principal's thread)."""
        if who is not None and await self.owner_of(key) not in (None, who.id):
            raise BadRequest(404, f"no thread {thread_id!r}")
        session = self.sessions.get(key)
        # (with replicas, another one may have run a later turn: the store knows)
        current = session if not self.store.shared or key in self._busy() else None
        return current.ctx.memory.get_all() if current else await self.store.load_messages(key)

    async def _history(
        self, key: SessionKey, thread_id: str, data: dict[str, Any], who: Principal | None
    ) -> Response:
        messages = await self.thread_messages(key, thread_id, who)
        session = self.sessions.get(key)
        current = session if not self.store.shared or key in self._busy() else None
        state = current.ctx.state if current else await self.store.load_state(key)
        runs = await self.store.list_runs(key)
        frames = _turns.history_frames(thread_id, data.get("runId"), messages, state, runs)
        frames = _cells.with_cells(frames, await _cells.stored_cells(self.store, key, runs))
        return StreamingResponse(
            _turns.iterate(frames), media_type="text/event-stream", headers=SSE_HEADERS
        )

    async def healthz(self, request: Request) -> Response:
        """``GET /healthz``: 200, or 503 within ``HEALTH_S`` when the store does not answer."""
        return await _lifecycle.healthz(self)

    # -- lifecycle -----------------------------------------------------------------------------
    async def recover(self) -> None:
        """Runs left ``running`` by a process that died are marked interrupted."""
        await _lifecycle.recover(self)

    async def drain(self, timeout: float) -> None:
        """Stop accepting runs, let live ones finish for ``timeout`` s, cancel the rest."""
        await _lifecycle.drain(self, timeout)

    async def close_idle(self) -> None:
        """Close the executor sessions of threads idle for ``idle_close_s``."""
        await self.pool.close_idle(lambda key: self.owners.pop((key[0], key[2]), None))


def _thread_busy(thread: str) -> BadRequest:
    return BadRequest(
        409, f"thread {thread!r} already has a run in progress; wait for it or POST /cancel"
    )
