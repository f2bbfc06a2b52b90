"""The AG-UI server over real HTTP (uvicorn on 127.0.0.1), every stream protocol-checked."""

from __future__ import annotations

import base64
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from codeact import CodeActAgent, FunctionAgent
from codeact.llms import Reply, ScriptedLLM, tool_call
from codeact.server import MemoryStore, SQLiteStore, create_app
from tests.server.agui_check import check_stream, parse_sse


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def slow_tool(seconds: float) -> str:
    """Sleep, then answer."""
    time.sleep(seconds)
    return "slept"


def body(thread: str = "t1", text: str = "hi", **extra: Any) -> dict[str, Any]:
    return {
        "threadId": thread,
        "runId": f"r-{time.monotonic_ns()}",
        "messages": [{"role": "user", "content": text}],
        **extra,
    }


def run(
    url: str, payload: dict[str, Any], timeout: float = 30
) -> tuple[httpx.Response, list[dict[str, Any]]]:
    with httpx.Client(timeout=timeout) as client:
        r = client.post(url + "/", json=payload)
    events = parse_sse(r.content) if r.status_code == 200 else []
    return r, events


def test_plain_text_run(serve: Any) -> None:
    srv = serve(create_app(FunctionAgent(llm=ScriptedLLM(["Hello there"])), store=MemoryStore()))
    r, events = run(srv.url, body())
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/event-stream")
    assert r.headers["cache-control"] == "no-cache" and r.headers["x-accel-buffering"] == "no"
    types = check_stream(events)
    assert events[1]["value"]["agentName"] == "Agent"  # CUSTOM codeact.agent: the active agent
    assert types == [
        "RUN_STARTED",
        "CUSTOM",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "RUN_FINISHED",
    ]
    assert (
        "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT") == "Hello there"
    )


def test_server_tool_call(serve: Any) -> None:
    agent = FunctionAgent(
        llm=ScriptedLLM([tool_call("add", id="c1", a=2, b=3), "It is 5"]), tools=[add]
    )
    srv = serve(create_app(agent, store=MemoryStore()))
    _, events = run(srv.url, body())
    check_stream(events)
    events = [e for e in events if e["type"] != "CUSTOM"]
    types = [e["type"] for e in events]
    assert types[:5] == [
        "RUN_STARTED",
        "TOOL_CALL_START",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_END",
        "TOOL_CALL_RESULT",
    ]
    start = events[1]
    assert start["toolCallName"] == "add" and start["toolCallId"] == "c1"
    assert events[2]["delta"] == '{"a": 2, "b": 3}'
    assert events[4]["content"] == "5" and events[4]["messageId"] != start["toolCallId"]


def test_codeact_cell_is_an_execute_tool_call_and_state_persists(serve: Any) -> None:
    llm = ScriptedLLM(
        ["<execute>\nx = 20\nprint(x * 2)\n</execute>", "40", "<execute>\nx + 1\n</execute>", "21"],
        function_calling=False,
    )
    srv = serve(create_app(CodeActAgent(llm=llm), store=MemoryStore(), activity=True))
    _, events = run(srv.url, body("code"))
    check_stream(events)
    start = next(e for e in events if e["type"] == "TOOL_CALL_START")
    assert start["toolCallName"] == "execute" and "parentMessageId" in start
    args = next(e for e in events if e["type"] == "TOOL_CALL_ARGS")
    assert "x = 20" in args["delta"]
    assert next(e for e in events if e["type"] == "TOOL_CALL_RESULT")["content"] == "40"
    activity = [e for e in events if e["type"] == "ACTIVITY_SNAPSHOT"]
    assert activity and activity[-1]["content"]["output"] == "40\n"
    _, events = run(srv.url, body("code", "again"))
    assert next(e for e in events if e["type"] == "TOOL_CALL_RESULT")["content"] == "Out: 21"


def test_error_mid_stream_gives_a_single_run_error(serve: Any) -> None:
    llm = ScriptedLLM([Reply(chunks=["partial "], text="partial "), ConnectionError("model gone")])
    llm.replies[0].tool_calls = [tool_call("add", a=1, b=1)]
    srv = serve(create_app(FunctionAgent(llm=llm, tools=[add]), store=MemoryStore()))
    _, events = run(srv.url, body())
    types = check_stream(events)
    assert types[-1] == "RUN_ERROR" and "RUN_FINISHED" not in types
    assert "model gone" in events[-1]["message"]


