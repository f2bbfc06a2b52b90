"""Durable turns with a real ``codeact serve`` process: kill -9 mid-run and restart on the same
database (the turn shows as interrupted, its partial answer kept), SIGTERM drains live runs,
and a client re-attaches to a live run after a disconnect."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from codeact import FunctionAgent
from codeact.llms import Reply, ScriptedLLM
from codeact.server import MemoryStore, create_app
from tests.server.agui_check import check_stream, parse_sse

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port: int = sock.getsockname()[1]
    sock.close()
    return port


class Served:
    """``codeact serve --agent tests.server.serve_factory:slow`` in its own process."""

    def __init__(self, db: Path, *extra: str, delay: float = 0.1, factory: str = "slow") -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = dict(os.environ, CODEACT_TEST_DELAY=str(delay))
        cmd = [
            sys.executable,
            "-m",
            "codeact.cli",
            "serve",
            "--agent",
            f"tests.server.serve_factory:{factory}",
        ]
        cmd += ["--port", str(self.port), "--db", str(db), *extra]
        self.log = db.with_suffix(f".{self.port}.log")
        with self.log.open("wb") as log:  # a file, not a pipe nobody reads (it would fill up)
            self.proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=log)
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(self.url + "/healthz", timeout=2)
                return
            except httpx.HTTPError:
                assert self.proc.poll() is None, self.log.read_text()
                assert time.monotonic() < deadline, "codeact serve did not start"
                time.sleep(0.1)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[list[Served]]:
    started: list[Served] = []
    yield started
    for s in started:
        s.stop()


def body(thread: str, run: str = "r1", text: str = "go") -> dict[str, Any]:
    return {
        "threadId": thread,
        "runId": run,
        "messages": [{"id": f"u-{run}", "role": "user", "content": text}],
    }


def stream_until(url: str, payload: dict[str, Any], n_content: int, out: dict[str, Any]) -> None:
    """Read a run's stream; set ``out["ready"]`` after ``n_content`` text deltas; keep reading."""
    raw = b""
    try:
        with httpx.Client(timeout=60) as c, c.stream("POST", url + "/", json=payload) as r:
            for chunk in r.iter_bytes():
                raw += chunk
                out["raw"] = raw
                if raw.count(b"TEXT_MESSAGE_CONTENT") >= n_content:
                    out["ready"].set()
    except httpx.HTTPError as exc:
        out["error"] = exc
    out["raw"] = raw
    out["ready"].set()


def history(url: str, thread: str) -> list[dict[str, Any]]:
    r = httpx.post(url + "/history", json={"threadId": thread}, timeout=30)
    assert r.status_code == 200, r.text
    return parse_sse(r.content)


