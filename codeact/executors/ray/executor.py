"""RayExecutor: each session's kernel on a node of a Ray cluster, in that node's sandbox.

The driver (this process) keeps the session: the kernel client, the tools (run here), the
deadlines. On each node it uses, a ``NodeHost`` actor (``_host``) starts the node's sandbox for
each session and relays the kernel's bytes over one authenticated TCP connection; Ray carries
the control calls and the lifetime. A node that dies loses its sessions: the cell gets an
``ExecutorError`` naming the node and the next cell runs in a fresh session on a live node. The
actors belong to this process: when it exits or is killed, Ray ends them, and bubblewrap
(``--die-with-parent``) or the container kernel (its attach stream closes) ends the sandbox.
"""

from __future__ import annotations

import logging
import socket
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

import anyio

from codeact.errors import UserError
from codeact.executors.ray._host import SANDBOXES, make_sandbox
from codeact.executors.ray._peer import RayPeer, SessionSpec
from codeact.executors.ray._placement import Need
from codeact.executors.wire.executor import KernelBackedExecutor
from codeact.executors.wire.files import check_relative
from codeact.tools import BaseTool

Sandbox = Literal["process", "docker"]


def import_ray() -> Any:
    """``ray``, or a ``UserError`` naming the extra to install."""
    try:
        import ray
    except ImportError as exc:
        raise UserError("RayExecutor needs Ray: pip install 'codeact[ray]'") from exc
    return ray


_CONNECTING = threading.Lock()


def connect_ray(address: str | None) -> Any:
    """This process connected to the cluster at ``address`` (``None``: the one it is already
    connected to, else ``RAY_ADDRESS`` or a local one); returns ``ray``."""
    ray = import_ray()
    with _CONNECTING:  # sessions starting together connect once
        if not ray.is_initialized():
            _check_reachable(address)
            try:
                ray.init(address=address, log_to_driver=False, logging_level=logging.WARNING)
            except (ConnectionError, ValueError, RuntimeError) as exc:
                raise UserError(
                    f"Cannot connect to the Ray cluster at {address or 'local'}: {exc}"
                ) from exc
    return ray


def _check_reachable(address: str | None) -> None:
    """``UserError`` at once when ``host:port`` refuses connections (Ray would retry for
    minutes before saying so)."""
    host, sep, port = (address or "").rpartition(":")
    if not sep or not port.isdigit() or "://" in host:
        return
    try:
        socket.create_connection((host, int(port)), timeout=10).close()
    except OSError as exc:
        raise UserError(
            f"Cannot connect to the Ray cluster at {address}: {exc.strerror or exc}. Is "
            "`ray start --head` running there, and is the address its GCS (port 6379 by default)?"
        ) from None


def cluster_memory_mb(ray: Any) -> int:
    """The memory Ray may hand out on the cluster's live nodes, in MB."""
    return int(ray.cluster_resources().get("memory", 0)) >> 20