def test_concurrent_run_on_the_same_thread_gets_409_and_cancel(serve: Any) -> None:
    llm = ScriptedLLM([tool_call("slow_tool", seconds=3), "late"])
    srv = serve(create_app(FunctionAgent(llm=llm, tools=[slow_tool]), store=MemoryStore()))
    results: dict[str, Any] = {}

    def first() -> None:
        results["first"] = run(srv.url, body("busy", protocolVersion="1.0"))

    t = threading.Thread(target=first)
    t.start()
    time.sleep(0.6)
    second, _ = run(srv.url, body("busy"))
    assert second.status_code == 409 and "already has a run" in second.json()["error"]
    with httpx.Client() as c:
        assert c.post(srv.url + "/cancel", json={"threadId": "nope"}).status_code == 404
        t0 = time.monotonic()
        assert c.post(srv.url + "/cancel", json={"threadId": "busy"}).status_code == 200
    t.join(10)
    _, events = results["first"]
    types = check_stream(events)
    assert types[-1] == "RUN_FINISHED" and time.monotonic() - t0 < 5
    assert events[-1]["outcome"] == {"type": "cancelled"}  # the client declared protocol 1.0
    third, events = run(srv.url, body("busy"))
    assert third.status_code == 200  # the session key was freed


def test_disconnect_lets_the_run_finish_and_history_shows_it(serve: Any) -> None:
    llm = ScriptedLLM([tool_call("slow_tool", seconds=1), "finished after disconnect"])
    srv = serve(create_app(FunctionAgent(llm=llm, tools=[slow_tool]), store=MemoryStore()))
    with httpx.Client(timeout=10) as c, c.stream("POST", srv.url + "/", json=body("dc")) as r:
        for line in r.iter_lines():
            if "TOOL_CALL_START" in line:
                break  # the client goes away mid-run
    time.sleep(2)
    with httpx.Client() as c:
        h = c.post(srv.url + "/history", json={"threadId": "dc"})
    events = parse_sse(h.content)
    assert check_stream(events) == ["RUN_STARTED", "MESSAGES_SNAPSHOT", "CUSTOM", "RUN_FINISHED"]
    assert events[2]["name"] == "codeact.runs" and events[2]["value"][-1]["status"] == "finished"
    msgs = events[1]["messages"]
    assert [m["role"] for m in msgs] == ["user", "assistant", "tool", "assistant"]
    assert msgs[-1]["content"] == "finished after disconnect"
    assert msgs[1]["toolCalls"][0]["function"]["name"] == "slow_tool"


def test_cancel_on_disconnect_option_stops_the_run(serve: Any) -> None:
    llm = ScriptedLLM([tool_call("slow_tool", seconds=1), "should not be stored"])
    srv = serve(
        create_app(
            FunctionAgent(llm=llm, tools=[slow_tool]),
            store=MemoryStore(),
            cancel_on_disconnect=True,
        )
    )
    with httpx.Client(timeout=10) as c, c.stream("POST", srv.url + "/", json=body("dc2")) as r:
        for line in r.iter_lines():
            if "TOOL_CALL_START" in line:
                break
    time.sleep(2)
    with httpx.Client() as c:
        msgs = parse_sse(c.post(srv.url + "/history", json={"threadId": "dc2"}).content)[1][
            "messages"
        ]
    assert all(m.get("content") != "should not be stored" for m in msgs)
    assert len(llm.requests) == 1


def test_heartbeat_comments_during_a_silent_tool(serve: Any) -> None:
    llm = ScriptedLLM([tool_call("slow_tool", seconds=1.2), "done"])
    srv = serve(
        create_app(FunctionAgent(llm=llm, tools=[slow_tool]), store=MemoryStore(), heartbeat_s=0.3)
    )
    r, events = run(srv.url, body())
    assert r.content.count(b": ping\n\n") >= 2
    check_stream(events)


