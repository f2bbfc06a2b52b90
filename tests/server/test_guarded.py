"""Who may do what (authenticate hook, owners, bearer token), the race-free 409, and failures
inside the server that end one run alone — over real HTTP on 127.0.0.1."""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from starlette.requests import Request

from codeact import FunctionAgent
from codeact._messages import ChatMessage
from codeact.context import Context
from codeact.llms import FunctionLLM, tool_call
from codeact.server import MemoryStore, Principal, SQLiteStore, bearer_token, create_app
from codeact.server.store import RunStatus, SessionKey
from tests.helpers import wait_until
from tests.server.agui_check import check_stream, parse_sse


def by_header(request: Request) -> Principal | None:
    user = request.headers.get("x-user")
    return Principal(user) if user else None


def slow_llm(seconds: float = 0.5) -> FunctionLLM:
    async def answer(messages: Any, tools: Any) -> str:
        await anyio.sleep(seconds)
        return "done"

    return FunctionLLM(answer)


def body(thread: str, text: str = "hi", run: str = "r1", **extra: Any) -> dict[str, Any]:
    return {
        "threadId": thread,
        "runId": run,
        "messages": [{"role": "user", "content": text}],
    } | extra


def post(url: str, path: str, payload: Any, user: str | None = None, **kw: Any) -> httpx.Response:
    headers = {"x-user": user} if user else {}
    with httpx.Client(timeout=30) as c:
        return c.post(url + path, json=payload, headers=headers, **kw)


def test_owners_alone_read_append_and_cancel_their_threads(serve: Any) -> None:
    srv = serve(
        create_app(FunctionAgent(llm=slow_llm(1.0)), store=MemoryStore(), authenticate=by_header)
    )
    anonymous = post(srv.url, "/", body("shared"))
    assert anonymous.status_code == 401 and anonymous.json()["code"] == "unauthorized"
    assert anonymous.headers["www-authenticate"] == "Bearer"

    # alice starts a run; the body's userId is ignored: the principal owns the thread
    results: dict[str, httpx.Response] = {}
    started = threading.Event()

    def alice_run() -> None:
        with (
            httpx.Client(timeout=30) as c,
            c.stream(
                "POST",
                srv.url + "/",
                json=body("shared", forwardedProps={"userId": "bob"}),
                headers={"x-user": "alice"},
            ) as r,
        ):
            raw = b""
            for chunk in r.iter_bytes():
                raw += chunk
                started.set()
            results["alice"] = r
            results["events"] = raw  # type: ignore[assignment]

    worker = threading.Thread(target=alice_run)
    worker.start()
    assert started.wait(20)
    assert post(srv.url, "/", body("shared", run="r2"), "bob").status_code == 403
    assert post(srv.url, "/cancel", {"threadId": "shared"}, "bob").status_code == 404
    assert post(srv.url, "/history", {"threadId": "shared"}, "bob").status_code == 404
    assert post(srv.url, "/connect", {"threadId": "shared"}, "bob").status_code == 404
    worker.join(30)
    events = parse_sse(results["events"])  # type: ignore[arg-type]
    assert check_stream(events)[-1] == "RUN_FINISHED"

    # after the run: still alice's; bob cannot append or read, alice can
    assert post(srv.url, "/", body("shared", run="r3"), "bob").status_code == 403
    assert post(srv.url, "/history", {"threadId": "shared"}, "bob").status_code == 404
    mine = post(srv.url, "/history", {"threadId": "shared"}, "alice")
    snapshot = next(e for e in parse_sse(mine.content) if e["type"] == "MESSAGES_SNAPSHOT")
    assert [m["role"] for m in snapshot["messages"]] == ["user", "assistant"]
    again = post(srv.url, "/", body("shared", "more", run="r4"), "alice")
    assert check_stream(parse_sse(again.content))[-1] == "RUN_FINISHED"
    # bob's own thread of the same name cannot exist: ids are one namespace per app
    assert post(srv.url, "/", body("bobs"), "bob").status_code == 200


def test_bearer_token_mode(serve: Any) -> None:
    srv = serve(
        create_app(
            FunctionAgent(llm=slow_llm(0)), store=MemoryStore(), authenticate=bearer_token("s3cret")
        )
    )
    with httpx.Client(timeout=30) as c:
        assert c.post(srv.url + "/", json=body("t")).status_code == 401
        wrong = c.post(srv.url + "/", json=body("t"), headers={"authorization": "Bearer nope"})
        assert wrong.status_code == 401
        ok = c.post(srv.url + "/", json=body("t"), headers={"authorization": "Bearer s3cret"})
        assert ok.status_code == 200 and check_stream(parse_sse(ok.content))[-1] == "RUN_FINISHED"
        assert c.get(srv.url + "/healthz").status_code == 200  # liveness needs no token


