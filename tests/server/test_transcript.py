"""The typed transcript through the real server (uvicorn on 127.0.0.1): /history names every
message and tool call as the live stream did, also after a restart on SQLite, and a thread
stored in the old prose format still loads and continues."""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Any

import anyio
import httpx

from codeact import CodeActAgent, ReActAgent
from codeact.llms import ScriptedLLM
from codeact.server import MemoryStore, SQLiteStore, create_app
from tests.server.agui_check import check_stream, parse_sse

KEY = ("codeact", "anonymous")


def body(thread: str, text: str) -> dict[str, Any]:
    return {
        "threadId": thread,
        "runId": f"r-{time.monotonic_ns()}",
        "messages": [{"id": f"u-{time.monotonic_ns()}", "role": "user", "content": text}],
    }


def live_run(url: str, payload: dict[str, Any]) -> list[dict[str, Any]]:
    with httpx.Client(timeout=60) as c:
        r = c.post(url + "/", json=payload)
    assert r.status_code == 200, r.text
    events = parse_sse(r.content)
    assert check_stream(events)[-1] == "RUN_FINISHED"
    return events


def history(url: str, thread: str) -> list[dict[str, Any]]:
    with httpx.Client(timeout=30) as c:
        r = c.post(url + "/history", json={"threadId": thread})
    assert r.status_code == 200, r.text
    snapshot = next(e for e in parse_sse(r.content) if e["type"] == "MESSAGES_SNAPSHOT")
    messages: list[dict[str, Any]] = snapshot["messages"]
    return messages


def codeact_llm() -> ScriptedLLM:
    return ScriptedLLM(
        [
            "Two cells.\n<execute>\nx = 6\nprint(x)\n</execute>\n<execute>\nprint(x * 7)\n</execute>",
            "<execute>\nx + 1\n</execute>",
            "It is 42.",
        ],
        function_calling=False,
    )


def test_history_ids_equal_the_live_stream_ids_also_after_a_restart(
    serve: Any, tmp_path: Path
) -> None:
    db = tmp_path / "ids.db"
    srv = serve(create_app(CodeActAgent(llm=codeact_llm()), store=SQLiteStore(db)))
    events = live_run(srv.url, body("ids", "compute"))
    live_calls = [e["toolCallId"] for e in events if e["type"] == "TOOL_CALL_START"]
    live_results = [
        (e["messageId"], e["toolCallId"], e["content"])
        for e in events
        if e["type"] == "TOOL_CALL_RESULT"
    ]
    live_texts = [e["messageId"] for e in events if e["type"] == "TEXT_MESSAGE_START"]
    parents = [e["parentMessageId"] for e in events if e["type"] == "TOOL_CALL_START"]
    assert len(live_calls) == 3 and len(live_texts) == 3
    assert parents == [live_texts[0], live_texts[0], live_texts[1]]

    def check(messages: list[dict[str, Any]]) -> None:
        assert [m["role"] for m in messages] == [
            "user",
            "assistant",
            "tool",
            "tool",
            "assistant",
            "tool",
            "assistant",
        ]
        calls = [c["id"] for m in messages for c in m.get("toolCalls", [])]
        assert calls == live_calls
        results = [
            (m["id"], m["toolCallId"], m["content"]) for m in messages if m["role"] == "tool"
        ]
        assert results == live_results
        assert [r[2] for r in results] == ["6", "42", "Out: 7"]
        assert [m["id"] for m in messages if m["role"] == "assistant"] == live_texts
        cells = [c["function"] for m in messages for c in m.get("toolCalls", [])]
        assert json.loads(cells[1]["arguments"]) == {"code": "print(x * 7)"}

    check(history(srv.url, "ids"))
    srv.stop()  # one server per database file
    again = serve(create_app(CodeActAgent(llm=ScriptedLLM([])), store=SQLiteStore(db)))
    check(history(again.url, "ids"))
    again.stop()
    # the store keeps typed turns: each cell's full ExecutionResult, no prose protocol
    with sqlite3.connect(db) as conn:  # (one row per message)
        rows = conn.execute("SELECT message FROM messages WHERE thread='ids' ORDER BY seq")
        stored = [json.loads(raw) for (raw,) in rows]
    assert [m["execution"]["stdout"] for m in stored if m["role"] == "tool"][:2] == ["6\n", "42\n"]
    assert not any("Execution result" in m["content"] for m in stored)


