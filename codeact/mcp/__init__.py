"""MCP servers as tools: ``MCPServer`` describes one (stdio command or Streamable HTTP url),
``load_mcp_config`` reads the ``mcpServers`` JSON MCP clients use.

Give them to an agent with ``mcp_servers=[...]``: a ``CodeActAgent``'s code imports each
server's tools from ``tools.<server>``; ``FunctionAgent`` and ``ReActAgent`` call them as
ordinary tools. The MCP SDK (``pip install codeact[mcp]``) is imported only when a server is
connected.
"""

from __future__ import annotations

from codeact.mcp._config import MCPServer, load_mcp_config
from codeact.mcp._tools import MCPTool

__all__ = ["MCPServer", "MCPTool", "load_mcp_config"]
