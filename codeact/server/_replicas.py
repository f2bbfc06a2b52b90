"""What one server process does when replicas share its store (``SessionStore.shared``):
sessions made stale by a turn that ran elsewhere, cancels and re-attaches that reach the replica
running the turn, runs stopped by a lost database, and run ends stored once it is back.
With a store of one process (SQLite, memory) only the last one applies."""

from __future__ import annotations

import logging
import weakref
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import anyio

from codeact._messages import ChatMessage
from codeact.server import _lifecycle
from codeact.server._coordination import close_record, follow_stored
from codeact.server._input import BadRequest
from codeact.server._live import LiveRuns
from codeact.server._runs import LiveRun
from codeact.server._sessions import ThreadSessions
from codeact.server._tasks import Tasks
from codeact.server._timed import TimedStore
from codeact.server.store import ReplicaHooks, RunStatus, SessionKey

log = logging.getLogger("codeact.server")
#: Seconds a cancel on one replica waits for the run on another to end.
CANCEL_WAIT_S = 10.0
#: Events of one run kept in memory while the store cannot take them (past it the run is
#: recorded ``incomplete``, with a ``store_unavailable`` terminal event).
MAX_UNSTORED = 50_000
#: How often a store of one process is asked again to take the run ends it did not take.
RETRY_S = 1.0


@dataclass
class Unstored:
    """A run's end the store did not take: status, messages and the events from ``first``."""

    status: RunStatus
    messages: list[ChatMessage]
    first: int
    events: list[str] = field(default_factory=list)
    #: The thread's state the run left, when it changed (stored with the end).
    state: dict[str, Any] | None = None


class ReplicaState(ReplicaHooks):
    """The server's side of replica coordination (its ``ReplicaHooks`` too): it sees the
    store, the threads' sessions and live runs, and starts tasks in the server's group."""

    def __init__(
        self, store: TimedStore, sessions: ThreadSessions, runs: LiveRuns, tasks: Tasks
    ) -> None:
        self.store = store
        self.sessions = sessions
        self.runs = runs
        self.tasks = tasks
        #: Replicas share the store: cancels, replays and the one-live-run rule go through it.
        self.coordinator = store.inner.coordinator()
        #: The last run this replica started on a thread (its session is current after it).
        self.last_runs: dict[SessionKey, str] = {}
        #: Live runs stopped because the store became unreachable (they end as ``error``).
        self.lost: set[LiveRun] = set()
        #: Run ends the store did not take, with the events it did not take either (from
        #: which event number): stored by ``retry`` once it is back, so that the record
        #: holds what the run's clients were sent.
        self.unstored: dict[tuple[SessionKey, str], Unstored] = {}
        #: Live runs a cancel from another replica was delivered to.
        self.cancelling: weakref.WeakSet[LiveRun] = weakref.WeakSet()

    async def serve(self) -> None:
        """Forever: the coordinator's lease loop and cancel listener (a shared store), else
        a loop storing the run ends the store did not take, once it takes them."""
        if self.coordinator is not None:
            await self.coordinator.serve(self)
            return
        while True:
            await anyio.sleep(RETRY_S)
            if self.unstored:
                try:
                    await self.retry()
                except Exception as exc:
                    log.warning("storing %d run ends failed again: %s", len(self.unstored), exc)

    async def forget_stale(self, key: SessionKey) -> None:
        """A later turn of the thread ran on another replica: this replica's session of it
        (memory, sandbox variables) is stale, and the turn starts afresh from the store."""
        coordinator = self.coordinator
        if coordinator is None or key not in self.sessions:
            return
        if any(live.key == key for live in self.runs.unrecorded):
            return  # (the previous turn's end is not stored yet: it ran here)
        try:
            with anyio.fail_after(self.store.timeout):
                latest = await coordinator.latest_run(key)
        except Exception as exc:
            log.exception("the store could not be asked about thread %r", key.thread)
            raise BadRequest(
                503, "the session store is unavailable; the run was not started"
            ) from exc
        if latest != self.last_runs.get(key):
            log.info("thread %r ran elsewhere since: a fresh session here", key.thread)
            await self.sessions.close(key)

    def store_lost(self, live: LiveRun, exc: Exception) -> None:
        """The store is unreachable: the run stops now, with a clear terminal error."""
        if live.finished or live in self.lost:
            return
        log.error("run %r stopped: the session store is unreachable (%s)", live.run_id, exc)
        self.lost.add(live)
        live.publish_error(
            "the session store became unreachable; the run was stopped", "store_unavailable"
        )
        if live.handler is not None and self.tasks.open:
            self.tasks.start_soon(live.handler.cancel)

    def unstored_end(
        self,
        live: LiveRun,
        status: RunStatus,
        messages: list[ChatMessage],
        state: dict[str, Any] | None = None,
    ) -> None:
        """Keep a run's end (its unstored events up to ``MAX_UNSTORED``, and the thread's
        state when it changed) for ``retry``."""
        events = live.pending
        if len(events) > MAX_UNSTORED:  # too many to hold: the record says it is incomplete
            log.error("run %r: %d unstored events dropped", live.run_id, len(events))
            events, status = [], "incomplete"
        end = Unstored(status, messages, live.flushed, events, state)
        self.unstored[(live.key, live.run_id)] = end

    async def follow(self, key: SessionKey, run_id: str, start: int) -> AsyncIterator[bytes] | None:
        """A run live on another replica, followed from the store (None: not such a run)."""
        if self.coordinator is None:
            return None
        if await self.store.run_status(key, run_id) != "running":
            return None
        return follow_stored(self.store, key, run_id, start)

    async def live_elsewhere(self, key: SessionKey) -> str | None:
        """The id of the thread's run live on another replica (None: none, or not shared)."""
        coordinator = self.coordinator
        if coordinator is None:
            return None
        found = await coordinator.live_run(self.runs.ownership.claim(key))
        return found[1] if found is not None and found[0] == key else None

    async def cancel_elsewhere(self, key: SessionKey, user: str | None) -> bool:
        """Cancel the thread's run (the principal ``user``'s, when given) on the replica
        running it; True once it has ended (False: no replica runs one)."""
        if self.coordinator is None:
            return False
        found = await self.coordinator.cancel(self.runs.ownership.claim(key), user)
        if found is None:
            return False
        run_key, run_id = found
        with anyio.move_on_after(CANCEL_WAIT_S):
            while await self.store.run_status(run_key, run_id) == "running":  # noqa: ASYNC110
                await anyio.sleep(0.05)  # (it ends in another process: polled)
        return True

    # -- ReplicaHooks --------------------------------------------------------------------------
    async def cancel(self, claim: tuple[str, ...], run_id: str) -> None:
        live = self.runs.on_claim(claim)
        if live is None or live.run_id != run_id or live.handler is None or not self.tasks.open:
            return
        if live not in self.cancelling:  # (asked by NOTIFY and by the polled flag: once)
            log.info("run %r cancelled from another replica", run_id)
            self.cancelling.add(live)
            self.tasks.start_soon(live.handler.cancel)

    async def retry(self) -> None:
        store = self.store
        for (key, run_id), end in list(self.unstored.items()):
            if end.events:
                await store.append_event_json_at(key, run_id, end.first, end.events)
                end.events = []
            await close_record(store, key, run_id, end.status, end.messages, end.state)
            del self.unstored[(key, run_id)]
            log.warning("the end of run %r is stored now (%s)", run_id, end.status)

    async def recover(self) -> None:
        await _lifecycle.recover(self.store)