#: A thread as the previous version stored it: a CodeAct round as prose (the reply with its
#: block, then a user message with the block's result), no ``execution`` field.
OLD_ROW: list[dict[str, Any]] = [
    {"role": "user", "content": "what is 2 + 3?", "tool_calls": [], "tool_call_id": None,
     "name": None, "id": "u-old"},
    {"role": "assistant", "content": "<execute>\nprint(2 + 3)\n</execute>", "tool_calls": [],
     "tool_call_id": None, "name": None, "id": "msg-old"},
    {"role": "user", "content": "Execution result:\n5", "tool_calls": [], "tool_call_id": None,
     "name": None, "id": None},
    {"role": "assistant", "content": "It is 5.", "tool_calls": [], "tool_call_id": None,
     "name": None, "id": "msg-old-2"},
]  # fmt: skip


def test_a_thread_stored_in_the_old_format_still_loads_and_continues(
    serve: Any, tmp_path: Path
) -> None:
    db = tmp_path / "old.db"
    store = SQLiteStore(db)
    anyio.run(store.load_messages, (*KEY, "nothing"))  # creates the schema
    anyio.run(store.aclose)
    with sqlite3.connect(db) as conn:
        conn.execute(
            "INSERT INTO threads (app, user, thread, messages) VALUES (?, ?, ?, ?)",
            (*KEY, "old", json.dumps(OLD_ROW)),
        )
    llm = ScriptedLLM(["<execute>\nprint(5 * 2)\n</execute>", "It is 10."], function_calling=False)
    srv = serve(create_app(CodeActAgent(llm=llm), store=SQLiteStore(db)))
    before = history(srv.url, "old")
    assert [(m["id"], m.get("content")) for m in before] == [
        ("u-old", "what is 2 + 3?"),
        ("msg-old", "<execute>\nprint(2 + 3)\n</execute>"),
        ("m2", "Execution result:\n5"),
        ("msg-old-2", "It is 5."),
    ]
    events = live_run(srv.url, body("old", "and doubled?"))
    # the model sees the old turns exactly as before, then the new round in the same protocol
    sent = [(m.role, m.text) for m in llm.requests[1].messages[1:]]
    assert sent == [
        *((m["role"], m["content"]) for m in OLD_ROW),
        ("user", "and doubled?"),
        ("assistant", "<execute>\nprint(5 * 2)\n</execute>"),
        ("user", "Execution result:\n10"),
    ]
    after = history(srv.url, "old")
    assert after[:4] == before
    call_id = next(e["toolCallId"] for e in events if e["type"] == "TOOL_CALL_START")
    assert after[5]["toolCalls"][0]["id"] == call_id
    assert after[6] == {
        "id": f"tool-result-{call_id}",
        "role": "tool",
        "content": "10",
        "toolCallId": call_id,
    }


def test_react_history_ids_equal_the_live_ids(serve: Any) -> None:
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    llm = ScriptedLLM(
        ['Thought: add\nAction: add\nAction Input: {"a": 2, "b": 5}', "Answer: 7"],
        function_calling=False,
    )
    srv = serve(create_app(ReActAgent(llm=llm, tools=[add]), store=MemoryStore()))
    events = live_run(srv.url, body("react", "2+5?"))
    messages = history(srv.url, "react")
    texts = [e["messageId"] for e in events if e["type"] == "TEXT_MESSAGE_START"]
    call = next(e["toolCallId"] for e in events if e["type"] == "TOOL_CALL_START")
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "assistant"]
    assert [m["id"] for m in messages if m["role"] == "assistant"] == texts
    assert messages[1]["toolCalls"][0]["id"] == call and messages[2]["toolCallId"] == call
    assert messages[2]["content"] == "7"
