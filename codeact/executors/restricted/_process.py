"""The host side of one worker process of ``RestrictedExecutor(isolation="process")``: starting
it (inside bubblewrap when the OS sandbox is on) and handing ``KernelClient`` its stdin/stdout;
interrupting, killing and restarting it (a ``RestartableKernel``)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import stat
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import anyio.to_thread
from anyio.abc import Process
from anyio.streams.stapled import StapledByteStream

from codeact.errors import ExecutorError
from codeact.executors.base import OutputCallback
from codeact.executors.restricted._cgroups import join_command
from codeact.executors.restricted._ossandbox import (
    NOBODY,
    SANDBOX_SITE,
    SANDBOX_WORKDIR,
    SandboxPlan,
    bwrap_argv,
    bwrap_path,
    host_is_root,
    seccomp_fd,
)
from codeact.executors.restricted._sitebinds import PACKAGE_DIR
from codeact.executors.wire.client import KernelClient
from codeact.executors.wire.session import KernelPeer

if TYPE_CHECKING:
    from codeact.executors.base import ToolSpec
    from codeact.executors.restricted._cgroups import SessionCgroup
    from codeact.tools import BaseTool

#: Extra time a worker gets after its deadline to report before it is killed.
KILL_GRACE_S = 1.0
_COMMON_ENV = {
    "PATH": "/usr/bin:/bin",
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONNOUSERSITE": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "MPLBACKEND": "Agg",
    "LANG": "C.UTF-8",
}


@dataclass(frozen=True)
class WorkerSettings:
    """What a worker process needs of its session, fixed once the session's room is made."""

    #: The session's working directory on the host.
    workdir: Path
    #: Whether the worker runs in bubblewrap.
    os_sandboxed: bool
    allowed_modules: list[str]
    max_output_bytes: int
    #: The worker's rlimits (``memory_bytes``, ``cpu_seconds``...).
    limits: dict[str, int]
    allow_pickle: bool
    #: The session's private ``/tmp`` on the host (None: no quota'd workspace).
    tmpdir: Path | None = None
    #: The session's control group, when the host gives one.
    cgroup: SessionCgroup | None = None


