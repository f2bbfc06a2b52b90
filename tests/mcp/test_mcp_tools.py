"""MCP servers' tools inside the sandbox (CodeActAgent) and as ordinary tools (FunctionAgent,
ReActAgent), over the real protocol: the test server runs as a stdio subprocess or over
Streamable HTTP on 127.0.0.1; cells run in the restricted executor's worker process."""

from __future__ import annotations

import sys
from typing import Any

import anyio
import pytest

from codeact import CodeActAgent, Context, FunctionAgent, ReActAgent, RestrictedExecutor
from codeact.errors import CodeActError, UserError
from codeact.llms import ScriptedLLM
from codeact.llms.testing import tool_call
from codeact.mcp import MCPServer
from tests.mcp.conftest import server_processes, stdio, wait_until

pytestmark = pytest.mark.anyio


def _process() -> RestrictedExecutor:
    return RestrictedExecutor(isolation="process")


def _expected_top3() -> list[str]:
    rows = []
    for i in range(10_000):
        before = 1000 + (i * 37) % 5000
        after = before + ((i * 7919) % 997) - 400 + (5000 if i in (17, 4242, 9001) else 0)
        rows.append((after - before, f"customer-{i:05d}"))
    return [name for _d, name in sorted(rows, reverse=True)[:3]]


TURN = """<execute>
from tools.crm import list_customers, customer_note
rows = list_customers()
top = sorted(rows, key=lambda r: r["revenue_2026"] - r["revenue_2025"], reverse=True)[:3]
print(len(rows), [r["name"] for r in top])
print(customer_note(top[0]["id"]))
</execute>"""


def _all_text(llm: ScriptedLLM) -> str:
    return "\n".join(m.text for r in llm.requests for m in r.messages)


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_codeact_turn_calls_two_tools_from_one_cell_and_the_rows_stay_in_the_sandbox(
    transport: str, request: pytest.FixtureRequest
) -> None:
    if transport == "http":
        server = MCPServer(name="crm", url=request.getfixturevalue("http_url"))
    else:
        server = stdio()
    top3 = _expected_top3()
    llm = ScriptedLLM([TURN, f"The three largest increases: {', '.join(top3)}."])
    agent = CodeActAgent(llm=llm, executor=_process, mcp_servers=[server])
    out = await agent.run("Which 3 customers had the largest increase?")
    assert out.response.text.endswith(f"{', '.join(top3)}.")
    observation = llm.requests[-1].messages[-1].text
    assert f"10000 {top3}" in observation
    assert f"Customer {top3[0].split('-')[1].lstrip('0')}: renewal due in March." in observation
    text = _all_text(llm)
    # the 10,000 rows never entered the model's input: only the printed summary did
    assert "customer-00001" not in text and "revenue_2025" in TURN
    assert sum(len(m.text) for r in llm.requests for m in r.messages) < 12_000
    # progressive discovery: names in the prompt, no signatures
    system = llm.requests[0].messages[0].text
    assert "- tools.crm: list_customers, customer_note, add" in system
    assert "limit: int" not in system and "search_tools(" in system


async def test_search_tools_gives_full_signatures_on_demand() -> None:
    llm = ScriptedLLM(
        [
            "<execute>\nprint(search_tools('crm list_customers'))\n"
            "from tools import search_tools as st\nprint(st('weather'))\n</execute>",
            "ok",
        ]
    )
    async with Context() as ctx:
        await CodeActAgent(llm=llm, executor=_process, mcp_servers=[stdio()]).run("x", ctx=ctx)
    seen = llm.requests[-1].messages[-1].text
    assert "def list_customers(limit: int = 10000) -> list[dict]:" in seen
    assert "limit: At most this many rows." in seen
    assert "def get_weather(city: str, from_: str = 'today') -> dict:" in seen
    assert "(MCP tool 'get-weather')" in seen


ERRORS = """<execute>
from tools import ToolError
from tools.crm import fail, slow, huge, add, get_weather
for call in (lambda: fail("boom"), lambda: slow(30), lambda: huge(300000)):
    try:
        call()
    except ToolError as exc:
        print("caught:", exc)
print("weather:", get_weather("Oslo")["sky"], add(2, 3))
</execute>"""


async def test_tool_errors_timeouts_and_oversized_results_are_catchable_in_the_cell() -> None:
    llm = ScriptedLLM([ERRORS, "done"])
    server = stdio(timeout=3, max_result_chars=100_000)
    await CodeActAgent(llm=llm, executor=_process, mcp_servers=[server]).run("go")
    seen = llm.requests[-1].messages[-1].text
    assert "caught: MCP tool crm.fail failed: Error executing tool fail: boom" in seen
    assert "caught: MCP tool 'slow' of server 'crm' did not answer within 3 s" in seen
    assert (
        "caught: The result of MCP tool crm.huge is 300,000 characters, over the limit of 100,000"
        in seen
    )
    assert "weather: clear 5" in seen


async def test_a_server_that_crashes_mid_call_is_an_error_in_the_cell_and_the_session_lives_on() -> (
    None
):
    llm = ScriptedLLM(
        [
            "<execute>\nx = 41\nfrom tools.crm import crash\ncrash()\n</execute>",
            "<execute>\nprint('still here', x + 1)\n</execute>",
            "<execute>\nfrom tools.crm import add\nadd(1, 2)\n</execute>",
            "the server is gone",
            "done",
        ]
    )
    async with Context() as ctx:
        await CodeActAgent(llm=llm, executor=_process, mcp_servers=[stdio()]).run("go", ctx=ctx)
        assert wait_until(lambda: not server_processes())
    crashed, alive, after = (r.messages[-1].text for r in llm.requests[1:4])
    assert "ToolError" in crashed and "MCP server 'crm' failed on 'crash'" in crashed
    assert "still here 42" in alive
    assert "ToolError" in after and "crm" in after


