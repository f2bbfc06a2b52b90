"""The node side of ``RayExecutor``: ``NodeHost``, one Ray actor per node and driver, hosting
that driver's sessions on the node.

A session is the node's own sandbox — ``RestrictedExecutor(isolation="process")`` (the worker
in bubblewrap, with its cgroup and disk quota) or ``DockerExecutor`` on the node's engine — and
a relay: the host listens on the node's address for one TCP connection that proves it knows the
session's token, then pumps bytes between it and the kernel. The driver's ``KernelClient``
speaks the frame protocol through it, so tool calls reach the driver (tools run there, never on
the node) and the node holds no credentials. Ray carries the control calls (open, interrupt,
restart, files of a process sandbox, close) and the lifetime: the actor belongs to the driver,
and when the driver exits or is killed Ray ends it, and its sandboxes with it. This module does
not import Ray at import time; the driver wraps the class.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import os
import secrets
import socket
from typing import Any

import anyio
from anyio.abc import ByteStream

from codeact.executors.base import CodeExecutor, ToolSpec
from codeact.executors.restricted import RestrictedExecutor
from codeact.executors.wire.session import KernelPeer

#: What ``sandbox=`` accepts.
SANDBOXES = ("process", "docker")
#: Seconds the driver has to connect to a session's relay after asking for it.
CONNECT_WINDOW_S = 60.0
TOKEN_BYTES = 16


class _NodeRestricted(RestrictedExecutor):
    """The process sandbox on the node, with the driver's tools as specs only."""

    specs: tuple[ToolSpec, ...] = ()

    def tool_specs(self) -> list[ToolSpec]:
        return list(self.specs)


def _node_docker(options: dict[str, Any], specs: list[ToolSpec]) -> CodeExecutor:
    from codeact.executors.docker import DockerExecutor

    class _NodeDocker(DockerExecutor):
        def tool_specs(self) -> list[ToolSpec]:
            return specs

    return _NodeDocker(**options)


def make_sandbox(sandbox: str, options: dict[str, Any], specs: list[ToolSpec]) -> CodeExecutor:
    """The node's executor for ``sandbox`` (``process`` or ``docker``) with ``options``."""
    if sandbox == "docker":
        return _node_docker(options, specs)
    ex = _NodeRestricted(isolation="process", **options)
    ex.specs = tuple(specs)
    return ex


def peer_of(ex: CodeExecutor) -> KernelPeer:
    """The running kernel peer of a started node executor."""
    peer = getattr(ex, "_worker", None) or getattr(ex, "peer", None)
    if not isinstance(peer, KernelPeer):
        raise RuntimeError(f"{type(ex).__name__} has no running kernel peer")
    return peer


def node_ip() -> str:
    """The address this node is known by in the cluster."""
    try:
        import ray

        return str(ray.util.get_node_ip_address())  # type: ignore[no-untyped-call]
    except Exception:  # outside Ray
        return "127.0.0.1"


