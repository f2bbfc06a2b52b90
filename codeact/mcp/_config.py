"""Which MCP servers an agent uses: ``MCPServer`` and the ``mcpServers`` JSON of MCP clients.

Plain configuration, no I/O and no MCP SDK import: connecting is ``_connection.py``'s job.
"""

from __future__ import annotations

import json
import keyword
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from codeact.errors import UserError

#: Names a server's module may not take in the sandbox's ``tools`` package.
RESERVED_MODULES = frozenset({"ToolError", "search_tools"})


def python_name(name: str) -> str:
    """``name`` as a Python identifier a sandbox accepts: other characters become ``_``, a
    leading digit or underscore gets a ``t`` in front (private names are refused in the
    sandbox), a keyword gets ``_`` behind. ``""`` when nothing is left."""
    text = re.sub(r"\W", "_", name.strip(), flags=re.ASCII)
    if not text.strip("_"):
        return ""
    if text[0].isdigit() or text[0] == "_":
        text = "t" + text
    if keyword.iskeyword(text) or keyword.issoftkeyword(text):
        text += "_"
    return text


class MCPServer(BaseModel):
    """One MCP server an agent connects to: a command started over stdio, or a Streamable
    HTTP ``url``.

    Its tools become the module ``tools.<name>`` in the sandbox of a ``CodeActAgent``
    (``from tools.crm import list_customers``) and ordinary tools named ``<name>__<tool>`` for
    ``FunctionAgent`` and ``ReActAgent``. ``timeout`` bounds each call (seconds) and
    ``max_result_chars`` the size of a result (its text or JSON); past either, the call fails
    with a clear error and the session goes on. ``tools`` keeps only the named tools.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] | None = None
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] | None = None
    timeout: float = Field(default=60.0, gt=0)
    connect_timeout: float = Field(default=30.0, gt=0)
    max_result_chars: int = Field(default=5_000_000, gt=0)
    tools: list[str] | None = None

    @model_validator(mode="after")
    def _check(self) -> MCPServer:
        if (self.command is None) == (self.url is None):
            raise ValueError(f"MCP server {self.name!r} needs exactly one of command= or url=")
        if self.url is not None and not re.match(r"https?://", self.url):
            raise ValueError(f"MCP server {self.name!r}: url must start with http:// or https://")
        module = python_name(self.name)
        if not module or module in RESERVED_MODULES:
            raise ValueError(f"MCP server name {self.name!r} cannot name a sandbox module")
        return self

    @property
    def module(self) -> str:
        """The server's module in the sandbox (``tools.<module>``); its tools' prefix."""
        return python_name(self.name)

    @property
    def transport(self) -> str:
        """``"stdio"`` or ``"http"``."""
        return "stdio" if self.command is not None else "http"


def check_servers(servers: Sequence[MCPServer], tool_names: Sequence[str] = ()) -> list[MCPServer]:
    """``servers`` as a list, refusing non-servers, two servers with the same module name and a
    module named like one of the agent's own tools (``tool_names``)."""
    out: list[MCPServer] = []
    seen: dict[str, str] = {name: f"the tool {name!r}" for name in tool_names}
    for server in servers:
        if not isinstance(server, MCPServer):
            raise UserError(f"mcp_servers takes MCPServer objects, got {type(server).__name__}")
        if server.module in seen:
            raise UserError(
                f"MCP server {server.name!r} and {seen[server.module]} would both be "
                f"tools.{server.module} in the sandbox; rename one"
            )
        seen[server.module] = f"MCP server {server.name!r}"
        out.append(server)
    return out


def load_mcp_config(source: str | os.PathLike[str] | Mapping[str, Any]) -> list[MCPServer]:
    """The servers of an MCP client configuration (a file path or the parsed JSON), in the
    format Claude Desktop, Cursor and others use::

        {"mcpServers": {"files": {"command": "npx", "args": ["-y", "server-fs", "/data"]},
                        "crm": {"url": "http://127.0.0.1:8000/mcp", "headers": {...}}}}

    ``type`` (``"stdio"``, ``"http"``/``"streamable-http"``) is optional; ``"sse"`` is not
    supported. Keys codeact adds: ``timeout``, ``connect_timeout``, ``max_result_chars``,
    ``tools``. Servers with ``"disabled": true`` are skipped. ``UserError`` on anything else.
    """
    if isinstance(source, Mapping):
        data: Any = source
        where = "the MCP configuration"
    else:
        path = Path(source)
        where = str(path)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise UserError(f"Cannot read the MCP configuration {where}: {exc}") from exc
        except ValueError as exc:
            raise UserError(f"{where} is not valid JSON: {exc}") from exc
    servers = data.get("mcpServers") if isinstance(data, Mapping) else None
    if not isinstance(servers, Mapping):
        raise UserError(f'{where} needs an object "mcpServers": {{name: {{...}}}}')
    out = []
    for name, entry in servers.items():
        if not isinstance(entry, Mapping):
            raise UserError(f"{where}: server {name!r} must be an object")
        if entry.get("disabled"):
            continue
        out.append(_server(str(name), dict(entry), where))
    return check_servers(out)


def _server(name: str, entry: dict[str, Any], where: str) -> MCPServer:
    kind = entry.pop("type", entry.pop("transport", None))
    if kind in ("sse",):
        raise UserError(f"{where}: server {name!r} uses SSE, which codeact does not support")
    if kind not in (None, "stdio", "http", "streamable-http", "streamable_http", "streamableHttp"):
        raise UserError(f"{where}: server {name!r} has an unknown type {kind!r}")
    for ignored in ("disabled", "autoApprove", "alwaysAllow", "description"):
        entry.pop(ignored, None)
    if "serverUrl" in entry:
        entry["url"] = entry.pop("serverUrl")
    try:
        return MCPServer(name=name, **entry)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or name}: {e['msg']}" for e in exc.errors()
        )
        raise UserError(f"{where}: server {name!r}: {problems}") from None
    except TypeError as exc:
        raise UserError(f"{where}: server {name!r}: {exc}") from None


__all__ = ["MCPServer", "check_servers", "load_mcp_config", "python_name"]