def test_history_survives_a_restart_with_sqlite(serve: Any, tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    srv = serve(create_app(FunctionAgent(llm=ScriptedLLM(["remembered"])), store=SQLiteStore(db)))
    run(srv.url, body("persist", "remember this"))
    srv.stop()
    again = serve(create_app(FunctionAgent(llm=ScriptedLLM(["second"])), store=SQLiteStore(db)))
    with httpx.Client() as c:
        events = parse_sse(c.post(again.url + "/history", json={"threadId": "persist"}).content)
    assert [m.get("content") for m in events[1]["messages"]] == ["remember this", "remembered"]
    again.stop()  # (one server per database file: it holds the file's lock)
    llm = ScriptedLLM(["third"])
    third = serve(create_app(FunctionAgent(llm=llm), store=SQLiteStore(db)))
    run(third.url, body("persist", "and now?"))
    assert [m.text for m in llm.requests[0].messages] == ["remember this", "remembered", "and now?"]


def test_multimodal_input_is_accepted(serve: Any) -> None:
    llm = ScriptedLLM(["I see an image"])
    srv = serve(create_app(FunctionAgent(llm=llm), store=MemoryStore()))
    png = base64.b64encode(b"\x89PNG fake").decode()
    payload = {
        "threadId": "mm",
        "runId": "r",
        "messages": [
            {
                "id": "u1",
                "role": "user",
                "content": [
                    {"type": "text", "text": "what is this?"},
                    {
                        "type": "image",
                        "source": {"type": "data", "value": png, "mimeType": "image/png"},
                    },
                    {
                        "type": "binary",
                        "mimeType": "text/csv",
                        "data": base64.b64encode(b"a,b").decode(),
                        "filename": "a.csv",
                    },
                ],
            }
        ],
        "tools": [],
        "context": [],
        "forwardedProps": {},
    }
    r, events = run(srv.url, payload)
    assert r.status_code == 200, r.text
    check_stream(events)
    sent = llm.requests[0].messages[-1]
    assert isinstance(sent.content, list) and len(sent.content) == 3


@pytest.mark.parametrize(
    "raw, status, fragment",
    [
        (b"{not json", 400, "not valid JSON"),
        (b"[1]", 400, "JSON object"),
        (
            b'{"threadId": "t", "runId": "r", "messages": [{"role": "wizard", "content": "x"}]}',
            422,
            "invalid RunAgentInput",
        ),
        (
            b'{"threadId": "t", "runId": "r", "messages": [{"role": "tool", "content": "x"}]}',
            422,
            "invalid RunAgentInput",
        ),
        (
            b'{"threadId": "t", "runId": "r", "messages": [{"role": "assistant", "content": "x"}]}',
            400,
            "must be the user",
        ),
        (b'{"threadId": "t", "runId": "r", "messages": []}', 400, "messages is empty"),
        (
            b'{"threadId": "t", "runId": "r", "messages": [{"role": "user", "content": [{"type": "image", "source": {"type": "data", "value": "!!bad!!", "mimeType": "image/png"}}]}]}',
            400,
            "base64",
        ),
    ],
)
def test_bad_input_is_rejected_before_any_sse(
    serve: Any, raw: bytes, status: int, fragment: str
) -> None:
    srv = serve(
        create_app(FunctionAgent(llm=ScriptedLLM(["x"])), store=MemoryStore(), max_body_bytes=4096)
    )
    with httpx.Client() as c:
        r = c.post(srv.url + "/", content=raw, headers={"content-type": "application/json"})
        assert r.status_code == status, r.text
        assert fragment in r.json()["error"]
        big = c.post(
            srv.url + "/", content=b"x" * 5000, headers={"content-type": "application/json"}
        )
        assert big.status_code == 413
        ok = c.post(srv.url + "/", json=body("after-bad"))
        assert ok.status_code == 200  # nothing was left locked


def test_codeact_serve_cli(tmp_path: Path) -> None:
    import socket
    import subprocess
    import sys

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "codeact.cli",
            "serve",
            "--agent",
            "tests.server.serve_factory:make",
            "--port",
            str(port),
            "--db",
            str(tmp_path / "s.db"),
        ],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        banner = proc.stdout.readline()
        assert f"http://127.0.0.1:{port}/" in banner
        url = f"http://127.0.0.1:{port}"
        for _ in range(100):
            try:
                r, events = run(url, body("cli"))
                break
            except httpx.ConnectError:
                time.sleep(0.1)
        assert r.status_code == 200
        check_stream(events)
        assert "served by the CLI" in "".join(e.get("delta", "") for e in events)
    finally:
        proc.terminate()
        proc.wait(10)


