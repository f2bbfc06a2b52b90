"""SandboxPool: containers started ahead of time so sessions start warm."""

from __future__ import annotations

from typing import Any

import anyio

from codeact.errors import ExecutorError, UserError
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
        self._send, self._recv = anyio.create_memory_object_stream[DockerExecutor](size)
        self._tg: Any = None

    def executor(self, **kwargs: Any) -> DockerExecutor:
        """A new session that will start from this pool."""
        return DockerExecutor(pool=self, **{**self.executor_kwargs, **kwargs})

    async def take(self) -> DockerExecutor:
        """A started executor (waits for one when the pool is empty)."""
        if self._tg is None:
            raise ExecutorError("Use the pool inside `async with SandboxPool(...)`")
        return await self._recv.receive()

    async def _fill(self) -> None:
        while True:
            ex = DockerExecutor(**self.executor_kwargs)
            try:
                await ex.start()
                await self._send.send(ex)
            except Exception:
                with anyio.CancelScope(shield=True):
                    await ex.aclose()
                await anyio.sleep(1)
            except BaseException:  # cancelled while starting or waiting: never leak it
                with anyio.CancelScope(shield=True):
                    await ex.aclose()
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
                await ex.aclose()