class _Relay:
    """One session's listener: the first connection that sends the token is joined to the
    kernel's stream until either side ends; the listener closes after it (or after the window)."""

    def __init__(self, kernel: ByteStream) -> None:
        self.kernel = kernel
        self.token = secrets.token_hex(TOKEN_BYTES)
        self.server: asyncio.Server | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def listen(self, host: str) -> tuple[str, int]:
        self.server = await asyncio.start_server(self._accept, host=host, port=0)
        port = self.server.sockets[0].getsockname()[1]
        asyncio.get_running_loop().call_later(CONNECT_WINDOW_S, self._stop_listening)
        return host, int(port)

    def _stop_listening(self) -> None:
        if self.server is not None:
            self.server.close()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            got = await asyncio.wait_for(reader.readexactly(len(self.token)), 10)
        except (asyncio.IncompleteReadError, TimeoutError, OSError):
            writer.close()
            return
        if self.writer is not None or not hmac.compare_digest(got, self.token.encode()):
            writer.close()  # a second connection, or one that does not know the token
            return
        self._stop_listening()
        self.writer = writer
        with contextlib.suppress(OSError):
            writer.get_extra_info("socket").setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        await self._pump(reader, writer)

    async def _pump(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        async def inbound() -> None:
            while data := await reader.read(65536):
                await self.kernel.send(data)

        async def outbound() -> None:
            while True:
                writer.write(await self.kernel.receive(65536))
                await writer.drain()

        try:
            async with anyio.create_task_group() as tg:
                for pump in (inbound, outbound):
                    tg.start_soon(_until_done, pump, tg.cancel_scope)
        finally:
            writer.close()

    def close(self) -> None:
        """Stop listening and drop the connection (the driver sees the end of its stream)."""
        self._stop_listening()
        if self.writer is not None:
            self.writer.close()


async def _until_done(pump: Any, scope: anyio.CancelScope) -> None:
    """Run one direction of the relay; when it ends (either side closed), end the other."""
    with contextlib.suppress(Exception):
        await pump()
    scope.cancel()


class _Session:
    def __init__(self, executor: CodeExecutor) -> None:
        self.executor = executor
        self.relay: _Relay | None = None


class NodeHost:
    """The sessions one driver runs on this node (a Ray actor with async methods)."""

    def __init__(self) -> None:
        self.sessions: dict[str, _Session] = {}
        # sandboxes start a few at a time: a burst of sessions queues instead of starving
        # every start of CPU until all of them miss their deadline
        self.starting = asyncio.Semaphore(max(2, 2 * (os.cpu_count() or 1)))

    def info(self) -> dict[str, Any]:
        """Where this host runs: ``node_id``, ``host``, ``ip``, ``pid`` and ``sessions``."""
        node_id = ""
        with contextlib.suppress(Exception):
            import ray

            node_id = ray.get_runtime_context().get_node_id()
        return {
            "node_id": node_id,
            "host": socket.gethostname(),
            "ip": node_ip(),
            "pid": os.getpid(),
            "sessions": len(self.sessions),
        }

    def _get(self, sid: str) -> _Session:
        session = self.sessions.get(sid)
        if session is None:
            raise RuntimeError(f"no session {sid!r} on this node (it was closed)")
        return session

    async def open(
        self, sid: str, sandbox: str, options: dict[str, Any], specs: list[ToolSpec]
    ) -> dict[str, Any]:
        """Start a session's sandbox; where it runs and how to reach its kernel."""
        ex = make_sandbox(sandbox, options, specs)
        try:
            async with self.starting:
                await ex.start()
        except BaseException:
            with anyio.CancelScope(shield=True):
                await ex.aclose()
            raise
        self.sessions[sid] = _Session(ex)
        level = getattr(ex, "isolation_level", sandbox)
        return {**self.info(), "isolation": str(level), **await self.relay(sid)}

    async def relay(self, sid: str) -> dict[str, Any]:
        """A fresh listener for the session's kernel: ``address`` (ip, port) and ``token``."""
        session = self._get(sid)
        if session.relay is not None:
            session.relay.close()
        session.relay = _Relay(peer_of(session.executor).kernel.stream)
        address = await session.relay.listen(node_ip())
        return {"address": list(address), "token": session.relay.token}

    async def restart(self, sid: str) -> dict[str, Any]:
        """A fresh kernel for the session (files of a process sandbox stay); its new relay."""
        session = self._get(sid)
        if session.relay is not None:
            session.relay.close()
            session.relay = None
        await peer_of(session.executor).restart()
        return await self.relay(sid)

    async def interrupt(self, sid: str) -> bool:
        """Ask the session's running cell to stop (False: replace the kernel instead)."""
        return await peer_of(self._get(sid).executor).interrupt()

    async def death_reason(self, sid: str) -> tuple[str, str]:
        """Why the session's kernel went away."""
        return await peer_of(self._get(sid).executor).death_reason()

    async def upload(self, sid: str, path: str, data: bytes) -> None:
        """Write a file into the session's working area."""
        await self._get(sid).executor.upload(path, data)

    async def download(self, sid: str, path: str) -> bytes:
        """Read a file from the session's working area."""
        return await self._get(sid).executor.download(path)

    async def close(self, sid: str) -> None:
        """End the session's sandbox and release what it holds on this node."""
        session = self.sessions.pop(sid, None)
        if session is None:
            return
        if session.relay is not None:
            session.relay.close()
        with anyio.CancelScope(shield=True):
            await session.executor.aclose()
