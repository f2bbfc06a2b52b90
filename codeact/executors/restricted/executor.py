"""RestrictedExecutor: guarded Python in-process (fast) or in a killable worker process."""

from __future__ import annotations

import dataclasses
import os
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

import anyio
import anyio.from_thread
import anyio.to_thread

from codeact.errors import ExecutorError, UserError
from codeact.executors.base import CodeExecutor, ExecutionResult, OutputCallback
from codeact.executors.restricted._allowed import check_allowed_modules, warn_unsandboxed
from codeact.executors.restricted._cgroups import CgroupLimits, SessionCgroup, cgroup_support
from codeact.executors.restricted._deadline import CellTimeout
from codeact.executors.restricted._files import read_beneath, write_beneath
from codeact.executors.restricted._interpreter import RestrictedInterpreter
from codeact.executors.restricted._interrupt import WATCHDOG
from codeact.executors.restricted._ossandbox import (
    NOBODY,
    OsSandbox,
    give_to_sandbox,
    host_is_root,
    resolve_os_sandbox,
)
from codeact.executors.restricted._process import WorkerProcess, WorkerSettings
from codeact.executors.restricted._reaping import (
    NO_CGROUP_WARNING,
    NO_QUOTA_WARNING,
    reap_once,
    warn_once,
)
from codeact.executors.restricted._workspace import Workspace
from codeact.executors.wire.cells import run_host_tool, to_result
from codeact.tools import BaseTool

Isolation = Literal["inline", "process"]


