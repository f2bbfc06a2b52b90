"""An agent's MCP servers for one conversation: connected on first use, kept by the
``Context`` (closed with it)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from codeact.errors import UserError
from codeact.mcp._config import MCPServer
from codeact.mcp._connection import MCPConnections
from codeact.mcp._tools import MCPTool, build_tools


class MCPToolset:
    """The connected servers of one agent in one ``Context`` and their tools."""

    def __init__(self, servers: Sequence[MCPServer]) -> None:
        self.connections = MCPConnections(servers)
        self.tools: list[MCPTool] = []

    async def start(self, taken: Sequence[str] = ()) -> None:
        """Connect (once) and build the tools; ``taken`` are the agent's other tool names."""
        if self.connections.started:
            return
        await self.connections.start()
        try:
            tools = build_tools(self.connections)
            clash = sorted({t.name for t in tools} & set(taken))
            if clash:
                raise UserError(f"MCP tools {clash} have the names of the agent's other tools")
        except BaseException:
            await self.connections.aclose()
            raise
        self.tools = tools

    async def aclose(self) -> None:
        """Stop the servers (idempotent)."""
        await self.connections.aclose()


async def context_toolset(
    ctx: Any, key: str, servers: Sequence[MCPServer], taken: Sequence[str] = ()
) -> MCPToolset:
    """The toolset kept in ``ctx`` under ``key`` (connected now if new)."""
    held = ctx.resource(key)
    if held is None:
        held = MCPToolset(servers)
        ctx.hold(key, held, owned=True)
    if not isinstance(held, MCPToolset):
        raise UserError(f"context resource {key!r} is a {type(held).__name__}, not MCP servers")
    await held.start(taken)
    return held


__all__ = ["MCPToolset", "context_toolset"]
