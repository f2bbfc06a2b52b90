"""Replicas sharing a PostgreSQL store: the lease loop (heartbeat, reaping the runs of replicas
that lost their lease, retrying run ends the database did not take), cancels delivered to the
replica that runs the turn by ``LISTEN``/``NOTIFY``, and following a run that lives on another
replica from its stored events."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import AsyncIterator
from typing import Any, Protocol

import anyio
from ag_ui.core import RunErrorEvent

from codeact._messages import ChatMessage
from codeact.server._runs import chunks, frame, store_lost_frame
from codeact.server._turns import PAGE_EVENTS, is_terminal
from codeact.server.store import (
    Coordinator,
    ReplicaHooks,
    RunStatus,
    SessionKey,
    SessionStore,
    claim_text,
)

log = logging.getLogger("codeact.server")
CHANNEL = "codeact_cancel"
#: How often a reader of a run on another replica looks for its new events.
FOLLOW_POLL_S = 0.1


class ReplicaDatabase(Protocol):
    """What the coordinator needs of its store (``PostgresStore`` is one): the replicas'
    lease table, statements, and the settings of a connection of its own."""

    url: str
    replica: str
    lease_s: float
    heartbeat_s: float

    def conninfo_kwargs(self) -> dict[str, Any]: ...

    async def heartbeat(self) -> None: ...

    async def forget_dead_replicas(self) -> None: ...

    async def fetch(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]: ...


class PostgresCoordinator(Coordinator):
    """Coordination through the store's database (no other service)."""

    def __init__(self, store: ReplicaDatabase) -> None:
        self.store = store
        #: Since when this replica's lease rounds have worked (None: the last one failed).
        self.healthy_since: float | None = time.monotonic()

    async def serve(self, hooks: ReplicaHooks) -> None:
        async with anyio.create_task_group() as tg:
            tg.start_soon(self._listen, hooks)
            while True:
                await self.tick(hooks)
                await anyio.sleep(self.store.heartbeat_s)

    async def tick(self, hooks: ReplicaHooks) -> None:
        """One round: renew the lease, retry unstored run ends, reap dead replicas' runs.
        After a database outage the others' leases look expired too: runs are reaped only
        once this replica has been connected for a whole lease (they had time to renew)."""
        try:
            await self.store.heartbeat()
            now = time.monotonic()
            self.healthy_since = self.healthy_since or now
            await hooks.retry()
            for claim, run_id in await self.requested_cancels():
                await hooks.cancel(claim, run_id)
            if now - self.healthy_since >= self.store.lease_s:
                await hooks.recover()
                await self.store.forget_dead_replicas()
        except Exception as exc:
            self.healthy_since = None
            log.warning("replica %s: the lease round failed: %s", self.store.replica, exc)

    async def _listen(self, hooks: ReplicaHooks) -> None:
        """Cancels addressed to this replica, from a dedicated connection (re-opened after a
        database outage)."""
        import psycopg  # (only replicas sharing a PostgreSQL store get here)

        while True:
            try:
                conn = await psycopg.AsyncConnection.connect(
                    self.store.url, **self.store.conninfo_kwargs()
                )
                async with conn:
                    await conn.execute(f"LISTEN {CHANNEL}")
                    async for note in conn.notifies():
                        await self._deliver(note.payload, hooks)
            except Exception as exc:
                log.warning("replica %s: cancel listener lost: %s", self.store.replica, exc)
            await anyio.sleep(1.0)

    async def _deliver(self, payload: str, hooks: ReplicaHooks) -> None:
        try:
            note = json.loads(payload)
            if note.get("replica") != self.store.replica:
                return
            claim = tuple(json.loads(note["claim"]))
            await hooks.cancel(claim, str(note["runId"]))
        except Exception:
            log.exception("a cancel notification could not be handled: %r", payload[:200])

    async def cancel(
        self, claim: tuple[str, ...], user: str | None
    ) -> tuple[SessionKey, str] | None:

        sql = (
            "UPDATE codeact_runs SET cancel_requested = true "
            "WHERE claim = %s AND status = 'running' AND (%s::text IS NULL OR usr = %s) "
            "RETURNING app, usr, thread, run_id, pg_notify(%s, json_build_object("
            "'replica', replica, 'claim', claim, 'runId', run_id)::text)"
        )
        rows = await self.store.fetch(sql, (claim_text(claim), user, user, CHANNEL))
        return (SessionKey(*rows[0][:3]), rows[0][3]) if rows else None

    async def requested_cancels(self) -> list[tuple[tuple[str, ...], str]]:
        """Cancels asked of this replica's live runs (the slow path, polled every round)."""
        rows = await self.store.fetch(
            "SELECT claim, run_id FROM codeact_runs WHERE replica = %s AND status = 'running' "
            "AND cancel_requested",
            (self.store.replica,),
        )
        return [(tuple(json.loads(c)), str(r)) for c, r in rows]

    async def live_run(self, claim: tuple[str, ...]) -> tuple[SessionKey, str] | None:

        rows = await self.store.fetch(
            "SELECT app, usr, thread, run_id FROM codeact_runs "
            "WHERE claim = %s AND status = 'running'",
            (claim_text(claim),),
        )
        return (SessionKey(*rows[0][:3]), rows[0][3]) if rows else None

    async def latest_run(self, key: SessionKey) -> str | None:
        rows = await self.store.fetch(
            "SELECT run_id FROM codeact_runs WHERE app=%s AND usr=%s AND thread=%s "
            "ORDER BY seq DESC LIMIT 1",
            key,
        )
        return str(rows[0][0]) if rows else None


