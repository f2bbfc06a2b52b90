"""MCP tools as codeact tools: one ``MCPTool`` per server tool, the ``search_tools`` helper of
the sandbox, and results turned into Python data."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from codeact.errors import UserError
from codeact.mcp._config import MCPServer, python_name
from codeact.mcp._connection import MCPCallError, MCPConnections
from codeact.mcp._schema import Signature, signature, wrapped_result
from codeact.tools import BaseTool, FunctionTool, ToolMetadata, ToolOutput, render_output


class MCPTool(BaseTool):
    """One tool of a connected MCP server.

    The model of a ``FunctionAgent`` sees it as ``<server>__<tool>`` with the server's JSON
    schema; code in a sandbox imports it as ``from tools.<server> import <tool>`` with a Python
    signature made from that schema. Structured results come back as Python data, text as
    ``str``; a tool error, a timeout, a dead server or an oversized result is an error output
    (``ToolError`` in the sandbox).
    """

    def __init__(self, connections: MCPConnections, server: MCPServer, tool: Any) -> None:
        self.connections = connections
        self.server = server
        #: The tool's name on the server (may not be a Python identifier).
        self.remote_name: str = tool.name
        self.py_name = python_name(tool.name)
        if not self.py_name:
            raise UserError(
                f"MCP server {server.name!r} has a tool named {tool.name!r}, which cannot be "
                "made a Python name"
            )
        self.output_schema: Any = getattr(tool, "output_schema", None)
        self.sig: Signature = signature(
            self.py_name, tool.description or "", tool.input_schema, self.output_schema
        )
        if self.remote_name != self.py_name:
            self.sig.description += f"\n(MCP tool {self.remote_name!r})"
        schema = tool.input_schema if isinstance(tool.input_schema, dict) else {}
        self.metadata = ToolMetadata(
            name=f"{server.module}__{self.py_name}",
            description=tool.description or f"Call {tool.name} of the MCP server {server.name}.",
            parameters={"type": "object", "properties": {}, **schema},
        )

    def sandbox_spec(self) -> tuple[str, list[str], str]:
        """``tools.<server>.<tool>`` with the Python parameter names and the full stub."""
        return f"{self.server.module}.{self.py_name}", self.sig.py_params, self.sig.stub()

    async def acall(self, arguments: dict[str, Any], *, ctx: Any = None) -> ToolOutput:
        """Call the tool on its server; every failure is an error output."""
        renamed = self.sig.renamed
        args = {renamed.get(k, k): v for k, v in arguments.items()}
        where = f"{self.server.module}.{self.py_name}"
        try:
            result = await self.connections.call(self.server.name, self.remote_name, args)
            ok, value = convert_result(result, self.output_schema)
        except MCPCallError as exc:
            return ToolOutput(content=str(exc), tool_name=self.name, is_error=True, exception=exc)
        except Exception as exc:  # a result the SDK accepted but we cannot read
            text = f"MCP tool {where} sent a result that could not be read: {exc}"
            return ToolOutput(content=text, tool_name=self.name, is_error=True, exception=exc)
        if not ok:
            text = str(value)
            if len(text) > 4000:  # a server's error text is not a channel for megabytes
                text = text[:4000] + f"... [{len(text) - 4000:,} more characters]"
            return ToolOutput(
                content=f"MCP tool {where} failed: {text}",
                tool_name=self.name,
                is_error=True,
                raw_output=value,
            )
        size = len(value) if isinstance(value, str) else _json_size(value)
        cap = self.server.max_result_chars
        if size > cap:
            return ToolOutput(
                content=f"The result of MCP tool {where} is {size:,} characters, over the "
                f"limit of {cap:,} (max_result_chars of server {self.server.name!r}); ask for "
                "less (filter, page or limit the request)",
                tool_name=self.name,
                is_error=True,
            )
        return ToolOutput(content=render_output(value), tool_name=self.name, raw_output=value)

    @staticmethod
    def servers_section(tools: Sequence[MCPTool]) -> str:
        """The system prompt's list of modules and tool names (no signatures)."""
        by_server: dict[str, list[str]] = {}
        for tool in tools:
            by_server.setdefault(tool.server.module, []).append(tool.py_name)
        return "\n".join(f"- tools.{m}: {', '.join(names)}" for m, names in by_server.items())

    @staticmethod
    def search_tool(tools: Sequence[MCPTool]) -> BaseTool:
        """``search_tools(query)`` for the sandbox: the full signatures of matching MCP tools
        (one per connected set of servers, made once)."""
        holder = tools[0].connections
        made = getattr(holder, "search_tool", None)
        if made is None:
            made = holder.search_tool = _search_tool(tools)
        return made


def _json_size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, default=str))


def convert_result(result: Any, output_schema: Any = None) -> tuple[bool, Any]:
    """``(ok, value)`` of a ``CallToolResult``: structured content as data (unwrapped from
    ``{"result": ...}`` when the schema only wraps one value), else the text (one ``str``), else
    the content blocks as dicts. For an error, ``value`` is its text."""
    blocks = list(getattr(result, "content", None) or [])
    texts = [b.text for b in blocks if getattr(b, "type", None) == "text"]
    if getattr(result, "is_error", False):
        return False, "\n".join(texts) or "the tool reported an error"
    structured = getattr(result, "structured_content", None)
    if structured is not None:
        if (
            wrapped_result(output_schema) is not None
            and isinstance(structured, dict)
            and list(structured) == ["result"]
        ):
            return True, structured["result"]
        return True, structured
    if len(texts) == len(blocks) and texts:
        return True, texts[0] if len(texts) == 1 else "\n".join(texts)
    if not blocks:
        return True, None
    return True, [b.model_dump(mode="json", by_alias=True, exclude_none=True) for b in blocks]


def _search_tool(tools: Sequence[MCPTool]) -> FunctionTool:
    """``search_tools(query)`` for the sandbox: the full signatures of matching MCP tools."""
    index = list(tools)

    def search_tools(query: str = "") -> str:
        """Signatures and documentation of the MCP tools whose module, name or description
        contains every word of ``query`` (all tools for ""); e.g. search_tools("crm")."""
        words = str(query).lower().replace("tools.", "").replace(".", " ").split()
        found = []
        for tool in index:
            hay = f"{tool.server.module} {tool.py_name} {tool.sig.description}".lower()
            if all(w in hay for w in words):
                found.append(
                    f"# from tools.{tool.server.module} import {tool.py_name}\n{tool.sig.stub()}"
                )
        if not found:
            return f"No MCP tool matches {query!r}. Modules: " + ", ".join(
                sorted({f"tools.{t.server.module}" for t in index})
            )
        return "\n\n".join(found)

    return FunctionTool.from_function(search_tools)


def build_tools(connections: MCPConnections) -> list[MCPTool]:
    """Every (kept) tool of every connected server, refusing names that collide."""
    out: list[MCPTool] = []
    for server in connections.servers:
        seen: dict[str, str] = {}
        for tool in connections.tools_of(server.name):
            if server.tools is not None and tool.name not in server.tools:
                continue
            made = MCPTool(connections, server, tool)
            if made.py_name in seen:
                raise UserError(
                    f"MCP server {server.name!r} has tools {seen[made.py_name]!r} and "
                    f"{tool.name!r}, which both become tools.{server.module}.{made.py_name}"
                )
            seen[made.py_name] = tool.name
            out.append(made)
    return out


__all__ = [
    "MCPTool",
    "build_tools",
    "convert_result",
]
