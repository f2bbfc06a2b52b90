"""RayExecutor: each session's kernel on a node of a Ray cluster, in that node's sandbox.

The driver (this process) keeps the session: the kernel client, the tools (run here), the
deadlines. A ``SandboxHost`` actor placed by Ray resources starts the node's sandbox and relays
the kernel's bytes (``_stream.ActorStream``). A node that dies loses its sessions: the cell gets
an ``ExecutorError`` naming the node and the next cell runs in a fresh session that Ray places
on a live node. The actors belong to this process: when it exits or is killed, Ray ends them,
and bubblewrap (``--die-with-parent``) or the container kernel (its attach stream closes) takes
the sandbox with them.
"""

from __future__ import annotations

import contextlib
import logging
import socket
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

import anyio

from codeact.errors import ExecutorError, UserError
from codeact.executors.ray._host import SANDBOXES, SandboxHost, make_sandbox
from codeact.executors.ray._stream import ActorStream
from codeact.executors.wire.client import KernelClient
from codeact.executors.wire.executor import KernelBackedExecutor
from codeact.executors.wire.files import check_relative
from codeact.executors.wire.session import KernelPeer
from codeact.tools import BaseTool

Sandbox = Literal["process", "docker"]
#: Attempts to place a session before giving up (a node that just died may still be listed).
PLACE_ATTEMPTS = 3


def import_ray() -> Any:
    """``ray``, or a ``UserError`` naming the extra to install."""
    try:
        import ray
    except ImportError as exc:
        raise UserError("RayExecutor needs Ray: pip install 'codeact[ray]'") from exc
    return ray


def connect_ray(address: str | None) -> Any:
    """This process connected to the cluster at ``address`` (``None``: the one it is already
    connected to, else ``RAY_ADDRESS`` or a local one); returns ``ray``."""
    ray = import_ray()
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
    ``{"allowed_modules": ["pandas"], "memory_limit_mb": 1024}``). Placement: ``num_cpus``,
    ``memory_mb`` (reserved on the node) and custom ``resources`` (node labels such as
    ``{"sandbox": 1}``); ``node_id`` pins a session to one node; otherwise sessions are spread
    over the nodes. Tools run on this host: a cell's tool call crosses the cluster back here,
    so the node needs no credentials. ``address`` is the cluster (``None``: the one this process
    is connected to, else ``RAY_ADDRESS`` or a local one). Every node needs codeact (same
    version) and, for ``process``, bubblewrap; for ``docker``, an engine with the image.
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

    @property
    def node(self) -> dict[str, Any]:
        """Where the session runs: ``node_id``, ``host``, ``pid`` and ``isolation`` (empty before
        ``start()``)."""
        peer = self.peer
        return dict(peer.where) if isinstance(peer, RayPeer) else {}

    def actor_options(self) -> dict[str, Any]:
        """The Ray options of a session's actor (placement and lifetime)."""
        opts: dict[str, Any] = {
            "num_cpus": self.num_cpus,
            "resources": self.resources,
            "max_restarts": 0,
            "max_task_retries": 0,
        }
        if self.memory_mb is not None:
            opts["memory"] = self.memory_mb << 20
        if self.node_id is not None:
            from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

            opts["scheduling_strategy"] = NodeAffinitySchedulingStrategy(self.node_id, soft=False)
        else:
            opts["scheduling_strategy"] = "SPREAD"
        return opts

    async def open_peer(self) -> KernelPeer:
        """Connect to the cluster and place the session's sandbox on a node."""
        ray = await anyio.to_thread.run_sync(connect_ray, self.address)
        peer = RayPeer(self, ray)
        await peer.start()
        return peer

    async def upload(self, path: str, data: bytes) -> None:
        """Write ``data`` to ``path`` (relative) in the session's working area on its node."""
        if self.sandbox == "docker":
            return await super().upload(path, data)
        check_relative(path)
        await self.start()
        async with self._lock:
            peer = self.running_peer()
            assert isinstance(peer, RayPeer)
            await peer.call("upload", path, data)

    async def download(self, path: str) -> bytes:
        """Read ``path`` (relative) from the session's working area on its node."""
        if self.sandbox == "docker":
            return await super().download(path)
        check_relative(path)
        await self.start()
        async with self._lock:
            peer = self.running_peer()
            assert isinstance(peer, RayPeer)
            data = await peer.call("download", path)
        return bytes(data)


