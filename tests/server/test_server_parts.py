"""The server's parts on their own: the thread key, the ownership rule (one object), the live
runs' registry and its drain (it waits until the readers were sent their terminal events),
and the task group every part is given when it is made."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from anyio import wait_all_tasks_blocked

from codeact import ChatMessage
from codeact.llms import ScriptedLLM
from codeact.server import MemoryStore, SQLiteStore, create_app
from codeact.server._input import BadRequest
from codeact.server._live import LiveRuns
from codeact.server._ownership import ThreadOwnership
from codeact.server._tasks import Tasks
from codeact.server.store import SessionKey

pytestmark = pytest.mark.anyio
KEY = SessionKey("app", "alice", "t1")


async def test_a_session_key_has_named_fields_and_equals_a_plain_tuple(tmp_path: Path) -> None:
    assert (KEY.app, KEY.user, KEY.thread) == ("app", "alice", "t1")
    assert KEY == ("app", "alice", "t1") and hash(KEY) == hash(("app", "alice", "t1"))
    for store in (MemoryStore(), SQLiteStore(tmp_path / "s.db")):
        await store.start_run(("app", "alice", "t1"), "r1", [])  # (a plain tuple is accepted)
        [(key, run_id)] = await store.running_runs()
        assert isinstance(key, SessionKey) and key.thread == "t1" and run_id == "r1"
        await store.aclose()


async def test_without_authentication_the_key_is_the_claim_and_everyone_may_use_it() -> None:
    rule = ThreadOwnership(MemoryStore(), authenticated=False)
    assert rule.claim(KEY) == KEY
    assert await rule.owner(KEY) == "alice"
    assert await rule.allows(KEY, None)
    assert rule.follows("bob", None) and not rule.refuses_start(KEY, None, "bob")


async def test_with_authentication_a_thread_id_is_one_thread_per_app_with_one_owner() -> None:
    store = MemoryStore()
    rule = ThreadOwnership(store, authenticated=True)
    assert rule.claim(KEY) == ("app", "t1")  # (whoever asks: bob's key claims the same thread)
    assert rule.claim(SessionKey("app", "bob", "t1")) == rule.claim(KEY)
    assert await rule.owner(KEY) is None and await rule.allows(KEY, "bob")  # a new thread
    await store.save_messages(KEY, [ChatMessage.user("hi")])  # alice wrote first (in the store)
    assert await rule.owner(SessionKey("app", "bob", "t1")) == "alice"
    assert await rule.allows(KEY, "alice") and not await rule.allows(KEY, "bob")
    assert rule.refuses_start(KEY, "bob", None)  # (learnt: no store call needed)
    assert rule.follows("alice", "alice") and not rule.follows("alice", "bob")
    rule.forget(KEY)
    assert not rule.refuses_start(KEY, "bob", None)  # forgotten until asked again
    assert rule.refuses_start(KEY, "bob", "alice")  # ...but the live run's owner counts
    rule.record(SessionKey("app", "carol", "t2"), "carol")
    assert not await rule.allows(SessionKey("app", "dave", "t2"), "dave")


def test_one_live_run_per_claim_and_none_while_draining() -> None:
    runs = LiveRuns(ThreadOwnership(MemoryStore(), authenticated=True), max_frames=16)
    live = runs.claim(KEY, "t1", "r1", "alice")
    assert runs.of(KEY) is live and runs.on_claim(("app", "t1")) is live and len(runs) == 1
    with pytest.raises(BadRequest) as busy:
        runs.claim(KEY, "t1", "r2", "alice")
    assert busy.value.status == 409
    with pytest.raises(BadRequest) as other:
        runs.claim(SessionKey("app", "bob", "t1"), "t1", "r2", "bob")
    assert other.value.status == 403  # (the live run's owner is alice)
    runs.launched(live)
    assert runs.busy() == {KEY}
    runs.release(live)
    assert runs.of(KEY) is None and runs.busy() == {KEY}  # (its end is not stored yet)
    runs.recorded(live)
    assert runs.busy() == set() and live.done.is_set()
    runs.draining = True
    with pytest.raises(BadRequest) as draining:
        runs.claim(KEY, "t1", "r3", "alice")
    assert draining.value.status == 503


async def test_the_drain_waits_until_its_readers_have_left() -> None:
    runs = LiveRuns(ThreadOwnership(MemoryStore(), authenticated=False), max_frames=16)
    entered, leave, drained = anyio.Event(), anyio.Event(), anyio.Event()

    async def reader() -> None:
        with runs.reading():
            entered.set()
            await leave.wait()

    async def drain() -> None:
        await runs.drain(timeout=0)
        drained.set()

    with anyio.fail_after(10):
        async with anyio.create_task_group() as tg:
            tg.start_soon(reader)
            await entered.wait()
            tg.start_soon(drain)
            await wait_all_tasks_blocked()  # (the drain waits for the reader, or has ended)
            assert runs.draining and not drained.is_set()
            leave.set()
            await drained.wait()
    assert runs.readers == 0
    with anyio.fail_after(1):  # (no reader: nothing to wait for)
        await runs.drain(timeout=0)


async def test_the_drain_waits_for_a_run_claimed_before_it_began() -> None:
    runs = LiveRuns(ThreadOwnership(MemoryStore(), authenticated=False), max_frames=16)
    for outcome in ("recorded", "abandoned"):
        live = runs.claim(KEY, "t1", f"r-{outcome}", None)  # (still starting: not launched)
        drained = anyio.Event()

        async def drain(done: anyio.Event) -> None:
            await runs.drain(timeout=10)
            done.set()

        with anyio.fail_after(10):
            async with anyio.create_task_group() as tg:
                tg.start_soon(drain, drained)
                await wait_all_tasks_blocked()
                assert not drained.is_set()
                if outcome == "recorded":
                    runs.launched(live)
                    runs.release(live)  # (its terminal event)
                    await wait_all_tasks_blocked()
                    assert not drained.is_set()  # its end is not stored yet
                    runs.recorded(live)
                else:
                    runs.abandoned(live)  # it could not start
                await drained.wait()
        assert runs.of(KEY) is None
        runs.draining = False


async def test_every_part_gets_the_servers_task_group_when_it_is_made() -> None:
    tasks = Tasks()
    with pytest.raises(RuntimeError, match="not open"):
        tasks.start_soon(anyio.sleep, 0)
    ran = anyio.Event()

    async def mark() -> None:
        ran.set()

    async with tasks.running():
        assert tasks.open
        tasks.start_soon(mark)
        await ran.wait()
    assert not tasks.open

    app = create_app(lambda: _agent(), store=MemoryStore())
    server = app.state.server
    assert server.store.tasks is server.tasks is server.replicas.tasks is server.starter.tasks
    assert server.sessions is server.replicas.sessions is server.starter.sessions
    async with server.running():
        assert server.tasks.open
    assert not server.tasks.open


def _agent() -> object:
    from codeact import FunctionAgent

    return FunctionAgent(llm=ScriptedLLM(["ok"]))
