"""The ``SessionStore`` contract: one suite, run over every store (the ``backend`` fixture is
parametrised the way anyio parametrises its backends). SQLite and PostgreSQL (a real server the
tests start) pass the same tests; ``MemoryStore`` the ones that do not need durability."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from codeact._messages import ChatMessage, ToolCallRequest
from codeact.server import MemoryStore, SQLiteStore
from codeact.server.store import SessionStore

pytestmark = pytest.mark.anyio
KEY = ("app", "alice", "t1")


class Backend:
    """Opens stores of one kind on one backing database (``reopen`` sees what was stored)."""

    def __init__(self, name: str, make: Callable[[], SessionStore], durable: bool) -> None:
        self.name, self.make, self.durable = name, make, durable
        self.opened: list[SessionStore] = []

    def open(self) -> SessionStore:
        store = self.make()
        self.opened.append(store)
        return store


@pytest.fixture(params=["memory", "sqlite", "postgres"])
async def backend(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Backend]:
    if request.param == "memory":
        mem = MemoryStore()
        b = Backend("memory", lambda: mem, durable=False)
    elif request.param == "sqlite":
        db = tmp_path / "s.db"
        b = Backend("sqlite", lambda: SQLiteStore(db, exclusive=False), durable=True)
    else:
        from codeact.server._postgres import PostgresStore

        url = request.getfixturevalue("postgres").create_database()
        b = Backend("postgres", lambda: PostgresStore(url, max_size=4), durable=True)
    yield b
    for s in b.opened:
        await s.aclose()


@pytest.fixture
def store(backend: Backend) -> SessionStore:
    return backend.open()


def msgs(*texts: str) -> list[ChatMessage]:
    out = []
    for i, t in enumerate(texts):
        m = ChatMessage.user(t) if i % 2 == 0 else ChatMessage.assistant(t)
        m.id = f"m{i}"
        out.append(m)
    return out


def ev(i: int, run: str = "r1") -> str:
    return json.dumps({"type": "TEXT_MESSAGE_CONTENT", "messageId": run, "delta": f"d{i}"})


async def test_a_new_thread_has_no_messages_runs_or_events(store: SessionStore) -> None:
    assert await store.load_messages(KEY) == []
    assert await store.load_events(KEY) == []
    assert await store.list_runs(KEY) == []
    assert await store.run_status(KEY, "r1") is None
    assert await store.event_page(KEY, "r1", after=0, skip=0, limit=10) == []
    assert await store.thread_owner("app", "t1") is None


async def test_messages_round_trip_exactly_and_save_replaces(store: SessionStore) -> None:
    first = msgs("héllo ✓ \U0001f600", "answer", 'with\nnewlines and "quotes" and \\')
    first[1].tool_calls = [ToolCallRequest(id="c1", name="execute", arguments={"code": "1\n"})]
    await store.save_messages(KEY, first)
    loaded = await store.load_messages(KEY)
    assert [m.model_dump() for m in loaded] == [m.model_dump() for m in first]
    await store.save_messages(KEY, msgs("only"))
    assert [m.content for m in await store.load_messages(KEY)] == ["only"]


async def test_keys_are_isolated_by_app_user_and_thread(store: SessionStore) -> None:
    keys = [("app", "alice", "t1"), ("app", "bob", "t1"), ("app2", "alice", "t1"),
            ("app", "alice", "t2")]  # fmt: skip
    for i, k in enumerate(keys):
        await store.start_run(k, "r1", msgs(f"m{i}"))
        await store.append_event_json(k, "r1", [ev(i)])
    for i, k in enumerate(keys):
        assert [m.content for m in await store.load_messages(k)] == [f"m{i}"]
        assert [e["delta"] for e in await store.load_events(k)] == [f"d{i}"]
    assert await store.thread_owner("app", "t2") == "alice"
    assert await store.thread_owner("app3", "t1") is None


async def test_run_lifecycle_statuses_and_order(store: SessionStore) -> None:
    await store.start_run(KEY, "r1", msgs("q1"))
    assert await store.run_status(KEY, "r1") == "running"
    await store.finish_run(KEY, "r1", "finished", msgs("q1", "a1"))
    await store.start_run(KEY, "r2", msgs("q1", "a1", "q2"))
    await store.finish_run(KEY, "r2", "cancelled", msgs("q1", "a1", "q2"))
    await store.start_run(KEY, "r0", msgs("q1", "a1", "q2", "q3"))
    await store.finish_run(KEY, "r0", "error", msgs("q1", "a1", "q2", "q3"))
    assert await store.list_runs(KEY) == [
        {"runId": "r1", "status": "finished"},
        {"runId": "r2", "status": "cancelled"},
        {"runId": "r0", "status": "error"},  # started order, not id order
    ]
    assert [m.content for m in await store.load_messages(KEY)] == ["q1", "a1", "q2", "q3"]
    assert await store.running_runs() == []


async def test_start_stores_the_messages_before_the_run(store: SessionStore) -> None:
    await store.start_run(KEY, "r1", msgs("the question"))
    assert [m.content for m in await store.load_messages(KEY)] == ["the question"]


async def test_events_in_order_per_run_and_per_thread(store: SessionStore) -> None:
    await store.start_run(KEY, "r1", msgs("q"))
    await store.append_event_json(KEY, "r1", [ev(0), ev(1)])
    await store.append_event_json(KEY, "r1", [ev(2)])
    await store.finish_run(KEY, "r1", "finished", msgs("q"))
    await store.start_run(KEY, "r2", msgs("q"))
    await store.append_events(KEY, "r2", [{"type": "RUN_STARTED", "x": "ü"}])
    assert [e.get("delta") for e in await store.load_events(KEY, "r1")] == ["d0", "d1", "d2"]
    assert await store.load_events(KEY, "r2") == [{"type": "RUN_STARTED", "x": "ü"}]
    assert len(await store.load_events(KEY)) == 4


async def test_event_pages_by_cursor_skip_and_limit(store: SessionStore) -> None:
    await store.start_run(KEY, "r1", msgs("q"))
    await store.start_run(("app", "alice", "other"), "r1", msgs("q"))
    for i in range(7):
        await store.append_event_json(KEY, "r1", [ev(i)])
        await store.append_event_json(("app", "alice", "other"), "r1", [ev(100 + i)])
    page = await store.event_page(KEY, "r1", after=0, skip=2, limit=3)
    assert [json.loads(d)["delta"] for _, d in page] == ["d2", "d3", "d4"]
    assert [c for c, _ in page] == sorted(c for c, _ in page)
    rest = await store.event_page(KEY, "r1", after=page[-1][0], skip=0, limit=100)
    assert [json.loads(d)["delta"] for _, d in rest] == ["d5", "d6"]
    assert await store.event_page(KEY, "r1", after=rest[-1][0], skip=0, limit=100) == []
    assert page[0][1] == ev(2)  # the JSON text as it was given (no re-encoding)


async def test_no_events_are_stored_after_the_run_ended(store: SessionStore) -> None:
    await store.start_run(KEY, "r1", msgs("q"))
    await store.append_event_json(KEY, "r1", [ev(0)])
    await store.finish_run(KEY, "r1", "finished", msgs("q"))
    await store.append_event_json(KEY, "r1", [ev(1)])
    assert [e["delta"] for e in await store.load_events(KEY, "r1")] == ["d0"]


async def test_a_retried_write_skips_the_events_that_landed(store: SessionStore) -> None:
    await store.start_run(KEY, "r1", msgs("q"))
    await store.append_event_json(KEY, "r1", [ev(0), ev(1), ev(2)])
    await store.append_event_json_at(KEY, "r1", 1, [ev(1), ev(2), ev(3), ev(4)])
    await store.append_event_json_at(KEY, "r1", 5, [ev(5)])
    got = [e["delta"] for e in await store.load_events(KEY, "r1")]
    assert got == ["d0", "d1", "d2", "d3", "d4", "d5"]


async def test_a_run_id_started_again_is_running_again(store: SessionStore) -> None:
    await store.start_run(KEY, "r1", msgs("q"))
    await store.finish_run(KEY, "r1", "error", msgs("q"))
    await store.start_run(KEY, "r1", msgs("q", "a", "q2"))
    assert await store.run_status(KEY, "r1") == "running"
    assert await store.list_runs(KEY) == [{"runId": "r1", "status": "running"}]


async def test_finish_without_start_records_the_run(store: SessionStore) -> None:
    await store.finish_run(KEY, "r9", "interrupted", msgs("q"))
    assert await store.run_status(KEY, "r9") == "interrupted"


async def test_ping_and_close_twice(backend: Backend) -> None:
    store = backend.open()
    await store.ping()
    assert isinstance(await store.health(), dict)
    await store.aclose()
    await store.aclose()


async def test_everything_survives_a_reopen(backend: Backend) -> None:
    if not backend.durable:
        pytest.skip(f"{backend.name} is not durable")
    first = backend.open()
    await first.start_run(KEY, "r1", msgs("q"))
    await first.append_event_json(KEY, "r1", [ev(0)])
    await first.finish_run(KEY, "r1", "finished", msgs("q", "a"))
    await first.start_run(KEY, "r2", msgs("q", "a", "q2"))
    await first.aclose()
    again = backend.open()
    assert [m.content for m in await again.load_messages(KEY)] == ["q", "a", "q2"]
    assert await again.list_runs(KEY) == [
        {"runId": "r1", "status": "finished"},
        {"runId": "r2", "status": "running"},
    ]
    assert [e["delta"] for e in await again.load_events(KEY, "r1")] == ["d0"]
    # left running by a process that is gone: to be marked interrupted
    assert await again.running_runs() == [(KEY, "r2")]


async def test_thread_state_round_trips_and_survives_reopening(backend: Backend) -> None:
    store = backend.open()
    assert await store.load_state(KEY) is None
    await store.start_run(KEY, "r1", msgs("hi"))
    await store.save_state(KEY, {"count": 2, "nested": {"a": [1, "é"]}})
    await store.finish_run(KEY, "r1", "finished", msgs("hi", "yo"))  # (state is kept)
    again = backend.open() if backend.durable else store
    assert await again.load_state(KEY) == {"count": 2, "nested": {"a": [1, "é"]}}
    assert await again.load_state(("app", "bob", "t1")) is None


async def test_sqlite_turns_append_rows_and_older_files_move_into_them(tmp_path: Path) -> None:
    import sqlite3

    db = tmp_path / "old.db"
    with sqlite3.connect(db) as old:  # a file written before messages had rows
        old.execute(
            "CREATE TABLE threads (app TEXT, user TEXT, thread TEXT, messages TEXT NOT NULL, "
            "updated REAL, PRIMARY KEY (app, user, thread))"
        )
        data = json.dumps([m.model_dump(mode="json") for m in msgs("q1", "a1")])
        old.execute("INSERT INTO threads (app, user, thread, messages) VALUES (?,?,?,?)",
                    (*KEY, data))  # fmt: skip
    store = SQLiteStore(db, exclusive=False)
    try:
        assert [m.text for m in await store.load_messages(KEY)] == ["q1", "a1"]
        await store.start_run(KEY, "r1", msgs("q1", "a1", "q2"))

        def rows() -> list[tuple[int, int]]:
            with sqlite3.connect(db) as c:
                return c.execute("SELECT seq, rowid FROM messages ORDER BY seq").fetchall()

        before = rows()
        await store.finish_run(KEY, "r1", "finished", msgs("q1", "a1", "q2", "a2"))
        assert rows()[:3] == before and len(rows()) == 4  # appended, not rewritten
        await store.save_messages(KEY, msgs("other"))  # not a prefix: replaced
        assert [m.text for m in await store.load_messages(KEY)] == ["other"]
    finally:
        await store.aclose()
