"""RestrictedExecutor: guarded Python in-process (fast) or in a killable worker process."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

import anyio
import anyio.from_thread
import anyio.to_thread
from anyio.abc import Process
from anyio.streams.buffered import BufferedByteReceiveStream

import codeact
from codeact.errors import ExecutorError, UserError
from codeact.executors._remote import collect_result, run_host_tool, to_result
from codeact.executors.base import CodeExecutor, ExecutionResult, OutputCallback
from codeact.executors.restricted._guards import CellTimeout
from codeact.executors.restricted._interrupt import WATCHDOG
from codeact.executors.restricted._protocol import (
    HEADER,
    decode_worker_frame,
    encode,
    frame_length,
)
from codeact.executors.restricted._session import Session
from codeact.tools import BaseTool

Isolation = Literal["inline", "process"]
#: Extra time a worker gets after its deadline to report before it is killed.
KILL_GRACE_S = 1.0


class RestrictedExecutor(CodeExecutor):
    """Python restricted by a RestrictedPython policy, with state kept across cells.

    ``isolation="inline"`` (default) runs cells in a thread of this process: the fastest, guarded
    against reaching the host through the language, with deadlines a cell cannot swallow — but
    one long C-level call cannot be interrupted and memory is not capped.
    ``isolation="process"`` runs the same policy in a worker process per session with
    ``RLIMIT_AS``/``CPU``/``NPROC``/``FSIZE``, a clean environment, and a hard kill-and-restart
    when a cell does not stop (``restarted=True``; variables are lost).

    ``allowed_modules`` opts third-party packages in (e.g. ``["pandas", "numpy"]``): cells then
    get their public API, including their file I/O on host paths, so prefer process isolation or
    the Docker backend for untrusted code that needs them.
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
    ) -> None:
        super().__init__(tools=tools)
        if isolation not in ("inline", "process"):
            raise UserError(f"isolation must be 'inline' or 'process', got {isolation!r}")
        self.isolation: Isolation = isolation
        self.allowed_modules = list(allowed_modules)
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
        self.workdir: Path | None = None
        self._owns_workdir = False
        self._session: Session | None = None
        self._worker: _Worker | None = None
        self._lock = anyio.Lock()
        self._closed = False

    # -- lifecycle -------------------------------------------------------------------------------
    async def start(self) -> None:
        """Create the working directory and the session (or worker process)."""
        if self._closed:
            raise ExecutorError("This executor was closed; create a new one.")
        if self.workdir is not None:
            return
        for tool in self.tools:
            if tool.needs_context:
                raise UserError(
                    f"Tool {tool.name!r} takes a Context argument, so it cannot be called from "
                    "sandboxed code. Give it to the agent as a normal tool instead."
                )
        if self._workdir_arg is not None:
            self._workdir_arg.mkdir(parents=True, exist_ok=True)
            self.workdir = self._workdir_arg.resolve()
        else:
            self.workdir = Path(tempfile.mkdtemp(prefix="codeact-session-")).resolve()
            self._owns_workdir = True
        if self.isolation == "inline":
            self._session = self._new_session()
        else:
            self._worker = _Worker(self)
            await self._worker.start()

    def _tool_specs(self) -> list[tuple[str, list[str], str]]:
        return [
            (t.name, list(t.metadata.parameters.get("properties", {})), t.metadata.description)
            for t in self.tools
        ]

    def _new_session(self) -> Session:
        return Session(
            tool_names=self._tool_specs(),
            tool_bridge=self._inline_bridge,
            allowed_modules=self.allowed_modules,
            workdir=str(self.workdir),
            max_output_bytes=self.max_output_bytes,
        )

    async def reset(self) -> None:
        """Forget all variables; files in the working directory stay."""
        await self.start()
        async with self._lock:
            if self._session is not None:
                self._session.reset()
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
        self._session = None
        if self._owns_workdir and self.workdir is not None:
            shutil.rmtree(self.workdir, ignore_errors=True)

    # -- files -----------------------------------------------------------------------------------
    def _path(self, path: str) -> Path:
        if self.workdir is None:
            raise ExecutorError("Call start() (or use `async with`) before moving files.")
        rel = Path(path)
        if rel.is_absolute() or ".." in rel.parts or not rel.parts:
            raise UserError(f"Paths must be relative to the working directory: {path!r}")
        full = (self.workdir / rel).resolve()
        if not full.is_relative_to(self.workdir):
            raise UserError(f"Path {path!r} leaves the working directory")
        return full

    async def upload(self, path: str, data: bytes) -> None:
        """Write ``data`` to ``path`` in the working directory (cells can ``open`` it)."""
        await self.start()
        full = self._path(path)
        full.parent.mkdir(parents=True, exist_ok=True)
        await anyio.Path(full).write_bytes(data)

    async def download(self, path: str) -> bytes:
        """Read ``path`` from the working directory."""
        await self.start()
        full = self._path(path)
        if not full.is_file():
            raise UserError(f"No file {path!r} in the session's working directory")
        return await anyio.Path(full).read_bytes()

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
                raw = await self._worker.execute(code, limit, on_output)
            else:
                raw = await self._execute_inline(code, limit, on_output)
        return to_result(raw)

    async def _execute_inline(
        self, code: str, limit: float, on_output: OutputCallback | None
    ) -> dict[str, Any]:
        session = self._session
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
        from codeact.executors.restricted._session import ToolError

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


