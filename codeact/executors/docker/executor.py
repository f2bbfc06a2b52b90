"""DockerExecutor: one hardened container per session with a long-lived kernel inside."""

from __future__ import annotations

import base64
import contextlib
import io
import os
import socket
import tarfile
import time
import uuid
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import anyio
import anyio.to_thread

from codeact import __version__
from codeact.errors import ExecutorError, UserError
from codeact.executors._remote import collect_result, lost_result, to_result
from codeact.executors.base import CodeExecutor, ExecutionResult, OutputCallback
from codeact.executors.docker._engine import (
    LABEL,
    LABEL_HOST,
    LABEL_PID,
    docker_client,
    reap_orphans,
)
from codeact.executors.docker._stream import ContainerStream
from codeact.executors.kernel import BOOTSTRAP, KERNEL_SOURCE
from codeact.executors.restricted._protocol import (
    HEADER,
    MAX_FRAME,
    ProtocolError,
    decode_worker_frame,
    encode,
)

if TYPE_CHECKING:
    from codeact.executors.docker.pool import SandboxPool
from codeact.tools import BaseTool

IMAGE = f"codeact-sandbox:{__version__}"
KILL_GRACE_S = 2.0
SANDBOX_USER = "10001:10001"
#: Host threads a gVisor sandbox may use on top of ``pids_limit`` (its Sentry alone runs ~120).
GVISOR_THREADS = 1024


def is_gvisor(runtime: str | None) -> bool:
    """True for a gVisor runtime name (``runsc``, ``runsc-kvm``, ``gvisor``...)."""
    return runtime is not None and ("runsc" in runtime or "gvisor" in runtime)