class WorkerProcess(KernelPeer):
    """One worker process (a ``KernelPeer``); ``start`` again after ``stop`` gives a fresh one.
    ``tools`` are the session's, run on the host, and ``specs`` what the sandbox's ``tools``
    module offers (the executor's ``tool_specs()``: a node of a cluster offers tools that run
    elsewhere); each ``execute`` passes the current ones, and a restarted worker gets those."""

    def __init__(
        self, settings: WorkerSettings, tools: Sequence[BaseTool], specs: Sequence[ToolSpec]
    ) -> None:
        super().__init__()
        self.settings = settings
        self.tools = list(tools)
        self.specs = list(specs)
        self.proc: Process | None = None
        #: The host pid of the Python worker itself (inside bubblewrap it is bwrap's child).
        self.worker_pid: int | None = None
        self._oom_kills = 0

    # -- starting --------------------------------------------------------------------------------
    def _command(self) -> tuple[list[str], dict[str, str], str, list[int]]:
        """argv, environment, the workdir the worker sees, and the descriptors to pass on (the
        info pipe's write end, the seccomp filter), which the caller closes after the spawn."""
        settings = self.settings
        if settings.os_sandboxed:
            plan = SandboxPlan.build(tuple(settings.allowed_modules))
            binary = bwrap_path()
            if binary is None:
                raise ExecutorError("bubblewrap disappeared since the executor started")
            read_end, write_end = os.pipe()
            os.set_inheritable(write_end, True)
            self._info_read = read_end
            filter_fd = seccomp_fd()
            options = plan.options(
                workdir=settings.workdir,
                info_fd=write_end,
                seccomp_fd=filter_fd,
                tmpdir=settings.tmpdir,
            )
            command = [plan.python, "-s", "-P", "-m", "codeact.executors.restricted._worker"]
            argv, args_fd = bwrap_argv(binary, options, command)
            argv = self._in_cgroup(argv)
            fds = [write_end, args_fd] + ([] if filter_fd is None else [filter_fd])
            env = {
                **_COMMON_ENV,
                "PYTHONPATH": SANDBOX_SITE,
                "HOME": SANDBOX_WORKDIR,
                "TMPDIR": "/tmp",
                "MPLCONFIGDIR": "/tmp/matplotlib",
            }
            return argv, env, SANDBOX_WORKDIR, fds
        if host_is_root() and not _root_worker_allowed():
            _check_readable_by_nobody()
        package_root = str(PACKAGE_DIR.parent)
        env = {
            **_COMMON_ENV,
            "PYTHONPATH": package_root,
            "HOME": str(settings.workdir),
            "MPLCONFIGDIR": str(settings.workdir / ".matplotlib"),
        }
        if settings.tmpdir is not None:
            env["TMPDIR"] = str(settings.tmpdir)
        argv = [sys.executable, "-s", "-P", "-m", "codeact.executors.restricted._worker"]
        return self._in_cgroup(argv), env, str(settings.workdir), []

    def _in_cgroup(self, argv: list[str]) -> list[str]:
        """``argv`` started inside the session's control group, when it has one."""
        group = self.settings.cgroup
        return argv if group is None else join_command(group.procs_files(), argv)

    async def start(self) -> None:
        """Spawn the worker and wait until it is ready (``ExecutorError`` if it is not)."""
        settings = self.settings
        argv, env, inner_workdir, fds = self._command()
        sandboxed = bool(fds)
        try:
            self.proc = await anyio.open_process(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE if sandboxed else subprocess.DEVNULL,
                env=env,
                cwd="/" if sandboxed else str(settings.workdir),
                start_new_session=True,
                pass_fds=fds,
            )
        finally:
            for fd in fds:
                os.close(fd)
        self.worker_pid = self.proc.pid
        self._oom_kills = 0 if settings.cgroup is None else settings.cgroup.oom_kills()
        sandbox_init = await self._read_child_pid() if sandboxed else None
        assert self.proc.stdin is not None and self.proc.stdout is not None
        client = KernelClient(StapledByteStream(self.proc.stdin, self.proc.stdout))
        self.client = client
        ready = await client.handshake(self._init_frame(inner_workdir), timeout=60)
        if ready is None:
            detail = await self._stderr_tail()
            await self.stop()
            raise ExecutorError(
                "The restricted worker process did not start"
                + (f" ({detail})" if detail else "")
                + ". Check that this Python can run "
                "`python -m codeact.executors.restricted._worker`"
                ", that memory_limit_mb is large enough for the allowed modules, and "
                "`codeact doctor` for the OS sandbox."
            )
        if sandboxed:
            # bubblewrap's init is pid 1 of the sandbox (when it dies, the kernel ends every
            # process in it); the worker is its child, the one that gets SIGALRM. Never
            # bubblewrap itself: SIGALRM would kill it. Unknown pid: interrupts restart.
            self.worker_pid = None if sandbox_init is None else _child_of(sandbox_init)

    def _init_frame(self, workdir: str) -> dict[str, Any]:
        settings = self.settings
        return {
            "workdir": workdir,
            "tools": self.specs,
            "allowed_modules": settings.allowed_modules,
            "max_output_bytes": settings.max_output_bytes,
            "limits": settings.limits,
            "drop_to": NOBODY if host_is_root() and not self._as_root() else None,
            "allow_root": self._as_root(),
            "os_sandboxed": settings.os_sandboxed,
            "allow_pickle": settings.allow_pickle,
            "seccomp": _worker_filter(),
        }

    def _as_root(self) -> bool:
        return not self.settings.os_sandboxed and _root_worker_allowed()

    async def _read_child_pid(self) -> int | None:
        """bubblewrap writes ``{"child-pid": N}`` on its info pipe once the sandbox runs."""
        fd = self._info_read

        def read_all() -> bytes:
            chunks: list[bytes] = []
            while True:
                chunk = os.read(fd, 4096)
                if not chunk:
                    return b"".join(chunks)
                chunks.append(chunk)

        try:
            with anyio.move_on_after(30):
                data = await anyio.to_thread.run_sync(read_all, abandon_on_cancel=True)
                info = json.loads(data.decode() or "{}")
                pid = info.get("child-pid")
                return pid if isinstance(pid, int) else None
        except (OSError, ValueError):
            return None
        finally:
            os.close(fd)
        return None

    async def _stderr_tail(self) -> str:
        """The last line bubblewrap printed (why a sandbox could not start), if any."""
        proc = self.proc
        if proc is None or proc.stderr is None:
            return ""
        with anyio.move_on_after(1):
            try:
                data = await proc.stderr.receive(65536)
            except (anyio.EndOfStream, anyio.BrokenResourceError, anyio.ClosedResourceError):
                return ""
            lines = data.decode(errors="replace").strip().splitlines()
            return lines[-1][:300] if lines else ""
        return ""

    # -- lifecycle -------------------------------------------------------------------------------
    async def stop(self) -> None:
        """Kill the worker (and its sandbox) and wait for it; safe to call twice."""
        proc, self.proc = self.proc, None
        self.client = None
        if proc is None:
            return
        if proc.returncode is None:
            for pid in {self.worker_pid, proc.pid}:
                if pid is not None:
                    with contextlib.suppress(ProcessLookupError, PermissionError):
                        os.kill(pid, signal.SIGKILL)
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
        await proc.wait()
        await proc.aclose()

    async def execute(
        self,
        code: str,
        limit: float,
        on_output: OutputCallback | None,
        tools: Sequence[BaseTool],
        specs: Sequence[ToolSpec],
    ) -> dict[str, Any]:
        """Run one cell in the worker with the session's ``tools`` and their ``specs``
        (replaced when lost; interrupted when cancelled)."""
        self.tools = list(tools)
        self.specs = list(specs)
        return await self.run(
            code,
            limit=limit,
            tools=self.tools,
            grace=KILL_GRACE_S,
            on_output=on_output,
            max_output=self.settings.max_output_bytes,
        )

    async def death_reason(self) -> tuple[str, str]:
        """How the worker ended, from its exit status."""
        code = None
        if self.proc is not None:
            with anyio.move_on_after(2):
                code = await self.proc.wait()
        if code is not None and code > 128 and self.settings.os_sandboxed:
            code = -(code - 128)  # bubblewrap reports a child killed by signal N as 128 + N
        group = self.settings.cgroup
        if group is not None and group.oom_kills() > self._oom_kills:
            limit = group.memory_limit() >> 20
            return "MemoryError", (
                f"the session reached its memory limit ({limit} MB, counting the files it wrote) "
                "and was stopped; the session was restarted (files kept, variables lost)"
            )
        return "SandboxCrashed", _death_reason(code)

    async def interrupt(self) -> bool:
        """SIGALRM to the worker (the cell then times out); False when its pid is unknown."""
        if self.proc is None or self.proc.returncode is not None:
            return True  # gone already: the client sees the end of the stream
        if self.worker_pid is None:  # cannot signal the worker alone: replace it
            return False
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.worker_pid, signal.SIGALRM)
        return True


