"""The playground's routes over real HTTP: the page at /ui (only with ``ui=True``, with a
strict CSP), the authorised, size-limited file upload/download routes into a thread's sandbox,
and rich cells on the stream (``codeact.cell``) and in /history (``codeact.cells``)."""

from __future__ import annotations

import base64
import threading
import time
from typing import Any

import httpx
from starlette.requests import Request

from codeact import CodeActAgent, FunctionAgent
from codeact.executors.restricted import RestrictedExecutor
from codeact.llms import Reply, ScriptedLLM
from codeact.server import MemoryStore, Principal, create_app
from codeact.server._playground import MAX_UPLOAD_BYTES
from tests.server.agui_check import check_stream
from tests.server.test_agui_server import body, run


def by_name(request: Request) -> Principal | None:
    """``Authorization: Bearer <name>`` is the user ``name`` (two users in these tests)."""
    scheme, _, name = request.headers.get("authorization", "").partition(" ")
    return Principal(name) if scheme == "Bearer" and name in ("alice", "bob") else None


def codeact(replies: list[Any]) -> CodeActAgent:
    return CodeActAgent(
        llm=ScriptedLLM(replies, function_calling=False),
        executor=lambda: RestrictedExecutor(isolation="process", timeout=30),
    )


def post(url: str, route: str, payload: dict[str, Any], user: str | None = "alice") -> Any:
    headers = {"Authorization": f"Bearer {user}"} if user else {}
    return httpx.post(url + route, json=payload, headers=headers, timeout=30)


def upload(thread: str, name: str, data: bytes) -> dict[str, Any]:
    return {"threadId": thread, "name": name, "data": base64.b64encode(data).decode()}


def test_page_is_served_only_with_ui(serve: Any) -> None:
    """/ui redirects to /ui/, which serves the bundled page with a CSP; no ui, no page."""
    agent = FunctionAgent(llm=ScriptedLLM(["hi"]))
    srv = serve(create_app(agent, store=MemoryStore(), ui=True))
    r = httpx.get(srv.url + "/ui")
    assert (r.status_code, r.headers["location"]) == (307, "/ui/")
    page = httpx.get(srv.url + "/ui/")
    assert page.status_code == 200 and "<title>codeact playground</title>" in page.text
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert "http" not in page.text.replace("http-equiv", "")  # nothing from the internet
    script = httpx.get(srv.url + "/ui/assets/playground.js")
    assert script.status_code == 200 and "javascript" in script.headers["content-type"]
    config = httpx.get(srv.url + "/ui/config.json").json()
    assert config == {"path": "/", "auth": False}
    guarded = serve(create_app(agent, store=MemoryStore(), ui=True, authenticate=by_name))
    assert httpx.get(guarded.url + "/ui/config.json").json()["auth"] is True
    plain = serve(create_app(agent, store=MemoryStore()))
    assert httpx.get(plain.url + "/ui/").status_code == 404


def test_upload_then_download_round_trip_with_auth(serve: Any) -> None:
    """A file uploaded by its thread's owner is readable by a cell and downloadable; the
    routes need the caller's credentials and keep other users out."""
    agent = codeact(["<execute>\nprint(open('data.txt').read().upper())\n</execute>", "done"])
    srv = serve(create_app(agent, store=MemoryStore(), authenticate=by_name))
    assert post(srv.url, "/files/upload", upload("t", "data.txt", b"x"), None).status_code == 401
    ok = post(srv.url, "/files/upload", upload("t", "data.txt", b"hello file"))
    assert (ok.status_code, ok.json()) == (200, {"name": "data.txt", "size": 10})
    r = httpx.post(
        srv.url + "/", json=body("t", "read it"), headers={"Authorization": "Bearer alice"}
    )
    assert "HELLO FILE" in r.text
    down = post(srv.url, "/files/download", {"threadId": "t", "path": "data.txt"})
    assert (down.status_code, down.content) == (200, b"hello file")
    assert down.headers["content-disposition"] == 'attachment; filename="data.txt"'
    other = post(srv.url, "/files/download", {"threadId": "t", "path": "data.txt"}, "bob")
    assert other.status_code == 404
    missing = post(srv.url, "/files/download", {"threadId": "t", "path": "nope.txt"})
    assert missing.status_code == 404