def test_kill_9_mid_run_then_restart_shows_the_interrupted_turn(
    served: list[Served], tmp_path: Path
) -> None:
    db = tmp_path / "sessions.db"
    first = Served(db)
    served.append(first)
    out: dict[str, Any] = {"ready": threading.Event()}
    reader = threading.Thread(target=stream_until, args=(first.url, body("crash"), 5, out))
    reader.start()
    assert out["ready"].wait(30)
    time.sleep(1.0)  # the events streamed so far reach the store (batched every 0.25 s)
    os.kill(first.proc.pid, signal.SIGKILL)
    first.proc.wait(10)
    reader.join(30)
    live = parse_sse(out["raw"].rsplit(b"\n\n", 1)[0] + b"\n\n")
    live_text = "".join(e.get("delta", "") for e in live if e["type"] == "TEXT_MESSAGE_CONTENT")
    assert live_text and not any(e["type"] in ("RUN_FINISHED", "RUN_ERROR") for e in live)

    second = Served(db)
    served.append(second)
    events = history(second.url, "crash")
    check_stream(events)
    runs = next(e for e in events if e["type"] == "CUSTOM" and e["name"] == "codeact.runs")["value"]
    assert runs == [{"runId": "r1", "status": "interrupted"}]
    messages = next(e for e in events if e["type"] == "MESSAGES_SNAPSHOT")["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant"]
    assert messages[0] == {"id": "u-r1", "role": "user", "content": "go"}  # stored at the start
    partial = messages[1]["content"]
    assert partial.startswith("w0 w1 ") and live_text.startswith(partial[: len(live_text) // 2])
    text_id = next(e["messageId"] for e in live if e["type"] == "TEXT_MESSAGE_START")
    assert messages[1]["id"] == text_id  # history ids are the live ids
    # the interrupted run's own record ends with a terminal event
    replay = httpx.post(
        second.url + "/connect", json={"threadId": "crash", "runId": "r1"}, timeout=30
    )
    replayed = parse_sse(replay.content)
    assert replayed[0]["type"] == "RUN_STARTED"
    assert replayed[-1]["type"] == "RUN_ERROR" and replayed[-1]["code"] == "interrupted"
    # and the thread goes on
    r = httpx.post(second.url + "/", json=body("crash", "r2", "again"), timeout=60)
    assert check_stream(parse_sse(r.content))[-1] == "RUN_FINISHED"


def test_sigterm_lets_live_runs_finish_then_exits(served: list[Served], tmp_path: Path) -> None:
    s = Served(tmp_path / "s.db", "--drain-timeout", "20", delay=0.01)
    served.append(s)
    out: dict[str, Any] = {"ready": threading.Event()}
    reader = threading.Thread(target=stream_until, args=(s.url, body("drain"), 3, out))
    reader.start()
    assert out["ready"].wait(30)
    s.proc.send_signal(signal.SIGTERM)
    time.sleep(0.5)
    try:  # no new run is accepted while draining
        late = httpx.post(s.url + "/", json=body("late"), timeout=10)
        assert late.status_code == 503 and late.json()["code"] == "unavailable"
    except httpx.ConnectError:
        pass  # the listening socket is already closed
    reader.join(60)
    events = parse_sse(out["raw"])
    assert check_stream(events)[-1] == "RUN_FINISHED"  # the run finished during the drain
    assert "".join(e.get("delta", "") for e in events).count("w") == 200
    assert s.proc.wait(30) == 143  # 128 + SIGTERM, after the drain (as run and batch)


def test_sigterm_cancels_what_outlives_the_drain_timeout(
    served: list[Served], tmp_path: Path
) -> None:
    db = tmp_path / "s.db"
    s = Served(db, "--drain-timeout", "1", delay=0.5)  # a 100 s answer
    served.append(s)
    out: dict[str, Any] = {"ready": threading.Event()}
    reader = threading.Thread(target=stream_until, args=(s.url, body("long"), 2, out))
    reader.start()
    assert out["ready"].wait(30)
    t0 = time.monotonic()
    s.proc.send_signal(signal.SIGTERM)
    reader.join(60)
    assert s.proc.wait(30) == 143 and time.monotonic() - t0 < 20
    events = parse_sse(out["raw"])
    assert check_stream(events)[-1] == "RUN_FINISHED"  # cancelled cleanly: a terminal event
    again = Served(db)
    served.append(again)
    runs = next(e for e in history(again.url, "long") if e["type"] == "CUSTOM")["value"]
    assert runs == [{"runId": "r1", "status": "cancelled"}]


@pytest.mark.parametrize("live_frames", [2048, 8])  # 8: the missed frames left memory
def test_reattach_after_a_disconnect_gets_the_missed_events(serve: Any, live_frames: int) -> None:
    words = [f"w{i} " for i in range(40)]
    llm = ScriptedLLM([Reply(chunks=words, chunk_delay=0.05)])
    app = create_app(FunctionAgent(llm=llm), store=MemoryStore(), live_frames=live_frames)
    srv = serve(app)
    first = b""
    with httpx.Client(timeout=30) as c, c.stream("POST", srv.url + "/", json=body("re")) as r:
        for chunk in r.iter_bytes():
            first += chunk
            if first.count(b"TEXT_MESSAGE_CONTENT") >= 5:
                break  # the client drops the connection mid-answer
    complete = first[: first.rindex(b"\n\n") + 2]
    seen = parse_sse(complete)
    last_id = int([ln for ln in complete.decode().split("\n") if ln.startswith("id: ")][-1][4:])
    assert last_id == len(seen) - 1
    if live_frames == 8:  # the run goes on meanwhile and drops the frames we missed
        live = next(iter(app.state.server.runs.values()))
        deadline = time.monotonic() + 30
        while live.base <= last_id + 1:
            assert time.monotonic() < deadline, "the live run kept its old frames"
            time.sleep(0.05)
        assert len(live.frames) < 40
    else:
        time.sleep(0.5)
    with httpx.Client(timeout=30) as c:
        rest = c.post(srv.url + "/", json=body("re"), headers={"Last-Event-ID": str(last_id)})
    assert rest.status_code == 200
    events = seen + parse_sse(rest.content)
    assert check_stream(events)[-1] == "RUN_FINISHED"
    assert "".join(e.get("delta", "") for e in events) == "".join(words)
    # /connect on the finished run replays it from the store; history ids equal the live ids
    with httpx.Client(timeout=30) as c:
        again = c.post(
            srv.url + "/connect", json={"threadId": "re", "runId": "r1", "lastEventId": 2}
        )
        assert parse_sse(again.content) == events[3:]
        h = parse_sse(c.post(srv.url + "/history", json={"threadId": "re"}).content)
    messages = next(e for e in h if e["type"] == "MESSAGES_SNAPSHOT")["messages"]
    text_id = next(e["messageId"] for e in events if e["type"] == "TEXT_MESSAGE_START")
    assert [m["id"] for m in messages] == ["u-r1", text_id]


def test_connect_follows_a_live_run(serve: Any) -> None:
    llm = ScriptedLLM([Reply(chunks=[f"w{i} " for i in range(30)], chunk_delay=0.05)])
    srv = serve(create_app(FunctionAgent(llm=llm), store=MemoryStore()))
    out: dict[str, Any] = {"ready": threading.Event()}
    reader = threading.Thread(target=stream_until, args=(srv.url, body("follow"), 2, out))
    reader.start()
    assert out["ready"].wait(30)
    with httpx.Client(timeout=30) as c:
        joined = parse_sse(c.post(srv.url + "/connect", json={"threadId": "follow"}).content)
    reader.join(30)
    assert joined == parse_sse(out["raw"])  # from the first event to the terminal one


def test_serve_token_mode_loopback_default_and_access_log(
    served: list[Served], tmp_path: Path
) -> None:
    token = tmp_path / "token"
    token.write_text("t0ken\n")
    s = Served(tmp_path / "a.db", "--token-file", str(token), "--access-log", delay=0)
    served.append(s)
    assert httpx.post(s.url + "/", json=body("tok"), timeout=30).status_code == 401
    ok = httpx.post(
        s.url + "/", json=body("tok"), headers={"Authorization": "Bearer t0ken"}, timeout=30
    )
    assert check_stream(parse_sse(ok.content))[-1] == "RUN_FINISHED"
    s.stop()
    log = s.log.read_text()
    assert "bearer token required" in log
    assert '"POST / HTTP/1.1" 401' in log and '"POST / HTTP/1.1" 200' in log  # access log

    open_host = Served(tmp_path / "b.db", "--host", "0.0.0.0", delay=0)  # no token given
    served.append(open_host)
    assert httpx.get(open_host.url + "/healthz", timeout=10).status_code == 200
    open_host.stop()
    assert "binding 127.0.0.1 only" in open_host.log.read_text()
