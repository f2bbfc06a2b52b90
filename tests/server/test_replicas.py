"""Three real ``codeact serve`` processes sharing a real PostgreSQL (started by the tests), with
a client spreading requests across them: concurrent first requests on one thread (exactly one
runs), cancel through another replica, re-attach and history from a third, sandboxes that stay
with their replica, kill -9 of the replica running a turn, and the database restarted under
live traffic."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.server.agui_check import check_stream, parse_sse
from tests.server.replicas import Reader, Replica, body, start_replicas


@pytest.fixture
def db_url(postgres: Any) -> str:
    return str(postgres.create_database())


@pytest.fixture
def trio(db_url: str, tmp_path: Path) -> Iterator[list[Replica]]:
    replicas = start_replicas(db_url, tmp_path, 3, delay=0.02)  # a run streams for 4 s
    yield replicas
    for r in replicas:
        r.stop()


def wait_for(check: Any, timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        got = check()
        if got:
            return got
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def text_of(events: list[dict[str, Any]]) -> str:
    return "".join(e.get("delta", "") for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")


def test_concurrent_first_requests_on_one_thread_run_exactly_once(trio: list[Replica]) -> None:
    gate = threading.Barrier(len(trio))
    results: list[httpx.Response] = []

    def first(r: Replica, i: int) -> None:
        gate.wait()
        results.append(r.post("/", body("race", f"r{i}", f"from {i}")))

    threads = [threading.Thread(target=first, args=(r, i)) for i, r in enumerate(trio)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    codes = sorted(r.status_code for r in results)
    assert codes == [200, 409, 409], [r.text[:200] for r in results]
    busy = [r.json() for r in results if r.status_code == 409]
    assert all("already has a run in progress" in b["error"] for b in busy)
    winner = next(r for r in results if r.status_code == 200)
    assert check_stream(parse_sse(winner.content))[-1] == "RUN_FINISHED"
    runs = trio[2].runs("race")
    assert len(runs) == 1 and runs[0]["status"] == "finished"
    users = [m for m in history_messages(trio[1], "race") if m["role"] == "user"]
    assert len(users) == 1  # the refused requests stored nothing


def history_messages(r: Replica, thread: str) -> list[dict[str, Any]]:
    return next(e for e in r.history(thread) if e["type"] == "MESSAGES_SNAPSHOT")["messages"]


def test_cancel_through_another_replica_stops_the_run_within_a_second(
    trio: list[Replica],
) -> None:
    a, b, c = trio
    reader = Reader(a.url, body("cancel"), n=3)
    assert reader.ready.wait(30)
    t0 = time.monotonic()
    r = b.post("/cancel", {"threadId": "cancel"})
    assert r.status_code == 200 and r.json()["status"] == "cancelled", r.text
    reader.join(30)
    assert reader.ended_at - t0 < 1.0, f"the run ended {reader.ended_at - t0:.2f} s after /cancel"
    events = reader.events()
    assert check_stream(events)[-1] == "RUN_FINISHED" and len(text_of(events).split()) < 100
    assert c.runs("cancel") == [{"runId": "r1", "status": "cancelled"}]
    assert b.post("/cancel", {"threadId": "cancel"}).status_code == 404  # nothing live now
    again = c.post("/", body("cancel", "r2", "again"))  # the thread goes on, elsewhere
    assert check_stream(parse_sse(again.content))[-1] == "RUN_FINISHED"


def test_reattach_and_history_from_other_replicas(trio: list[Replica]) -> None:
    a, b, c = trio
    reader = Reader(a.url, body("share"), n=20)
    assert reader.ready.wait(30)
    follower = Reader(b.url, {"threadId": "share"}, route="/connect")  # live on a, joined on b
    last_seen = len(reader.events()) - 1
    resumed = c.post(
        "/", body("share"), headers={"Last-Event-ID": str(last_seen)}
    )  # and resumed on c from an event id
    reader.join(60)
    follower.join(60)
    live = reader.events()
    assert check_stream(live)[-1] == "RUN_FINISHED"
    assert follower.events() == live  # every event, first to terminal, same text and ids
    assert parse_sse(resumed.content) == live[last_seen + 1 :]
    messages = history_messages(c, "share")
    assert [m["role"] for m in messages] == ["user", "assistant"]
    assert messages[1]["content"] == text_of(live)
    assert b.runs("share") == [{"runId": "r1", "status": "finished"}]
    replay = b.post("/connect", {"threadId": "share", "runId": "r1", "lastEventId": 2})
    assert parse_sse(replay.content) == live[3:]  # a finished run replays from any replica


def test_sandbox_variables_stay_with_the_replica_that_ran_the_turn(
    db_url: str, tmp_path: Path
) -> None:
    a, b = start_replicas(db_url, tmp_path, 2, factory="code")
    try:

        def answer(r: Replica, run: str, text: str, thread: str = "vars") -> str:
            events = parse_sse(r.post("/", body(thread, run, text)).content)
            assert check_stream(events)[-1] == "RUN_FINISHED"
            return text_of(events)

        assert "set" in answer(a, "r1", "set")
        assert "42" in answer(a, "r2", "get")  # the same replica: x is still there
        assert "NameError" in answer(b, "r3", "get")  # another replica: a fresh sandbox
        assert "NameError" in answer(a, "r4", "get")  # back on a: b ran a turn meanwhile
        roles = [m["role"] for m in history_messages(b, "vars")]
        assert roles.count("user") == 4  # one conversation across replicas
    finally:
        a.stop()
        b.stop()


def test_kill_9_of_the_replica_running_a_turn(db_url: str, tmp_path: Path) -> None:
    a, b, c = start_replicas(db_url, tmp_path, 3, delay=0.1, lease=1.5)
    try:
        reader = Reader(a.url, body("crash"), n=5)
        assert reader.ready.wait(30)
        follower = Reader(b.url, {"threadId": "crash"}, route="/connect")
        time.sleep(0.6)  # the events so far reach the database (batched every 0.25 s)
        os.kill(a.proc.pid, signal.SIGKILL)
        t0 = time.monotonic()
        a.proc.wait(10)
        assert b.post("/", body("crash", "r2")).status_code == 409  # until its lease expires
        runs = wait_for(
            lambda: [r for r in c.runs("crash") if r["status"] == "interrupted"], 15, "interrupted"
        )
        took = time.monotonic() - t0
        assert runs == [{"runId": "r1", "status": "interrupted"}] and took < 1.5 + 3, took
        follower.join(30)
        followed = follower.events()
        assert followed[-1]["type"] == "RUN_ERROR" and followed[-1]["code"] == "interrupted"
        messages = history_messages(b, "crash")
        assert [m["role"] for m in messages] == ["user", "assistant"]  # the partial answer kept
        again = Reader(b.url, body("crash", "r2", "again"))  # the thread takes a new run
        assert again.ready.wait(30) and again.status == 200
        assert again.events()[0]["type"] == "RUN_STARTED"
        assert c.post("/cancel", {"threadId": "crash"}).status_code == 200
        assert check_stream(again.join(30).events())[-1] == "RUN_FINISHED"
        reader.join(30)
    finally:
        for r in (a, b, c):
            r.stop()


def test_database_restarted_under_live_traffic(postgres: Any, db_url: str, tmp_path: Path) -> None:
    a, b = start_replicas(db_url, tmp_path, 2, delay=0.05)
    try:
        reader = Reader(a.url, body("outage"), n=3)
        assert reader.ready.wait(30)
        postgres.stop("fast")
        try:
            reader.join(30)
            events = reader.events()
            assert events[-1]["type"] == "RUN_ERROR" and events[-1]["code"] == "store_unavailable"
            assert "session store became unreachable" in events[-1]["message"]
            refused = b.post("/", body("other"))
            assert refused.status_code == 503, refused.text
            assert "session store is unavailable" in refused.json()["error"]
            health = httpx.get(b.url + "/healthz", timeout=10)
            assert health.status_code == 503 and health.json()["store"] == "unreachable"
        finally:
            postgres.start()
        for r in (a, b):
            wait_for(lambda r=r: httpx.get(r.url + "/healthz", timeout=10).status_code == 200,
                     20, "healthz ok")  # fmt: skip
        wait_for(lambda: httpx.get(a.url + "/healthz").json()["database"]["replicas"] == 2,
                 10, "both leases renewed")  # fmt: skip

        # a stores the stopped run's end once the database is back: the thread is free again
        wait_for(lambda: b.runs("outage") == [{"runId": "r1", "status": "error"}], 20, "r1's end")
        again = Reader(b.url, body("outage", "r2", "again"))
        assert again.ready.wait(30) and again.status == 200
        assert a.post("/cancel", {"threadId": "outage"}).status_code == 200
        assert check_stream(again.join(30).events())[-1] == "RUN_FINISHED"
        assert b.runs("outage")[1] == {"runId": "r2", "status": "cancelled"}
        record = parse_sse(b.post("/connect", {"threadId": "outage", "runId": "r1"}).content)
        assert record[-1]["type"] == "RUN_ERROR"  # its stored record is closed too
    finally:
        a.stop()
        b.stop()
