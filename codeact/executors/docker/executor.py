"""DockerExecutor: one hardened container per session with a long-lived kernel inside.

This module is the container's lifecycle (options, start, replace, remove); cells, tools, files
and restarts come from the kernel kit (``codeact.executors.wire``: ``KernelBackedExecutor``) and
the engine's errors are mapped in ``_engine``."""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import Callable, Sequence
from typing import Any

import anyio
import anyio.to_thread

from codeact.errors import ExecutorError
from codeact.executors._owner import owner_id
from codeact.executors.docker._container import ContainerSource, RunningContainer
from codeact.executors.docker._engine import (
    LABEL,
    LABEL_HOST,
    LABEL_OWNER,
    LABEL_PID,
    docker_client,
    reap_orphans,
)
from codeact.executors.docker.image import IMAGE as IMAGE  # re-exported: the CLI imports it here
from codeact.executors.kernel import BOOTSTRAP
from codeact.executors.wire.executor import KernelBackedExecutor
from codeact.executors.wire.session import KernelPeer
from codeact.tools import BaseTool

KILL_GRACE_S = 2.0
SANDBOX_USER = "10001:10001"
#: Host threads a gVisor sandbox may use on top of ``pids_limit`` (its Sentry alone runs ~120).
GVISOR_THREADS = 1024


def is_gvisor(runtime: str | None) -> bool:
    """True for a gVisor runtime name (``runsc``, ``runsc-kvm``, ``gvisor``...)."""
    return runtime is not None and ("runsc" in runtime or "gvisor" in runtime)


