"""The node side of ``RayExecutor``: ``SandboxHost``, run as a Ray actor on the chosen node.

It starts the node's own sandbox — ``RestrictedExecutor(isolation="process")`` (the worker in
bubblewrap, with its cgroup and disk quota) or ``DockerExecutor`` on the node's engine — and
then only relays the kernel's bytes: the driver's ``KernelClient`` speaks the frame protocol
through ``send``/``recv``, so tool calls reach the driver (tools run there, never on the node)
and the node holds no credentials. Files of a process sandbox live on the node: ``upload`` and
``download`` move them. This module does not import Ray; the driver wraps the class.
"""

from __future__ import annotations

import os
import socket
from typing import Any

import anyio

from codeact.executors.base import CodeExecutor, ToolSpec
from codeact.executors.restricted import RestrictedExecutor
from codeact.executors.wire.client import STREAM_GONE
from codeact.executors.wire.session import KernelPeer

#: What ``SandboxHost(sandbox=...)`` accepts.
SANDBOXES = ("process", "docker")


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


class SandboxHost:
    """One session's sandbox on this node (a Ray actor; async methods, one call at a time per
    kind: the driver serialises them)."""

    def __init__(self, sandbox: str, options: dict[str, Any], specs: list[ToolSpec]) -> None:
        self.executor = make_sandbox(sandbox, options, specs)
        self.sandbox = sandbox

    async def start(self) -> dict[str, Any]:
        """Start the sandbox; where it runs (node id, host, pid) and how it is isolated."""
        await self.executor.start()
        peer_of(self.executor)
        node_id = ""
        try:
            import ray

            node_id = ray.get_runtime_context().get_node_id()
        except Exception:  # pragma: no cover - outside Ray (tests of this class alone)
            node_id = ""
        level = getattr(self.executor, "isolation_level", self.sandbox)
        return {
            "node_id": node_id,
            "host": socket.gethostname(),
            "pid": os.getpid(),
            "isolation": str(level),
        }

    async def send(self, data: bytes) -> bool:
        """Write ``data`` to the kernel; False when it is gone."""
        try:
            await peer_of(self.executor).kernel.stream.send(data)
        except (*STREAM_GONE, RuntimeError, Exception):
            return False
        return True

    async def recv(self, max_bytes: int = 65536) -> bytes:
        """The next bytes the kernel wrote (waits for them); ``b""`` when it is gone."""
        try:
            return await peer_of(self.executor).kernel.stream.receive(max_bytes)
        except (*STREAM_GONE, RuntimeError, Exception):
            return b""

    async def interrupt(self) -> bool:
        """Ask the running cell to stop (False: the kernel must be replaced)."""
        return await peer_of(self.executor).interrupt()

    async def death_reason(self) -> tuple[str, str]:
        """Why the kernel went away."""
        return await peer_of(self.executor).death_reason()

    async def restart(self) -> None:
        """A fresh kernel on this node (files of a process sandbox stay)."""
        await peer_of(self.executor).restart()

    async def upload(self, path: str, data: bytes) -> None:
        """Write a file into the sandbox's working area."""
        await self.executor.upload(path, data)

    async def download(self, path: str) -> bytes:
        """Read a file from the sandbox's working area."""
        return await self.executor.download(path)

    async def stop(self) -> None:
        """End the sandbox and release what it holds on this node."""
        with anyio.CancelScope(shield=True):
            await self.executor.aclose()

    def ping(self) -> bool:
        """The actor answers."""
        return True
