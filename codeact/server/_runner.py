"""``RunStarter``: a claimed run from its request to its recorded end.

A start is a sequence of small steps, each its own method: the thread's owner may write
(``_check_owner``), the run id is new (``_check_new``), no replica holds the thread
(``_check_replicas``), the turn is prepared from the request (``_prepare``), its start is
stored (``_record_start``), and it is launched (``_launch``). The run's driver then streams
its events into the store (``_run``, ``_flush``) and records its end (``_finish``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

import anyio
from ag_ui.core import RunAgentInput

from codeact._messages import ChatMessage
from codeact.agents import RunHandler, Runnable
from codeact.errors import RunCancelledError
from codeact.server import _lifecycle, _turns
from codeact.server._config import ServerConfig
from codeact.server._input import BadRequest, to_chat_message
from codeact.server._live import LiveRuns, thread_busy
from codeact.server._ownership import ThreadOwnership
from codeact.server._replicas import ReplicaState
from codeact.server._runs import LiveRun, drive
from codeact.server._sessions import ThreadSession, ThreadSessions
from codeact.server._tasks import Tasks
from codeact.server._timed import TimedStore
from codeact.server.store import (
    RunStatus,
    StoreUnavailable,
    ThreadBusy,
    state_from_text,
    state_text,
)

log = logging.getLogger("codeact.server")
_STORE_DOWN = "the session store is unavailable; the run was not started"


class RunStarter:
    """Starts claimed runs of ``agent`` and records their ends, in the server's ``tasks``."""

    def __init__(
        self,
        agent: Runnable,
        config: ServerConfig,
        store: TimedStore,
        parts: tuple[ThreadOwnership, ThreadSessions, LiveRuns, ReplicaState],
        tasks: Tasks,
    ) -> None:
        self.agent = agent
        self.config = config
        self.store = store
        self.ownership, self.sessions, self.runs, self.replicas = parts
        self.tasks = tasks
        #: A workflow of several agents: assistant messages are stored with their agent's name.
        self.names_agents = _lifecycle.is_workflow(agent)

    async def start(self, live: LiveRun, run_input: RunAgentInput) -> None:
        """Start the claimed run ``live`` (its claim is released if it does not start)."""
        try:
            await self._check_owner(live)
            await self._check_new(live)
            await self._check_replicas(live)
            session = await self.sessions.load(live.key, run_input.forwarded_props)
            launch, start = self._prepare(live, session, run_input)
            await self._record_start(live, session, start)
            await self._launch(live, session, launch)
        except BaseException:
            self.runs.abandoned(live)
            raise

    async def _check_owner(self, live: LiveRun) -> None:
        """403 for another principal's thread; else the thread is the caller's from now on."""
        if live.owner is None:
            return
        if not await self.ownership.allows(live.key, live.owner):
            raise BadRequest(403, f"thread {live.thread_id!r} belongs to another user")
        self.ownership.record(live.key, live.owner)

    async def _check_new(self, live: LiveRun) -> None:
        """409 when the thread already has a run with this id (503: the store did not say)."""
        try:  # (bounded by the store timeout: TimedStore)
            taken = await self.store.run_status(live.key, live.run_id)
        except Exception as exc:
            log.exception("the store could not be asked about run %r", live.run_id)
            raise BadRequest(503, _STORE_DOWN) from exc
        if taken is not None:
            raise BadRequest(
                409,
                f"thread {live.thread_id!r} already has a run {live.run_id!r}: use a new runId "
                "(or Last-Event-ID / POST /connect to re-attach to it)",
                "run_id_taken",
            )

    async def _check_replicas(self, live: LiveRun) -> None:
        """503 while the thread's previous end is unstored; a session made stale elsewhere
        is dropped."""
        key = live.key
        if any(k == key for k, _ in self.replicas.unstored):  # (a shared store: its claim)
            raise BadRequest(
                503, "the end of the thread's previous run is not stored yet; retry shortly"
            )
        await self.replicas.forget_stale(key)

    def _prepare(
        self, live: LiveRun, session: ThreadSession, run_input: RunAgentInput
    ) -> tuple[Callable[[], RunHandler], list[ChatMessage]]:
        """Apply the request to the thread's context: the launcher, and the messages to store."""
        tail = run_input.messages[-1]
        user_msg = to_chat_message(tail) if tail.role == "user" else None
        if user_msg is None:
            _turns.append_tool_results(session.ctx, run_input)
        _turns.apply_request_state(session.ctx, run_input)
        extra = _turns.instructions(run_input)
        launch, live.translator = _turns.prepare(
            self.agent, session.ctx, run_input, user_msg, extra, self.config
        )
        return launch, session.ctx.memory.get_all() + ([user_msg] if user_msg else [])

    async def _record_start(
        self, live: LiveRun, session: ThreadSession, start: list[ChatMessage]
    ) -> None:
        """Store the run's start (409: a replica has a live run on the thread)."""
        claim = self.ownership.claim(live.key)
        try:
            async with session.writes:  # the previous run's end is written first (TimedStore)
                await self.store.start_run(live.key, live.run_id, start, claim=claim)
        except ThreadBusy:  # (on another replica)
            raise thread_busy(live.thread_id) from None
        except Exception as exc:
            log.exception("the store refused the start of run %r", live.run_id)
            raise BadRequest(503, _STORE_DOWN) from exc

    async def _launch(
        self, live: LiveRun, session: ThreadSession, launch: Callable[[], RunHandler]
    ) -> None:
        """Start the agent and the run's driver (500, its end stored, if it cannot start)."""
        assert live.translator is not None  # (made by _prepare)
        try:
            live.handler = launch()
            live.publish(live.translator.start())  # RUN_STARTED is ready when the response starts
        except Exception:
            log.exception("run %r could not be started", live.run_id)
            with anyio.CancelScope(shield=True):
                await self._abort(live, session)
            raise BadRequest(500, "the run could not be started (logged by the server)") from None
        self.replicas.last_runs[live.key] = live.run_id
        self.runs.launched(live)  # the thread is free at the terminal event
        self.tasks.start_soon(self._run, live, session)

    async def _abort(self, live: LiveRun, session: ThreadSession) -> None:
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

    async def _run(self, live: LiveRun, session: ThreadSession) -> None:
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

    async def _finish(self, live: LiveRun, session: ThreadSession) -> None:
        handler = live.handler
        status: RunStatus = "error"
        if handler is not None and handler.result is not None:
            status = "finished"
        elif handler is not None and isinstance(handler.error, RunCancelledError):
            status = "cancelled"
        if live in self.replicas.lost:
            status = "error"
        self.runs.release(live)
        messages = self._final_messages(live, session, status)
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
        self.runs.recorded(live)

    def _final_messages(
        self, live: LiveRun, session: ThreadSession, status: RunStatus
    ) -> list[ChatMessage]:
        """The thread's messages at the run's end (with the partial answers of a run that did
        not finish, and the agents' names in a workflow)."""
        messages = session.ctx.memory.get_all()
        if live.translator is not None:
            names = live.translator.names
            if status != "finished":  # (cancelled, stopped: what the client saw is kept)
                for partial in _turns.partial_answers(messages, live.translator.texts, names):
                    session.ctx.memory.put(partial)
                messages = session.ctx.memory.get_all()
            if self.names_agents:
                _turns.name_messages(messages, names)
        return messages
