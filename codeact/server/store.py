"""SessionStore: where threads' messages and runs' events are kept.

``SQLiteStore`` (a file in WAL mode; survives restarts) is the default; ``MemoryStore`` is for
tests; ``PostgresStore`` (the ``postgres`` extra) is shared by several server replicas.
A session is keyed by (app name, user id, thread id). ``open_store(url)`` picks one by URL.
"""

from __future__ import annotations

import json
import logging
from abc import ABC, abstractmethod
from collections.abc import Sequence
from itertools import repeat
from typing import Any, Literal, NamedTuple

from codeact._messages import ChatMessage
from codeact.errors import StoreError


class SessionKey(NamedTuple):
    """A thread's key in the store. A plain ``(app, user, thread)`` tuple equals it (stores may
    return those); the server makes one with ``SessionKey(*key)`` before reading its fields."""

    app: str
    user: str
    thread: str


log = logging.getLogger("codeact.server")


class StoreLocked(StoreError, RuntimeError):
    """Another process serves from this SQLite file (it holds ``<db>.lock``)."""


class StoreUnavailable(StoreError, RuntimeError):
    """The store's database cannot be reached (connection lost, refused or timed out). A live
    run whose writes fail this way is stopped with a ``store_unavailable`` error."""


class ThreadBusy(StoreError, RuntimeError):
    """Another process (a replica sharing the store) has a live run on this thread."""


class SchemaError(StoreError, RuntimeError):
    """The database's schema cannot be used (e.g. written by a newer codeact)."""


#: A run's status in the store: live, or how it ended. ``incomplete``: it ended while the
#: store was unreachable and not all of its events could be kept until it was back (its
#: record ends with a ``store_unavailable`` RUN_ERROR its clients may not have seen).
RunStatus = Literal["running", "finished", "error", "cancelled", "interrupted", "incomplete"]


class SessionStore(ABC):
    """The persistence seam of the server."""

    @abstractmethod
    async def load_messages(self, key: SessionKey) -> list[ChatMessage]:
        """The thread's conversation (empty for a new thread)."""

    @abstractmethod
    async def save_messages(self, key: SessionKey, messages: list[ChatMessage]) -> None:
        """Replace the thread's conversation."""

    @abstractmethod
    async def append_events(
        self, key: SessionKey, run_id: str, events: list[dict[str, Any]]
    ) -> None:
        """Record AG-UI events of a run (JSON objects, in order)."""

    @abstractmethod
    async def load_events(self, key: SessionKey, run_id: str | None = None) -> list[dict[str, Any]]:
        """Recorded events of the thread (or of one run), in order."""

    #: A cancelled call may take long to end (a driver that cancels a query with a request of
    #: its own): the server then leaves a call that timed out to end on its own, instead of
    #: cancelling it (which costs a task per call; stores that end at once say False).
    slow_to_cancel: bool = True
    #: Other server processes serve from this store at the same time (replicas): the live-run
    #: rule, cancels and replays then go through the store (see ``coordinator``).
    shared: bool = False

    # -- durable turns (the defaults keep a minimal store working, without the guarantees) ---
    async def start_run(
        self,
        key: SessionKey,
        run_id: str,
        messages: list[ChatMessage],
        *,
        claim: tuple[str, ...] | None = None,
    ) -> None:
        """A run starts: store the thread's messages (with the new user message) and mark the
        run ``running``, before the agent does anything. A shared store raises ``ThreadBusy``
        when another process has a live run on ``claim`` (default: the key)."""
        await self.save_messages(key, messages)

    async def finish_run(
        self, key: SessionKey, run_id: str, status: RunStatus, messages: list[ChatMessage]
    ) -> None:
        """A run ended (or was found interrupted): its status and the thread's messages."""
        await self.save_messages(key, messages)

    async def append_event_json(self, key: SessionKey, run_id: str, events: list[str]) -> None:
        """Record already-encoded AG-UI events (JSON text, in order) of a run."""
        await self.append_events(key, run_id, [json.loads(e) for e in events])

    async def append_event_json_at(
        self, key: SessionKey, run_id: str, first: int, events: list[str]
    ) -> None:
        """Retry a write that may have landed: ``events`` are the run's events number ``first``
        on, and those already stored are skipped (the default cannot tell: it appends)."""
        await self.append_event_json(key, run_id, events)

    async def list_runs(self, key: SessionKey) -> list[dict[str, Any]]:
        """The thread's runs, oldest first: ``{"runId": ..., "status": ...}``."""
        return []

    async def run_status(self, key: SessionKey, run_id: str) -> RunStatus | None:
        """The run's status, or None when the thread has no run of that id."""
        for run in await self.list_runs(key):
            if run.get("runId") == run_id:
                status: RunStatus = run["status"]
                return status
        if await self.load_events(key, run_id):
            return "finished"  # (a minimal store keeps no statuses)
        return None

    async def event_page(
        self, key: SessionKey, run_id: str, *, after: int, skip: int, limit: int
    ) -> list[tuple[int, str]]:
        """A page of the run's stored events as ``(cursor, JSON text)``: those past the cursor
        ``after`` (0 for the start), ``skip`` of them skipped, at most ``limit``. Replays read
        a run page by page (never all of it at once)."""
        events = await self.load_events(key, run_id)
        begin = after + skip
        return [
            (i + 1, json.dumps(e, ensure_ascii=False, separators=(",", ":")))
            for i, e in enumerate(events[begin : begin + limit], start=begin)
        ]

    async def load_state(self, key: SessionKey) -> dict[str, Any] | None:
        """The thread's shared state (``ctx.state``) as last stored, or None (none stored, or
        a store that keeps none)."""
        return None

    async def save_state(self, key: SessionKey, state: dict[str, Any]) -> None:
        """Store the thread's shared state (JSON-able; after its run's end is stored)."""

    async def end_run(
        self,
        key: SessionKey,
        run_id: str,
        status: RunStatus,
        messages: list[ChatMessage],
        state: dict[str, Any] | None = None,
    ) -> None:
        """What the server stores when a run ends (at once, or retried once the store is back):
        ``finish_run`` and, when ``state`` is given, the thread's state. A shared store writes
        both under the run's fencing token: a replica that lost the run writes neither."""
        await self.finish_run(key, run_id, status, messages)
        if state is not None:
            await self.save_state(key, state)

    async def running_runs(self) -> list[tuple[SessionKey, str]]:
        """Runs marked ``running`` that no live process runs (left by a process that died or
        closed the store: the ones that were interrupted). A shared store hands each such run
        to one caller only."""
        return []

    async def thread_owner(self, app: str, thread: str) -> str | None:
        """Who owns a thread (the user part of its key), or None for a new thread."""
        return None

    async def ping(self) -> None:
        """Raise if the store cannot be reached (for ``/healthz``)."""

    async def health(self) -> dict[str, Any]:
        """What ``/healthz`` reports about the store once ``ping`` worked (JSON)."""
        return {}

    def coordinator(self) -> Coordinator | None:
        """How replicas sharing this store coordinate (None: one process serves it)."""
        return None

    async def aclose(self) -> None:
        """Release resources."""


