"""Live connections to an agent's MCP servers for one ``Context``.

The SDK's clients are task-scoped context managers (a task group per transport) that must be
left by the task that entered them. A conversation, though, is closed whenever and from wherever
its ``Context`` is closed — another task, even another event loop (``run_sync`` makes one per
call). So each ``MCPConnections`` runs its servers in a private event loop on its own thread (an
anyio blocking portal): one task per server enters the client, lists the tools, and waits for the
stop signal; calls cross over with ``portal.call``. Closing stops every task, which ends each
stdio server (stdin closed, then SIGTERM/SIGKILL of its process group by the SDK).
"""

from __future__ import annotations

import atexit
import contextlib
import math
import threading
import weakref
from collections.abc import Sequence
from concurrent.futures import Future
from typing import Any

import anyio
import anyio.from_thread
import anyio.to_thread

from codeact.errors import ExecutorError, UserError
from codeact.mcp._config import MCPServer

_LIVE: weakref.WeakSet[MCPConnections] = weakref.WeakSet()


class MCPCallError(Exception):
    """An MCP call failed: timeout, connection lost, protocol error, or the tool's own error."""


class _Link:
    """One server's client, owned by a task of the portal's loop."""

    def __init__(self, server: MCPServer) -> None:
        self.server = server
        self.client: Any = None
        self.stop: anyio.Event | None = None
        self.tools: list[Any] = []

    async def run(self, *, task_status: anyio.abc.TaskStatus[None]) -> None:
        from mcp import Client

        self.stop = anyio.Event()
        with anyio.CancelScope() as scope:
            scope.deadline = anyio.current_time() + self.server.connect_timeout
            async with contextlib.AsyncExitStack() as stack:
                client = await stack.enter_async_context(Client(await self._target(stack)))
                self.tools = await _list_tools(client)
                self.client = client
                scope.deadline = math.inf  # connected: live until stopped
                task_status.started()
                await self.stop.wait()
        if scope.cancelled_caught and self.client is None:
            raise TimeoutError("connecting timed out")

    async def _target(self, stack: contextlib.AsyncExitStack) -> Any:
        server = self.server
        if server.command is not None:
            from mcp import StdioServerParameters

            return StdioServerParameters(
                command=server.command, args=list(server.args), env=server.env, cwd=server.cwd
            )
        if not server.headers:
            return server.url
        import httpx2
        from mcp.client.streamable_http import streamable_http_client

        http = await stack.enter_async_context(
            httpx2.AsyncClient(headers=server.headers, timeout=httpx2.Timeout(30.0, read=300.0))
        )
        assert server.url is not None
        return streamable_http_client(server.url, http_client=http)


async def _list_tools(client: Any) -> list[Any]:
    tools: list[Any] = []
    cursor = None
    for _ in range(100):
        page = await client.list_tools(cursor=cursor)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if not cursor:
            break
    return tools


class MCPConnections:
    """The connected servers of one agent in one conversation (a ``Context`` resource).

    ``start()`` connects every server (at once) and lists their tools; ``call()`` runs one tool
    with the server's timeout; ``aclose()`` stops them all (safe twice, from any task or loop).
    """

    def __init__(self, servers: Sequence[MCPServer]) -> None:
        self.servers = list(servers)
        self.links = {s.name: _Link(s) for s in self.servers}
        self._portal_cm: Any = None
        self._portal: anyio.from_thread.BlockingPortal | None = None
        self._futures: list[Future[Any]] = []
        self._lock = threading.Lock()
        self._closed = False
        self.started = False
        #: The sandbox's ``search_tools`` over these servers' tools (made on first use).
        self.search_tool: Any = None

    async def start(self) -> None:
        """Connect to every server; ``ExecutorError`` naming the server that failed."""
        if self.started:
            return
        if self._closed:
            raise ExecutorError("These MCP connections were closed")
        await anyio.to_thread.run_sync(self._start_sync)

    def _start_sync(self) -> None:
        with self._lock:
            if self.started:
                return
            self._portal_cm = anyio.from_thread.start_blocking_portal()
            self._portal = self._portal_cm.__enter__()
            _LIVE.add(self)
            try:
                for link in self.links.values():
                    future, _ = self._portal.start_task(link.run, name=f"mcp:{link.server.name}")
                    self._futures.append(future)
            except BaseException as exc:
                self._close_sync()
                raise _connect_error(link.server, exc) from None
            self.started = True

    def tools_of(self, name: str) -> list[Any]:
        """The ``mcp.types.Tool`` list of server ``name`` (after ``start()``)."""
        return self.links[name].tools

    async def call(self, server: str, tool: str, arguments: dict[str, Any]) -> Any:
        """Call ``tool`` of ``server``; the ``CallToolResult``, or ``MCPCallError``."""
        link = self.links[server]
        portal = self._portal
        if portal is None or link.client is None or self._closed:
            raise MCPCallError(f"MCP server {server!r} is not connected")
        try:
            return await anyio.to_thread.run_sync(
                portal.call, self._call, link, tool, arguments, abandon_on_cancel=True
            )
        except MCPCallError:
            raise
        except RuntimeError as exc:  # the portal was stopped under the call
            raise MCPCallError(f"MCP server {server!r} was disconnected: {exc}") from None

    @staticmethod
    async def _call(link: _Link, tool: str, arguments: dict[str, Any]) -> Any:
        server = link.server
        try:
            with anyio.fail_after(server.timeout):
                return await link.client.call_tool(
                    tool, arguments, read_timeout_seconds=server.timeout
                )
        except TimeoutError:
            raise MCPCallError(
                f"MCP tool {tool!r} of server {server.name!r} did not answer within "
                f"{server.timeout:g} s (the server's timeout)"
            ) from None
        except Exception as exc:
            raise MCPCallError(
                f"MCP server {server.name!r} failed on {tool!r}: {_describe(exc)}"
            ) from None

    async def aclose(self) -> None:
        """Stop every server and the portal's thread. Idempotent."""
        if self._closed:
            return
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(self._close_sync)

    def _close_sync(self) -> None:
        self._closed = True
        portal, cm = self._portal, self._portal_cm
        self._portal = self._portal_cm = None
        _LIVE.discard(self)
        if portal is None or cm is None:
            return
        for link in self.links.values():
            with contextlib.suppress(Exception):
                if link.stop is not None:
                    portal.call(link.stop.set)
        for future in self._futures:
            with contextlib.suppress(BaseException):
                future.result(timeout=15)
        with contextlib.suppress(BaseException):
            cm.__exit__(None, None, None)


def _describe(exc: BaseException) -> str:
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(_describe(e) for e in exc.exceptions)
    text = str(exc) or type(exc).__name__
    return f"{type(exc).__name__}: {text}" if str(exc) else text


def _connect_error(server: MCPServer, exc: BaseException) -> Exception:
    where = f"command {server.command!r}" if server.command is not None else f"url {server.url!r}"
    if isinstance(exc, TimeoutError):
        why = f"no answer within {server.connect_timeout:g} s"
    else:
        why = _describe(exc)
    if isinstance(exc, (FileNotFoundError, PermissionError)):
        return UserError(f"MCP server {server.name!r} could not start ({where}): {why}")
    return ExecutorError(f"MCP server {server.name!r} ({where}) failed to connect: {why}")


@atexit.register
def _close_leftovers() -> None:  # pragma: no cover - runs at interpreter exit
    for conn in list(_LIVE):
        with contextlib.suppress(Exception):
            conn._close_sync()


__all__ = ["MCPCallError", "MCPConnections"]