async def test_a_server_sending_garbage_is_an_error_within_the_timeout() -> None:
    llm = ScriptedLLM(
        [
            "<execute>\nfrom tools.crm import garbage, add\ngarbage()\n</execute>",
            "<execute>\nprint(add(2, 2))\n</execute>",
            "done",
        ]
    )
    agent = CodeActAgent(llm=llm, executor=_process, mcp_servers=[stdio(timeout=3)])
    await agent.run("go")
    assert "did not answer within 3 s" in llm.requests[1].messages[-1].text
    assert "4" in llm.requests[2].messages[-1].text


async def test_same_tool_name_on_two_servers_lives_in_two_modules() -> None:
    one, two = stdio("crm"), stdio("crm2", env={"SERVER_LABEL": "two"})
    llm = ScriptedLLM(
        [
            "<execute>\nfrom tools.crm import search\nfrom tools import crm2\n"
            "print(search('a'), crm2.search('b'))\n</execute>",
            "done",
        ]
    )
    await CodeActAgent(llm=llm, executor=_process, mcp_servers=[one, two]).run("go")
    assert "crm:a two:b" in llm.requests[-1].messages[-1].text
    fllm = ScriptedLLM([tool_call("crm2__search", query="q"), "done"])
    await FunctionAgent(llm=fllm, mcp_servers=[one, two]).run("go")
    names = {t.name for t in fllm.requests[0].tools}
    assert {"crm__search", "crm2__search", "crm__get_weather"} <= names
    assert fllm.requests[-1].messages[-1].text == "two:q"


def test_server_names_that_collide_or_cannot_be_modules_are_refused() -> None:
    with pytest.raises(UserError, match="MCP server 'a_b' and MCP server 'a-b' would both"):
        FunctionAgent(llm=ScriptedLLM([]), mcp_servers=[stdio("a-b"), stdio("a_b")])

    def crm() -> str:
        """A plain tool named like a server."""
        return ""

    with pytest.raises(UserError, match="MCP server 'crm' and the tool 'crm' would both be"):
        CodeActAgent(llm=ScriptedLLM([]), tools=[crm], mcp_servers=[stdio("crm")])
    with pytest.raises(ValueError, match="cannot name a sandbox module"):
        stdio("---")
    with pytest.raises(ValueError, match="exactly one of command= or url="):
        MCPServer(name="x")


async def test_function_and_react_agents_call_mcp_tools_as_ordinary_tools() -> None:
    llm = ScriptedLLM(
        [tool_call("crm__add", a=20, b=22), tool_call("crm__fail", message="no"), "42"]
    )
    out = await FunctionAgent(llm=llm, mcp_servers=[stdio()]).run("add")
    assert out.response.text == "42"
    add = next(t for t in llm.requests[0].tools if t.name == "crm__add")
    assert add.parameters["properties"]["a"]["type"] == "integer"
    assert llm.requests[1].messages[-1].text == "42"
    assert (
        "MCP tool crm.fail failed: Error executing tool fail: no"
        in llm.requests[2].messages[-1].text
    )
    react = ScriptedLLM(
        ['Thought: add\nAction: crm__add\nAction Input: {"a": 1, "b": 2}', "Thought: ok\nAnswer: 3"]
    )
    out = await ReActAgent(llm=react, mcp_servers=[stdio()]).run("add")
    assert out.response.text == "3" and "Observation: 3" in _all_text(react)


async def test_servers_stop_with_the_context_and_a_failed_connection_does_not_hang() -> None:
    ctx = Context()
    agent = FunctionAgent(llm=ScriptedLLM(["a", "b"]), mcp_servers=[stdio()])
    await agent.run("one", ctx=ctx)
    assert len(server_processes()) == 1  # kept for the conversation
    await agent.run("two", ctx=ctx)
    assert len(server_processes()) == 1  # the same server
    await ctx.aclose()
    await ctx.aclose()
    assert wait_until(lambda: not server_processes())
    missing = MCPServer(name="gone", command="/nonexistent/mcp-server")
    with pytest.raises(UserError, match="MCP server 'gone' could not start"):
        await FunctionAgent(llm=ScriptedLLM(["x"]), mcp_servers=[missing]).run("x")
    dies = MCPServer(name="dies", command=sys.executable, args=["-c", "print('hello')"])
    with pytest.raises(CodeActError, match="MCP server 'dies'"):
        await FunctionAgent(llm=ScriptedLLM(["x"]), mcp_servers=[dies]).run("x")


def test_run_sync_twice_on_one_context_reuses_the_servers() -> None:
    llm = ScriptedLLM([tool_call("crm__add", a=1, b=1), "a", tool_call("crm__add", a=2, b=2), "b"])
    agent = FunctionAgent(llm=llm, mcp_servers=[stdio()])
    ctx = Context()
    seen: list[Any] = []
    for msg in ("one", "two"):  # each run_sync call has an event loop of its own
        seen.append(agent.run_sync(msg, ctx=ctx))
        assert len(server_processes()) == 1
    assert [o.response.text for o in seen] == ["a", "b"]
    assert llm.requests[-1].messages[-1].text == "4"
    anyio.run(ctx.aclose)
