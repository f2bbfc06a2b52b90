"""Example 5: a new sandbox backend in one file, on the public kernel kit.

``codeact.executors.kernel`` ships a stdlib-only kernel that any Python 3 can run;
``codeact.executors.wire`` speaks to it. A backend only starts the kernel somewhere and hands
``KernelClient`` a byte stream to it: cells, streaming, tools (run on the host), timeouts,
interrupts, restarts, ``reset`` and files come from ``KernelBackedExecutor``.

Here the kernel runs under bubblewrap (``apt-get install bubblewrap``): no network, a read-only
``/usr``, a private ``/tmp``, and a temporary folder as ``/workspace``. The same test suite as
the built-in backends checks it (``tests/executors/test_kernel_backend.py``).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import anyio
from anyio.abc import Process
from anyio.streams.stapled import StapledByteStream

from codeact.errors import ExecutorError
from codeact.executors.kernel import BOOTSTRAP, KERNEL_SOURCE
from codeact.executors.wire import KernelBackedExecutor, KernelClient, KernelPeer, raw_frame

NOBODY = 65534


class BubblewrapKernel(KernelPeer):
    """The shipped kernel in a bubblewrap sandbox whose ``/workspace`` is ``folder``."""

    def __init__(self, owner: BubblewrapExecutor, folder: Path) -> None:
        super().__init__()
        self.owner = owner
        self.folder = folder
        self.proc: Process | None = None
        self.pid: int | None = None  # the kernel's pid (no PID namespace: the host's)

    def argv(self) -> list[str]:
        """bubblewrap's command line: what the kernel sees of the machine."""
        argv = ["bwrap", "--die-with-parent", "--new-session", "--unshare-net", "--unshare-ipc"]
        argv += ["--unshare-uts", "--unshare-user-try", "--ro-bind", "/usr", "/usr"]
        for name in ("bin", "lib", "lib64", "sbin"):
            path = Path("/", name)
            if path.is_symlink():
                argv += ["--symlink", os.readlink(path), str(path)]
            elif path.is_dir():
                argv += ["--ro-bind", str(path), str(path)]
        argv += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
        argv += ["--bind", str(self.folder), "/workspace", "--chdir", "/workspace"]
        if os.geteuid() == 0:  # our uid, seen as nobody inside the user namespace: no caps
            argv += ["--uid", str(NOBODY), "--gid", str(NOBODY)]
        return [*argv, "/usr/bin/python3", "-u", "-c", BOOTSTRAP]

    async def start(self) -> None:
        """Start the kernel, send it its source and ``init``, wait for ``ready``."""
        env = {"PATH": "/usr/bin", "HOME": "/workspace", "MPLBACKEND": "Agg", "LANG": "C.UTF-8"}
        self.proc = await anyio.open_process(
            self.argv(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=None, env=env
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.client = KernelClient(StapledByteStream(self.proc.stdin, self.proc.stdout))
        ready = await self.client.handshake(
            self.owner.init_frame(), timeout=30, preamble=raw_frame(KERNEL_SOURCE.encode())
        )
        if ready is None:
            await self.stop()
            raise ExecutorError("the bubblewrap kernel did not start (is bubblewrap installed?)")
        self.pid = ready.get("pid") if isinstance(ready.get("pid"), int) else None

    async def stop(self) -> None:
        """Kill the sandbox (bubblewrap takes the kernel with it)."""
        proc, self.proc, self.client, self.pid = self.proc, None, None, None
        if proc is not None:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            with anyio.CancelScope(shield=True):
                await proc.wait()
                await proc.aclose()

    async def death_reason(self) -> tuple[str, str]:
        """The kernel's exit status."""
        code = None if self.proc is None else self.proc.returncode
        return "SandboxCrashed", f"the kernel exited (code {code}); the session was restarted"

    async def interrupt(self) -> bool:
        """SIGINT to the kernel: the running cell stops, its variables stay."""
        if self.pid is None:
            return False
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGINT)
        return True


class BubblewrapExecutor(KernelBackedExecutor):
    """Each session: the shipped kernel in bubblewrap, a temporary folder as ``/workspace``."""

    name = "bubblewrap-kernel"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.folder: Path | None = None

    async def open_peer(self) -> KernelPeer:
        """A temporary workspace and a kernel on it."""
        if shutil.which("bwrap") is None:
            raise ExecutorError("bubblewrap is not installed (apt-get install bubblewrap)")
        self.folder = Path(tempfile.mkdtemp(prefix="codeact-bwrap-kernel-"))
        peer = BubblewrapKernel(self, self.folder)
        await peer.start()
        return peer

    async def close_resources(self) -> None:
        """Delete the workspace."""
        folder, self.folder = self.folder, None
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)


async def main() -> None:
    """A CodeAct turn whose cell runs in the new backend and calls a host tool."""
    from codeact import CodeActAgent
    from codeact.llms import ScriptedLLM

    def population(city: str) -> int:
        """The population of a city (a host-only lookup)."""
        return {"Oslo": 709_000}.get(city, 0)

    llm = ScriptedLLM(
        [
            "<execute>\nfrom tools import population\nprint(population('Oslo'))\n</execute>",
            "Oslo has 709000 inhabitants.",
        ]
    )
    async with BubblewrapExecutor(tools=[population]) as executor:
        agent = CodeActAgent(llm=llm, executor=executor)
        result = await agent.run(user_msg="How many people live in Oslo?")
    print("answer:", result.response.text)


if __name__ == "__main__":
    anyio.run(main)
