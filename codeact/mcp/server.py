"""``codeact mcp``: the sandbox as an MCP server (stdio or Streamable HTTP), built with the
official SDK.

Tools: ``run_python`` (one cell in the MCP session's own sandbox session: variables persist
between calls; figures come back as image content, tables as structured content),
``upload_file`` and ``download_file``. Each MCP session gets its own executor (see
``session_key``); at most
``max_sessions`` live at once (the least recently used one is closed to make room) and one idle
for ``idle_close_s`` is closed.
"""

from __future__ import annotations

import base64
import binascii
import time
from collections.abc import Callable
from typing import Any

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, ImageContent, TextContent

from codeact.errors import CodeActError
from codeact.executors.base import CodeExecutor

# This module is imported only by ``codeact mcp`` (it needs the SDK at import: the tools'
# annotations are resolved by the SDK from these globals).

INSTRUCTIONS = (
    "A persistent, sandboxed Python session (no network, private files). run_python runs a "
    "cell; variables stay for the next call. Print what you need; the last expression's value "
    "is shown. Move files with upload_file / download_file (base64)."
)


class SandboxSessions:
    """One executor per MCP session, made by ``make_executor`` on first use."""

    def __init__(
        self,
        make_executor: Callable[[], CodeExecutor],
        *,
        max_sessions: int = 16,
        idle_close_s: float = 1800.0,
    ) -> None:
        self.make_executor = make_executor
        self.max_sessions = max_sessions
        self.idle_close_s = idle_close_s
        self.items: dict[str, tuple[CodeExecutor, float]] = {}
        self._lock = anyio.Lock()

    async def get(self, key: str) -> CodeExecutor:
        """The executor of the MCP session ``key``, started."""
        async with self._lock:
            await self._expire(keep=key)
            held = self.items.get(key)
            if held is None:
                executor = self.make_executor()
                await executor.start()
                held = (executor, time.monotonic())
            self.items[key] = (held[0], time.monotonic())
            return held[0]

    async def _expire(self, keep: str) -> None:
        now = time.monotonic()
        stale = [
            k
            for k, (_e, used) in self.items.items()
            if k != keep and now - used > self.idle_close_s
        ]
        by_age = sorted((used, k) for k, (_e, used) in self.items.items() if k != keep)
        while len(self.items) - len(set(stale)) >= self.max_sessions and by_age:
            stale.append(by_age.pop(0)[1])
        for k in dict.fromkeys(stale):
            await self.items.pop(k)[0].aclose()

    async def aclose(self) -> None:
        """Close every session's executor."""
        items, self.items = self.items, {}
        for executor, _used in items.values():
            await executor.aclose()


def session_key(ctx: Context) -> str:
    """Which sandbox a request uses. Over stdio the process serves one client: one sandbox.
    Over HTTP, the ``Mcp-Session-Id`` of a stateful session; requests without one (stateless
    2026 clients) share the server's one sandbox — run one ``codeact mcp`` per user."""
    headers = ctx.headers
    if headers is None:
        return "stdio"
    sid = headers.get("mcp-session-id")
    return f"http:{sid}" if sid else "http"


def build_server(sessions: SandboxSessions, *, cell_timeout: float = 60.0) -> MCPServer:
    """The SDK ``MCPServer`` offering the sandbox's tools."""
    server = MCPServer("codeact", instructions=INSTRUCTIONS, log_level="WARNING")

    @server.tool()
    async def run_python(code: str, ctx: Context) -> CallToolResult:
        """Run Python code in this session's persistent sandbox and return what it printed,
        the value of its last expression or its error; figures come back as images and
        tables (pandas DataFrames) as structured content."""
        executor = await sessions.get(session_key(ctx))
        result = await executor.execute(code, timeout=cell_timeout)
        content: list[Any] = [TextContent(type="text", text=result.to_observation(20_000))]
        content += [
            ImageContent(type="image", data=i, mime_type="image/png") for i in result.images
        ]
        structured = {
            "ok": result.ok,
            "stdout": result.stdout,
            "value": result.value,
            "error": result.error.model_dump() if result.error is not None else None,
            "tables": result.tables,
            "files": result.files,
        }
        return CallToolResult(
            content=content, structured_content=structured, is_error=not result.ok
        )

    @server.tool()
    async def upload_file(path: str, content_base64: str, ctx: Context) -> str:
        """Write a file (base64 content) into the sandbox's working directory."""
        try:
            data = base64.b64decode(content_base64, validate=True)
        except (binascii.Error, ValueError) as exc:
            raise ToolError(f"content_base64 is not base64: {exc}") from None
        executor = await sessions.get(session_key(ctx))
        try:
            await executor.upload(path, data)
        except (CodeActError, OSError, ValueError) as exc:
            raise ToolError(f"cannot write {path!r}: {exc}") from None
        return f"wrote {len(data)} bytes to {path}"

    @server.tool()
    async def download_file(path: str, ctx: Context) -> dict[str, Any]:
        """Read a file of the sandbox's working directory (base64 content)."""
        executor = await sessions.get(session_key(ctx))
        try:
            data = await executor.download(path)
        except (CodeActError, OSError, ValueError) as exc:
            raise ToolError(f"cannot read {path!r}: {exc}") from None
        return {"path": path, "size": len(data), "content_base64": base64.b64encode(data).decode()}

    return server


__all__ = ["SandboxSessions", "build_server", "session_key"]
