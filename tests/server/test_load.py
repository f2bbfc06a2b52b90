"""The service under load: large valid bodies do not stall other callers' live streams, and
routes answer within the store timeout whatever the store does — over real HTTP on 127.0.0.1."""

from __future__ import annotations

import itertools
import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from codeact import FunctionAgent
from codeact.llms import ScriptedLLM
from codeact.server import SQLiteStore, create_app
from tests.helpers import wait_until
from tests.server.agui_check import check_stream, parse_sse
from tests.server.replicas import Replica


def body(thread: str, text: str = "hi", run: str = "r1") -> dict[str, Any]:
    return {"threadId": thread, "runId": run, "messages": [{"role": "user", "content": text}]}


def many_messages(thread: str, n: int) -> bytes:
    messages = [{"id": f"m{i}", "role": "user", "content": "hi"} for i in range(n)]
    return json.dumps({"threadId": thread, "runId": "r1", "messages": messages}).encode()


class Timed:
    """Reads one SSE stream in a thread, noting when each chunk arrived."""

    def __init__(self, url: str, payload: dict[str, Any]) -> None:
        self.stamps: list[float] = []
        self.raw = b""
        self.thread = threading.Thread(target=self._read, args=(url, payload))
        self.thread.start()

    def _read(self, url: str, payload: dict[str, Any]) -> None:
        with httpx.Client(timeout=60) as c, c.stream("POST", url, json=payload) as r:
            for chunk in r.iter_bytes():
                self.stamps.append(time.monotonic())
                self.raw += chunk

    def gaps(self, start: float, end: float) -> list[float]:
        inside = [t for t in self.stamps if start <= t <= end + 0.2]
        return [b - a for a, b in itertools.pairwise(inside)]


def test_large_bodies_do_not_stall_a_live_stream(tmp_path: Path) -> None:
    # (the server in its own process: the clients' work here does not share its GIL)
    server = Replica(str(tmp_path / "s.db"), tmp_path, factory="slow", delay=0.02).wait_ready()
    small = [many_messages(f"s{i}", 1) for i in range(3)]
    big = [many_messages("huge", 200_000), many_messages("ok1", 9_000)]
    big += [many_messages("ok2", 9_000)]
    try:
        live = Timed(server.url + "/", body("live"))
        wait_until(lambda: len(live.stamps) >= 5, "the live stream to flow", timeout=60)
        control, _ = send_all(server.url, small)  # the same requests, small: the machine's noise
        (t0, t1), results = send_all(server.url, big)
        live.thread.join(60)
    finally:
        server.stop()
    huge = results[0]
    assert huge.status_code == 413 and huge.json()["code"] == "too_many_items", huge.text
    assert [results[i].status_code for i in (1, 2)] == [200, 200]
    assert check_stream(parse_sse(live.raw))[-1] == "RUN_FINISHED"
    noise = max(live.gaps(*control))
    worst = max(live.gaps(t0, t1))
    assert worst < 0.2 + noise, f"the live stream stalled {worst:.3f} s (small bodies: {noise:.3f})"


def send_all(url: str, bodies: list[bytes]) -> tuple[tuple[float, float], dict[int, Any]]:
    """Post the bodies at once; the window they took and their responses (for a run: until
    its first event)."""
    results: dict[int, httpx.Response] = {}

    def send(i: int, data: bytes) -> None:
        with httpx.Client(timeout=60) as c:
            headers = {"content-type": "application/json"}
            with c.stream("POST", url + "/", content=data, headers=headers) as r:
                r.read() if r.status_code != 200 else next(r.iter_bytes())
                results[i] = r

    senders = [threading.Thread(target=send, args=(i, b)) for i, b in enumerate(bodies)]
    t0 = time.monotonic()
    for s in senders:
        s.start()
    for s in senders:
        s.join(60)
    return (t0, time.monotonic()), results


def test_history_cancel_and_healthz_answer_within_the_store_timeout(
    serve: Any, tmp_path: Path
) -> None:
    db = tmp_path / "s.db"
    agent = FunctionAgent(llm=ScriptedLLM(["done"] * 5))
    srv = serve(create_app(agent, store=SQLiteStore(db, busy_timeout=8), store_timeout=1.0))
    with httpx.Client(timeout=30) as c:
        assert c.post(srv.url + "/", json=body("t")).status_code == 200
        wait_until(
            lambda: (
                len(parse_sse(c.post(srv.url + "/history", json={"threadId": "t"}).content)) >= 4
            ),
            "the run's end to be stored",
            timeout=60,
        )
        locker = sqlite3.connect(db)
        locker.execute("BEGIN EXCLUSIVE")  # another process holds the database: writes stall
        try:  # (and the calls queued behind the stalled write)
            for route, payload in [("/", body("u")), ("/history", {"threadId": "t"})]:
                t0 = time.monotonic()
                r = c.post(srv.url + route, json=payload)
                took = time.monotonic() - t0
                assert r.status_code == 503 and r.json()["code"] == "unavailable", r.text
                assert took < 2.0, f"{route} took {took:.2f} s with a 1 s store timeout"
            t0 = time.monotonic()
            health = c.get(srv.url + "/healthz")
            assert health.status_code == 503 and time.monotonic() - t0 < 1.0
        finally:
            locker.rollback()
            locker.close()
        wait_until(
            lambda: c.get(srv.url + "/healthz").status_code == 200, "the stalled calls to end", 60
        )

        def status_of_u() -> list[tuple[str, ...]]:
            with sqlite3.connect(db) as con:
                runs = con.execute("SELECT status FROM runs WHERE thread = 'u'").fetchall()
                said = con.execute("SELECT count(*) FROM messages WHERE thread = 'u'").fetchone()
            return [*runs, said]

        # the start of the run refused 503 landed after the lock: stored as an error, not left
        # running, and the thread keeps no message of a request its client was told failed
        wait_until(lambda: status_of_u() == [("error",), (0,)], "the late start undone", 60)
        history = parse_sse(c.post(srv.url + "/history", json={"threadId": "t"}).content)
        assert history[1]["messages"][-1]["content"] == "done"
