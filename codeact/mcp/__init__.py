"""MCP servers as tools: ``MCPServer`` describes one (stdio command or Streamable HTTP url),
``load_mcp_config`` reads the ``mcpServers`` JSON MCP clients use.

Give them to an agent with ``mcp_servers=[...]``: a ``CodeActAgent``'s code imports each
server's tools from ``tools.<server>``; ``FunctionAgent`` and ``ReActAgent`` call them as
ordinary tools. The MCP SDK (``pip install codeact[mcp]``) is imported only when a server is
connected. ``codeact.mcp.server`` (which needs the SDK at import) is the other direction:
the sandbox as an MCP server (``codeact mcp``).
"""

from __future__ import annotations

from codeact.mcp._config import MCPServer, check_servers, load_mcp_config
from codeact.mcp._tools import MCPTool
from codeact.mcp._toolset import MCPToolset, context_toolset

__all__ = [
    "MCPServer",
    "MCPTool",
    "MCPToolset",
    "check_servers",
    "context_toolset",
    "load_mcp_config",
]
