"""``stream_interval_s``: a live run's reader writes at most that often (frames published
meanwhile go out in one write), the first frame at once and the terminal event without
waiting; 0 writes each frame as it comes. Through the app's ASGI interface, with a send that
records each write."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest

from codeact import FunctionAgent
from codeact.llms import Reply, ScriptedLLM
from codeact.server import MemoryStore, create_app
from tests.server.agui_check import check_stream, parse_sse

pytestmark = pytest.mark.anyio


async def writes_of(reply: Reply, **options: Any) -> list[bytes]:
    """The body writes of one run's response, in order."""
    app = create_app(FunctionAgent(llm=ScriptedLLM([reply])), store=MemoryStore(), **options)
    body = json.dumps(
        {"threadId": "t", "runId": "r", "messages": [{"id": "m", "role": "user", "content": "hi"}]}
    ).encode()
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/",
        "raw_path": b"/",
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"127.0.0.1:8000"), (b"content-type", b"application/json")],
        "client": ("127.0.0.1", 5000),
        "server": ("127.0.0.1", 8000),
        "state": {},
    }
    writes: list[bytes] = []
    done = anyio.Event()
    asked = False

    async def receive() -> dict[str, Any]:
        nonlocal asked
        if not asked:
            asked = True
            return {"type": "http.request", "body": body, "more_body": False}
        await done.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.body":
            if message.get("body"):
                writes.append(message["body"])
            if not message.get("more_body"):
                done.set()

    async with app.router.lifespan_context(app):
        with anyio.fail_after(30):
            await app(scope, receive, send)
    return writes


def deltas(writes: list[bytes]) -> list[str]:
    events = parse_sse(b"".join(writes))
    check_stream(events)
    return [e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT"]


PACED = Reply(chunks=[f"w{i} " for i in range(20)], chunk_delay=0.02)


async def test_frames_within_the_interval_go_out_together() -> None:
    writes = await writes_of(PACED, stream_interval_s=0.1)
    assert deltas(writes) == [f"w{i} " for i in range(20)]
    # 20 pieces 20 ms apart (400 ms or more) in writes at most every 100 ms: a handful
    assert len(writes) <= 8, len(writes)
    assert b"RUN_STARTED" in writes[0]  # (the first frame at once)


async def test_interval_zero_writes_each_frame_as_it_comes() -> None:
    writes = await writes_of(PACED, stream_interval_s=0)
    assert deltas(writes) == [f"w{i} " for i in range(20)]
    assert len(writes) >= 12, len(writes)  # (a loaded loop may still join a few)


async def test_the_terminal_event_does_not_wait_for_the_interval() -> None:
    """With a 60 s interval, the run (a few ms) still ends at once: the run's end wakes the
    reader; only the frames between writes wait."""
    with anyio.fail_after(20):
        writes = await writes_of(
            Reply(chunks=["a ", "b "], chunk_delay=0.005), stream_interval_s=60
        )
    assert deltas(writes) == ["a ", "b "]
    assert b"RUN_FINISHED" in writes[-1]
