"""``PostgresStore`` beyond the common contract, against a real PostgreSQL: schema versions,
the one-live-run rule across stores (replicas) without a race, leases and adoption of a dead
replica's runs, connection failures as ``StoreUnavailable``; and ``open_store`` URLs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from codeact._messages import ChatMessage
from codeact.errors import UserError
from codeact.server import MemoryStore, SQLiteStore, open_store, redact_url
from codeact.server.store import SchemaError, StoreUnavailable, ThreadBusy

KEY = ("app", "alice", "t1")
MSG = [ChatMessage.user("q")]


def pg_store(url: str, **options: Any) -> Any:
    from codeact.server._postgres import PostgresStore

    return PostgresStore(url, max_size=3, **options)


# -- open_store (no database needed) ------------------------------------------------------------
def test_open_store_by_path_or_url(tmp_path: Path) -> None:
    assert isinstance(open_store(tmp_path / "a.db"), SQLiteStore)
    s = open_store(f"sqlite://{tmp_path}/b%20c.db", busy_timeout=1.0)
    assert isinstance(s, SQLiteStore) and s.path == tmp_path / "b c.db" and s.busy_timeout == 1.0
    assert isinstance(open_store("memory:"), MemoryStore)
    pytest.importorskip("psycopg")
    pg = open_store("postgresql://u:secret@127.0.0.1:1/db", max_size=2, lease_s=3, timeout=None)
    assert type(pg).__name__ == "PostgresStore" and pg.shared and pg.max_size == 2
    assert pg.timeout == 5.0  # (None: the default)


@pytest.mark.parametrize(
    ("url", "options", "message"),
    [
        ("mysql://x/y", {}, "unknown store URL scheme 'mysql'"),
        ("sqlite://relative.db", {}, "absolute path"),
        ("s.db", {"max_size": 3}, "SQLiteStore has no option 'max_size'"),
        ("memory:", {"busy_timeout": 1}, "MemoryStore has no option"),
        ("postgresql://127.0.0.1/db", {"min_size": 5, "max_size": 2}, "min_size <= max_size"),
        ("postgresql://127.0.0.1/db", {"lease_s": 0}, "must be positive"),
    ],
)
def test_open_store_refuses_bad_urls_and_options(url: str, options: Any, message: str) -> None:
    if url.startswith("postgresql"):
        pytest.importorskip("psycopg")
    with pytest.raises(UserError, match=message):
        open_store(url, **options)


def test_redact_hides_the_password() -> None:
    assert redact_url("postgresql://u:s3cret@h:5432/db") == "postgresql://u:***@h:5432/db"
    assert redact_url("postgresql://u@h/db") == "postgresql://u@h/db"
    assert redact_url("/tmp/x.db") == "/tmp/x.db"


def test_importing_the_server_does_not_import_the_driver() -> None:
    code = "import sys, codeact, codeact.server; print(any('psycopg' in m for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# -- against a real PostgreSQL ------------------------------------------------------------------
@pytest.fixture
def url(postgres: Any) -> str:
    return str(postgres.create_database())


async def _version(url: str) -> int:
    import psycopg

    async with await psycopg.AsyncConnection.connect(url) as conn:
        row = await (await conn.execute("SELECT version FROM codeact_schema")).fetchone()
        assert row is not None
        return int(row[0])


@pytest.mark.anyio
async def test_schema_is_created_once_by_replicas_starting_together(url: str) -> None:
    from codeact.server._pg_schema import SCHEMA_VERSION

    stores = [pg_store(url) for _ in range(4)]
    async with anyio.create_task_group() as tg:
        for s in stores:
            tg.start_soon(s.ping)
    assert await _version(url) == SCHEMA_VERSION
    for s in stores:
        await s.aclose()


@pytest.mark.anyio
async def test_an_older_schema_is_upgraded_and_its_live_runs_adopted(url: str) -> None:
    import psycopg

    from codeact.server._pg_schema import SCHEMA_VERSION, migrate

    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        assert await migrate(conn, target=1) == 0
        await conn.execute(
            "INSERT INTO codeact_runs (app, usr, thread, run_id, status) "
            "VALUES ('app', 'alice', 't1', 'old', 'running')"
        )
    store = pg_store(url)
    try:
        assert await store.run_status(KEY, "old") == "running"  # kept through the upgrade
        assert await _version(url) == SCHEMA_VERSION
        assert await store.running_runs() == [(KEY, "old")]  # no replica runs it
        await store.start_run(KEY, "new", MSG)  # the claim index exists now
        with pytest.raises(ThreadBusy):
            await pg_store(url).start_run(KEY, "other", MSG)
    finally:
        await store.aclose()


@pytest.mark.anyio
async def test_a_newer_schema_is_refused_clearly(url: str) -> None:
    import psycopg

    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        await conn.execute("CREATE TABLE codeact_schema (version integer NOT NULL)")
        await conn.execute("INSERT INTO codeact_schema VALUES (99)")
    store = pg_store(url)
    with pytest.raises(SchemaError, match="version 99, newer than this codeact knows"):
        await store.ping()
    await store.aclose()


@pytest.mark.anyio
async def test_one_live_run_per_claim_across_replicas_without_a_race(url: str) -> None:
    replicas = [pg_store(url) for _ in range(6)]
    for r in replicas:
        await r.ping()
    won: list[int] = []
    busy: list[int] = []

    async def start(i: int) -> None:
        try:
            await replicas[i].start_run(KEY, f"r{i}", [ChatMessage.user(f"from {i}")])
            won.append(i)
        except ThreadBusy:
            busy.append(i)

    async with anyio.create_task_group() as tg:
        for i in range(len(replicas)):
            tg.start_soon(start, i)
    assert len(won) == 1 and len(busy) == len(replicas) - 1
    (winner,) = won
    stored = await replicas[0].load_messages(KEY)
    assert [m.content for m in stored] == [f"from {winner}"]  # the losers wrote nothing
    assert await replicas[0].list_runs(KEY) == [{"runId": f"r{winner}", "status": "running"}]
    await replicas[winner].finish_run(KEY, f"r{winner}", "finished", stored)
    await replicas[busy[0]].start_run(KEY, "next", stored)  # free again once it ended
    # a claim wider than the key (with authentication: the thread, whoever owns it)
    await replicas[1].start_run(("app", "bob", "t9"), "b", MSG, claim=("app", "t9"))
    with pytest.raises(ThreadBusy):
        await replicas[2].start_run(("app", "eve", "t9"), "e", MSG, claim=("app", "t9"))
    for r in replicas:
        await r.aclose()


@pytest.mark.anyio
async def test_a_dead_replicas_runs_are_adopted_by_one_survivor(url: str) -> None:
    dead = pg_store(url, lease_s=0.5)
    await dead.start_run(KEY, "r1", MSG)
    await dead.start_run(("app", "alice", "t2"), "r2", MSG)
    survivors = [pg_store(url, lease_s=0.5) for _ in range(3)]
    for s in survivors:
        await s.ping()
    for s in survivors:
        assert await s.running_runs() == []  # its lease is fresh
    await anyio.sleep(0.8)  # no heartbeat from ``dead``: its lease expires
    for s in survivors:
        await s.heartbeat()
    got: list[Any] = []

    async def adopt(s: Any) -> None:
        got.extend(await s.running_runs())

    async with anyio.create_task_group() as tg:
        for s in survivors:
            tg.start_soon(adopt, s)
    assert sorted(got) == [(KEY, "r1"), (("app", "alice", "t2"), "r2")]  # each exactly once
    for s in [dead, *survivors]:
        await s.aclose()


@pytest.mark.anyio
async def test_an_unreachable_database_is_store_unavailable(postgres: Any) -> None:
    from tests.server.pg import free_port

    store = pg_store(f"postgresql://codeact@127.0.0.1:{free_port()}/x", timeout=1.0)
    with pytest.raises(StoreUnavailable, match="unreachable"):
        await store.ping()
    await store.aclose()


@pytest.mark.anyio
async def test_health_reports_the_database(url: str) -> None:
    store = pg_store(url)
    health = await store.health()
    assert health["engine"] == "postgresql" and health["replicas"] == 1
    assert health["replica"] == store.replica and health["pool"]["size"] >= 1
    await store.aclose()


@pytest.mark.anyio
async def test_a_cancel_reaches_the_owner_by_notify_and_by_the_polled_flag(url: str) -> None:
    import json

    import psycopg

    owner, other = pg_store(url), pg_store(url)
    await owner.start_run(KEY, "r1", MSG, claim=("app", "t1"))
    await other.ping()
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as listener:
        await listener.execute("LISTEN codeact_cancel")
        assert await other.coordinator().cancel(("app", "t1"), "bob") is None  # not bob's run
        assert await owner.coordinator().requested_cancels() == []
        found = await other.coordinator().cancel(("app", "t1"), "alice")
        assert found == (KEY, "r1")
        note = await anext(listener.notifies(timeout=5))
        payload = json.loads(note.payload)
        assert payload["replica"] == owner.replica and payload["runId"] == "r1"
        assert json.loads(payload["claim"]) == ["app", "t1"]
    assert await owner.coordinator().requested_cancels() == [(("app", "t1"), "r1")]
    assert await other.coordinator().requested_cancels() == []  # only the owner's runs
    await owner.finish_run(KEY, "r1", "cancelled", MSG)
    assert await owner.coordinator().requested_cancels() == []
    assert await other.coordinator().cancel(("app", "t1"), None) is None  # nothing live
    await owner.start_run(KEY, "r1", MSG, claim=("app", "t1"))  # the same id, started again
    assert await owner.coordinator().requested_cancels() == []
    for s in (owner, other):
        await s.aclose()


@pytest.mark.anyio
async def test_turns_append_message_rows_and_older_threads_move_into_them(url: str) -> None:
    import json

    import psycopg

    from codeact.server._pg_schema import migrate

    old = [ChatMessage.user("q1"), ChatMessage.assistant("a1 é")]
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        await migrate(conn, target=5)  # (messages as one JSON list per thread)
        await conn.execute(
            "INSERT INTO codeact_threads (app, usr, thread, messages) VALUES (%s, %s, %s, %s)",
            (*KEY, json.dumps([m.model_dump(mode="json") for m in old])),
        )
    store = pg_store(url)
    try:
        assert [m.text for m in await store.load_messages(KEY)] == ["q1", "a1 é"]  # moved
        turn = [*old, ChatMessage.user("q2")]
        await store.start_run(KEY, "r1", turn)

        async def rows() -> list[tuple[int, str]]:
            async with await psycopg.AsyncConnection.connect(url) as c:
                cur = await c.execute(
                    "SELECT seq, xmin::text FROM codeact_messages WHERE usr = 'alice' ORDER BY seq"
                )
                return [(int(s), str(x)) for s, x in await cur.fetchall()]

        before = await rows()
        await store.finish_run(KEY, "r1", "finished", [*turn, ChatMessage.assistant("a2")])
        after = await rows()
        assert after[:3] == before and len(after) == 4  # appended: the turn's rows untouched
        assert [m.text for m in await store.load_messages(KEY)] == ["q1", "a1 é", "q2", "a2"]
        await store.save_messages(KEY, [ChatMessage.user("rewritten")])  # not a prefix
        assert [m.text for m in await store.load_messages(KEY)] == ["rewritten"]
    finally:
        await store.aclose()


async def _adopt(survivor: Any) -> list[Any]:
    """The survivor's ``running_runs`` once the other replica's lease has lapsed."""
    with anyio.fail_after(30):
        while True:
            await survivor.heartbeat()
            got = await survivor.running_runs()
            if got:
                return list(got)
            await anyio.sleep(0.1)  # (until the lapsed lease is seen)


@pytest.mark.anyio
async def test_a_replica_that_lost_a_run_stores_neither_its_end_nor_the_state(url: str) -> None:
    paused = pg_store(url, lease_s=0.5)  # (its lease lapses: as if SIGSTOPped)
    await paused.start_run(KEY, "r1", MSG)
    survivor = pg_store(url, lease_s=0.5)
    try:
        assert await _adopt(survivor) == [(KEY, "r1")]
        await survivor.end_run(KEY, "r1", "interrupted", MSG, {"by": "survivor"})
        late = [*MSG, ChatMessage.assistant("late")]
        await paused.end_run(KEY, "r1", "finished", late, {"by": "the paused replica"})
        assert await survivor.run_status(KEY, "r1") == "interrupted"
        assert await survivor.load_state(KEY) == {"by": "survivor"}  # its decision stands
        assert [m.content for m in await survivor.load_messages(KEY)] == ["q"]
        assert paused._fences == {} and survivor._fences == {}  # (no token kept for it)
    finally:
        await paused.aclose()
        await survivor.aclose()


@pytest.mark.anyio
async def test_an_adopted_run_whose_end_failed_is_handed_out_again(url: str) -> None:
    dead = pg_store(url, lease_s=0.5)
    await dead.start_run(KEY, "r1", MSG)
    survivor = pg_store(url, lease_s=0.5)
    try:
        assert await _adopt(survivor) == [(KEY, "r1")]
        # marking it interrupted failed (the database went away meanwhile): the next round
        # gets it again, or it would stay ``running`` (its thread busy) with its token kept
        assert await survivor.running_runs() == [(KEY, "r1")]
        await survivor.finish_run(KEY, "r1", "interrupted", MSG)
        assert await survivor.running_runs() == []
        assert survivor._fences == {}
        await survivor.start_run(KEY, "r2", MSG)  # the thread is free
    finally:
        await dead.aclose()
        await survivor.aclose()