def test_upload_refuses_bad_input(serve: Any) -> None:
    """Too large (413), bad base64, paths leaving the sandbox, no name (400), not JSON (415)."""
    srv = serve(create_app(codeact(["done"]), store=MemoryStore()))
    big = upload("t", "big.bin", b"\0" * (MAX_UPLOAD_BYTES + 1))
    assert post(srv.url, "/files/upload", big, None).status_code == 413
    cases = [
        {"threadId": "t", "name": "a.txt", "data": "not base64!"},
        upload("t", "../escape.txt", b"x"),
        upload("t", "/etc/passwd", b"x"),
        {"threadId": "t", "data": "eA=="},
        {"name": "a.txt", "data": "eA=="},
    ]
    for case in cases:
        r = post(srv.url, "/files/upload", case, None)
        assert r.status_code == 400, (case, r.text)
    form = httpx.post(
        srv.url + "/files/upload", content=b"x", headers={"Content-Type": "text/plain"}
    )
    assert form.status_code == 415


def test_upload_during_a_run_is_409_and_no_sandbox_is_404(serve: Any) -> None:
    """A thread with a run in progress takes no file; an agent without code has no sandbox."""
    slow = codeact([Reply(text="thinking slowly", delay=3)])
    srv = serve(create_app(slow, store=MemoryStore()))
    runner = threading.Thread(target=run, args=(srv.url, body("busy")))
    runner.start()
    try:
        deadline = time.monotonic() + 10
        while httpx.get(srv.url + "/healthz").json()["liveRuns"] == 0:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        r = post(srv.url, "/files/upload", upload("busy", "a.txt", b"x"), None)
        assert r.status_code == 409
    finally:
        runner.join(30)
    plain = serve(create_app(FunctionAgent(llm=ScriptedLLM(["hi"])), store=MemoryStore()))
    assert post(plain.url, "/files/upload", upload("t", "a.txt", b"x"), None).status_code == 404


def test_cells_on_the_stream_and_in_history(serve: Any) -> None:
    """Each cell's TOOL_CALL_RESULT is followed by CUSTOM codeact.cell; /history replays the
    thread's cells as one CUSTOM codeact.cells matching the snapshot's tool calls."""
    agent = codeact(
        ["<execute>\nprint('out')\n1 / 0\n</execute>", "<execute>\n2 + 3\n</execute>", "ok"]
    )
    srv = serve(create_app(agent, store=MemoryStore()))
    _, events = run(srv.url, body("h"))
    types = check_stream(events)
    cells = [e for e in events if e["type"] == "CUSTOM" and e["name"] == "codeact.cell"]
    assert len(cells) == 2
    first = types.index("CUSTOM", types.index("TOOL_CALL_RESULT"))
    assert events[first]["name"] == "codeact.cell"
    failed, fine = (c["value"] for c in cells)
    assert (
        failed["stdout"],
        failed["error"]["type"],
        failed["ok"],
    ) == ("out\n", "ZeroDivisionError", False)
    assert (fine["value"], fine["ok"]) == ("5", True)
    h = httpx.post(srv.url + "/history", json={"threadId": "h"})
    from tests.server.agui_check import parse_sse

    history = parse_sse(h.content)
    assert check_stream(history) == [
        "RUN_STARTED",
        "MESSAGES_SNAPSHOT",
        "CUSTOM",
        "CUSTOM",
        "RUN_FINISHED",
    ]
    replayed = next(e for e in history if e.get("name") == "codeact.cells")["value"]
    assert [c["value"] for c in cells] == replayed
    snapshot = next(e for e in history if e["type"] == "MESSAGES_SNAPSHOT")["messages"]
    call_ids = [c["id"] for m in snapshot for c in m.get("toolCalls", [])]
    assert call_ids == [c["toolCallId"] for c in replayed]