def test_csrf_and_dns_rebinding_defences(serve: Any) -> None:
    app = create_app(
        FunctionAgent(llm=slow_llm(0)), store=MemoryStore(), cors_origins=["https://ui.example"]
    )
    srv = serve(app)
    with httpx.Client(timeout=30) as c:
        # a cross-site "simple" request a web page may send without a preflight
        simple = c.post(
            srv.url + "/",
            content=b'{"threadId":"x"}',
            headers={"content-type": "text/plain", "origin": "https://ui.example"},
        )
        assert simple.status_code == 415
        evil = c.post(srv.url + "/", json=body("x"), headers={"origin": "https://evil.example"})
        assert evil.status_code == 403 and evil.json()["code"] == "bad_origin"
        ok = c.post(srv.url + "/", json=body("x"), headers={"origin": "https://ui.example"})
        assert ok.status_code == 200
        assert ok.headers["access-control-allow-origin"] == "https://ui.example"
        same = c.post(srv.url + "/", json=body("y"), headers={"origin": srv.url})
        assert same.status_code == 200  # a page served by this host
        rebound = c.post(srv.url + "/", json=body("z"), headers={"host": "attacker.example"})
        assert rebound.status_code == 421
        assert (
            c.post(
                srv.url + "/", json=body("w"), headers={"host": f"localhost:{srv.port}"}
            ).status_code
            == 200
        )
    wide = serve(
        create_app(
            FunctionAgent(llm=slow_llm(0)), store=MemoryStore(), allowed_hosts=["api.example"]
        )
    )
    with httpx.Client(timeout=30) as c:
        assert (
            c.post(wide.url + "/", json=body("a"), headers={"host": "api.example"}).status_code
            == 200
        )
        assert c.post(wide.url + "/", json=body("b")).status_code == 421


