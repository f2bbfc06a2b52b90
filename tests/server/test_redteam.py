"""Findings of the red-team review of the AG-UI server, each over real HTTP on loopback:
live cell output coalesced and bounded, paged replays, runId reuse, bad timeouts, events kept
through a store stall, one server per database, disconnects mid-body, Last-Event-ID past the
end, and the cap on live sessions."""

from __future__ import annotations

import json
import socket
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import anyio
import anyio.lowlevel
import anyio.to_thread
import httpx
import pytest

from codeact import CodeActAgent, FunctionAgent
from codeact.llms import Reply, ScriptedLLM
from codeact.server import MemoryStore, SQLiteStore, create_app
from codeact.server.translator import ACTIVITY_MAX_EVENTS, ACTIVITY_MAX_TOTAL_CHARS
from tests.server.agui_check import check_stream, parse_sse


def body(thread: str, run: str = "r1", text: str = "go", **extra: Any) -> dict[str, Any]:
    return {"threadId": thread, "runId": run, "messages": [{"role": "user", "content": text}]} | (
        extra
    )


def post(url: str, payload: Any, path: str = "/", **kw: Any) -> httpx.Response:
    with httpx.Client(timeout=60) as c:
        return c.post(url + path, json=payload, **kw)


def wait_recorded(app: Any) -> None:
    """Until every run's end is stored (bounded)."""
    for _ in range(600):
        if not app.state.server.runs.unrecorded and not app.state.server.runs:
            return
        time.sleep(0.05)
    raise AssertionError("the run's end was never stored")


def test_70k_single_characters_yield_bounded_activity_events_and_rows(
    serve: Any, tmp_path: Path
) -> None:
    cell = "<execute>\nfor i in range(70000):\n    print('x', end='', flush=True)\n</execute>"
    llm = ScriptedLLM([cell, "done"], function_calling=False)
    db = tmp_path / "s.db"
    app = create_app(CodeActAgent(llm=llm), store=SQLiteStore(db), activity=True)
    srv = serve(app)
    r = post(srv.url, body("chars"))
    events = parse_sse(r.content)
    check_stream(events)
    acts = [e for e in events if e["type"].startswith("ACTIVITY")]
    wire = sum(len(json.dumps(e)) for e in acts)
    assert 1 <= len(acts) <= ACTIVITY_MAX_EVENTS and wire <= 2 * ACTIVITY_MAX_TOTAL_CHARS
    result = next(e for e in events if e["type"] == "TOOL_CALL_RESULT")
    assert result["content"].startswith("x")  # the cell's result is there in full
    wait_recorded(app)
    with sqlite3.connect(db) as c:
        rows, size = c.execute("SELECT count(*), sum(length(event)) FROM events").fetchone()
    assert rows == len(events) and size < 200_000  # every event numbered, deltas stored as no-ops
    replay = post(srv.url, {"threadId": "chars", "runId": "r1"}, "/connect")
    again = parse_sse(replay.content)
    assert [e["type"] for e in again] == [e["type"] for e in events]
    assert len(replay.content) < 200_000


class WriteSizes:
    """ASGI wrapper recording the size of every response body message the app sends."""

    def __init__(self, app: Any) -> None:
        self.app, self.state, self.sizes = app, app.state, list[int]()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        async def recording(message: Any) -> None:
            if message["type"] == "http.response.body":
                self.sizes.append(len(message.get("body", b"")))
            await send(message)

        await self.app(scope, receive, recording)


def test_replays_are_paged_and_written_in_bounded_chunks(serve: Any, tmp_path: Path) -> None:
    from codeact.server._runs import MAX_WRITE_BYTES

    words = [f"w{i} " for i in range(6000)]
    llm = ScriptedLLM([Reply(chunks=words)])
    app = create_app(FunctionAgent(llm=llm), store=SQLiteStore(tmp_path / "s.db"))
    wrapped = WriteSizes(app)
    srv = serve(wrapped)
    live = parse_sse(post(srv.url, body("many")).content)
    wait_recorded(app)
    store = app.state.server.store
    calls: list[int] = []
    page = store.event_page

    async def counting(*a: Any, **kw: Any) -> Any:
        calls.append(kw["limit"])
        return await page(*a, **kw)

    store.event_page = counting
    wrapped.sizes.clear()
    r = post(srv.url, {"threadId": "many", "runId": "r1"}, "/connect")
    assert parse_sse(r.content) == live and len(r.content) > 2 * MAX_WRITE_BYTES
    assert len(calls) >= len(live) // 256 and max(calls) <= 256  # page by page
    assert len(wrapped.sizes) > 2 and max(wrapped.sizes) <= MAX_WRITE_BYTES + 1024


