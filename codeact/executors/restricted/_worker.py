"""The worker process of ``RestrictedExecutor(isolation="process")``.

Started by the host with a clean environment; it limits its own resources, moves into the
session's working directory and runs cells on request, speaking the framed JSON protocol over its
original stdin/stdout (both then point at /dev/null so nothing else can write frames).
"""

from __future__ import annotations

import os
import resource
import signal
import sys
import time
from typing import Any, BinaryIO

from codeact.executors.restricted._deadline import CellTimeout
from codeact.executors.restricted._interpreter import RestrictedInterpreter, ToolError
from codeact.executors.restricted._interrupt import SignalAlarm
from codeact.executors.wire.frames import HEADER, ProtocolError, encode, frame_length

_BLOCK = {signal.SIGALRM}


class _Channel:
    def __init__(self, rfile: BinaryIO, wfile: BinaryIO) -> None:
        self.rfile = rfile
        self.wfile = wfile
        self.next_id = 0

    def send(self, message: dict[str, Any]) -> None:
        data = encode(message)
        old = signal.pthread_sigmask(signal.SIG_BLOCK, _BLOCK)
        try:
            self.wfile.write(data)
            self.wfile.flush()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)

    def recv(self) -> dict[str, Any]:
        import json

        old = signal.pthread_sigmask(signal.SIG_BLOCK, _BLOCK)
        try:
            header = self._exactly(HEADER.size)
            body = self._exactly(frame_length(header))
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)
        msg = json.loads(body)
        if not isinstance(msg, dict):
            raise SystemExit("bad frame from host")
        return msg

    def _exactly(self, n: int) -> bytes:
        data = b""
        while len(data) < n:
            chunk = self.rfile.read(n - len(data))
            if not chunk:
                raise SystemExit(0)  # the host went away
            data += chunk
        return data


def _limit(name: str, value: int | None) -> None:
    if value is None:
        return
    kind = getattr(resource, name)
    _soft, hard = resource.getrlimit(kind)
    new_hard = value if hard == resource.RLIM_INFINITY else min(value, hard)
    resource.setrlimit(kind, (min(value, new_hard), new_hard))


def _drop_privileges(uid: int | None, allow_root: bool) -> None:
    """Never run cells as root: switch to ``uid`` (gid the same, no supplementary groups)."""
    if os.getuid() != 0 and os.geteuid() != 0:
        return
    if uid is None and allow_root:
        return  # asked for explicitly (benchmarks and tests of the unsandboxed mode)
    if uid is None or uid == 0:
        raise SystemExit("refusing to run cells as root without a uid to drop to")
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    if os.getuid() == 0 or os.geteuid() == 0:
        raise SystemExit("could not drop root privileges")