def test_simultaneous_first_requests_on_one_thread_exactly_one_runs(serve: Any) -> None:
    agent = FunctionAgent(llm=slow_llm(3.0))  # long enough for every request to arrive
    srv = serve(create_app(agent, store=MemoryStore()))
    n = 16
    barrier = threading.Barrier(n)
    statuses: list[int] = []

    def first(i: int) -> None:
        with httpx.Client(timeout=60) as c:
            barrier.wait()
            r = c.post(srv.url + "/", json=body("race", f"message {i}", run=f"r{i}"))
            statuses.append(r.status_code)

    workers = [threading.Thread(target=first, args=(i,)) for i in range(n)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(60)
    assert sorted(statuses) == [200] + [409] * (n - 1)
    h = post(srv.url, "/history", {"threadId": "race"})
    messages = next(e for e in parse_sse(h.content) if e["type"] == "MESSAGES_SNAPSHOT")["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant"]


class FlakyStore(MemoryStore):
    """A store that fails (or hangs) where told to."""

    def __init__(self) -> None:
        super().__init__()
        self.fail_events = False
        self.hang_finish = False
        self.fail_ping = False

    async def append_event_json(self, key: SessionKey, run_id: str, events: list[str]) -> None:
        if self.fail_events:
            raise OSError("disk full")
        await super().append_event_json(key, run_id, events)

    async def finish_run(
        self, key: SessionKey, run_id: str, status: RunStatus, messages: list[ChatMessage]
    ) -> None:
        if self.hang_finish:
            await anyio.sleep(3600)  # like a SQLite lock held forever
        await super().finish_run(key, run_id, status, messages)

    async def ping(self) -> None:
        if self.fail_ping:
            raise OSError("the database is gone")


def test_failures_inside_the_server_end_that_run_alone(serve: Any) -> None:
    def explode(events: list[Any]) -> list[Any]:
        if any(getattr(e, "delta", None) == "BOOM" for e in events):
            raise RuntimeError("a translator hook failed")
        return events

    async def answer(messages: Any, tools: Any) -> str:
        text = messages[-1].text
        await anyio.sleep(0.3)
        return "BOOM" if "explode" in text else "fine"

    store = FlakyStore()
    app = create_app(
        FunctionAgent(llm=FunctionLLM(answer)), store=store, after=[explode], store_timeout=0.5
    )
    srv = serve(app)
    healthy: dict[str, Any] = {}
    worker = threading.Thread(target=lambda: healthy.update(r=post(srv.url, "/", body("calm"))))
    worker.start()
    bad = post(srv.url, "/", body("hooked", "explode"))
    types = check_stream(parse_sse(bad.content))
    assert types[-1] == "RUN_ERROR"
    assert "RuntimeError" in parse_sse(bad.content)[-1]["message"]
    worker.join(30)
    assert check_stream(parse_sse(healthy["r"].content))[-1] == "RUN_FINISHED"

    store.fail_events = True  # the store fails while events are written
    r = post(srv.url, "/", body("diskfull"))
    assert check_stream(parse_sse(r.content))[-1] == "RUN_FINISHED"
    store.fail_events = False
    store.hang_finish = True  # the store hangs when the run ends
    r = post(srv.url, "/", body("locked"))
    assert check_stream(parse_sse(r.content))[-1] == "RUN_FINISHED"
    store.hang_finish = False
    r = post(srv.url, "/", body("locked", "again", run="r2"))
    assert r.status_code == 200 and check_stream(parse_sse(r.content))[-1] == "RUN_FINISHED"

    with httpx.Client() as c:
        assert c.get(srv.url + "/healthz").json() == {"status": "ok", "store": "ok", "liveRuns": 0}
        store.fail_ping = True
        down = c.get(srv.url + "/healthz")
        assert down.status_code == 503 and down.json()["store"] == "unreachable"


@pytest.mark.parametrize("mode", ["honour", "refuse"])
def test_system_messages_and_context_reach_the_prompt_or_are_refused(serve: Any, mode: str) -> None:
    seen: list[list[ChatMessage]] = []

    def answer(messages: Any, tools: Any) -> str:
        seen.append(list(messages))
        return "ok"

    srv = serve(
        create_app(
            FunctionAgent(llm=FunctionLLM(answer)), store=MemoryStore(), system_messages=mode
        )
    )
    payload = {
        "threadId": "sys",
        "runId": "r",
        "messages": [
            {"role": "system", "content": "Answer in French."},
            {"role": "user", "content": "hi"},
        ],
        "context": [{"description": "user's timezone", "value": "Europe/Paris"}],
    }
    r = post(srv.url, "/", payload)
    if mode == "refuse":
        assert r.status_code == 400 and "system" in r.json()["error"]
        return
    assert r.status_code == 200
    system = [m.text for m in seen[0] if m.role == "system"]
    assert "Answer in French." in system
    assert any("user's timezone: Europe/Paris" in s for s in system)


def set_city(ctx: Context, city: str) -> str:
    """Remember the user's city."""
    ctx.state["city"] = city
    return f"city set to {city}"


def test_request_state_reaches_the_agent_and_changes_stream_back(serve: Any) -> None:
    seen: list[str] = []

    def answer(messages: Any, tools: Any) -> Any:
        seen.append(messages[-1].text)
        if messages[-1].role == "user":
            return tool_call("set_city", city="Paris")
        return "noted"

    agent = FunctionAgent(llm=FunctionLLM(answer), tools=[set_city])
    srv = serve(create_app(agent, store=MemoryStore()))
    payload = body("state", state={"plan": "pro", "city": "Rome"})
    events = parse_sse(post(srv.url, "/", payload).content)
    types = check_stream(events)
    assert types[:2] == ["RUN_STARTED", "STATE_SNAPSHOT"]
    assert events[1]["snapshot"] == {"plan": "pro", "city": "Rome"}
    assert '"plan": "pro"' in seen[0]  # the state is in the prompt
    delta = next(e for e in events if e["type"] == "STATE_DELTA")
    assert delta["delta"] == [{"op": "replace", "path": "/city", "value": "Paris"}]
    assert types.index("STATE_DELTA") < types.index("RUN_FINISHED")
    h = parse_sse(post(srv.url, "/history", {"threadId": "state"}).content)
    snapshot = next(e for e in h if e["type"] == "STATE_SNAPSHOT")["snapshot"]
    assert snapshot == {"plan": "pro", "city": "Paris"}
    # an empty request state keeps the thread's state; a bad one is refused
    events = parse_sse(post(srv.url, "/", body("state", run="r2", state={})).content)
    assert events[1]["type"] == "STATE_SNAPSHOT" and events[1]["snapshot"]["city"] == "Paris"
    assert post(srv.url, "/", body("state", run="r3", state=[1])).status_code == 400


def test_a_real_sqlite_lock_when_a_run_ends_fails_that_write_alone(
    serve: Any, tmp_path: Path
) -> None:
    db = tmp_path / "s.db"
    srv = serve(
        create_app(FunctionAgent(llm=slow_llm(1.0)), store=SQLiteStore(db, busy_timeout=0.5))
    )
    out: dict[str, Any] = {}
    started = threading.Event()

    def first() -> None:
        raw = b""
        with httpx.Client(timeout=30) as c, c.stream("POST", srv.url + "/", json=body("lk")) as r:
            for chunk in r.iter_bytes():
                raw += chunk
                started.set()
        out["raw"] = raw

    worker = threading.Thread(target=first)
    worker.start()
    assert started.wait(20)  # the run started: its user message is stored
    locker = sqlite3.connect(db)
    locker.execute("BEGIN EXCLUSIVE")  # another process holds the write lock past the run's end
    try:
        worker.join(30)
        sent = parse_sse(out["raw"])  # the run stops: its events cannot be stored
        assert check_stream(sent)[-1] == "RUN_ERROR" and sent[-1]["code"] == "store_unavailable"
        refused = post(srv.url, "/", body("other"))  # cannot record its start: refused cleanly
        assert refused.status_code == 503 and refused.json()["code"] == "unavailable"
        busy = post(srv.url, "/", body("lk", "more", run="r2"))  # r1's end is not stored yet
        assert busy.status_code == 503 and "not stored yet" in busy.json()["error"]
    finally:
        locker.rollback()
        locker.close()
    # r1's end and events are stored once the store can take them; until then 503
    again = wait_until(
        lambda: (r := post(srv.url, "/", body("lk", "more", run="r2"))).status_code != 503 and r,
        "the thread to take a new run",
        timeout=60,
    )
    assert isinstance(again, httpx.Response)
    stored = parse_sse(post(srv.url, "/connect", {"threadId": "lk", "runId": "r1"}).content)
    assert stored == sent  # the record holds what the client was sent
    assert check_stream(parse_sse(again.content))[-1] == "RUN_FINISHED"
    with httpx.Client() as c:
        assert c.get(srv.url + "/healthz").json()["status"] == "ok"


def test_a_valid_7mb_body_is_parsed_off_the_loop_beside_a_healthy_run(serve: Any) -> None:
    async def answer(messages: Any, tools: Any) -> str:
        await anyio.sleep(0.3)  # (the memory's token window may leave the 7 MB message out)
        return "done"

    srv = serve(create_app(FunctionAgent(llm=FunctionLLM(answer)), store=MemoryStore()))
    healthy: dict[str, Any] = {}
    worker = threading.Thread(target=lambda: healthy.update(r=post(srv.url, "/", body("calm"))))
    worker.start()
    big = post(srv.url, "/", body("big", "x" * (7 * 1024 * 1024)))
    assert big.status_code == 200, big.text
    assert parse_sse(big.content)[-1]["type"] == "RUN_FINISHED", parse_sse(big.content)[-1]
    worker.join(30)
    assert check_stream(parse_sse(healthy["r"].content))[-1] == "RUN_FINISHED"


@pytest.mark.anyio
async def test_a_failure_in_the_runs_housekeeping_ends_that_run_with_an_error() -> None:
    """The run's timer (live cell output, flushes) fails: the run stops at once with a
    RUN_ERROR, as when translating one of its events fails (fault injected in ``tick``)."""
    from codeact.llms import Reply, ScriptedLLM
    from codeact.server._runs import LiveRun, drive
    from codeact.server.translator import Translator

    class FailingTick(Translator):
        def tick(self) -> list[Any]:
            raise RuntimeError("a hook failed on live output")

    agent = FunctionAgent(llm=ScriptedLLM([Reply(chunks=["a"] * 1000, chunk_delay=0.01)]))
    live = LiveRun(("app", "u", "t"), "t", "r", None)  # type: ignore[arg-type]
    live.handler = agent.run("go")
    live.translator = FailingTick("t", "r")
    live.translator.activity = True  # (as for an agent whose cells stream output)

    async def flush(run: LiveRun, batch: list[str], start: int) -> None:
        return None

    with anyio.fail_after(10):  # (1000 chunks 10 ms apart: only a stopped run ends now)
        await drive(live, flush)
    last = json.loads(live.frames[-1].split(b"data: ", 1)[1])
    assert last["type"] == "RUN_ERROR" and "RuntimeError" in last["message"], last