class _Worker:
    """The host side of one worker process."""

    def __init__(self, owner: RestrictedExecutor) -> None:
        self.owner = owner
        self.proc: Process | None = None
        self.reader: BufferedByteReceiveStream | None = None

    async def start(self) -> None:
        owner = self.owner
        package_root = str(Path(codeact.__file__).resolve().parent.parent)
        env = {
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "PYTHONPATH": package_root,
            "PYTHONDONTWRITEBYTECODE": "1",
            "HOME": str(owner.workdir),
            "OPENBLAS_NUM_THREADS": "1",
            "OMP_NUM_THREADS": "1",
            "MPLCONFIGDIR": str(owner.workdir),
            "LANG": "C.UTF-8",
        }
        self.proc = await anyio.open_process(
            [sys.executable, "-m", "codeact.executors.restricted._worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            cwd=str(owner.workdir),
            start_new_session=True,
        )
        assert self.proc.stdout is not None
        self.reader = BufferedByteReceiveStream(self.proc.stdout)
        await self.send(
            {
                "op": "init",
                "workdir": str(owner.workdir),
                "tools": owner._tool_specs(),
                "allowed_modules": owner.allowed_modules,
                "max_output_bytes": owner.max_output_bytes,
                "limits": owner.limits,
            }
        )
        with anyio.move_on_after(60) as scope:
            msg = await self.recv()
        if scope.cancelled_caught or msg is None or msg["op"] != "ready":
            await self.stop()
            raise ExecutorError(
                "The restricted worker process did not start. Check that this Python can run "
                "`python -m codeact.executors.restricted._worker`, and that memory_limit_mb is "
                "large enough for the allowed modules."
            )

    async def send(self, message: dict[str, Any]) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        await self.proc.stdin.send(encode(message))

    async def recv(self) -> dict[str, Any] | None:
        """The next valid frame, or None when the worker is gone."""
        assert self.reader is not None
        try:
            header = await self.reader.receive_exactly(HEADER.size)
            body = await self.reader.receive_exactly(frame_length(header))
        except (anyio.EndOfStream, anyio.IncompleteRead, anyio.BrokenResourceError):
            return None
        return decode_worker_frame(body)

    async def reset(self) -> None:
        await self.send({"op": "reset"})
        while True:
            msg = await self.recv()
            if msg is None:
                await self.restart()
                return
            if msg["op"] == "reset_done":
                return

    async def restart(self) -> None:
        await self.stop()
        await self.start()

    async def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None:
            return
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
        await proc.wait()
        await proc.aclose()

    async def execute(
        self, code: str, limit: float, on_output: OutputCallback | None
    ) -> dict[str, Any]:
        deadline = time.monotonic() + limit
        try:
            await self.send({"op": "exec", "code": code, "timeout": limit})
            return await collect_result(self, self.owner.tools, deadline, KILL_GRACE_S, on_output)
        except anyio.get_cancelled_exc_class():
            with anyio.CancelScope(shield=True):
                await self._interrupt()
            raise

    async def death_reason(self) -> tuple[str, str]:
        """How the worker ended, from its exit status."""
        code = None
        if self.proc is not None:
            with anyio.move_on_after(2):
                code = await self.proc.wait()
        return "SandboxCrashed", _death_reason(code)

    async def _interrupt(self) -> None:
        """Stop the running cell after a cancellation: SIGALRM, then kill if it does not stop."""
        if self.proc is None or self.proc.returncode is not None:
            return
        try:
            os.kill(self.proc.pid, signal.SIGALRM)
        except ProcessLookupError:
            return
        with anyio.move_on_after(KILL_GRACE_S) as scope:
            while True:
                msg = await self.recv()
                if msg is None or msg["op"] == "result":
                    break
        if scope.cancelled_caught:
            await self.restart()


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