def _worker_filter() -> str | None:
    """The worker's own system-call filter, base64 (None: the worker installs none)."""
    import base64

    from codeact.executors.restricted._seccomp import worker_program

    program = worker_program()
    return None if program is None else base64.b64encode(program).decode()


def _child_of(pid: int) -> int | None:
    """The (only) child process of ``pid``."""
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        if children:
            return int(children[0])
    except OSError:
        pass
    for entry in Path("/proc").iterdir():  # kernels without /proc/PID/task/TID/children
        if entry.name.isdigit():
            try:
                status = (entry / "status").read_text()
            except OSError:
                continue
            if f"\nPPid:\t{pid}\n" in status:
                return int(entry.name)
    return None


def _root_worker_allowed() -> bool:
    """``CODEACT_WORKER_AS_ROOT=1`` lets an unsandboxed worker keep root on a root host: for
    benchmarks and tests of that mode only, never for untrusted code."""
    return os.environ.get("CODEACT_WORKER_AS_ROOT") == "1"


def _check_readable_by_nobody() -> None:
    """On a root host without bubblewrap the worker drops to uid 65534 itself, which must then
    be able to read the interpreter, its standard library and codeact."""
    paths = [Path(sys.base_prefix), Path(sys.prefix), PACKAGE_DIR]
    for path in paths:
        for parent in [path, *path.parents]:
            mode = parent.stat().st_mode
            if stat.S_ISDIR(mode) and not mode & stat.S_IXOTH:
                raise ExecutorError(
                    f"The worker must not run as root, but uid {NOBODY} cannot reach {path} "
                    f"({parent} is not searchable by other users). Install bubblewrap "
                    "(`apt-get install bubblewrap`), which shows the interpreter to the worker "
                    "inside an OS sandbox, or run codeact as a non-root user."
                )


def _death_reason(code: int | None) -> str:
    if code is not None and code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = str(-code)
        hint = " (probably the CPU time limit)" if name == "SIGXCPU" else ""
        hint = hint or (
            " (killed from outside, or by the system's OOM killer)" if name == "SIGKILL" else ""
        )
        return f"the sandbox process died from {name}{hint}; the session was restarted"
    return f"the sandbox process exited (code {code}); the session was restarted"
