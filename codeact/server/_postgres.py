"""``PostgresStore``: sessions in PostgreSQL, shared by any number of server replicas (psycopg 3
with ``psycopg-pool``; the ``postgres`` extra).

It keeps what ``SQLiteStore`` keeps, with the same semantics (messages and events as opaque JSON
text), plus what replicas coordinate by: each replica holds a lease (a heartbeat row in
``codeact_replicas``); a run row carries its claim (the thread) and the replica running it, and a
unique index on the claims of ``running`` runs makes a second live run on a thread fail at
``start_run`` (``ThreadBusy``), whichever replica it lands on. A replica whose lease expired
has its ``running`` runs adopted by a survivor (``running_runs``), which marks them interrupted.
Connection failures are raised as ``StoreUnavailable``."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
import uuid
from collections.abc import AsyncIterator
from typing import Any

import anyio
import psycopg
from psycopg import errors as pg_errors
from psycopg import pq
from psycopg_pool import AsyncConnectionPool

from codeact._messages import ChatMessage
from codeact.errors import UserError
from codeact.server import _pg_messages
from codeact.server._pg_schema import LIVE_INDEX, SCHEMA_VERSION, migrate
from codeact.server.store import (
    Coordinator,
    RunStatus,
    SessionKey,
    SessionStore,
    StoreUnavailable,
    ThreadBusy,
    claim_text,
    state_from_text,
    state_text,
)

log = logging.getLogger("codeact.server")
KEY = "app=%s AND usr=%s AND thread=%s"
RUN = KEY + " AND run_id=%s"


async def _still_connected(conn: psycopg.AsyncConnection[Any]) -> None:
    """The pool's check of a connection it hands out, without a round trip: what the server
    sent meanwhile is read (a restarted server closed the socket), and a broken connection
    raises (the pool then opens another)."""
    pgconn = conn.pgconn
    for _ in range(2):  # (the server's goodbye, then the end of the stream)
        if pgconn.status != pq.ConnStatus.OK:
            break
        with contextlib.suppress(psycopg.OperationalError):
            pgconn.consume_input()
            pgconn.is_busy()  # (parses what was read)
    if conn.closed or pgconn.status != pq.ConnStatus.OK:
        raise psycopg.OperationalError("the connection was lost")


class PostgresStore(SessionStore):
    """A PostgreSQL database shared by the replicas of one service (``postgresql://`` URL).

    ``min_size``/``max_size``: the connection pool; ``timeout``: seconds to wait for a pooled
    connection; ``connect_timeout``: seconds to open one; ``lease_s``: a replica that has not
    renewed its lease for this long is taken as dead (its live runs are marked interrupted);
    ``heartbeat_s``: how often the lease is renewed and dead replicas are looked for."""

    shared = True

    def __init__(
        self,
        url: str,
        *,
        min_size: int = 1,
        max_size: int = 10,
        timeout: float = 5.0,
        connect_timeout: float = 5.0,
        lease_s: float = 10.0,
        heartbeat_s: float | None = None,
        replica_id: str | None = None,
    ) -> None:
        if not 0 < min_size <= max_size:
            raise UserError(f"the pool needs 0 < min_size <= max_size ({min_size}, {max_size})")
        if lease_s <= 0 or timeout <= 0 or connect_timeout <= 0:
            raise UserError("lease_s, timeout and connect_timeout must be positive")
        self.url = url
        self.min_size, self.max_size = min_size, max_size
        self.timeout, self.connect_timeout = timeout, connect_timeout
        self.lease_s = lease_s
        self.heartbeat_s = heartbeat_s if heartbeat_s is not None else min(1.0, lease_s / 3)
        self.replica = replica_id or f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self._pool: AsyncConnectionPool | None = None
        self._ready = False
        self._closed = False
        self._lock = anyio.Lock()
        self._coordinator: Coordinator | None = None
        #: The fencing token of each run this replica runs or adopted (``codeact_runs.fence``).
        self._fences: dict[tuple[SessionKey, str], int] = {}
        #: Runs this replica adopted (``running_runs``) whose end is not stored yet: handed out
        #: again until it is (no other replica adopts them while this one's lease is fresh).
        self._adopted: set[tuple[SessionKey, str]] = set()
        self._lease_conn: psycopg.AsyncConnection[Any] | None = None

    # -- connections ---------------------------------------------------------------------------
    def conninfo_kwargs(self) -> dict[str, Any]:
        """Options of every connection (pooled or the cancel listener's)."""
        return {
            "autocommit": True,
            "connect_timeout": max(1, round(self.connect_timeout)),
            "application_name": "codeact",
        }

    async def _ensure(self) -> AsyncConnectionPool:
        if self._closed:
            raise RuntimeError("the PostgresStore is closed")
        if self._pool is not None and self._ready:
            return self._pool
        async with self._lock:
            if self._pool is None:
                pool = AsyncConnectionPool(
                    self.url,
                    min_size=self.min_size,
                    max_size=self.max_size,
                    timeout=self.timeout,
                    kwargs=self.conninfo_kwargs(),
                    check=_still_connected,
                    name="codeact",
                    open=False,
                )
                await pool.open(wait=False)
                self._pool = pool
            if not self._ready:
                async with self._pool.connection() as conn:
                    await migrate(conn)
                    await self._heartbeat(conn)
                self._ready = True
        return self._pool

    @contextlib.asynccontextmanager
    async def connection(self) -> AsyncIterator[psycopg.AsyncConnection[Any]]:
        """A pooled connection (autocommit); connection failures as ``StoreUnavailable``."""
        try:
            pool = await self._ensure()
            async with pool.connection() as conn:
                yield conn
        except (psycopg.OperationalError, psycopg.InterfaceError) as exc:
            raise StoreUnavailable(f"the PostgreSQL database is unreachable: {exc}") from exc

    async def fetch(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """The rows of one statement (none for a statement that returns none)."""
        async with self.connection() as conn:
            cur = await conn.execute(sql, params)
            return await cur.fetchall() if cur.description else []

    async def _heartbeat(self, conn: psycopg.AsyncConnection[Any]) -> None:
        await conn.execute(
            "INSERT INTO codeact_replicas (id, host, pid, heartbeat) VALUES (%s, %s, %s, now()) "
            "ON CONFLICT (id) DO UPDATE SET heartbeat = now()",
            (self.replica, socket.gethostname(), os.getpid()),
        )

    async def heartbeat(self) -> None:
        """Renew this replica's lease, on a connection of its own: after an outage the pool
        reconnects with a growing back-off (1, 2, 4, 8 s...), and a lease renewed that late
        looks lapsed to the others, who would take this replica's live runs over."""
        await self._ensure()
        try:
            conn = self._lease_conn
            if conn is None or conn.closed:
                self._lease_conn = conn = await psycopg.AsyncConnection.connect(
                    self.url, **self.conninfo_kwargs()
                )
            with anyio.fail_after(self.timeout):
                await self._heartbeat(conn)
        except (psycopg.OperationalError, psycopg.InterfaceError, TimeoutError) as exc:
            conn, self._lease_conn = self._lease_conn, None
            if conn is not None:
                with contextlib.suppress(Exception):
                    await conn.close()
            raise StoreUnavailable(f"the PostgreSQL database is unreachable: {exc}") from exc

    # -- threads and messages ------------------------------------------------------------------
    async def load_messages(self, key: SessionKey) -> list[ChatMessage]:
        async with self.connection() as conn:
            return await _pg_messages.load_messages(conn, key)

    async def save_messages(self, key: SessionKey, messages: list[ChatMessage]) -> None:
        async with self.connection() as conn, conn.transaction():
            await _pg_messages.put_messages(conn, key, messages)

    async def load_state(self, key: SessionKey) -> dict[str, Any] | None:
        rows = await self.fetch(f"SELECT state FROM codeact_threads WHERE {KEY}", key)
        return state_from_text(rows[0][0]) if rows and rows[0][0] else None

    async def save_state(self, key: SessionKey, state: dict[str, Any]) -> None:
        await self.fetch(
            f"UPDATE codeact_threads SET state = %s WHERE {KEY}", (state_text(state), *key)
        )

    async def thread_owner(self, app: str, thread: str) -> str | None:
        rows = await self.fetch(
            "SELECT usr FROM codeact_threads WHERE app=%s AND thread=%s LIMIT 1", (app, thread)
        )
        return str(rows[0][0]) if rows else None

    # -- runs ----------------------------------------------------------------------------------
    async def start_run(
        self,
        key: SessionKey,
        run_id: str,
        messages: list[ChatMessage],
        *,
        claim: tuple[str, ...] | None = None,
    ) -> None:
        params = (*key, run_id, claim_text(claim or key), self.replica)
        try:
            async with self.connection() as conn, conn.transaction():
                row = await (await conn.execute(_pg_messages.START_RUN, params)).fetchone()
                await _pg_messages.put_messages(conn, key, messages)
        except pg_errors.UniqueViolation as exc:
            if exc.diag.constraint_name != LIVE_INDEX:
                raise
            raise ThreadBusy(
                f"thread {SessionKey(*key).thread!r} has a live run on another replica"
            ) from None
        assert row is not None
        self._fences[(key, run_id)] = int(row[0])

    async def finish_run(
        self, key: SessionKey, run_id: str, status: RunStatus, messages: list[ChatMessage]
    ) -> None:
        """The run's end, fenced: when another replica took the run over since this one
        started (or adopted) it, nothing is written (its decision stands) and a warning says so."""
        await self.end_run(key, run_id, status, messages)

    async def end_run(
        self,
        key: SessionKey,
        run_id: str,
        status: RunStatus,
        messages: list[ChatMessage],
        state: dict[str, Any] | None = None,
    ) -> None:
        """``finish_run`` and the thread's state in one transaction, fenced alike."""
        fence = self._fences.get((key, run_id))
        async with self.connection() as conn, conn.transaction():
            cur = await conn.execute(_pg_messages.FINISH_RUN, (*key, run_id, status, fence, fence))
            taken = await cur.fetchone() is None
            if not taken:
                await _pg_messages.put_messages(conn, key, messages)
                if state is not None:
                    await conn.execute(
                        f"UPDATE codeact_threads SET state = %s WHERE {KEY}",
                        (state_text(state), *key),
                    )
        self._fences.pop((key, run_id), None)  # (stored, or decided by another replica)
        self._adopted.discard((key, run_id))
        if taken:
            log.warning(
                "run %r was taken over by another replica (this one's lease lapsed): its end "
                "(%s) is not stored",
                run_id,
                status,
            )

    async def run_status(self, key: SessionKey, run_id: str) -> RunStatus | None:
        rows = await self.fetch(f"SELECT status FROM codeact_runs WHERE {RUN}", (*key, run_id))
        status: RunStatus | None = rows[0][0] if rows else None
        return status

    async def list_runs(self, key: SessionKey) -> list[dict[str, Any]]:
        rows = await self.fetch(
            f"SELECT run_id, status FROM codeact_runs WHERE {KEY} ORDER BY seq", key
        )
        return [{"runId": r, "status": s} for r, s in rows]

    async def running_runs(self) -> list[tuple[SessionKey, str]]:
        """Adopts the ``running`` runs of replicas whose lease expired (atomically: each is
        adopted by one survivor) and returns them, for the caller to mark interrupted — with
        the runs adopted earlier whose end could not be stored yet (else they would stay
        ``running``, their thread busy, and their fencing tokens kept here, for good)."""
        rows = await self.fetch(_ADOPT, (self.replica, self.lease_s))
        for a, u, t, r, fence in rows:
            self._fences[(SessionKey(a, u, t), r)] = int(fence)
            self._adopted.add((SessionKey(a, u, t), r))
        return sorted(self._adopted)

    async def forget_dead_replicas(self) -> None:
        """Drop the rows of replicas whose lease expired long ago."""
        await self.fetch(
            "DELETE FROM codeact_replicas WHERE heartbeat < now() - make_interval(secs => %s)",
            (self.lease_s * 10,),
        )

    # -- events --------------------------------------------------------------------------------
    async def append_events(
        self, key: SessionKey, run_id: str, events: list[dict[str, Any]]
    ) -> None:
        await self.append_event_json(key, run_id, [json.dumps(e) for e in events])

    async def append_event_json(self, key: SessionKey, run_id: str, events: list[str]) -> None:
        if events:
            async with self.connection() as conn:
                await self._append(conn, key, run_id, events)

    async def append_event_json_at(
        self, key: SessionKey, run_id: str, first: int, events: list[str]
    ) -> None:
        async with self.connection() as conn, conn.transaction():
            cur = await conn.execute(
                f"SELECT count(*) FROM codeact_events WHERE {RUN}", (*key, run_id)
            )
            row = await cur.fetchone()
            have = int(row[0]) if row else 0
            rest = events[max(0, have - first) :]
            if rest:
                await self._append(conn, key, run_id, rest)

    async def _append(
        self, conn: psycopg.AsyncConnection[Any], key: SessionKey, run_id: str, events: list[str]
    ) -> None:
        """Events of a run, unless it has ended (nothing is stored after its terminal event)
        or another replica took it over (fenced)."""
        fence = self._fences.get((key, run_id))
        cur = await conn.execute(_APPEND, (*key, run_id, events, *key, run_id, fence))
        if cur.rowcount == 0:
            log.warning("run %r has ended: %d late events not stored", run_id, len(events))

    async def event_page(
        self, key: SessionKey, run_id: str, *, after: int, skip: int, limit: int
    ) -> list[tuple[int, str]]:
        rows = await self.fetch(
            f"SELECT id, event FROM codeact_events WHERE {RUN} AND id > %s "
            "ORDER BY id LIMIT %s OFFSET %s",
            (*key, run_id, after, limit, skip),
        )
        return [(int(i), str(e)) for i, e in rows]

    async def load_events(self, key: SessionKey, run_id: str | None = None) -> list[dict[str, Any]]:
        if run_id is None:
            sql = f"SELECT event FROM codeact_events WHERE {KEY} ORDER BY id"
            rows = await self.fetch(sql, key)
        else:
            sql = f"SELECT event FROM codeact_events WHERE {RUN} ORDER BY id"
            rows = await self.fetch(sql, (*key, run_id))
        return [json.loads(e) for (e,) in rows]

    # -- operations ----------------------------------------------------------------------------
    async def ping(self) -> None:
        await self.fetch("SELECT 1")

    async def health(self) -> dict[str, Any]:
        rows = await self.fetch(
            "SELECT count(*) FROM codeact_replicas WHERE heartbeat > now() - "
            "make_interval(secs => %s)",
            (self.lease_s,),
        )
        stats = self._pool.get_stats() if self._pool is not None else {}
        return {
            "engine": "postgresql",
            "schema": SCHEMA_VERSION,
            "replica": self.replica,
            "replicas": int(rows[0][0]),
            "pool": {"size": stats.get("pool_size", 0), "idle": stats.get("pool_available", 0)},
        }

    def coordinator(self) -> Coordinator:
        if self._coordinator is None:
            from codeact.server._coordination import PostgresCoordinator

            self._coordinator = PostgresCoordinator(self)
        return self._coordinator

    async def aclose(self) -> None:
        """Give up this replica's lease (its leftover live runs become orphans that another
        replica marks interrupted) and close the pool; closing twice is fine."""
        pool, self._pool = self._pool, None
        self._closed = True
        lease, self._lease_conn = self._lease_conn, None
        if lease is not None:
            with contextlib.suppress(Exception):
                await lease.close()
        if pool is None:
            return
        if self._ready:
            with contextlib.suppress(Exception), anyio.move_on_after(2):
                async with pool.connection(timeout=1) as conn:
                    await conn.execute("DELETE FROM codeact_replicas WHERE id=%s", (self.replica,))
        await pool.close()


_APPEND = (
    "INSERT INTO codeact_events (app, usr, thread, run_id, event) "
    "SELECT %s, %s, %s, %s, e FROM unnest(%s::text[]) WITH ORDINALITY AS t(e, n) "
    f"WHERE NOT EXISTS (SELECT 1 FROM codeact_runs WHERE {RUN} AND (status <> 'running' "
    "OR fence <> %s::bigint)) ORDER BY n"
)
_ADOPT = (
    "UPDATE codeact_runs SET replica = %s, fence = nextval('codeact_fence') "
    "WHERE status = 'running' AND (replica IS NULL OR "
    "replica NOT IN (SELECT id FROM codeact_replicas "
    "WHERE heartbeat > now() - make_interval(secs => %s))) "
    "RETURNING app, usr, thread, run_id, fence"
)