def test_reusing_a_run_id_on_a_thread_is_409_but_reattach_works(serve: Any) -> None:
    app = create_app(FunctionAgent(llm=ScriptedLLM(["one", "two"])), store=MemoryStore())
    srv = serve(app)
    first = parse_sse(post(srv.url, body("reuse", "r1")).content)
    assert first[-1]["type"] == "RUN_FINISHED"
    wait_recorded(app)
    again = post(srv.url, body("reuse", "r1", "again"))
    assert again.status_code == 409 and again.json()["code"] == "run_id_taken"
    reattach = post(srv.url, body("reuse", "r1"), headers={"Last-Event-ID": "1"})
    assert reattach.status_code == 200
    assert parse_sse(reattach.content) == first[2:]
    assert post(srv.url, body("reuse", "r2", "again")).status_code == 200
    assert post(srv.url, body("other", "r1")).status_code == 200  # another thread may use it


@pytest.mark.parametrize("timeout", ["1e400", "true", "-1", "0", '"5"', "NaN"])
def test_bad_timeouts_are_400_and_leave_no_run(serve: Any, timeout: str) -> None:
    store = MemoryStore()
    app = create_app(FunctionAgent(llm=ScriptedLLM(["ok"])), store=store)
    srv = serve(app)
    tail = '}], "forwardedProps": {"timeout": ' + timeout + "}}"
    raw = json.dumps(body("to")).replace("}]}", tail)
    with httpx.Client(timeout=30) as c:
        r = c.post(srv.url + "/", content=raw, headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and r.json()["status"] == 400
    assert anyio.run(store.running_runs) == []
    assert post(srv.url, body("to", "r2")).status_code == 200


class FailingStart(FunctionAgent):
    def run(self, *a: Any, **kw: Any) -> Any:
        raise RuntimeError("cannot start")


def test_a_failure_after_start_run_records_the_run_as_errored(serve: Any) -> None:
    store = MemoryStore()
    srv = serve(create_app(FailingStart(llm=ScriptedLLM(["x"])), store=store))
    r = post(srv.url, body("fail"))
    assert r.status_code == 500 and r.json()["status"] == 500
    key = ("codeact", "anonymous", "fail")
    assert anyio.run(store.list_runs, key) == [{"runId": "r1", "status": "error"}]
    assert anyio.run(store.load_events, key, "r1")[-1]["type"] == "RUN_ERROR"


class StallingStore(MemoryStore):
    """The first event write hangs until it is given up on (a stalled store)."""

    def __init__(self) -> None:
        super().__init__()
        self.stalled = 0

    async def append_event_json(self, key: Any, run_id: str, events: list[str]) -> None:
        if not self.stalled:
            self.stalled = 1
            await anyio.sleep_forever()
        await super().append_event_json(key, run_id, events)


def test_events_survive_a_store_stall_at_the_end_of_a_run(serve: Any) -> None:
    store = StallingStore()
    words = [f"w{i} " for i in range(20)]
    llm = ScriptedLLM([Reply(chunks=words, chunk_delay=0.05)])
    app = create_app(FunctionAgent(llm=llm), store=store, store_timeout=1.0)
    srv = serve(app)
    live = parse_sse(post(srv.url, body("stall")).content)
    wait_recorded(app)
    assert store.stalled
    stored = anyio.run(store.load_events, ("codeact", "anonymous", "stall"), "r1")
    assert stored == live


class LateStore(MemoryStore):
    """The first event write lands after the server gave up on it (a write that timed out in
    the caller but committed anyway)."""

    def __init__(self) -> None:
        super().__init__()
        self.late = 0

    async def append_event_json(self, key: Any, run_id: str, events: list[str]) -> None:
        if not self.late:
            self.late = 1
            with anyio.CancelScope(shield=True):
                await anyio.sleep(1.5)
                await super().append_event_json(key, run_id, events)
            await anyio.lowlevel.checkpoint()  # the timeout is delivered here, after the write
            return
        await super().append_event_json(key, run_id, events)


def test_a_retried_write_that_had_landed_stores_no_duplicates(serve: Any) -> None:
    store = LateStore()
    words = [f"w{i} " for i in range(20)]
    llm = ScriptedLLM([Reply(chunks=words, chunk_delay=0.05)])
    app = create_app(FunctionAgent(llm=llm), store=store, store_timeout=1.0)
    srv = serve(app)
    live = parse_sse(post(srv.url, body("late")).content)
    wait_recorded(app)
    assert store.late
    assert anyio.run(store.load_events, ("codeact", "anonymous", "late"), "r1") == live


def test_a_second_server_on_the_same_db_refuses_to_start(tmp_path: Path) -> None:
    from tests.server.test_durable import ROOT, Served

    db = tmp_path / "one.db"
    first = Served(db, delay=0.05)
    try:
        import subprocess
        import sys

        cmd = [sys.executable, "-m", "codeact.cli", "serve", "--agent"]
        cmd += ["tests.server.serve_factory:slow", "--port", "0", "--db", str(db)]
        second = subprocess.run(cmd, cwd=ROOT, capture_output=True, timeout=60)
        assert second.returncode != 0
        assert b"in use by another codeact server" in second.stderr
        r = httpx.post(first.url + "/", json=body("t"), timeout=60)
        assert parse_sse(r.content)[-1]["type"] == "RUN_FINISHED"
        assert httpx.get(first.url + "/healthz").json()["status"] == "ok"
    finally:
        first.stop()


def test_no_event_is_stored_after_a_runs_end(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "s.db")
    key = ("a", "u", "t")

    async def main() -> list[dict[str, Any]]:
        await store.start_run(key, "r", [])
        await store.append_event_json(key, "r", ['{"type":"RUN_STARTED"}'])
        await store.finish_run(key, "r", "interrupted", [])
        await store.append_event_json(key, "r", ['{"type":"TEXT_MESSAGE_CONTENT"}'])
        events = await store.load_events(key, "r")
        await store.aclose()
        return events

    assert anyio.run(main) == [{"type": "RUN_STARTED"}]


def test_a_client_leaving_mid_body_logs_no_traceback(
    serve: Any, caplog: pytest.LogCaptureFixture
) -> None:
    srv = serve(create_app(FunctionAgent(llm=ScriptedLLM(["ok"])), store=MemoryStore()))
    caplog.set_level("DEBUG")
    head = (
        "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        "Content-Length: 1000\r\n\r\n"
    )
    with socket.create_connection(("127.0.0.1", srv.port)) as s:
        s.sendall(head.encode() + b'{"threadId": "x"')
    for _ in range(100):  # the server notices the disconnect (bounded)
        if any("disconnected" in r.getMessage() for r in caplog.records):
            break
        time.sleep(0.05)
    assert any("disconnected" in r.getMessage() for r in caplog.records)
    assert not [r for r in caplog.records if r.levelname in ("ERROR", "CRITICAL")]
    assert post(srv.url, body("after")).status_code == 200


def test_last_event_id_past_the_end_is_400(serve: Any) -> None:
    app = create_app(FunctionAgent(llm=ScriptedLLM(["one"])), store=MemoryStore())
    srv = serve(app)
    events = parse_sse(post(srv.url, body("past")).content)
    wait_recorded(app)
    n = len(events)
    for last in (n, n + 100):
        r = post(srv.url, body("past"), headers={"Last-Event-ID": str(last)})
        assert r.status_code == 400 and r.json()["code"] == "bad_last_event_id"
        r = post(srv.url, {"threadId": "past", "runId": "r1", "lastEventId": last}, "/connect")
        assert r.status_code == 400 and r.json()["code"] == "bad_last_event_id"
    caught_up = post(srv.url, body("past"), headers={"Last-Event-ID": str(n - 1)})
    assert parse_sse(caught_up.content) == events[-1:]  # the terminal event again


def slow_llm(gate: threading.Event) -> Any:
    from codeact.llms import FunctionLLM

    async def reply(messages: Any, tools: Any) -> str:
        await anyio.to_thread.run_sync(gate.wait, 60)
        return "ok"

    return FunctionLLM(reply)


def test_max_sessions_closes_the_oldest_idle_then_refuses_when_all_are_busy(
    serve: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from codeact.server import _sessions

    monkeypatch.setattr(_sessions, "CONTEXTS_PER_SLOT", 1)  # (contexts: as many as sandboxes)
    monkeypatch.setattr(_sessions, "MIN_CONTEXTS", 0)
    gate = threading.Event()
    gate.set()
    app = create_app(FunctionAgent(llm=slow_llm(gate)), store=MemoryStore(), max_sessions=2)
    srv = serve(app)
    sessions = app.state.server.sessions
    for thread in ("a", "b", "c"):
        assert post(srv.url, body(thread)).status_code == 200
        wait_recorded(app)
    assert sorted(k[2] for k in sessions) == ["b", "c"]  # "a", the oldest idle, made room
    gate.clear()
    results: list[httpx.Response] = []
    busy = [
        threading.Thread(target=lambda t=t: results.append(post(srv.url, body(t, "r2"))))
        for t in ("b", "c")
    ]
    for t in busy:
        t.start()
    for _ in range(400):
        if len(app.state.server.runs) == 2:
            break
        time.sleep(0.02)
    refused = post(srv.url, body("d"))
    assert refused.status_code == 429 and refused.json()["code"] == "too_many_sessions"
    assert int(refused.headers["retry-after"]) > 0  # says when to come back
    gate.set()
    for t in busy:
        t.join(60)
    assert [r.status_code for r in results] == [200, 200]
    wait_recorded(app)
    assert post(srv.url, body("d")).status_code == 200
    history = parse_sse(post(srv.url, {"threadId": "a"}, "/history").content)
    assert [m["role"] for m in history[1]["messages"]] == ["user", "assistant"]  # kept in store