class RayExecutor(KernelBackedExecutor):
    """Runs each session's kernel on a Ray node, inside that node's OS sandbox.

    ``sandbox="process"`` (default) starts ``RestrictedExecutor(isolation="process")`` on the
    node — the worker in bubblewrap with its cgroup and disk quota — and ``sandbox="docker"`` a
    ``DockerExecutor`` on the node's engine; ``sandbox_options`` go to that class (e.g.
    ``{"allowed_modules": ["pandas"], "memory_limit_mb": 1024}``). Placement: a node must carry
    the custom ``resources`` asked for (labels such as ``{"sandbox": 1}``) and have room for
    ``num_cpus`` and ``memory_mb`` next to this process's other sessions there; ``node_id``
    pins a session to one node; among the nodes that fit, the one with fewest sessions wins.
    Tools run on this host: a cell's tool call crosses the cluster back here, so the node needs
    no credentials. ``address`` is the cluster (``None``: the one this process is connected to,
    else ``RAY_ADDRESS`` or a local one). Every node needs codeact (same version) and, for
    ``process``, bubblewrap; for ``docker``, an engine with the image; the driver must reach
    the nodes' addresses over TCP (the kernels' relays listen there).
    """

    name = "ray"

    def __init__(
        self,
        *,
        tools: Sequence[BaseTool | Callable[..., Any]] = (),
        address: str | None = None,
        sandbox: Sandbox = "process",
        sandbox_options: Mapping[str, Any] | None = None,
        num_cpus: float = 1.0,
        memory_mb: int | None = None,
        resources: Mapping[str, float] | None = None,
        node_id: str | None = None,
        timeout: float = 30.0,
        max_output_bytes: int = 1_000_000,
        start_timeout: float = 120.0,
    ) -> None:
        super().__init__(tools=tools, timeout=timeout, max_output_bytes=max_output_bytes)
        if sandbox not in SANDBOXES:
            raise UserError(f"sandbox must be one of {', '.join(SANDBOXES)}, got {sandbox!r}")
        if not num_cpus >= 0 or (memory_mb is not None and memory_mb <= 0):
            raise UserError("num_cpus must be >= 0 and memory_mb positive")
        self.address = address
        self.sandbox: Sandbox = sandbox
        self.sandbox_options = {"timeout": timeout, "max_output_bytes": max_output_bytes}
        self.sandbox_options.update(sandbox_options or {})
        try:  # bad options: a UserError now, not on a node later
            make_sandbox(sandbox, self.sandbox_options, [])
        except TypeError as exc:
            raise UserError(f"sandbox_options for sandbox={sandbox!r}: {exc}") from None
        self.num_cpus = num_cpus
        self.memory_mb = memory_mb
        self.resources = dict(resources or {})
        self.node_id = node_id
        self.start_timeout = start_timeout

    @classmethod
    def with_limits(
        cls,
        *,
        address: str | None,
        allowed_modules: Sequence[str],
        os_sandbox: str = "auto",
        cell_timeout: float = 60.0,
        memory_mb: int = 2048,
        disk_mb: int = 1024,
        cpus: float | None = 1.0,
    ) -> RayExecutor:
        """The command line's session on the cluster: a node's process sandbox with these
        modules and per-session limits, reserving its memory and disk (``memory_mb +
        disk_mb``) on the node — the unit ``codeact serve`` budgets sessions by — and no
        whole CPU (the session's cgroup caps its CPU at ``cpus``)."""
        return cls(
            address=address,
            timeout=cell_timeout,
            num_cpus=0,
            memory_mb=memory_mb + disk_mb,
            sandbox_options={
                "allowed_modules": list(allowed_modules),
                "os_sandbox": os_sandbox,
                "memory_limit_mb": memory_mb,
                "disk_limit_mb": disk_mb,
                "cpus": cpus,
            },
        )

    @property
    def node(self) -> dict[str, Any]:
        """Where the session runs: ``node_id``, ``host``, ``ip``, ``pid`` (of the node's host
        actor) and ``isolation`` (empty before ``start()``)."""
        peer = self.peer
        return dict(peer.where) if isinstance(peer, RayPeer) else {}

    def need(self) -> Need:
        """What a session of this executor asks of a node."""
        return Need(self.num_cpus, self.memory_mb or 0, dict(self.resources), self.node_id)

    async def open_peer(self) -> RayPeer:
        """Connect to the cluster and place the session's sandbox on a node."""
        ray = await anyio.to_thread.run_sync(connect_ray, self.address)
        spec = SessionSpec(
            need=self.need(),
            sandbox=self.sandbox,
            options=dict(self.sandbox_options),
            tool_specs=self.tool_specs(),
            start_timeout=self.start_timeout,
        )
        peer = RayPeer(spec, ray)
        await peer.start()
        return peer

    def _ray_peer(self) -> RayPeer:
        peer = self.running_peer()
        assert isinstance(peer, RayPeer)
        return peer

    async def upload(self, path: str, data: bytes) -> None:
        """Write ``data`` to ``path`` (relative) in the session's working area on its node."""
        if self.sandbox == "docker":
            return await super().upload(path, data)
        check_relative(path)
        await self.start()
        async with self._lock:
            await self._ray_peer().call("upload", path, data)

    async def download(self, path: str) -> bytes:
        """Read ``path`` (relative) from the session's working area on its node."""
        if self.sandbox == "docker":
            return await super().download(path)
        check_relative(path)
        await self.start()
        async with self._lock:
            return bytes(await self._ray_peer().call("download", path))