class RayPeer(KernelPeer):
    """The session's ``SandboxHost`` actor as a ``KernelPeer``."""

    def __init__(self, owner: RayExecutor, ray: Any) -> None:
        super().__init__()
        self.owner = owner
        self.ray = ray
        self.actor: Any = None
        self.stream: ActorStream | None = None
        #: Where the sandbox runs (``SandboxHost.start``'s answer).
        self.where: dict[str, Any] = {}

    def label(self) -> str:
        """The node, as the user's messages name it."""
        node = self.where.get("node_id", "?")
        return f"{node[:12]} ({self.where.get('host', '?')})"

    async def call(self, method: str, *args: Any) -> Any:
        """Call the actor; Ray's errors become ``ExecutorError`` naming the node, the node
        executor's own ``UserError`` (a missing file) stays one."""
        if self.actor is None:
            raise ExecutorError("the Ray sandbox is not running")
        try:
            return await getattr(self.actor, method).remote(*args)
        except self.ray.exceptions.RayTaskError as exc:
            cause = exc.as_instanceof_cause()
            if isinstance(cause, UserError | ExecutorError):
                raise type(cause)(str(cause).splitlines()[-1]) from None
            raise ExecutorError(f"{method} failed on Ray node {self.label()}: {cause}") from exc
        except Exception as exc:
            raise ExecutorError(
                f"the Ray node {self.label()} running this session is gone ({type(exc).__name__})"
            ) from exc

    async def start(self) -> None:
        """Place a ``SandboxHost`` (retrying when the node it landed on died) and connect."""
        owner = self.owner
        remote = self.ray.remote(SandboxHost).options(**owner.actor_options())
        problem: BaseException | None = None
        for _ in range(PLACE_ATTEMPTS):
            self.actor = remote.remote(owner.sandbox, owner.sandbox_options, owner.tool_specs())
            try:
                with anyio.fail_after(owner.start_timeout):
                    self.where = await self.actor.start.remote()
            except UserError:
                raise
            except Exception as exc:
                problem = exc
                await self.stop()
                if isinstance(exc, TimeoutError):
                    break
                continue
            self._connect()
            return
        raise ExecutorError(
            f"No Ray node could start a sandbox for this session ({type(problem).__name__}: "
            f"{str(problem).splitlines()[0] if str(problem) else ''}). `codeact doctor --ray "
            "ADDRESS` shows which nodes can."
        ) from problem

    def _connect(self) -> None:
        self.stream = ActorStream(self.actor)
        self.client = KernelClient(self.stream)

    async def restart(self) -> None:
        """A fresh kernel on the same node when its actor answers; else a new session that Ray
        places on a live node."""
        if self.actor is not None:
            try:
                with anyio.fail_after(self.owner.start_timeout):
                    await self.actor.restart.remote()
            except Exception:
                pass
            else:
                self._connect()
                return
        await self.stop()
        await self.start()

    async def stop(self) -> None:
        """End the sandbox on its node (gracefully, else by killing the actor)."""
        actor, self.actor, self.client, self.stream = self.actor, None, None, None
        if actor is None:
            return
        with anyio.CancelScope(shield=True), contextlib.suppress(Exception):
            with anyio.fail_after(15):
                await actor.stop.remote()
        with contextlib.suppress(Exception):
            self.ray.kill(actor, no_restart=True)

    async def death_reason(self) -> tuple[str, str]:
        """Why the kernel went away: from the node when its actor answers; else the node died."""
        if self.actor is not None:
            try:
                with anyio.fail_after(5):
                    kind, message = await self.actor.death_reason.remote()
                return str(kind), f"{message} (on Ray node {self.label()})"
            except Exception:
                pass
        return "ExecutorError", (
            f"the Ray node {self.label()} running this session died or left the cluster; "
            "the session's variables and files are lost, and a fresh session was started on "
            "another node"
        )

    async def interrupt(self) -> bool:
        """Ask the node to stop the running cell."""
        try:
            with anyio.fail_after(5):
                return bool(await self.actor.interrupt.remote())
        except Exception:
            return False
