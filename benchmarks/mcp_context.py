"""What enters the model when MCP tools are called directly vs from code.

The task: "which 3 customers in this 10,000-row CRM export had the largest increase?", with the
test MCP server (tests/mcp/server_app.py, over stdio). Both agents are driven by a model that
follows the ideal plan and reads its answer from what it was given:

- ``FunctionAgent``: calls ``crm__list_customers`` directly; the 10,000 rows come back into the
  conversation; the model picks the top 3 from that tool message.
- ``CodeActAgent``: one cell imports ``list_customers`` from ``tools.crm``, sorts in the
  sandbox, prints the 3 names; the model reads them from the cell's output.

Counted: characters of every request's messages plus the tool schemas sent with it (what the
model reads), and tokens as ~chars/4. Run by hand:
``PYTHONPATH=. .venv/bin/python benchmarks/mcp_context.py``.
"""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path
from typing import Any

import anyio

from codeact import CodeActAgent, FunctionAgent, MCPServer, RestrictedExecutor
from codeact.llms import FunctionLLM, tool_call

APP = Path(__file__).resolve().parents[1] / "tests" / "mcp" / "server_app.py"
QUESTION = "Which 3 customers in the CRM export had the largest revenue increase (2025 to 2026)?"
CELL = """<execute>
from tools.crm import list_customers
rows = list_customers()
top = sorted(rows, key=lambda r: r["revenue_2026"] - r["revenue_2025"], reverse=True)[:3]
print([r["name"] for r in top])
</execute>"""


def _server() -> MCPServer:
    return MCPServer(name="crm", command=sys.executable, args=[str(APP), "stdio"])


def _top3(rows: list[dict[str, Any]]) -> list[str]:
    ranked = sorted(rows, key=lambda r: r["revenue_2026"] - r["revenue_2025"], reverse=True)
    return [r["name"] for r in ranked[:3]]


def function_plan(messages: list[Any], tools: list[Any]) -> Any:
    last = messages[-1]
    if last.role != "tool":
        return tool_call("crm__list_customers")
    return "Largest increases: " + ", ".join(_top3(json.loads(last.text)))


def codeact_plan(messages: list[Any], tools: list[Any]) -> Any:
    last = messages[-1]
    if last.role != "user" or "Execution result" not in last.text:
        return CELL
    names = re.findall(r"customer-\d{5}", last.text)
    return "Largest increases: " + ", ".join(names)


def _chars(llm: FunctionLLM) -> int:
    total = 0
    for request in llm.requests:
        total += sum(len(m.text) for m in request.messages)
        total += len(json.dumps([t.to_openai() for t in request.tools]))
    return total


async def main() -> None:
    fllm = FunctionLLM(function_plan)
    t0 = time.perf_counter()
    fout = await FunctionAgent(llm=fllm, mcp_servers=[_server()]).run(QUESTION)
    f_s = time.perf_counter() - t0
    cllm = FunctionLLM(codeact_plan, function_calling=False)
    t0 = time.perf_counter()
    agent = CodeActAgent(
        llm=cllm,
        executor=lambda: RestrictedExecutor(isolation="process"),
        mcp_servers=[_server()],
    )
    cout = await agent.run(QUESTION)
    c_s = time.perf_counter() - t0
    assert fout.response.text == cout.response.text, (fout.response.text, cout.response.text)
    f, c = _chars(fllm), _chars(cllm)
    print(f"answer (both): {cout.response.text}")
    print(f"FunctionAgent (direct MCP calls): {f:>10,} chars (~{f // 4:,} tokens), {f_s:.1f} s")
    print(f"CodeActAgent (MCP from code):     {c:>10,} chars (~{c // 4:,} tokens), {c_s:.1f} s")
    print(f"reduction: {100 * (1 - c / f):.1f} % fewer characters into the model")


if __name__ == "__main__":
    anyio.run(main)
