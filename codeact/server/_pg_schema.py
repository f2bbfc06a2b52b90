"""The PostgreSQL schema of ``PostgresStore``: versioned migrations, applied on start under an
advisory lock (replicas starting together migrate once); a newer schema is refused."""

from __future__ import annotations

from typing import Any

from codeact.server.store import SchemaError

#: ``pg_advisory_xact_lock`` key taken while migrating (any constant unique to codeact).
MIGRATION_LOCK = 0x636F_6465_6163_74  # "codeact"

#: Migration ``i`` takes the schema from version ``i`` to ``i + 1``. Append, never edit.
MIGRATIONS: list[str] = [
    # 1: what SQLiteStore keeps: threads (messages as opaque JSON text), runs, events
    """
    CREATE TABLE codeact_threads (
        app text NOT NULL, usr text NOT NULL, thread text NOT NULL, messages text NOT NULL,
        updated timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (app, usr, thread));
    CREATE INDEX codeact_threads_owner ON codeact_threads (app, thread);
    CREATE TABLE codeact_runs (
        app text NOT NULL, usr text NOT NULL, thread text NOT NULL, run_id text NOT NULL,
        status text NOT NULL, seq bigserial,
        started timestamptz NOT NULL DEFAULT now(), ended timestamptz,
        PRIMARY KEY (app, usr, thread, run_id));
    CREATE TABLE codeact_events (
        id bigserial PRIMARY KEY,
        app text NOT NULL, usr text NOT NULL, thread text NOT NULL, run_id text NOT NULL,
        event text NOT NULL);
    CREATE INDEX codeact_events_run ON codeact_events (app, usr, thread, run_id, id);
    """,
    # 2: replicas: leases, and one live run per claim across them
    """
    CREATE TABLE codeact_replicas (
        id text PRIMARY KEY, host text NOT NULL, pid integer NOT NULL,
        started timestamptz NOT NULL DEFAULT now(), heartbeat timestamptz NOT NULL);
    ALTER TABLE codeact_runs ADD COLUMN claim text, ADD COLUMN replica text;
    CREATE UNIQUE INDEX codeact_runs_live ON codeact_runs (claim) WHERE status = 'running';
    CREATE INDEX codeact_runs_running ON codeact_runs (replica) WHERE status = 'running';
    """,
    # 3: cancels also as a flag the owning replica polls (a NOTIFY sent while its listener
    # was reconnecting is not lost)
    """
    ALTER TABLE codeact_runs ADD COLUMN cancel_requested boolean NOT NULL DEFAULT false;
    """,
    # 4: fencing tokens: a run row's token changes whenever another replica takes the run over
    # (adopts it when its lease lapsed); writes about the run carry the writer's token and do
    # nothing once it is stale (a replica paused past its lease cannot undo a survivor's end)
    """
    CREATE SEQUENCE codeact_fence;
    ALTER TABLE codeact_runs ADD COLUMN fence bigint NOT NULL DEFAULT 0;
    """,
    # 5: the thread's shared state (ctx.state, JSON text)
    """
    ALTER TABLE codeact_threads ADD COLUMN state text;
    """,
    # 6: messages one row each (a turn appends rows instead of rewriting the thread)
    """
    CREATE TABLE codeact_messages (
        app text NOT NULL, usr text NOT NULL, thread text NOT NULL, seq integer NOT NULL,
        message text NOT NULL, PRIMARY KEY (app, usr, thread, seq));
    INSERT INTO codeact_messages
        SELECT t.app, t.usr, t.thread, j.n - 1, j.m::text FROM codeact_threads t,
            jsonb_array_elements(t.messages::jsonb) WITH ORDINALITY AS j(m, n);
    UPDATE codeact_threads SET messages = '[]';
    """,
]
SCHEMA_VERSION = len(MIGRATIONS)
#: The unique index that makes a second live run on a claim fail.
LIVE_INDEX = "codeact_runs_live"


async def migrate(conn: Any, target: int = SCHEMA_VERSION) -> int:
    """Bring the schema to ``target`` (one transaction); the version found before."""
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
        await conn.execute("CREATE TABLE IF NOT EXISTS codeact_schema (version integer NOT NULL)")
        row = await (await conn.execute("SELECT version FROM codeact_schema")).fetchone()
        if row is None:
            await conn.execute("INSERT INTO codeact_schema (version) VALUES (0)")
        found = int(row[0]) if row else 0
        if found > SCHEMA_VERSION:
            raise SchemaError(
                f"the database's codeact schema is version {found}, newer than this codeact "
                f"knows ({SCHEMA_VERSION}): upgrade codeact, or use another database"
            )
        for version in range(found, target):
            await conn.execute(MIGRATIONS[version])
        if target > found:
            await conn.execute("UPDATE codeact_schema SET version = %s", (target,))
        return found