class DockerExecutor(KernelBackedExecutor):
    """Runs cells in a container: no network, read-only root, non-root, all caps dropped,
    ``no-new-privileges``, memory (= swap), CPU, pids, open-file and file-size limits, an init
    process, and size- and inode-capped tmpfs for ``/workspace`` and ``/tmp`` (``max_files``;
    gVisor's tmpfs ignores the inode cap, its files count against ``memory``). Every limit is a
    constructor argument; ``network=True`` opts into networking. The kernel exits by itself when
    this process's attach stream closes (e.g. the host process was killed), and the next
    executor, ``codeact serve``/``run``/``batch`` or ``codeact sandbox prune`` removes
    containers whose owning process is gone.

    A cell past its timeout is interrupted (state kept); a kernel that does not stop, dies, runs
    out of memory or whose container disappears is replaced (``restarted=True``, state lost).

    ``runtime`` picks the engine's OCI runtime; ``None`` is the engine's default (runc).
    ``runtime="runsc"`` runs the container under gVisor: the cell's system calls go to gVisor's
    user-space kernel (the Sentry) instead of the host kernel, so a Linux kernel bug is not an
    escape. The engine must know the runtime: install it (Debian: ``apt-get install runsc``),
    register it in ``/etc/docker/daemon.json`` as ``{"runtimes": {"runsc": {"path":
    "/usr/bin/runsc", "runtimeArgs": ["--network=none"]}}}`` and reload dockerd (``SIGHUP``);
    ``docker info`` then lists it. With ``--network=none`` as a runtime argument ``network=True``
    gives no network under gVisor. Under gVisor ``pids_limit`` does not limit the sandbox's
    processes: the host's pids cgroup counts the Sentry's threads (it gets ``GVISOR_THREADS``
    more for them), and gVisor does not enforce ``RLIMIT_NPROC`` (set anyway), so a fork bomb
    runs until ``memory`` stops it, which restarts the session with an error naming the limit
    (tested in ``tests/docker/test_kernel_parity.py``). Everything else (limits, read-only
    root, user, caps) applies as with runc. It costs about 0.2-0.5 s more per session start and
    little per cell (``benchmarks/docker_executor.py``).
    """

    name = "docker"
    grace = KILL_GRACE_S

    def __init__(
        self,
        *,
        tools: Sequence[BaseTool | Callable[..., Any]] = (),
        image: str = IMAGE,
        timeout: float = 30.0,
        memory: str = "512m",
        cpus: float = 1.0,
        pids_limit: int = 128,
        network: bool = False,
        tmp_size: str = "64m",
        workspace_size: str = "256m",
        max_files: int = 50_000,
        open_files: int = 256,
        file_size_mb: int = 64,
        user: str | None = None,
        runtime: str | None = None,
        docker_host: str | None = None,
        max_output_bytes: int = 1_000_000,
        start_timeout: float = 60.0,
        labels: dict[str, str] | None = None,
        container_id: str | None = None,
        pool: ContainerSource | None = None,
    ) -> None:
        super().__init__(tools=tools, timeout=timeout, max_output_bytes=max_output_bytes)
        self.image = image
        self.memory = memory
        self.cpus = cpus
        self.pids_limit = pids_limit
        self.network = network
        self.tmp_size = tmp_size
        self.workspace_size = workspace_size
        self.max_files = max_files
        self.open_files = open_files
        self.file_size_mb = file_size_mb
        self.user = user
        self.runtime = runtime
        self.docker_host = docker_host
        self.start_timeout = start_timeout
        self.extra_labels = dict(labels or {})
        #: A running container (started with ``container_options()``) to adopt instead of
        #: creating one, e.g. from ``codeact.testing.SandboxContainer``. Replacements after a
        #: crash are created by the executor as usual.
        self.adopt_id = container_id
        self.pool = pool
        self.session_id = uuid.uuid4().hex[:12]
        self._engine: Any = None

    # -- lifecycle -----------------------------------------------------------------------------
    def container_options(self) -> dict[str, Any]:
        """The keyword arguments given to ``containers.create`` (the hardening in one place)."""
        import docker.types

        labels = {
            LABEL: self.session_id,
            LABEL_PID: str(os.getpid()),
            LABEL_OWNER: owner_id(),
            LABEL_HOST: socket.gethostname(),
            **self.extra_labels,
        }
        user = self.user or SANDBOX_USER
        uid, _, gid = user.partition(":")
        owner = f",uid={uid},gid={gid or uid}" if uid.isdigit() and (gid or uid).isdigit() else ""
        opts: dict[str, Any] = {
            "command": ["python3", "-u", "-c", BOOTSTRAP],
            "stdin_open": True,
            # Not detached: the engine then closes the container's stdin once our attach stream
            # ends (StdinOnce), and the kernel exits when it sees that (no orphan keeps running).
            "detach": False,
            "tty": False,
            "network_mode": "bridge" if self.network else "none",
            "read_only": True,
            "tmpfs": {
                "/tmp": f"rw,nosuid,nodev,noexec,size={self.tmp_size},nr_inodes={self.max_files}",
                "/workspace": (
                    f"rw,nosuid,nodev,size={self.workspace_size},nr_inodes={self.max_files}{owner}"
                ),
            },
            "user": user,
            "cap_drop": ["ALL"],
            "security_opt": ["no-new-privileges:true"],
            "mem_limit": self.memory,
            "memswap_limit": self.memory,
            "nano_cpus": int(self.cpus * 1e9),
            "pids_limit": self.pids_limit,
            "ulimits": [
                docker.types.Ulimit(name="nofile", soft=self.open_files, hard=self.open_files),
                docker.types.Ulimit(
                    name="fsize", soft=self.file_size_mb << 20, hard=self.file_size_mb << 20
                ),
            ],
            "init": True,
            "labels": labels,
            "environment": {
                "MPLBACKEND": "Agg",
                "MPLCONFIGDIR": "/tmp/mpl",
                "HOME": "/workspace",
                "PYTHONDONTWRITEBYTECODE": "1",
            },
            "working_dir": "/workspace",
            "log_config": docker.types.LogConfig(type="json-file", config={"max-size": "1m"}),
        }
        if self.runtime:
            opts["runtime"] = self.runtime
        if is_gvisor(self.runtime):
            # The host cgroup counts the Sentry's threads, not the sandbox's processes; gVisor
            # ignores RLIMIT_NPROC today (the memory limit stops a fork bomb): see the class doc.
            opts["pids_limit"] = self.pids_limit + GVISOR_THREADS
            opts["ulimits"].append(
                docker.types.Ulimit(name="nproc", soft=self.pids_limit, hard=self.pids_limit)
            )
        return opts

    @property
    def container(self) -> Any:
        """The docker SDK container of the running session (None when there is none)."""
        box = self._box
        return None if box is None else box.container

    @property
    def _box(self) -> RunningContainer | None:
        return self.peer.box if isinstance(self.peer, ContainerPeer) else None

    async def open_peer(self) -> ContainerPeer:
        """The session's container: taken from the pool, or created (after reaping containers
        that crashed processes left behind)."""
        if self.pool is not None:
            box = await self.pool.take()
            self._engine = box.engine
            peer = ContainerPeer(self, box)
            if self.tools and not await box.client.set_tools(self.tool_specs()):
                await peer.stop()
                raise ExecutorError("the sandbox kernel did not accept the tools")
            return peer
        if self._engine is None:
            self._engine = await anyio.to_thread.run_sync(docker_client, self.docker_host)
            await anyio.to_thread.run_sync(reap_orphans, self._engine)
        peer = ContainerPeer(self)
        await peer.start()
        return peer

    def handover(self) -> RunningContainer:
        """Give the running container to someone else (a ``SandboxPool``'s taker): this
        executor is then closed without removing it, and the taker removes it."""
        peer = self.peer
        if not isinstance(peer, ContainerPeer) or peer.box is None:
            raise ExecutorError("Only a started executor can hand its container over")
        box, peer.box, peer.client = peer.box, None, None
        self.peer, self._engine = None, None
        self._closed = True
        return box

    async def close_resources(self) -> None:
        """Close the engine client."""
        if self._engine is not None:
            engine, self._engine = self._engine, None
            await anyio.to_thread.run_sync(engine.close)


class ContainerPeer(KernelPeer):
    """The session's container as a ``KernelPeer``: launched with the executor's options,
    removed when stopped, interrupted with SIGINT, asked why it died by the engine."""

    def __init__(self, owner: DockerExecutor, box: RunningContainer | None = None) -> None:
        super().__init__()
        self.owner = owner
        self.box = box
        self.client = None if box is None else box.client

    async def start(self) -> None:
        """Create the container (or adopt ``container_id`` once) and wait for its kernel."""
        owner = self.owner
        adopt, owner.adopt_id = owner.adopt_id, None
        self.box = await RunningContainer.launch(
            owner._engine,
            image=owner.image,
            options=owner.container_options(),
            init=owner.init_frame(),
            start_timeout=owner.start_timeout,
            adopt_id=adopt,
        )
        self.client = self.box.client

    async def stop(self) -> None:
        """Remove the container (gone already is fine)."""
        box, self.box, self.client = self.box, None, None
        if box is not None:
            await box.remove()

    async def death_reason(self) -> tuple[str, str]:
        """Why the kernel went away: an error type and a message, from the engine's state."""
        if self.box is None:
            return "SandboxCrashed", "the container is gone; the session was restarted"
        kind, reason = await self.box.death_reason(self.owner.memory)
        return kind, f"{reason}; the session was restarted"

    async def interrupt(self) -> bool:
        """SIGINT to the kernel (through the container's init): the cell stops."""
        return self.box is not None and await self.box.signal("SIGINT")
