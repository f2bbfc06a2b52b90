"""SandboxPool: containers started ahead of time so sessions start warm."""

from __future__ import annotations

from typing import Any

import anyio
import anyio.to_thread

from codeact.errors import ExecutorError, UserError
from codeact.executors.docker._container import RunningContainer
from codeact.executors.docker.executor import DockerExecutor


class SandboxPool:
    """Keeps ``size`` containers started and their kernels ready, so sessions start warm.

    ``async with SandboxPool(size=2, **limits) as pool:`` then ``DockerExecutor(pool=pool)`` (or
    ``pool.executor()``): its ``start()`` takes a warm container and the pool starts a
    replacement. A container serves one session only and is destroyed with it.
    """

    def __init__(self, size: int = 2, **executor_kwargs: Any) -> None:
        if size < 1:
            raise UserError("a SandboxPool needs size >= 1")
        self.size = size
        self.executor_kwargs = executor_kwargs
        # A failed start travels to take() as the exception, so callers learn why.
        # Unbuffered: each filler holds its one ready container until a taker comes, so exactly
        # ``size`` are kept.
        self._send, self._recv = anyio.create_memory_object_stream[RunningContainer | Exception]()
        self._tg: Any = None

    def executor(self, **kwargs: Any) -> DockerExecutor:
        """A new session that will start from this pool."""
        return DockerExecutor(pool=self, **{**self.executor_kwargs, **kwargs})

    async def take(self) -> RunningContainer:
        """A started container (waits for one when the pool is empty), now the taker's to
        remove; raises ``ExecutorError`` when the pool could not start one (e.g. the image is
        missing)."""
        if self._tg is None:
            raise ExecutorError("Use the pool inside `async with SandboxPool(...)`")
        item = await self._recv.receive()
        if isinstance(item, Exception):
            raise ExecutorError(f"The sandbox pool could not start a container: {item}") from item
        return item

    async def _fill(self) -> None:
        while True:
            ex = DockerExecutor(**self.executor_kwargs)
            try:
                await ex.start()
            except Exception as exc:
                with anyio.CancelScope(shield=True):
                    await ex.aclose()
                await self._send.send(exc)
                await anyio.sleep(1)  # then try again: the cause may be transient
                continue
            except BaseException:  # cancelled while starting: never leak the container
                with anyio.CancelScope(shield=True):
                    await ex.aclose()
                raise
            box = ex.handover()
            try:
                await self._send.send(box)
            except BaseException:  # cancelled while waiting for a taker
                await _discard(box)
                raise

    async def __aenter__(self) -> SandboxPool:
        self._tg = anyio.create_task_group()
        await self._tg.__aenter__()
        for _ in range(self.size):
            self._tg.start_soon(self._fill)
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._tg.cancel_scope.cancel()
        await self._tg.__aexit__(None, None, None)
        self._tg = None
        self._send.close()
        with anyio.CancelScope(shield=True):
            while True:
                try:
                    ex = self._recv.receive_nowait()
                except (anyio.WouldBlock, anyio.EndOfStream, anyio.ClosedResourceError):
                    break
                if isinstance(ex, RunningContainer):
                    await _discard(ex)


async def _discard(box: RunningContainer) -> None:
    """Remove a container nobody took, and close its engine client."""
    with anyio.CancelScope(shield=True):
        await box.remove()
        await anyio.to_thread.run_sync(box.engine.close)
