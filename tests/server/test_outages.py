"""Outages tell the truth, with real ``codeact serve`` replicas and a real PostgreSQL stopped and
restarted by the test: followers on another replica get a terminal event, store errors are 503
everywhere, and a replica paused past its lease (SIGSTOP) cannot overwrite a survivor's
decision when it resumes (fencing tokens)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Any

import httpx

from tests.server.agui_check import parse_sse
from tests.server.replicas import Reader, body, start_replicas
from tests.server.test_replicas import db_url, history_messages, wait_for

__all__ = ["db_url"]  # (the fixture, shared with test_replicas)


def test_followers_get_a_terminal_event_and_every_route_503_while_the_database_is_down(
    postgres: Any, db_url: str, tmp_path: Path
) -> None:
    a, b = start_replicas(db_url, tmp_path, 2, delay=0.05)
    try:
        reader = Reader(a.url, body("down"), n=3)
        assert reader.ready.wait(30)
        follower = Reader(b.url, {"threadId": "down"}, n=1, route="/connect")  # from the store
        assert follower.ready.wait(30)
        postgres.stop("fast")
        try:
            follower.join(30)
            assert follower.error is None, follower.error  # never a cut stream
            followed = follower.events()
            assert followed[-1]["type"] == "RUN_ERROR", followed[-1]
            assert followed[-1]["code"] == "store_unavailable"
            codes = [b.post("/", body(f"new{i}")).status_code for i in range(12)]
            assert codes == [503] * 12, codes  # new runs: 503, never 500
            for route in ("/history", "/connect", "/cancel"):
                t0 = time.monotonic()
                r = b.post(route, {"threadId": "down"})
                assert r.status_code == 503, (route, r.status_code, r.text[:200])
                assert time.monotonic() - t0 < 5 + 1  # (the store timeout, 5 s)
            t0 = time.monotonic()
            assert httpx.get(b.url + "/healthz", timeout=10).status_code == 503
            assert time.monotonic() - t0 < 1.0
            reader.join(30)
        finally:
            postgres.start()
        sent = reader.events()
        for r in (a, b):
            wait_for(lambda r=r: httpx.get(r.url + "/healthz", timeout=10).status_code == 200,
                     30, "healthz ok")  # fmt: skip
        wait_for(lambda: b.runs("down") == [{"runId": "r1", "status": "error"}], 30, "r1's end")
        record = parse_sse(b.post("/connect", {"threadId": "down", "runId": "r1"}).content)
        assert record == sent  # what is stored about the run is what its client was sent
    finally:
        a.stop()
        b.stop()


def test_a_replica_paused_past_its_lease_cannot_overwrite_the_survivors_decision(
    db_url: str, tmp_path: Path
) -> None:
    a, b = start_replicas(db_url, tmp_path, 2, delay=0.03, lease=1.5)
    try:
        reader = Reader(a.url, body("fence"), n=3)
        assert reader.ready.wait(30)
        os.kill(a.proc.pid, signal.SIGSTOP)
        try:
            wait_for(
                lambda: b.runs("fence") == [{"runId": "r1", "status": "interrupted"}],
                30,
                "the survivor marks the paused replica's run interrupted",
            )
            decided = history_messages(b, "fence")
        finally:
            os.kill(a.proc.pid, signal.SIGCONT)
        reader.join(60)  # the paused replica resumes and runs its turn to its end
        assert reader.events()[-1]["type"] == "RUN_FINISHED"
        wait_for(lambda: "is not stored" in a.log.read_text(), 30, "the fenced write")
        assert b.runs("fence") == [{"runId": "r1", "status": "interrupted"}]
        assert history_messages(b, "fence") == decided  # its messages were not overwritten
        record = parse_sse(b.post("/connect", {"threadId": "fence", "runId": "r1"}).content)
        assert record[-1]["type"] == "RUN_ERROR" and record[-1]["code"] == "interrupted"
    finally:
        a.stop()
        b.stop()
