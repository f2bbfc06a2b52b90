"""Whatever one caller sends, it gets a JSON 4xx and a concurrent healthy run finishes unharmed.

One uvicorn server on 127.0.0.1 for the whole table; each entry is sent while a healthy run
streams on another connection, and the healthy run must end with RUN_FINISHED.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import anyio
import httpx
import pytest

from codeact import FunctionAgent
from codeact.llms import FunctionLLM
from codeact.server import MemoryStore, create_app
from tests.server.agui_check import check_stream, parse_sse
from tests.server.conftest import LiveServer

LIMIT = 64 * 1024
S = "\\ud800"  # a lone surrogate, as JSON text
LOW = "\\udc00"


async def _healthy(messages: Any, tools: Any) -> str:
    await anyio.sleep(0.3)
    return "healthy answer"


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    app = create_app(
        FunctionAgent(llm=FunctionLLM(_healthy)),
        store=MemoryStore(),
        max_body_bytes=LIMIT,
        body_timeout=1.0,
    )
    srv = LiveServer(app, header_timeout=1.0).start()
    yield srv
    srv.stop()


def run_body(thread: str = "t", content: str = '"hi"', **fields: str) -> bytes:
    parts = {"threadId": json.dumps(thread), "runId": '"r1"', **fields}
    parts.setdefault("messages", '[{"role": "user", "content": ' + content + "}]")
    return ("{" + ", ".join(f'"{k}": {v}' for k, v in parts.items()) + "}").encode()


@dataclass
class Case:
    name: str
    body: bytes = b""
    method: str = "POST"
    path: str = "/"
    headers: dict[str, str] = field(default_factory=lambda: {"content-type": "application/json"})
    raw: bytes | None = None  # sent as is on a socket (malformed HTTP, slow clients)
    pause: float = 0.0  # seconds to wait after sending ``raw`` before reading
    status: int = 400


def j(name: str, body: bytes | str, status: int = 400, path: str = "/", **kw: Any) -> Case:
    data = body.encode() if isinstance(body, str) else body
    return Case(name, data, path=path, status=status, **kw)


def req(head: str) -> bytes:
    return head.replace("\n", "\r\n").encode()


NEST = 30_000
CASES = [
    # -- not JSON / not an object ------------------------------------------------------------
    j("bad json", "{not json"),
    j("array", "[1]"),
    j("string", '"hello"'),
    j("null", "null"),
    j("truncated", '{"threadId": "t", "runId": '),
    j("trailing garbage", run_body() + b" and more"),
    j("invalid utf-8", b'{"threadId": "\xff\xfe", "runId": "r", "messages": []}'),
    j("nan", run_body(state='{"x": NaN}')),
    j("infinity", run_body(state='{"x": -Infinity}')),
    # -- nesting and numbers -----------------------------------------------------------------
    j("deep arrays", "[" * NEST + "]" * NEST),
    j("deep objects", '{"a":' * 10_000 + "1" + "}" * 10_000),
    j("deep state", run_body(state='{"a":' * 200 + "1" + "}" * 200)),
    j("deep forwardedProps", run_body(forwardedProps="[" * 500 + "]" * 500)),
    j("huge int threadId", '{"threadId": ' + "9" * 5000 + ', "runId": "r", "messages": []}'),
    j("huge int in state", run_body(state='{"n": ' + "1" * 6000 + "}")),
    # -- lone surrogates in every id field (and content) -------------------------------------
    j("surrogate threadId", run_body(thread="x").replace(b'"x"', f'"{S}"'.encode())),
    j("surrogate runId", run_body(runId=f'"r{S}"')),
    j("surrogate parentRunId", run_body(parentRunId=f'"{S}"')),
    j("low surrogate runId", run_body(runId=f'"{LOW}"')),
    j(
        "surrogate message id",
        run_body(messages=f'[{{"id": "{S}", "role": "user", "content": "x"}}]'),
    ),
    j("surrogate content", run_body(content=f'"hi {S}"')),
    j("surrogate tool name", run_body(tools=f'[{{"name": "{S}", "description": "d"}}]')),
    j("surrogate context", run_body(context=f'[{{"description": "d", "value": "{S}"}}]')),
    j("surrogate key", run_body(forwardedProps=f'{{"{S}": 1}}')),
    j("surrogate state", run_body(state=f'{{"k": "{S}"}}')),
    j(
        "surrogate toolCallId",
        run_body(messages=f'[{{"id": "a", "role": "tool", "content": "x", "toolCallId": "{S}"}}]'),
    ),
    j("surrogate cancel", f'{{"threadId": "{S}"}}', path="/cancel"),
    j("surrogate history", f'{{"threadId": "{S}"}}', path="/history"),
    j("surrogate connect", f'{{"threadId": "{S}"}}', path="/connect"),
    # -- wrong types and shapes --------------------------------------------------------------
    j("threadId int", '{"threadId": 1, "runId": "r", "messages": []}', 422),
    j("runId list", '{"threadId": "t", "runId": [], "messages": []}', 422),
    j("empty threadId", run_body(thread=""), 422),
    j("messages object", run_body(messages="{}"), 422),
    j("messages ints", run_body(messages="[1, 2]"), 422),
    j("role wizard", run_body(messages='[{"role": "wizard", "content": "x"}]'), 422),
    j("content int", run_body(content="5"), 422),
    j("unknown part", run_body(content='[{"type": "hologram"}]'), 422),
    j("tools not list", run_body(tools='"all"'), 422),
    j("context string", run_body(context='"ctx"'), 422),
    j("state string", run_body(state='"s"'), 400),
    j("no messages", run_body(messages="[]")),
    j("last is assistant", run_body(messages='[{"role": "assistant", "content": "x"}]')),
    j("tool without id", run_body(messages='[{"role": "tool", "content": "x"}]'), 422),
    j(
        "tool answers nothing",
        run_body(messages='[{"role": "tool", "content": "x", "toolCallId": "nope"}]'),
    ),
    j(
        "bad base64",
        run_body(content='[{"type": "binary", "mimeType": "image/png", "data": "@@@"}]'),
    ),
    j("binary no mime", run_body(content='[{"type": "binary", "data": "aGk="}]')),
    j("cancel not object", "[]", path="/cancel"),
    j("cancel no threadId", "{}", path="/cancel"),
    j("cancel threadId int", '{"threadId": 3}', path="/cancel"),
    j("cancel unknown thread", '{"threadId": "nobody-here"}', 404, path="/cancel"),
    j("history no threadId", '{"runId": "r"}', path="/history"),
    j("connect bad lastEventId", '{"threadId": "t", "lastEventId": "x"}', path="/connect"),
    Case(
        "bad Last-Event-ID",
        run_body(),
        headers={"content-type": "application/json", "last-event-id": "abc"},
    ),
    # -- content types (CSRF: a cross-site form or text/plain POST) --------------------------
    Case("text/plain", run_body(), headers={"content-type": "text/plain"}, status=415),
    Case("no content type", run_body(), headers={}, status=415),
    Case("form", b"a=1", headers={"content-type": "application/x-www-form-urlencoded"}, status=415),
    Case(
        "multipart",
        b"--x--",
        headers={"content-type": "multipart/form-data; boundary=x"},
        status=415,
    ),
    # -- sizes --------------------------------------------------------------------------------
    j("oversized", b'{"x": "' + b"a" * (LIMIT + 10) + b'"}', 413),
    Case(
        "oversized chunked",
        status=413,
        raw=req(
            "POST / HTTP/1.1\nHost: 127.0.0.1\nContent-Type: application/json\n"
            "Transfer-Encoding: chunked\n\n"
        )
        + (b"%x\r\n" % (LIMIT + 10))
        + b"a" * (LIMIT + 10)
        + b"\r\n0\r\n\r\n",
    ),
    Case(
        "header without colon",
        status=400,
        raw=req("POST / HTTP/1.1\nHost: 127.0.0.1\nNoColonHere\n\n"),
    ),
    # -- slow clients -------------------------------------------------------------------------
    Case(
        "slow body",
        status=408,
        pause=2.5,
        raw=req(
            "POST / HTTP/1.1\nHost: 127.0.0.1\nContent-Type: application/json\n"
            "Content-Length: 100\n\n"
        )
        + b'{"threadId": ',
    ),
    Case(
        "slow headers",
        status=408,
        pause=2.5,
        raw=req("POST / HTTP/1.1\nHost: 127.0.0.1\nContent-Ty"),
    ),
    # -- malformed HTTP -----------------------------------------------------------------------
    Case("garbage request line", status=400, raw=b"\x16\x03\x01 hello\r\n\r\n"),
    Case(
        "bad content-length",
        status=400,
        raw=req("POST / HTTP/1.1\nHost: 127.0.0.1\nContent-Length: ten\n\n"),
    ),
    Case(
        "conflicting lengths",
        status=400,
        raw=req("POST / HTTP/1.1\nHost: 127.0.0.1\nContent-Length: 5\nContent-Length: 7\n\nhello"),
    ),
    # -- methods, paths, hosts, origins ------------------------------------------------------
    Case("GET run", method="GET", status=405),
    Case("PUT run", b"{}", method="PUT", status=405),
    Case("DELETE cancel", method="DELETE", path="/cancel", status=405),
    Case("GET history", method="GET", path="/history", status=405),
    Case("POST healthz", b"{}", path="/healthz", status=405),
    Case("unknown path", b"{}", path="/nope", status=404),
    Case("GET unknown", method="GET", path="/admin/../../etc/passwd", status=404),
    Case(
        "evil host",
        run_body(),
        status=421,
        headers={"content-type": "application/json", "host": "evil.example"},
    ),
    Case(
        "rebinding host",
        run_body(),
        status=421,
        headers={"content-type": "application/json", "host": "127.0.0.1.nip.io:8000"},
    ),
    Case(
        "cross-site origin",
        run_body(),
        status=403,
        headers={"content-type": "application/json", "origin": "https://evil.example"},
    ),
]


def send_raw(srv: LiveServer, data: bytes, pause: float) -> tuple[int, dict[str, Any]]:
    with socket.create_connection(("127.0.0.1", srv.port), timeout=10) as sock:
        with contextlib.suppress(OSError):  # the server may close early (oversized)
            sock.sendall(data)
        time.sleep(pause)
        chunks = []
        while True:
            try:
                chunk = sock.recv(65536)
            except (ConnectionResetError, TimeoutError):
                break
            if not chunk:
                break
            chunks.append(chunk)
    raw = b"".join(chunks)
    head, _, body = raw.partition(b"\r\n\r\n")
    status = int(head.split(b" ")[1])
    assert b"application/json" in head.lower(), head
    if b"transfer-encoding: chunked" in head.lower():
        body = body.split(b"\r\n", 1)[1].rsplit(b"\r\n0\r\n", 1)[0]
    return status, json.loads(body)


class Healthy:
    """A run streaming on its own connection while a hostile request is sent."""

    def __init__(self, srv: LiveServer, thread: str) -> None:
        self.srv, self.thread = srv, thread
        self.started = threading.Event()
        self.events: list[dict[str, Any]] = []
        self.worker = threading.Thread(target=self._run)
        self.worker.start()
        assert self.started.wait(20), "the healthy run did not start"

    def _run(self) -> None:
        payload = {
            "threadId": self.thread,
            "runId": "h",
            "messages": [{"role": "user", "content": "hi"}],
        }
        raw = b""
        with httpx.Client(timeout=30) as c, c.stream("POST", self.srv.url + "/", json=payload) as r:
            for chunk in r.iter_bytes():
                raw += chunk
                self.started.set()
        self.started.set()
        self.events = parse_sse(raw)

    def finished(self) -> list[str]:
        self.worker.join(30)
        return check_stream(self.events)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_hostile_request_gets_json_4xx_and_a_healthy_run_finishes(
    server: LiveServer, case: Case
) -> None:
    healthy = Healthy(server, f"healthy-{case.name}")
    if case.raw is not None:
        status, body = send_raw(server, case.raw, case.pause)
    else:
        with httpx.Client(timeout=30) as c:
            r = c.request(
                case.method, server.url + case.path, content=case.body, headers=case.headers
            )
        assert r.headers["content-type"].startswith("application/json"), r.text[:200]
        status, body = r.status_code, r.json()
    assert status == case.status, body
    assert set(body) == {"error", "code", "status"} and body["status"] == status
    assert healthy.finished()[-1] == "RUN_FINISHED"
    with httpx.Client(timeout=10) as c:
        assert c.get(server.url + "/healthz").json()["status"] == "ok"


def test_the_table_is_large_enough() -> None:
    assert len(CASES) >= 50