async def follow_stored(
    store: SessionStore, key: SessionKey, run_id: str, start: int
) -> AsyncIterator[bytes]:
    """A run's stored events from ``start`` on as SSE frames, then those stored later (it
    lives on another replica) until its terminal event, or until it is no longer running."""
    seq, after, skip = max(0, start), 0, max(0, start)
    while True:
        try:
            page = await store.event_page(key, run_id, after=after, skip=skip, limit=PAGE_EVENTS)
            # (the status is read after the page: events stored meanwhile are looked for)
            more = len(page) >= PAGE_EVENTS or await store.run_status(key, run_id) == "running"
            more = more or bool(
                await store.event_page(key, run_id, after=after, skip=skip + len(page), limit=1)
            )
        except Exception:
            log.exception("following run %r from the store failed", run_id)
            yield store_lost_frame(seq)
            return
        frames = []
        for cursor, data in page:
            frames.append(frame(seq, data))
            seq, after, skip = seq + 1, cursor, 0
            if is_terminal(data):
                for part in chunks(frames):
                    yield part
                return
        for part in chunks(frames):
            yield part
        if not more:
            return  # (no terminal event stored, and the run no longer runs)
        if len(page) < PAGE_EVENTS:
            await anyio.sleep(FOLLOW_POLL_S)


async def close_record(
    store: SessionStore,
    key: SessionKey,
    run_id: str,
    status: RunStatus,
    messages: list[ChatMessage],
    state: dict[str, Any] | None = None,
) -> None:
    """Store a run's end that the database did not take when it happened: a terminal
    ``RUN_ERROR`` (``store_unavailable``) when its stored events lack one, then its status
    (and the thread's state, when the run changed it)."""
    after, ended = 0, False
    while not ended:
        page = await store.event_page(key, run_id, after=after, skip=0, limit=PAGE_EVENTS)
        ended = any(is_terminal(d) for _, d in page)
        if len(page) < PAGE_EVENTS:
            break
        after = page[-1][0]
    if not ended:
        end = RunErrorEvent(
            message="the session store was unreachable: this run's record is incomplete",
            code="store_unavailable",
        )
        await store.append_event_json(key, run_id, [end.model_dump_json(exclude_none=True)])
    await store.end_run(key, run_id, status, messages, state)