class Coordinator(ABC):
    """Coordination of the replicas that share a store: leases, cancels, live runs elsewhere."""

    @abstractmethod
    async def serve(self, hooks: ReplicaHooks) -> None:
        """Forever: renew this replica's lease, reap the runs of replicas that lost theirs,
        deliver cancels to ``hooks.cancel`` and retry ``hooks.retry``."""

    @abstractmethod
    async def cancel(
        self, claim: tuple[str, ...], user: str | None
    ) -> tuple[SessionKey, str] | None:
        """Ask the replica that runs the live run on ``claim`` (of ``user`` when given) to cancel
        it: the run's key and id, or None when no replica has one."""

    @abstractmethod
    async def live_run(self, claim: tuple[str, ...]) -> tuple[SessionKey, str] | None:
        """The live run on ``claim`` in any replica (key and run id), or None."""

    @abstractmethod
    async def latest_run(self, key: SessionKey) -> str | None:
        """The id of the thread's most recently started run (by any replica)."""


class ReplicaHooks(ABC):
    """What a coordinator calls back into the server with."""

    @abstractmethod
    async def cancel(self, claim: tuple[str, ...], run_id: str) -> None:
        """Cancel the local live run ``run_id`` on ``claim`` (if it is still live here)."""

    @abstractmethod
    async def retry(self) -> None:
        """Retry storing the ends of runs the store did not take."""

    @abstractmethod
    async def recover(self) -> None:
        """Mark the orphaned runs (``SessionStore.running_runs``) interrupted."""


def state_text(state: dict[str, Any]) -> str:
    """How a thread's state is stored (JSON; what is not JSON-able as its ``str``)."""
    return json.dumps(state, ensure_ascii=False, default=str)


def state_from_text(text: str) -> dict[str, Any] | None:
    value = json.loads(text)
    return value if isinstance(value, dict) else None


def message_text(message: ChatMessage) -> str:
    """How a stored message is kept (one row per message: turns append rows)."""
    return json.dumps(message.model_dump(mode="json"))


def appended_from(have: int, last: str | None, messages: list[ChatMessage]) -> int | None:
    """Where the messages a store does not hold yet begin, given how many it holds and the
    text of its last one; None when what it holds is not a prefix of ``messages`` (the memory
    was rewritten): the thread's rows are then replaced."""
    if have > len(messages) or (have and message_text(messages[have - 1]) != last):
        return None
    return have


