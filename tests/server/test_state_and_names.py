"""What a thread keeps: the agents' names across a handoff (as live), ``ctx.state`` (across a
restart), and the partial answer of a cancelled run — over real HTTP on 127.0.0.1."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from codeact.server import SQLiteStore, create_app
from tests.server.agui_check import check_stream, parse_sse


def body(thread: str, text: str, run: str = "r1") -> dict[str, Any]:
    return {"threadId": thread, "runId": run, "messages": [{"role": "user", "content": text}]}


def live_names(events: list[dict[str, Any]]) -> dict[str, str]:
    """The agent shown live for each assistant text (its message id) and tool call (its id)."""
    names, current = {}, ""
    for e in events:
        if e["type"] == "CUSTOM" and e["name"] == "codeact.agent":
            current = e["value"]["agentName"]
        elif e["type"] == "TEXT_MESSAGE_START":
            names[e["messageId"]] = current
        elif e["type"] == "TOOL_CALL_START":
            names[e["toolCallId"]] = current
    return names


def stored_names(messages: list[dict[str, Any]]) -> dict[str, str | None]:
    names = {}
    for m in messages:
        if m["role"] == "assistant":
            names[m["id"]] = m.get("name")
            names |= {c["id"]: m.get("name") for c in m.get("toolCalls", [])}
    return names


def snapshot(url: str, thread: str) -> list[dict[str, Any]]:
    history = parse_sse(httpx.post(url + "/history", json={"threadId": thread}).content)
    return next(e for e in history if e["type"] == "MESSAGES_SNAPSHOT")["messages"]


def test_handoff_names_survive_history_and_a_restart(serve: Any, tmp_path: Path) -> None:
    from tests.playground.agents import handoff

    db = tmp_path / "s.db"
    first = serve(create_app(handoff(), store=SQLiteStore(db)))
    live = parse_sse(httpx.post(first.url + "/", json=body("h", "are the numbers fine?")).content)
    assert check_stream(live)[-1] == "RUN_FINISHED"
    shown = live_names(live)
    assert set(shown.values()) == {"Triage", "Analyst"}, shown
    first.stop()
    again = serve(create_app(handoff(), store=SQLiteStore(db)))  # from the store alone
    stored = stored_names(snapshot(again.url, "h"))
    assert {i: stored.get(i) for i in shown} == shown


def test_a_cancelled_run_keeps_its_partial_answer(serve: Any, tmp_path: Path) -> None:
    from codeact import FunctionAgent
    from codeact.llms import Reply, ScriptedLLM
    from tests.server.replicas import Reader

    words = [f"w{i} " for i in range(300)]
    llm = ScriptedLLM([Reply(chunks=words, chunk_delay=0.02), "next answer"])
    db = tmp_path / "s.db"
    srv = serve(create_app(FunctionAgent(llm=llm), store=SQLiteStore(db)))
    reader = Reader(srv.url, body("c", "talk"), n=10)
    assert reader.ready.wait(30)
    assert httpx.post(srv.url + "/cancel", json={"threadId": "c"}).status_code == 200
    sent = reader.join(30).events()
    streamed = "".join(e["delta"] for e in sent if e["type"] == "TEXT_MESSAGE_CONTENT")
    assert 0 < len(streamed.split()) < 300
    messages = snapshot(srv.url, "c")
    assert [m["role"] for m in messages] == ["user", "assistant"]
    assert messages[1]["content"] == streamed
    more = parse_sse(httpx.post(srv.url + "/", json=body("c", "go on", "r2")).content)
    assert check_stream(more)[-1] == "RUN_FINISHED"  # the thread goes on after it
    assert [m["role"] for m in snapshot(srv.url, "c")] == ["user", "assistant"] * 2


def test_thread_state_is_stored_and_survives_a_restart(serve: Any, tmp_path: Path) -> None:
    from codeact import FunctionAgent
    from codeact.llms import ScriptedLLM

    db = tmp_path / "s.db"
    first = serve(create_app(FunctionAgent(llm=ScriptedLLM(["a"] * 3)), store=SQLiteStore(db)))
    sent = body("s", "hi") | {"state": {"count": 1, "tags": ["x"]}}
    assert check_stream(parse_sse(httpx.post(first.url + "/", json=sent).content))
    first.stop()
    again = serve(create_app(FunctionAgent(llm=ScriptedLLM(["b"] * 3)), store=SQLiteStore(db)))
    history = parse_sse(httpx.post(again.url + "/history", json={"threadId": "s"}).content)
    snap = [e["snapshot"] for e in history if e["type"] == "STATE_SNAPSHOT"]
    assert snap == [{"count": 1, "tags": ["x"]}]
    run = parse_sse(httpx.post(again.url + "/", json=body("s", "more", "r2")).content)
    assert check_stream(run)[-1] == "RUN_FINISHED"
    assert run[1] == {"type": "STATE_SNAPSHOT", "snapshot": {"count": 1, "tags": ["x"]}}


def test_state_is_stored_when_a_failed_run_end_is_retried(serve: Any) -> None:
    """The store refuses a run's end once: the retry stores the end and the state it left."""
    from codeact import FunctionAgent
    from codeact._messages import ChatMessage
    from codeact.llms import ScriptedLLM
    from codeact.server import MemoryStore
    from codeact.server.store import RunStatus, SessionKey
    from tests.helpers import wait_until

    class RefusesOneEnd(MemoryStore):
        def __init__(self) -> None:
            super().__init__()
            self.refuse = 1

        async def finish_run(
            self, key: SessionKey, run_id: str, status: RunStatus, messages: list[ChatMessage]
        ) -> None:
            if self.refuse:
                self.refuse -= 1
                raise OSError("the disk is full, for now")
            await super().finish_run(key, run_id, status, messages)

    store = RefusesOneEnd()
    first = serve(create_app(FunctionAgent(llm=ScriptedLLM(["a"])), store=store))
    sent = body("st", "hi") | {"state": {"count": 2}}
    assert check_stream(parse_sse(httpx.post(first.url + "/", json=sent).content))[-1] == (
        "RUN_FINISHED"
    )
    key = next(iter(store._runs))  # (app, user, thread) as the server keys it
    wait_until(lambda: store._runs[key].get("r1") == "finished", "the retried run end")
    again = serve(create_app(FunctionAgent(llm=ScriptedLLM(["b"])), store=store))
    history = parse_sse(httpx.post(again.url + "/history", json={"threadId": "st"}).content)
    assert [e["snapshot"] for e in history if e["type"] == "STATE_SNAPSHOT"] == [{"count": 2}]
