"""Real ``codeact serve`` replicas sharing one PostgreSQL database, each in its own process on
loopback, and the small client the replica tests spread their requests with."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from tests.server.agui_check import parse_sse
from tests.server.pg import free_port

ROOT = Path(__file__).resolve().parents[2]


class Replica:
    """``codeact serve --db postgresql://... --agent tests.server.serve_factory:<factory>``."""

    def __init__(
        self,
        db_url: str,
        logs: Path,
        *,
        factory: str = "slow",
        delay: float = 0.1,
        lease: float = 2,
    ) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = dict(os.environ, CODEACT_TEST_DELAY=str(delay))
        cmd = [sys.executable, "-m", "codeact.cli", "serve"]
        cmd += ["--agent", f"tests.server.serve_factory:{factory}", "--port", str(self.port)]
        cmd += ["--db", db_url, "--store-timeout", "5", "--drain-timeout", "2"]
        if db_url.startswith("postgres"):
            cmd += ["--db-timeout", "1", "--replica-lease", str(lease)]
        self.log = logs / f"replica-{self.port}.log"
        with self.log.open("wb") as log:
            self.proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=log)

    def wait_ready(self, timeout: float = 60) -> Replica:
        deadline = time.monotonic() + timeout
        while True:
            try:
                if httpx.get(self.url + "/healthz", timeout=2).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            assert self.proc.poll() is None, self.log.read_text()
            assert time.monotonic() < deadline, "codeact serve did not start"
            time.sleep(0.1)

    def post(self, route: str, payload: dict[str, Any], **kw: Any) -> httpx.Response:
        return httpx.post(self.url + route, json=payload, timeout=kw.pop("timeout", 60), **kw)

    def history(self, thread: str) -> list[dict[str, Any]]:
        r = self.post("/history", {"threadId": thread})
        assert r.status_code == 200, r.text
        return parse_sse(r.content)

    def runs(self, thread: str) -> list[dict[str, Any]]:
        events = self.history(thread)
        found = [
            e["value"] for e in events if e["type"] == "CUSTOM" and e["name"] == "codeact.runs"
        ]
        return found[0] if found else []

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)


def start_replicas(db_url: str, logs: Path, n: int = 3, **options: Any) -> list[Replica]:
    """``n`` replicas, started together (their imports overlap) and ready."""
    replicas = [Replica(db_url, logs, **options) for _ in range(n)]
    return [r.wait_ready() for r in replicas]


def body(thread: str, run: str = "r1", text: str = "go") -> dict[str, Any]:
    return {
        "threadId": thread,
        "runId": run,
        "messages": [{"id": f"u-{run}", "role": "user", "content": text}],
    }


class Reader:
    """Reads one SSE response in a thread; ``ready`` is set after ``n`` text deltas (or at the
    end), ``done`` at the end; ``raw`` holds what came so far."""

    def __init__(self, url: str, payload: dict[str, Any], n: int = 1, route: str = "/") -> None:
        self.raw = b""
        self.status = 0
        self.error: Exception | None = None
        self.ended_at = 0.0
        self.ready = threading.Event()
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._read, args=(url + route, payload, n))
        self.thread.start()

    def _read(self, url: str, payload: dict[str, Any], n: int) -> None:
        try:
            with httpx.Client(timeout=60) as c, c.stream("POST", url, json=payload) as r:
                self.status = r.status_code
                for chunk in r.iter_bytes():
                    self.raw += chunk
                    if self.raw.count(b"TEXT_MESSAGE_CONTENT") >= n:
                        self.ready.set()
        except httpx.HTTPError as exc:
            self.error = exc
        self.ended_at = time.monotonic()
        self.ready.set()
        self.done.set()

    def events(self) -> list[dict[str, Any]]:
        complete = self.raw[: self.raw.rfind(b"\n\n") + 2] if b"\n\n" in self.raw else b""
        return parse_sse(complete)

    def join(self, timeout: float = 60) -> Reader:
        self.thread.join(timeout)
        assert not self.thread.is_alive(), "the stream did not end"
        return self