class DockerExecutor(CodeExecutor):
    """Runs cells in a container: no network, read-only root, non-root, all caps dropped,
    ``no-new-privileges``, memory (= swap), CPU, pids, open-file and file-size limits, an init
    process. Every limit is a constructor argument; ``network=True`` opts into networking.

    A cell past its timeout is interrupted (state kept); a kernel that does not stop, dies, runs
    out of memory or whose container disappears is replaced (``restarted=True``, state lost).

    ``runtime`` picks the engine's OCI runtime; ``None`` is the engine's default (runc).
    ``runtime="runsc"`` runs the container under gVisor: the cell's system calls go to gVisor's
    user-space kernel (the Sentry) instead of the host kernel, so a Linux kernel bug is not an
    escape. The engine must know the runtime: install it (Debian: ``apt-get install runsc``),
    register it in ``/etc/docker/daemon.json`` as ``{"runtimes": {"runsc": {"path":
    "/usr/bin/runsc", "runtimeArgs": ["--network=none"]}}}`` and reload dockerd (``SIGHUP``);
    ``docker info`` then lists it. With ``--network=none`` as a runtime argument ``network=True``
    gives no network under gVisor. Under gVisor ``pids_limit`` is enforced inside the sandbox
    (``RLIMIT_NPROC``, per sandbox since gVisor has its own kernel; forks past it fail with
    ``EAGAIN``) and the host's pids cgroup gets ``GVISOR_THREADS`` more for the Sentry's own
    threads. Everything else (limits, read-only root, user, caps) applies as with runc. It costs
    about 0.2-0.5 s more per session start and little per cell (``benchmarks/docker_executor.py``).
    """

    name = "docker"

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
        open_files: int = 256,
        file_size_mb: int = 64,
        user: str | None = None,
        runtime: str | None = None,
        docker_host: str | None = None,
        max_output_bytes: int = 1_000_000,
        start_timeout: float = 60.0,
        labels: dict[str, str] | None = None,
        container_id: str | None = None,
        pool: SandboxPool | None = None,
    ) -> None:
        super().__init__(tools=tools)
        self.image = image
        self.timeout = timeout
        self.memory = memory
        self.cpus = cpus
        self.pids_limit = pids_limit
        self.network = network
        self.tmp_size = tmp_size
        self.workspace_size = workspace_size
        self.open_files = open_files
        self.file_size_mb = file_size_mb
        self.user = user
        self.runtime = runtime
        self.docker_host = docker_host
        self.max_output_bytes = max_output_bytes
        self.start_timeout = start_timeout
        self.extra_labels = dict(labels or {})
        #: A running container (started with ``container_options()``) to adopt instead of
        #: creating one, e.g. from ``codeact.testing.SandboxContainer``. Replacements after a
        #: crash are created by the executor as usual.
        self.adopt_id = container_id
        self.pool = pool
        self.session_id = uuid.uuid4().hex[:12]
        self.container: Any = None
        self._client: Any = None
        self._stream: ContainerStream | None = None
        self._lock = anyio.Lock()
        self._closed = False

    # -- lifecycle -----------------------------------------------------------------------------
    def container_options(self) -> dict[str, Any]:
        """The keyword arguments given to ``containers.create`` (the hardening in one place)."""
        import docker.types

        labels = {
            LABEL: self.session_id,
            LABEL_PID: str(os.getpid()),
            LABEL_HOST: socket.gethostname(),
            **self.extra_labels,
        }
        user = self.user or SANDBOX_USER
        uid, _, gid = user.partition(":")
        owner = f",uid={uid},gid={gid or uid}" if uid.isdigit() and (gid or uid).isdigit() else ""
        opts: dict[str, Any] = {
            "command": ["python3", "-u", "-c", BOOTSTRAP],
            "stdin_open": True,
            "tty": False,
            "detach": True,
            "network_mode": "bridge" if self.network else "none",
            "read_only": True,
            "tmpfs": {
                "/tmp": f"rw,nosuid,nodev,noexec,size={self.tmp_size}",
                "/workspace": f"rw,nosuid,nodev,size={self.workspace_size}{owner}",
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
            # The host cgroup counts the Sentry's threads, not the sandbox's processes (which
            # the sandbox's own kernel limits per uid, here one sandbox): see the class doc.
            opts["pids_limit"] = self.pids_limit + GVISOR_THREADS
            opts["ulimits"].append(
                docker.types.Ulimit(name="nproc", soft=self.pids_limit, hard=self.pids_limit)
            )
        return opts

    async def start(self) -> None:
        """Create and start the container and its kernel (idempotent)."""
        if self._closed:
            raise ExecutorError("This executor was closed; create a new one.")
        if self.container is not None:
            return
        for tool in self.tools:
            if tool.needs_context:
                raise UserError(
                    f"Tool {tool.name!r} takes a Context and cannot run from sandboxed code"
                )
        if self.pool is not None:
            donor = await self.pool.take()
            self._client, self.container, self._stream = (
                donor._client,
                donor.container,
                donor._stream,
            )
            donor._client = donor.container = donor._stream = None
            await donor.aclose()
            if self.tools:
                await self._send_tools()
            return
        if self._client is None:
            self._client = await anyio.to_thread.run_sync(docker_client, self.docker_host)
            await anyio.to_thread.run_sync(reap_orphans, self._client)
        await self._boot()

    async def _boot(self) -> None:
        client = self._client

        def create() -> tuple[Any, Any]:
            if self.adopt_id is not None:
                container = client.containers.get(self.adopt_id)
                self.adopt_id = None
                sock = client.api.attach_socket(
                    container.id, params={"stdin": 1, "stdout": 1, "stream": 1}
                )
                return container, sock
            try:
                container = client.containers.create(self.image, **self.container_options())
            except Exception as exc:
                if "No such image" in str(exc) or "not found" in str(exc).lower():
                    raise UserError(
                        f"The sandbox image {self.image!r} is missing. Build it with "
                        "`codeact sandbox build` (or sandbox-image/build.sh)."
                    ) from exc
                raise
            sock = client.api.attach_socket(
                container.id, params={"stdin": 1, "stdout": 1, "stream": 1}
            )
            container.start()
            return container, sock

        try:
            self.container, sock = await anyio.to_thread.run_sync(create)
        except UserError:
            raise
        except Exception as exc:
            raise ExecutorError(f"Could not start the sandbox container: {exc}") from exc
        raw = getattr(sock, "_sock", sock)
        self._stream = ContainerStream(raw)
        source = KERNEL_SOURCE.encode()
        await self._stream.send_raw(HEADER.pack(len(source)) + source)
        await self._stream.send(
            {"op": "init", "tools": self._tool_specs(), "max_output": self.max_output_bytes}
        )
        with anyio.move_on_after(self.start_timeout) as scope:
            msg = await self._recv()
        if scope.cancelled_caught or msg is None or msg["op"] != "ready":
            _, detail = await self._death_reason()
            await self._remove()
            raise ExecutorError(f"The sandbox kernel did not start: {detail}")

    def _tool_specs(self) -> list[tuple[str, list[str], str]]:
        return [
            (t.name, list(t.metadata.parameters.get("properties", {})), t.metadata.description)
            for t in self.tools
        ]

    async def _send_tools(self) -> None:
        assert self._stream is not None
        await self._stream.send({"op": "tools", "tools": self._tool_specs()})
        msg = await self._recv()
        if msg is None or msg["op"] != "tools_done":
            raise ExecutorError("the sandbox kernel did not accept the tools")

    async def _recv(self) -> dict[str, Any] | None:
        assert self._stream is not None
        body = await self._stream.recv_body()
        return None if body is None else decode_worker_frame(body)

    async def _remove(self) -> None:
        container, self.container = self.container, None
        if self._stream is not None:
            self._stream.close()
            self._stream = None
        if container is not None:

            def rm() -> None:
                with contextlib.suppress(Exception):  # already gone
                    container.remove(force=True)

            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(rm)

    async def _restart(self) -> None:
        await self._remove()
        await self._boot()

    async def reset(self) -> None:
        """A fresh namespace in the same container (files in /workspace stay)."""
        await self.start()
        async with self._lock:
            assert self._stream is not None
            await self._stream.send({"op": "reset"})
            while True:
                msg = await self._recv()
                if msg is None:
                    await self._restart()
                    return
                if msg["op"] == "reset_done":
                    return

    async def aclose(self) -> None:
        """Remove the container. Safe to call twice."""
        if self._closed:
            return
        self._closed = True
        await self._remove()
        if self._client is not None:
            client, self._client = self._client, None
            await anyio.to_thread.run_sync(client.close)

    # -- cells ---------------------------------------------------------------------------------
    async def execute(
        self,
        code: str,
        *,
        timeout: float | None = None,
        on_output: OutputCallback | None = None,
    ) -> ExecutionResult:
        """Run one cell in the container's kernel."""
        await self.start()
        limit = self.timeout if timeout is None else timeout
        async with self._lock:
            if self.container is None:
                await self._boot()
            raw = await self._execute(code, limit, on_output)
        return to_result(raw)

    async def _execute(
        self, code: str, limit: float, on_output: OutputCallback | None
    ) -> dict[str, Any]:
        assert self._stream is not None
        deadline = time.monotonic() + limit
        peer = _KernelPeer(self)
        try:
            await peer.send({"op": "exec", "code": code, "timeout": limit})
        except ProtocolError as exc:  # nothing was sent: the session is untouched
            message = f"the cell's code is too large to send to the sandbox ({exc})"
            error = {"type": "FrameTooLarge", "message": message, "traceback": message}
            return {"stdout": "", "stderr": "", "error": error}
        except OSError:
            kind, reason = await self._death_reason()
            await self._restart()
            return lost_result({"stdout": [], "stderr": []}, kind, reason)
        try:
            return await collect_result(
                peer,
                self.tools,
                deadline,
                KILL_GRACE_S,
                on_output,
                max_output=self.max_output_bytes,
            )
        except anyio.get_cancelled_exc_class():
            with anyio.CancelScope(shield=True):
                await self._interrupt()
            raise

    async def _interrupt(self) -> None:
        container = self.container
        if container is None:
            return
        try:
            await anyio.to_thread.run_sync(lambda: container.kill(signal="SIGINT"))
        except Exception:
            await self._restart()
            return
        with anyio.move_on_after(KILL_GRACE_S) as scope:
            while True:
                msg = await self._recv()
                if msg is None or msg["op"] == "result":
                    break
        if scope.cancelled_caught or msg is None:
            await self._restart()

    async def _death_reason(self) -> tuple[str, str]:
        """Why the kernel went away: an error type and a message, from the engine's state."""
        container = self.container
        if container is None:
            return "SandboxCrashed", "the container is gone"

        def inspect() -> tuple[str, str]:
            try:
                container.reload()
            except Exception:
                return "SandboxCrashed", "the container was removed from outside"
            state = container.attrs.get("State", {})
            if state.get("OOMKilled"):
                return "MemoryError", (
                    f"the sandbox ran out of memory (limit {self.memory}) and was killed"
                )
            return "SandboxCrashed", (
                f"the sandbox kernel exited (status {state.get('Status')}, "
                f"exit code {state.get('ExitCode')})"
            )

        await anyio.sleep(0.05)  # let the engine record the exit state
        kind, reason = await anyio.to_thread.run_sync(inspect)
        return kind, f"{reason}; the session was restarted"

    # -- files ---------------------------------------------------------------------------------
    async def upload(self, path: str, data: bytes) -> None:
        """Write ``data`` to ``/workspace/<path>``."""
        _check_rel(path)
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w") as tar:
            info = tarfile.TarInfo(path)
            info.size = len(data)
            info.mode = 0o644
            tar.addfile(info, io.BytesIO(data))
        await self.upload_archive(buf.getvalue())

    async def upload_archive(self, tar_bytes: bytes) -> None:
        """Extract a tar archive (files and folders) into ``/workspace``."""
        await self.start()
        try:
            frame = encode({"op": "put", "data": base64.b64encode(tar_bytes).decode()})
        except ProtocolError as exc:
            raise UserError(
                f"Upload of {len(tar_bytes)} bytes is too large for one frame "
                f"(about {MAX_FRAME * 3 // 4 >> 20} MB at most): {exc}"
            ) from None
        async with self._lock:
            assert self._stream is not None
            await self._stream.send_raw(frame)
            msg = await self._recv()
        if msg is None or msg["op"] == "file_error":
            raise ExecutorError(f"upload failed: {msg['message'] if msg else 'the sandbox died'}")

    async def download(self, path: str) -> bytes:
        """Read ``/workspace/<path>``: a file's bytes, or a tar archive for a folder."""
        _check_rel(path)
        await self.start()
        async with self._lock:
            assert self._stream is not None
            await self._stream.send({"op": "get", "path": path})
            msg = await self._recv()
        if msg is None:
            raise ExecutorError("download failed: the sandbox died")
        if msg["op"] == "file_error":
            raise UserError(f"No file {path!r} in the sandbox: {msg['message']}")
        data = base64.b64decode(msg["data"])
        with tarfile.open(fileobj=io.BytesIO(data)) as tar:
            members = tar.getmembers()
            if len(members) == 1 and members[0].isfile():
                f = tar.extractfile(members[0])
                assert f is not None
                return f.read()
        return data


def _check_rel(path: str) -> None:
    parts = path.replace("\\", "/").split("/")
    if not path or path.startswith("/") or ".." in parts:
        raise UserError(f"Paths must be relative to /workspace: {path!r}")


class _KernelPeer:
    """The executor's kernel as a ``FramePeer`` for ``collect_result``."""

    def __init__(self, owner: DockerExecutor) -> None:
        self.owner = owner

    async def recv(self) -> dict[str, Any] | None:
        return await self.owner._recv()

    async def send(self, message: dict[str, Any]) -> None:
        assert self.owner._stream is not None
        await self.owner._stream.send(message)

    async def restart(self) -> None:
        await self.owner._restart()

    async def death_reason(self) -> tuple[str, str]:
        return await self.owner._death_reason()