def claim_text(claim: tuple[str, ...]) -> str:
    """How a claim (the thread the one-live-run rule applies to) is stored."""
    return json.dumps(list(claim), ensure_ascii=False, separators=(",", ":"))


class MemoryStore(SessionStore):
    """Keeps everything in memory (tests, throwaway servers)."""

    slow_to_cancel = False

    def __init__(self) -> None:
        self._messages: dict[SessionKey, list[str]] = {}
        self._events: dict[SessionKey, list[tuple[str, dict[str, Any] | str]]] = {}
        self._per_run: dict[tuple[SessionKey, str], int] = {}  # events stored per run
        self._runs: dict[SessionKey, dict[str, RunStatus]] = {}
        self._state: dict[SessionKey, str] = {}
        self._owners: dict[tuple[str, str], str] = {}  # (app, thread) -> its first user

    async def load_state(self, key: SessionKey) -> dict[str, Any] | None:
        text = self._state.get(key)
        return state_from_text(text) if text else None

    async def save_state(self, key: SessionKey, state: dict[str, Any]) -> None:
        self._state[key] = state_text(state)

    async def start_run(
        self,
        key: SessionKey,
        run_id: str,
        messages: list[ChatMessage],
        *,
        claim: tuple[str, ...] | None = None,
    ) -> None:
        await self.save_messages(key, messages)
        self._runs.setdefault(key, {})[run_id] = "running"

    async def finish_run(
        self, key: SessionKey, run_id: str, status: RunStatus, messages: list[ChatMessage]
    ) -> None:
        await self.save_messages(key, messages)
        self._runs.setdefault(key, {})[run_id] = status

    async def list_runs(self, key: SessionKey) -> list[dict[str, Any]]:
        return [{"runId": r, "status": s} for r, s in self._runs.get(key, {}).items()]

    async def running_runs(self) -> list[tuple[SessionKey, str]]:
        return [
            (SessionKey(*k), r)
            for k, runs in self._runs.items()
            for r, s in runs.items()
            if s == "running"
        ]

    async def thread_owner(self, app: str, thread: str) -> str | None:
        return self._owners.get((app, thread))  # (an index: no scan of every thread)

    async def load_messages(self, key: SessionKey) -> list[ChatMessage]:
        return [ChatMessage.model_validate_json(m) for m in self._messages.get(key, [])]

    async def save_messages(self, key: SessionKey, messages: list[ChatMessage]) -> None:
        self._messages[key] = [m.model_dump_json() for m in messages]
        app, user, thread = key  # (a plain tuple may stand for the key)
        self._owners.setdefault((app, thread), user)

    def _add(self, key: SessionKey, run_id: str, events: Sequence[dict[str, Any] | str]) -> None:
        self._events.setdefault(key, []).extend(zip(repeat(run_id), events, strict=False))
        self._per_run[key, run_id] = self._per_run.get((key, run_id), 0) + len(events)

    async def append_events(
        self, key: SessionKey, run_id: str, events: list[dict[str, Any]]
    ) -> None:
        self._add(key, run_id, events)

    async def append_event_json(self, key: SessionKey, run_id: str, events: list[str]) -> None:
        if self._runs.get(key, {}).get(run_id, "running") != "running":
            log.warning("run %r has ended: %d late events not stored", run_id, len(events))
            return
        self._add(key, run_id, events)

    async def append_event_json_at(
        self, key: SessionKey, run_id: str, first: int, events: list[str]
    ) -> None:
        have = self._per_run.get((key, run_id), 0)
        await self.append_event_json(key, run_id, events[max(0, have - first) :])

    async def event_page(
        self, key: SessionKey, run_id: str, *, after: int, skip: int, limit: int
    ) -> list[tuple[int, str]]:
        out: list[tuple[int, str]] = []
        rows = self._events.get(key, [])
        for i in range(after, len(rows)):
            r, e = rows[i]
            if r != run_id:
                continue
            if skip:
                skip -= 1
                continue
            out.append((i + 1, e if isinstance(e, str) else json.dumps(e, ensure_ascii=False)))
            if len(out) >= limit:
                break
        return out

    async def load_events(self, key: SessionKey, run_id: str | None = None) -> list[dict[str, Any]]:
        return [
            json.loads(e) if isinstance(e, str) else e
            for r, e in self._events.get(key, [])
            if run_id is None or r == run_id
        ]


__all__ = [
    "Coordinator",
    "MemoryStore",
    "ReplicaHooks",
    "RunStatus",
    "SchemaError",
    "SessionKey",
    "SessionStore",
    "StoreLocked",
    "StoreUnavailable",
    "ThreadBusy",
    "appended_from",
    "claim_text",
    "message_text",
    "state_from_text",
    "state_text",
]