def test_caller_executed_tool_round_trip(serve: Any) -> None:
    llm = ScriptedLLM(
        [
            [tool_call("add", id="s1", a=1, b=2), tool_call("confirm", id="c1", question="ok?")],
            "Confirmed, and 1+2=3",
        ]
    )
    srv = serve(create_app(FunctionAgent(llm=llm, tools=[add]), store=MemoryStore()))
    tools = [
        {
            "name": "confirm",
            "description": "Ask the user to confirm",
            "parameters": {"type": "object", "properties": {"question": {"type": "string"}}},
        },
        {"name": "add", "description": "a clashing client tool", "parameters": {}},
    ]
    first = {
        "threadId": "ext",
        "runId": "r1",
        "messages": [{"id": "u1", "role": "user", "content": "go"}],
        "tools": tools,
    }
    _, events = run(srv.url, first)
    types = check_stream(events)
    assert types[-1] == "RUN_FINISHED"
    results = [e["toolCallId"] for e in events if e["type"] == "TOOL_CALL_RESULT"]
    assert results == ["s1"]  # the server tool ran; the caller's tool got no invented result
    started = [e["toolCallId"] for e in events if e["type"] == "TOOL_CALL_START"]
    assert started == ["s1", "c1"]
    offered = [t.name for t in llm.requests[0].tools]
    assert offered.count("add") == 1 and "confirm" in offered  # server tools win on clashes
    with httpx.Client() as c:
        snap = parse_sse(c.post(srv.url + "/history", json={"threadId": "ext"}).content)[1][
            "messages"
        ]
    assert [m["role"] for m in snap] == ["user", "assistant", "tool"]  # c1 still pending
    follow = {
        "threadId": "ext",
        "runId": "r2",
        "messages": [
            {"id": "u1", "role": "user", "content": "go"},
            {"id": "t1", "role": "tool", "toolCallId": "c1", "content": "yes"},
        ],
    }
    _, events = run(srv.url, follow)
    check_stream(events)
    assert "".join(e.get("delta", "") for e in events) == "Confirmed, and 1+2=3"
    fed = llm.requests[1].messages
    assert [(m.role, m.tool_call_id) for m in fed if m.role == "tool"] == [
        ("tool", "s1"),
        ("tool", "c1"),
    ]
    bad = {
        "threadId": "ext",
        "runId": "r3",
        "messages": [{"id": "t2", "role": "tool", "toolCallId": "nope", "content": "?"}],
    }
    r, _ = run(srv.url, bad)
    assert r.status_code == 400 and "no pending tool call" in r.json()["error"]


def test_resolvers_and_input_hook_read_forwarded_props(serve: Any) -> None:
    from codeact.server import BadRequest

    def hook(run_input: Any) -> Any:
        if "forbidden" in str(run_input.messages[-1].content):
            raise BadRequest(403, "this request is refused by the input hook")
        return run_input

    llm = ScriptedLLM(["a", "b", "c"])
    app = create_app(
        FunctionAgent(llm=llm),
        store=MemoryStore(),
        resolve_initial_state=lambda props: {"plan": props.get("plan", "free")},
        resolve_run_options=lambda props: {"max_iterations": 3},
        input_hook=hook,
    )
    srv = serve(app)
    run(srv.url, body("shared", "from alice", forwardedProps={"userId": "alice", "plan": "pro"}))
    run(srv.url, body("shared", "from bob", forwardedProps={"userId": "bob"}))
    assert '"plan": "pro"' in llm.requests[0].messages[-1].text
    assert '"plan": "free"' in llm.requests[1].messages[-1].text
    assert [
        m.text for m in llm.requests[1].messages if m.role == "assistant"
    ] == []  # bob's own thread
    with httpx.Client() as c:
        alice = parse_sse(
            c.post(
                srv.url + "/history",
                json={"threadId": "shared", "forwardedProps": {"userId": "alice"}},
            ).content
        )
        assert [m.get("content") for m in alice[1]["messages"]][-1] == "a"
    refused, _ = run(srv.url, body("shared", "forbidden thing"))
    assert refused.status_code == 403 and "input hook" in refused.json()["error"]