def _exit_when_host_gone(fd: int) -> None:
    """End this worker as soon as the host's end of its stdin closes (the host process died),
    even in the middle of a busy cell: no worker outlives its owner. Started before the limits
    (``RLIMIT_NPROC=0`` refuses new threads)."""
    import select
    import threading

    def watch() -> None:
        poller = select.poll()
        poller.register(fd, 0)  # no events asked: wakes only on hang-up or error
        while True:
            for _fd, events in poller.poll():
                if events & (select.POLLHUP | select.POLLERR | select.POLLNVAL):
                    os._exit(0)

    # Started with SIGALRM blocked, which it inherits: the alarm must stay pending for the main
    # thread while that reads a frame, not be taken by this thread and run mid-frame.
    old = signal.pthread_sigmask(signal.SIG_BLOCK, _BLOCK)
    try:
        threading.Thread(target=watch, name="codeact-host-watch", daemon=True).start()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _install_filter(program: str | None) -> None:
    """Load the host's system-call filter (classic BPF, base64) on this process: from here on
    ``execve`` and everything outside the allow-list is refused, whatever a cell reaches."""
    if not program:
        return
    import base64
    import ctypes

    code = base64.b64decode(program)

    class _Prog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]

    libc = ctypes.CDLL(None, use_errno=True)
    pr_set_no_new_privs, pr_set_seccomp, seccomp_mode_filter = 38, 22, 2
    prog = _Prog(len(code) // 8, code)
    if (
        libc.prctl(pr_set_no_new_privs, 1, 0, 0, 0) != 0
        or libc.prctl(pr_set_seccomp, seccomp_mode_filter, ctypes.byref(prog), 0, 0) != 0
    ):
        raise SystemExit(
            f"could not install the system-call filter (errno {ctypes.get_errno()}); "
            "CODEACT_SECCOMP=denylist runs the worker without it"
        )


def main() -> None:
    rfile = os.fdopen(os.dup(0), "rb", buffering=0)
    _exit_when_host_gone(rfile.fileno())
    wfile = os.fdopen(os.dup(1), "wb", buffering=0)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    channel = _Channel(rfile, wfile)
    init = channel.recv()
    _install_filter(init.get("seccomp"))  # a failure is said on stderr, which the host shows
    os.dup2(devnull, 2)  # stderr served only start-up errors
    _drop_privileges(init.get("drop_to"), bool(init.get("allow_root")))
    limits = init.get("limits", {})
    _limit("RLIMIT_AS", limits.get("memory_bytes"))
    _limit("RLIMIT_CPU", limits.get("cpu_seconds"))
    _limit("RLIMIT_FSIZE", limits.get("file_bytes"))
    _limit("RLIMIT_NOFILE", limits.get("open_files"))
    _limit("RLIMIT_NPROC", limits.get("processes"))
    os.chdir(init["workdir"])

    def bridge(name: str, args: dict[str, Any]) -> Any:
        channel.next_id += 1
        call_id = channel.next_id
        try:
            channel.send({"op": "tool_call", "id": call_id, "name": name, "args": args})
        except ProtocolError as exc:
            raise ToolError(
                f"the arguments of tool {name!r} are too large to send to the host ({exc}); "
                "pass less data, e.g. write it to a file and pass the file's name"
            ) from None
        while True:
            reply = channel.recv()
            if reply.get("op") == "tool_result" and reply.get("id") == call_id:
                break  # late replies to calls abandoned by a timeout are skipped
        if reply.get("status") == "ok":
            return reply.get("value")
        if reply.get("status") == "timeout":
            raise CellTimeout()
        raise ToolError(str(reply.get("error", "the tool failed")))

    session = RestrictedInterpreter(
        tool_names=[(t[0], list(t[1]), t[2]) for t in init.get("tools", [])],
        tool_bridge=bridge,
        allowed_modules=init.get("allowed_modules", []),
        workdir=init["workdir"],
        max_output_bytes=init.get("max_output_bytes", 1_000_000),
        confine_readers=not init.get("os_sandboxed", False),
        allow_pickle=bool(init.get("allow_pickle", False)),
    )
    session.sink = lambda stream, text: channel.send({"op": "stream", "name": stream, "text": text})
    alarm = SignalAlarm()
    channel.send({"op": "ready", "pid": os.getpid()})
    while True:
        msg = channel.recv()
        op = msg.get("op")
        if op == "exec":
            deadline = time.monotonic() + float(msg.get("timeout", 30.0))
            result = _run(session, alarm, str(msg.get("code", "")), deadline)
            channel.send({"op": "result", **result, "nonce": msg.get("nonce")})
        elif op == "reset":
            session.reset()
            channel.send({"op": "reset_done"})
        elif op == "shutdown":
            return


def _run(
    session: RestrictedInterpreter, alarm: SignalAlarm, code: str, deadline: float
) -> dict[str, Any]:
    try:
        alarm.arm(deadline)
        try:
            return session.run_cell(code, deadline)
        finally:
            alarm.disarm()
            session.aio.close_abandoned()  # the alarm is off: safe to close event loops
    except CellTimeout:  # delivered between the cell's end and disarm
        alarm.disarm()
        session.aio.close_abandoned()
        return {
            "stdout": "",
            "stderr": "",
            "timed_out": True,
            "truncated": False,
            "value": None,
            "error": None,
            "duration_s": 0.0,
            "is_final_answer": False,
            "final_answer": None,
        }


if __name__ == "__main__":
    main()
    sys.exit(0)
