"""A small MCP server for the tests, written with the official SDK.

``python server_app.py stdio`` or ``python server_app.py http PORT``. Tools: structured and
text results, an error, a slow tool, a huge result, a crash mid-call, garbage on stdout, and a
tool name that is not a Python identifier.
"""

from __future__ import annotations

import os
import sys
import time

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

server = MCPServer("crm-test", log_level="ERROR")
REGIONS = ["north", "south", "east", "west"]


@server.tool()
def list_customers(limit: int = 10_000) -> list[dict[str, object]]:
    """Every customer of the CRM export with last year's and this year's revenue.

    Args:
        limit: At most this many rows.
    """
    rows = []
    for i in range(min(limit, 10_000)):
        before = 1000 + (i * 37) % 5000
        rows.append(
            {
                "id": i,
                "name": f"customer-{i:05d}",
                "region": REGIONS[i % 4],
                "revenue_2025": before,
                "revenue_2026": before
                + ((i * 7919) % 997)
                - 400
                + (5000 if i in (17, 4242, 9001) else 0),
            }
        )
    return rows


@server.tool()
def customer_note(customer_id: int) -> str:
    """The account manager's note about a customer (plain text)."""
    return f"Customer {customer_id}: renewal due in March."


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool()
def fail(message: str) -> str:
    """Always fails with ``message``."""
    raise ToolError(message)


@server.tool()
def slow(seconds: float) -> str:
    """Sleep, then answer."""
    time.sleep(seconds)
    return "done"


@server.tool()
def huge(size: int) -> str:
    """A text result of ``size`` characters."""
    return "x" * size


@server.tool()
def crash() -> str:
    """The server process dies in the middle of the call."""
    os._exit(3)


@server.tool()
def garbage() -> str:
    """Writes bytes that are not JSON-RPC to stdout, then never answers properly."""
    os.write(1, b'this is not json\n{"jsonrpc": "2.0", "id": "nope"\n')
    time.sleep(30)
    return "late"


@server.tool(name="get-weather")
def get_weather(city: str, from_: str = "today") -> dict[str, object]:
    """Weather for a city (the tool name has a dash)."""
    return {"city": city, "sky": "clear", "from": from_}


@server.tool()
def search(query: str) -> str:
    """Search this server (every test server has one: duplicate names across servers)."""
    return f"{os.environ.get('SERVER_LABEL', 'crm')}:{query}"


if __name__ == "__main__":
    if sys.argv[1] == "stdio":
        server.run("stdio")
    else:
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