def test_codeact_history_shows_cells_as_execute_calls(serve: Any) -> None:
    llm = ScriptedLLM(["<execute>\nprint(6 * 7)\n</execute>", "It is 42."], function_calling=False)
    srv = serve(create_app(CodeActAgent(llm=llm), store=MemoryStore(), activity=True))
    _, _live = run(srv.url, body("cells", "6*7?"))
    with httpx.Client() as c:
        msgs = parse_sse(c.post(srv.url + "/history", json={"threadId": "cells"}).content)[1][
            "messages"
        ]
    assert [m["role"] for m in msgs] == ["user", "assistant", "tool", "assistant"]
    call = msgs[1]["toolCalls"][0]
    assert call["function"]["name"] == "execute" and "print(6 * 7)" in call["function"]["arguments"]
    assert msgs[2] == {
        "id": msgs[2]["id"],
        "role": "tool",
        "content": "42",
        "toolCallId": call["id"],
    }


def test_activity_snapshot_then_deltas_for_streamed_output(serve: Any) -> None:
    llm = ScriptedLLM(
        [
            "<execute>\nimport time\nfor i in range(3):\n    print(i)\n    time.sleep(0.3)\n</execute>",
            "done",
        ],
        function_calling=False,
    )
    srv = serve(create_app(CodeActAgent(llm=llm), store=MemoryStore(), activity=True))
    _, events = run(srv.url, body("act"))
    check_stream(events)
    acts = [e for e in events if e["type"].startswith("ACTIVITY")]
    assert acts[0]["type"] == "ACTIVITY_SNAPSHOT" and acts[0]["content"]["output"] == "0\n"
    assert all(a["type"] == "ACTIVITY_DELTA" for a in acts[1:]) and len(acts) == 3
    assert acts[-1]["patch"] == [{"op": "replace", "path": "/output", "value": "0\n1\n2\n"}]


def test_reasoning_agent_switches_hooks_timeout_and_cors(serve: Any) -> None:
    from codeact.events import AgentStream

    llm = ScriptedLLM([Reply(thinking="let me think", text="answer")])

    def shout(event: Any) -> Any:  # a before-hook rewriting text deltas
        if isinstance(event, AgentStream) and event.delta:
            return event.model_copy(update={"delta": event.delta.upper()})
        return event

    app = create_app(
        FunctionAgent(llm=llm, name="solver"),
        store=MemoryStore(),
        reasoning=True,
        before=[shout],
        after=[
            lambda evs: (
                [e for e in evs if e.type != "CUSTOM"] + [e for e in evs if e.type == "CUSTOM"]
            )
        ],
        cors_origins=["https://ui.example"],
    )
    srv = serve(app)
    _, events = run(srv.url, body("think"))
    types = check_stream(events)
    assert types[1:7] == [
        "CUSTOM",
        "REASONING_START",
        "REASONING_MESSAGE_START",
        "REASONING_MESSAGE_CONTENT",
        "REASONING_MESSAGE_END",
        "REASONING_END",
    ]
    assert events[1]["value"]["agentName"] == "solver"
    assert next(e for e in events if e["type"] == "REASONING_MESSAGE_START")["role"] == "reasoning"
    assert "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT") == "ANSWER"
    with httpx.Client() as c:
        pre = c.options(
            srv.url + "/",
            headers={"Origin": "https://ui.example", "Access-Control-Request-Method": "POST"},
        )
        assert pre.headers.get("access-control-allow-origin") == "https://ui.example"

    slow = serve(
        create_app(
            FunctionAgent(
                llm=ScriptedLLM([tool_call("slow_tool", seconds=3), "x"]), tools=[slow_tool]
            ),
            store=MemoryStore(),
        )
    )
    t0 = time.monotonic()
    _, events = run(slow.url, body("late", forwardedProps={"timeout": 0.5}))
    types = check_stream(events)
    assert types[-1] == "RUN_ERROR" and events[-1]["code"] == "timeout"
    assert time.monotonic() - t0 < 4.5


def test_idle_threads_release_their_sandbox(serve: Any) -> None:
    from codeact import RestrictedExecutor

    made: list[RestrictedExecutor] = []

    def factory() -> RestrictedExecutor:
        ex = RestrictedExecutor(isolation="process")
        made.append(ex)
        return ex

    llm = ScriptedLLM(["<execute>\nx = 1\n</execute>", "ok"], function_calling=False)
    app = create_app(CodeActAgent(llm=llm, executor=factory), store=MemoryStore(), idle_close_s=0.5)
    srv = serve(app)
    run(srv.url, body("idle"))
    assert made and made[0]._worker is not None  # the thread's sandbox is alive after the run
    time.sleep(1.6)
    assert len(app.state.server.sessions) == 0
    assert made[0]._closed and made[0]._worker is None
