"""The official AG-UI client (@ag-ui/client, pinned by tests/agui_client/package-lock.json)
drives the server: text, server tool, CodeAct, 409 and history scenarios."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from codeact import CodeActAgent, FunctionAgent
from codeact.llms import ScriptedLLM, tool_call
from codeact.server import MemoryStore, create_app
from tests.server.test_agui_server import slow_tool

CLIENT = Path(__file__).resolve().parents[1] / "agui_client"


@pytest.fixture(scope="module")
def node_client() -> Path:
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("Node.js is not installed")
    if not (CLIENT / "node_modules" / "@ag-ui" / "client").is_dir():
        r = subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund"],
            cwd=CLIENT,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert r.returncode == 0, f"npm ci failed: {r.stderr[-2000:]}"
    return CLIENT / "check-run.mjs"


def drive(script: Path, url: str, scenario: dict[str, Any]) -> dict[str, Any]:
    r = subprocess.run(
        ["node", str(script), url + "/", json.dumps(scenario)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    lines = [ln for ln in r.stdout.splitlines() if ln.startswith("{")]
    assert lines, f"no result from the client: {r.stdout} {r.stderr}"
    return json.loads(lines[-1])


def tool_add(a: int, b: int) -> int:
    """Add."""
    return a + b


def test_official_client_scenarios(serve: Any, node_client: Path) -> None:
    function_llm = ScriptedLLM(
        [
            "plain answer",
            tool_call("tool_add", a=2, b=2),
            "four",
            tool_call("slow_tool", seconds=1.5),
            "slow done",
        ]
    )
    agent = FunctionAgent(llm=function_llm, tools=[tool_add, slow_tool])
    srv = serve(create_app(agent, store=MemoryStore()))
    text = drive(node_client, srv.url, {"threadId": "t-text", "text": "hi"})
    assert text["ok"], text
    assert text["types"][0] == "RUN_STARTED" and "TEXT_MESSAGE_CONTENT" in text["types"]
    assert text["messages"][-1]["content"] == "plain answer"

    tool = drive(node_client, srv.url, {"threadId": "t-tool", "text": "add"})
    assert tool["ok"], tool
    assert [t for t in tool["types"] if t.startswith("TOOL_CALL")] == [
        "TOOL_CALL_START",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_END",
        "TOOL_CALL_RESULT",
    ]
    roles = [m["role"] for m in tool["messages"]]
    assert "tool" in roles and tool["messages"][-1]["content"] == "four"

    busy = drive(node_client, srv.url, {"kind": "concurrent", "threadId": "t-busy"})
    assert busy["ok"], busy
    assert busy["second"]["status"] == 409

    history = drive(node_client, srv.url, {"kind": "history", "threadId": "t-tool"})
    assert history["ok"], history
    assert history["types"] == ["RUN_STARTED", "MESSAGES_SNAPSHOT", "CUSTOM", "RUN_FINISHED"]
    assert [m["role"] for m in history["messages"]] == ["user", "assistant", "tool", "assistant"]


def test_official_client_codeact(serve: Any, node_client: Path) -> None:
    llm = ScriptedLLM(["<execute>\nprint(6 * 7)\n</execute>", "42"], function_calling=False)
    srv = serve(create_app(CodeActAgent(llm=llm), store=MemoryStore()))
    res = drive(node_client, srv.url, {"threadId": "t-code", "text": "6*7?"})
    assert res["ok"], res
    calls = [m for m in res["messages"] if m["role"] == "assistant" and m.get("toolCalls")]
    assert calls and calls[0]["toolCalls"][0]["function"]["name"] == "execute"
    assert any(m["role"] == "tool" and m["content"] == "42" for m in res["messages"])
