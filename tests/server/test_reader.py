"""A live run's reader over real HTTP: a client leaving while frames flow is noticed (the run is
cancelled with ``cancel_on_disconnect``), and middleware a caller adds sees every frame."""

from __future__ import annotations

from typing import Any

import httpx

from codeact import FunctionAgent
from codeact.llms import Reply, ScriptedLLM
from codeact.server import MemoryStore, create_app
from tests.helpers import wait_until
from tests.server.agui_check import check_stream, parse_sse


def body(thread: str) -> dict[str, Any]:
    return {
        "threadId": thread,
        "runId": f"r-{thread}",
        "messages": [{"role": "user", "content": "hi"}],
    }


def runs_of(url: str, thread: str) -> list[dict[str, Any]]:
    with httpx.Client(timeout=10) as c:
        events = parse_sse(c.post(url + "/history", json={"threadId": thread}).content)
    return next(e["value"] for e in events if e.get("name") == "codeact.runs")


def test_a_client_leaving_a_flowing_stream_cancels_the_run(serve: Any) -> None:
    """Frames keep flowing (one every 5 ms for 30 s): the reader must notice the client gone
    while it writes, not only while the run is silent."""
    llm = ScriptedLLM([Reply(chunks=["w "] * 6000, chunk_delay=0.005)])
    app = create_app(FunctionAgent(llm=llm), store=MemoryStore(), cancel_on_disconnect=True)
    srv = serve(app)
    seen = 0
    with httpx.Client(timeout=10) as c, c.stream("POST", srv.url + "/", json=body("flow")) as r:
        for line in r.iter_lines():
            seen += "TEXT_MESSAGE_CONTENT" in line
            if seen == 20:
                break  # the client goes away mid-stream
    # (the answer alone takes at least 30 s: any end within 25 s is the client's leaving)
    ended = wait_until(
        lambda: (s := runs_of(srv.url, "flow")[-1]["status"]) != "running" and s,
        "the run to end after its client left",
        timeout=25,
    )
    assert ended == "cancelled"


class Shout:
    """Middleware of the caller's that rewrites response bodies (as compression would)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        async def loud(message: Any) -> None:
            if message["type"] == "http.response.body":
                message = {**message, "body": message["body"].replace(b'"w', b'"W')}
            await send(message)

        await self.app(scope, receive, loud)


def test_middleware_the_caller_adds_sees_every_frame(serve: Any) -> None:
    llm = ScriptedLLM([Reply(chunks=[f"w{i} " for i in range(50)])])
    app = create_app(FunctionAgent(llm=llm), store=MemoryStore())
    app.add_middleware(Shout)
    srv = serve(app)
    with httpx.Client(timeout=10) as c:
        r = c.post(srv.url + "/", json=body("loud"))
    events = parse_sse(r.content)
    check_stream(events)
    deltas = [e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT"]
    assert len(deltas) == 50 and all(d.startswith("W") for d in deltas), deltas[:3]
