"""Sizing: ``max_sessions`` bounds the sessions holding a sandbox, not the cheap ones without;
idle sandboxes past the warm ones are closed soon after a burst — over real HTTP."""

from __future__ import annotations

import time
from typing import Any

import httpx

from codeact import CodeActAgent, FunctionAgent
from codeact.llms import ScriptedLLM
from codeact.server import MemoryStore, create_app
from codeact.server._sessions import BURST_IDLE_S, holds_sandbox
from tests.helpers import wait_until
from tests.server.agui_check import check_stream, parse_sse


def body(thread: str) -> dict[str, Any]:
    return {"threadId": thread, "runId": "r1", "messages": [{"role": "user", "content": "go"}]}


def code_agent() -> CodeActAgent:
    replies = ["<execute>\nx = 1\nprint(x)\n</execute>", "done"] * 20
    return CodeActAgent(llm=ScriptedLLM(replies, function_calling=False), code_execute_fn=str)


def run_threads(app: Any, url: str, threads: list[str]) -> None:
    for t in threads:
        r = httpx.post(url + "/", json=body(t), timeout=30)
        assert check_stream(parse_sse(r.content))[-1] == "RUN_FINISHED"
        wait_until(lambda: not app.state.server.runs.unrecorded, "the run's end to be stored", 60)


def test_max_sessions_counts_sandboxes_not_cheap_sessions(serve: Any) -> None:
    cheap = create_app(
        FunctionAgent(llm=ScriptedLLM(["ok"] * 20)), store=MemoryStore(), max_sessions=2
    )
    run_threads(cheap, serve(cheap).url, ["a", "b", "c", "d", "e"])
    assert len(cheap.state.server.sessions) == 5  # no sandbox: not bound by the 2 sandboxes

    coded = create_app(code_agent(), store=MemoryStore(), max_sessions=2)
    run_threads(coded, serve(coded).url, ["a", "b", "c"])
    sessions = coded.state.server.sessions
    assert all(holds_sandbox(s) for s in sessions.values())
    assert sorted(k[2] for k in sessions) == ["b", "c"]  # "a", the oldest idle, made room


def test_a_burst_does_not_pin_its_idle_sandboxes(serve: Any) -> None:
    app = create_app(code_agent(), store=MemoryStore(), max_sessions=8, idle_close_s=600)
    run_threads(app, serve(app).url, ["a", "b", "c", "d", "e"])
    pool = app.state.server.sessions
    assert pool.expired(time.monotonic()) == []  # just used: all kept
    later = pool.expired(time.monotonic() + BURST_IDLE_S + 1)  # past the short grace
    assert sorted(k[2] for k in later) == ["a", "b", "c"]  # the 2 most recent stay warm
    assert len(pool.expired(time.monotonic() + 601)) == 5  # and all go after idle_close_s