class RestrictedExecutor(CodeExecutor):
    """Python restricted by a RestrictedPython policy, with state kept across cells.

    ``isolation="inline"`` (default) runs cells in a thread of this process: the fastest, guarded
    against reaching the host through the language, with deadlines a cell cannot swallow — but
    one long C-level call cannot be interrupted and memory is not capped.
    ``isolation="process"`` runs the same policy in a worker process per session with
    ``RLIMIT_AS``/``CPU``/``NPROC``/``FSIZE``, a clean environment, never as root, and a hard
    kill-and-restart when a cell does not stop (``restarted=True``; variables are lost).

    ``os_sandbox`` (process isolation only) puts that worker in an OS sandbox: ``"auto"``
    (default) uses bubblewrap where it works — new PID/network/IPC/UTS namespaces, no network at
    all, a read-only view of only the interpreter, its libraries and the allowed packages, the
    working directory (``/workspace`` inside) and a private ``/tmp`` as the only writable
    places, uid 65534, an allow-list of system calls — and otherwise falls back with an
    ``UnsandboxedWarning`` naming the package to install; ``"bwrap"`` requires it
    (``ExecutorError`` if unusable); ``"none"`` turns it off. ``os_sandboxed`` tells, after
    ``start()``, whether it is active.

    Per-session limits (process mode; they need root, else a warning says what is missing):
    the worker tree runs in its own cgroup — ``memory_limit_mb`` of heap plus ``disk_limit_mb``
    for its files, ``cpus`` (a CPU quota; ``None``: an equal share only) and ``pids_limit``.
    The working directory and ``/tmp`` live on a tmpfs of ``disk_limit_mb`` and ``max_files``
    (``ENOSPC`` past them; the host's disk is never used); closing unmounts it in one step.
    ``workdir=`` (your own folder) has no quota. Folders and groups of a crashed process are
    removed when the next one starts a session.

    ``allowed_modules`` opts third-party packages in (e.g. ``["pandas", "numpy"]``); standard
    library modules that reach the host (``os``, ``subprocess``, ``socket``...) are refused.
    Under the OS sandbox the packages may do their own I/O — the sandbox is the boundary.
    Without it (inline mode, or no bubblewrap) their file and network I/O reaches the host:
    that is allowed, because you named them, but warned about once (``UnsandboxedWarning``).
    In every mode the guards stay a second layer: no route from an allowed package hands a cell
    unguarded Python (pickle loaders, ``pd.eval``/``query`` reaching attributes or host frames,
    ``agg('__name__')``, object arrays over raw buffers, backends or plot hooks loaded by name).

    ``allow_pickle=True`` lets cells load pickles (``pd.read_pickle``, ``np.load(...,
    allow_pickle=True)``, other packages' ``load``/``loads``). Loading a pickle runs whatever
    code it names, unguarded: it removes the guards' layer for the session, leaving the OS
    sandbox (or nothing, inline) as the only boundary. Use it only for files you trust.
    """

    name = "restricted"

    def __init__(
        self,
        *,
        tools: Sequence[BaseTool | Callable[..., Any]] = (),
        isolation: Isolation = "inline",
        allowed_modules: Sequence[str] = (),
        timeout: float = 30.0,
        max_output_bytes: int = 1_000_000,
        workdir: str | os.PathLike[str] | None = None,
        memory_limit_mb: int = 2048,
        cpu_limit_s: int = 3600,
        file_size_limit_mb: int = 64,
        os_sandbox: OsSandbox = "auto",
        disk_limit_mb: int = 1024,
        max_files: int = 50_000,
        cpus: float | None = 1.0,
        pids_limit: int = 64,
        allow_pickle: bool = False,
    ) -> None:
        super().__init__(tools=tools)
        if isolation not in ("inline", "process"):
            raise UserError(f"isolation must be 'inline' or 'process', got {isolation!r}")
        if os_sandbox not in ("auto", "bwrap", "none"):
            raise UserError(f"os_sandbox must be 'auto', 'bwrap' or 'none', got {os_sandbox!r}")
        if isolation == "inline" and os_sandbox == "bwrap":
            raise UserError("os_sandbox='bwrap' needs isolation='process' (inline runs in-process)")
        self.isolation: Isolation = isolation
        self.os_sandbox: OsSandbox = os_sandbox
        #: Whether the worker runs inside bubblewrap (known after ``start()``).
        self.os_sandboxed = False
        self.allowed_modules = check_allowed_modules(allowed_modules)
        if type(allow_pickle) is not bool:
            raise UserError(f"allow_pickle must be True or False, got {allow_pickle!r}")
        #: Whether cells may load pickles (``pd.read_pickle``, ``np.load(allow_pickle=True)``).
        self.allow_pickle = allow_pickle
        self.timeout = timeout
        self.max_output_bytes = max_output_bytes
        self._workdir_arg = Path(workdir) if workdir is not None else None
        self.limits = {
            "memory_bytes": memory_limit_mb * 1024 * 1024,
            "cpu_seconds": cpu_limit_s,
            "file_bytes": file_size_limit_mb * 1024 * 1024,
            "open_files": 256,
            "processes": 0,
        }
        if disk_limit_mb <= 0 or max_files <= 0 or pids_limit <= 0 or memory_limit_mb <= 0:
            raise UserError(
                "memory_limit_mb, disk_limit_mb, max_files and pids_limit must be positive"
            )
        if cpus is not None and not cpus > 0:
            raise UserError(f"cpus must be a positive number of CPUs or None, got {cpus!r}")
        self.cgroup_limits = CgroupLimits(memory_limit_mb << 20, cpus, pids_limit)
        self.disk_limit_mb = disk_limit_mb
        self.max_files = max_files
        #: The session's control group (process mode, where the host allows one).
        self.cgroup: SessionCgroup | None = None
        #: The session's folder (with its disk quota) when this executor made it.
        self.workspace: Workspace | None = None
        self.workdir: Path | None = None
        self._owns_workdir = False
        self._interpreter: RestrictedInterpreter | None = None
        self._worker: WorkerProcess | None = None
        self._lock = anyio.Lock()
        self._closed = False

    # -- lifecycle -------------------------------------------------------------------------------
    async def start(self) -> None:
        """Create the working directory and the session (or worker process)."""
        if self._closed:
            raise ExecutorError("This executor was closed; create a new one.")
        if self.workdir is not None:
            return
        self.check_tools()
        if self.isolation == "process":
            self.os_sandboxed = resolve_os_sandbox(self.os_sandbox)
        if not self.os_sandboxed:
            warn_unsandboxed(self.allowed_modules, self.isolation)
        await reap_once()
        try:
            await self._make_room()
            if self.isolation == "inline":
                self._interpreter = self._new_interpreter()
            else:
                self._worker = WorkerProcess(self._worker_settings(), self.tools, self.tool_specs())
                await self._worker.start()
        except BaseException:
            self._worker = None
            with anyio.CancelScope(shield=True):
                await self._release()
            raise

    async def _make_room(self) -> None:
        """The working directory (a quota'd session folder unless ``workdir=`` was given) and,
        in process mode, the session's control group."""
        sandbox_uid = NOBODY if self.isolation == "process" and host_is_root() else None
        if self._workdir_arg is not None:
            self._workdir_arg.mkdir(parents=True, exist_ok=True)
            self.workdir = self._workdir_arg.resolve()
            if sandbox_uid is not None:
                give_to_sandbox(self.workdir)
        else:
            self.workspace = await anyio.to_thread.run_sync(
                Workspace.create, self.disk_limit_mb << 20, self.max_files, sandbox_uid
            )
            self.workdir = self.workspace.workdir
            self._owns_workdir = True
            if not self.workspace.quota:
                warn_once("quota", NO_QUOTA_WARNING.format(why=self.workspace.no_quota_reason))
        if self.isolation == "process":
            support = cgroup_support()
            if support.version is None:
                warn_once("cgroup", NO_CGROUP_WARNING.format(why=support.detail))
            else:
                limits = self.cgroup_limits
                if self.workspace is not None and self.workspace.quota:
                    # its files are memory too: the group holds heap (RLIMIT_AS) plus quota
                    limits = dataclasses.replace(
                        limits, memory_bytes=limits.memory_bytes + (self.disk_limit_mb << 20)
                    )
                self.cgroup = await anyio.to_thread.run_sync(SessionCgroup.create, limits, support)

    def _worker_settings(self) -> WorkerSettings:
        assert self.workdir is not None
        return WorkerSettings(
            workdir=self.workdir,
            os_sandboxed=self.os_sandboxed,
            allowed_modules=self.allowed_modules,
            max_output_bytes=self.max_output_bytes,
            limits=self.limits,
            allow_pickle=self.allow_pickle,
            tmpdir=None if self.workspace is None else self.workspace.tmpdir,
            cgroup=self.cgroup,
        )

    async def _release(self) -> None:
        """Delete the control group and the session folder (in a thread: never on the loop)."""
        cgroup, self.cgroup = self.cgroup, None
        if cgroup is not None:
            await anyio.to_thread.run_sync(cgroup.remove)
        space, self.workspace = self.workspace, None
        if space is not None:
            await anyio.to_thread.run_sync(space.remove)
        self.workdir = None

    @property
    def isolation_level(self) -> str:
        """A one-line description of what stands between a cell and the host."""
        if self.isolation == "inline":
            return "in-process (language guards only)"
        if self.os_sandboxed:
            extra = ", own cgroup" if self.cgroup is not None else ""
            if self.workspace is not None and self.workspace.quota:
                extra += ", disk quota"
            return (
                "process in an OS sandbox (bubblewrap: no network, private files, uid 65534"
                f"{extra})"
            )
        return "process without an OS sandbox (language guards and resource limits)"

    def _new_interpreter(self) -> RestrictedInterpreter:
        return RestrictedInterpreter(
            tool_names=self.tool_specs(),
            tool_bridge=self._inline_bridge,
            allowed_modules=self.allowed_modules,
            workdir=str(self.workdir),
            max_output_bytes=self.max_output_bytes,
            allow_pickle=self.allow_pickle,
        )

    async def reset(self) -> None:
        """Forget all variables; files in the working directory stay."""
        await self.start()
        async with self._lock:
            if self._interpreter is not None:
                self._interpreter.reset()
            elif self._worker is not None:
                await self._worker.reset()

    async def aclose(self) -> None:
        """Stop the worker (if any) and delete the working directory this executor created."""
        if self._closed:
            return
        self._closed = True
        if self._worker is not None:
            with anyio.CancelScope(shield=True):
                await self._worker.stop()
            self._worker = None
        if self._interpreter is not None:
            self._interpreter.aio.abandon()  # the session's event loop, if an async cell made one
        self._interpreter = None
        with anyio.CancelScope(shield=True):
            await self._release()

    # -- files -----------------------------------------------------------------------------------
    def _root(self) -> Path:
        if self.workdir is None:
            raise ExecutorError("Call start() (or use `async with`) before moving files.")
        return self.workdir

    async def upload(self, path: str, data: bytes) -> None:
        """Write ``data`` to ``path`` in the working directory (cells can ``open`` it). The path
        is walked from the working directory without following any symlink the sandbox made."""
        await self.start()
        uid = NOBODY if self._worker is not None and host_is_root() else None
        async with self._lock:  # no cell runs while the host touches the folder
            await anyio.to_thread.run_sync(write_beneath, self._root(), path, data, uid)

    async def download(self, path: str) -> bytes:
        """Read the regular file ``path`` from the working directory (symlinks, FIFOs and
        devices the sandbox planted are refused)."""
        await self.start()
        async with self._lock:
            return await anyio.to_thread.run_sync(read_beneath, self._root(), path)

    # -- running ---------------------------------------------------------------------------------
    async def execute(
        self,
        code: str,
        *,
        timeout: float | None = None,
        on_output: OutputCallback | None = None,
    ) -> ExecutionResult:
        """Run one cell and report what happened (never raises for errors in the cell)."""
        await self.start()
        limit = self.timeout if timeout is None else timeout
        async with self._lock:
            if self._worker is not None:
                raw = await self._worker.execute(
                    code, limit, on_output, self.tools, self.tool_specs()
                )
            else:
                raw = await self._execute_inline(code, limit, on_output)
        return to_result(raw)

    async def _execute_inline(
        self, code: str, limit: float, on_output: OutputCallback | None
    ) -> dict[str, Any]:
        session = self._interpreter
        assert session is not None
        deadline = time.monotonic() + limit
        state: dict[str, Any] = {"thread": None, "done": threading.Event()}

        def work() -> dict[str, Any]:
            tid = threading.get_ident()
            state["thread"] = tid
            session.sink = _thread_sink(on_output) if on_output is not None else None
            self._deadline = deadline
            try:
                try:
                    WATCHDOG.arm(tid, deadline)
                    return session.run_cell(code, deadline)
                finally:
                    _disarm(tid)
            except CellTimeout:  # delivered after the cell, before the watchdog let go
                _disarm(tid)
                return {"timed_out": True, "stdout": "", "stderr": ""}
            finally:
                session.sink = None
                session.aio.close_abandoned()  # interrupts have stopped: safe to close loops
                state["done"].set()

        try:
            return await anyio.to_thread.run_sync(work, abandon_on_cancel=True)
        except anyio.get_cancelled_exc_class():
            # Stop the cell before giving the session back (it shares the namespace).
            with anyio.CancelScope(shield=True):
                if state["thread"] is not None:
                    WATCHDOG.interrupt_now(state["thread"])
                await anyio.to_thread.run_sync(state["done"].wait, 5.0)
            raise

    def _inline_bridge(self, name: str, args: dict[str, Any]) -> Any:
        deadline = getattr(self, "_deadline", time.monotonic() + self.timeout)
        status, value = anyio.from_thread.run(run_host_tool, self.tools, name, args, deadline)
        if status == "ok":
            return value
        if status == "timeout":
            raise CellTimeout()
        from codeact.executors.restricted._interpreter import ToolError

        raise ToolError(value)


def _thread_sink(on_output: OutputCallback) -> Callable[[str, str], None]:
    def sink(stream: str, text: str) -> None:
        name: Literal["stdout", "stderr"] = "stderr" if stream == "stderr" else "stdout"
        anyio.from_thread.run_sync(on_output, name, text)

    return sink


def _disarm(tid: int) -> None:
    while True:
        try:
            WATCHDOG.disarm(tid)
            return
        except CellTimeout:
            continue
