"""One started sandbox container with its kernel ready: the engine's handle on it and the
``KernelClient`` speaking to the kernel over the container's attach socket."""

from __future__ import annotations

import contextlib
from typing import Any, Protocol

import anyio
import anyio.to_thread

from codeact.errors import ExecutorError
from codeact.executors.docker._engine import ContainerGone, engine_errors
from codeact.executors.docker._stream import ContainerStream
from codeact.executors.kernel import KERNEL_SOURCE
from codeact.executors.wire.client import KernelClient
from codeact.executors.wire.frames import raw_frame

_ATTACH = {"stdin": 1, "stdout": 1, "stream": 1}


class ContainerSource(Protocol):
    """Where a ``DockerExecutor(pool=...)`` takes its started container from (a
    ``SandboxPool``): ``take()`` hands over a container the taker then removes."""

    async def take(self) -> RunningContainer:
        """A started container, now the caller's."""
        ...


class RunningContainer:
    """A container whose kernel answered ``ready``; ``remove()`` ends it."""

    def __init__(self, engine: Any, container: Any, client: KernelClient) -> None:
        #: The docker SDK client the container was made with.
        self.engine = engine
        #: The docker SDK container.
        self.container = container
        #: Speaks the kernel protocol to the kernel inside.
        self.client = client

    @classmethod
    async def launch(
        cls,
        engine: Any,
        *,
        image: str,
        options: dict[str, Any],
        init: dict[str, Any],
        start_timeout: float,
        adopt_id: str | None = None,
    ) -> RunningContainer:
        """Create and start a container (or attach to the running ``adopt_id``), send it the
        kernel and ``init``, and wait for ``ready``. ``UserError`` when the image is missing,
        ``ExecutorError`` when the engine or the kernel fails."""

        def create() -> tuple[Any, Any]:
            with engine_errors("Could not start the sandbox container", image=image):
                if adopt_id is not None:
                    container = engine.containers.get(adopt_id)
                    return container, engine.api.attach_socket(container.id, params=_ATTACH)
                container = engine.containers.create(image, **options)
                try:
                    sock = engine.api.attach_socket(container.id, params=_ATTACH)
                    container.start()
                except BaseException:
                    with contextlib.suppress(Exception):
                        container.remove(force=True)
                    raise
                return container, sock

        with anyio.CancelScope(shield=True):  # a cancellation must not lose the new container
            container, sock = await anyio.to_thread.run_sync(create)
        stream = ContainerStream(getattr(sock, "_sock", sock))
        box = cls(engine, container, KernelClient(stream))
        try:
            preamble = raw_frame(KERNEL_SOURCE.encode())
            ready = await box.client.handshake(init, timeout=start_timeout, preamble=preamble)
            if ready is None:
                _, detail = await box.death_reason(memory=str(options.get("mem_limit", "?")))
                raise ExecutorError(f"The sandbox kernel did not start: {detail}")
        except BaseException:
            await box.remove()
            raise
        return box

    async def signal(self, name: str) -> bool:
        """Send a signal to the container's init (which passes it on); False if it failed."""
        try:
            await anyio.to_thread.run_sync(self._kill, name)
        except ExecutorError:
            return False
        return True

    def _kill(self, name: str) -> None:
        with engine_errors(f"Could not send {name} to the sandbox"):
            self.container.kill(signal=name)

    async def death_reason(self, memory: str) -> tuple[str, str]:
        """Why the kernel went away (an error type and a message), from the engine's state."""

        def inspect() -> dict[str, Any] | tuple[str, str]:
            try:
                with engine_errors("Could not inspect the sandbox"):
                    self.container.reload()
            except ContainerGone:
                return "SandboxCrashed", "the container was removed from outside"
            except ExecutorError as exc:
                return "SandboxCrashed", str(exc)
            return dict(self.container.attrs.get("State", {}))

        # the engine records the exit state, and the OOM flag, a moment after the kernel's
        # stream closes (later on a loaded host): asked again until it has
        state: dict[str, Any] = {}
        for _ in range(_STATE_POLLS):
            read = await anyio.to_thread.run_sync(inspect)
            if isinstance(read, tuple):
                return read
            state = read
            if state.get("OOMKilled") or (
                state.get("Status") not in ("running", "restarting")
                and state.get("ExitCode") != _SIGKILLED
            ):
                break
            await anyio.sleep(0.1)
        return exit_reason(state, memory)

    async def remove(self) -> None:
        """Close the kernel's stream and remove the container (already gone is fine)."""
        with anyio.CancelScope(shield=True):
            await self.client.aclose()

            def rm() -> None:
                with contextlib.suppress(ExecutorError), engine_errors("Could not remove"):
                    self.container.remove(force=True)

            await anyio.to_thread.run_sync(rm)


#: How often the engine's state is read for why a kernel died (0.1 s apart), and the exit
#: code of a process killed with SIGKILL (the OOM killer's, or a kill from outside).
_STATE_POLLS = 20
_SIGKILLED = 137


def exit_reason(state: dict[str, Any], memory: str) -> tuple[str, str]:
    """An error type and a message for a kernel the engine reports in ``state`` (its
    ``State``): out of memory when the engine says so; SIGKILL without that flag (gVisor's
    own OOM kill sets none) names memory as the likely cause."""
    if state.get("OOMKilled"):
        return "MemoryError", f"the sandbox ran out of memory (limit {memory}) and was killed"
    code = state.get("ExitCode")
    if code == _SIGKILLED:
        return "SandboxCrashed", (
            f"the sandbox kernel was killed (SIGKILL, exit code {code}): most likely it ran "
            f"out of memory (limit {memory}), or it was killed from outside"
        )
    return "SandboxCrashed", (
        f"the sandbox kernel exited (status {state.get('Status')}, exit code {code})"
    )
