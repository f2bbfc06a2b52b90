"""``Tasks``: the server's background task group, given at construction to every part that
starts tasks (run drivers, cancels, store calls given up on) and opened for the app's lifespan
by ``AGUIServer.running()``."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Any

import anyio
from anyio.abc import TaskGroup


class Tasks:
    """A task group that is open while the server runs (``open``)."""

    def __init__(self) -> None:
        self._tg: TaskGroup | None = None

    @property
    def open(self) -> bool:
        """Whether tasks can be started (the server's lifespan is running)."""
        return self._tg is not None

    def start_soon(self, fn: Callable[..., Coroutine[Any, Any, Any]], *args: Any) -> None:
        """Start ``fn(*args)`` in the group; ``RuntimeError`` when it is not open."""
        if self._tg is None:
            raise RuntimeError("the server's task group is not open (is the app's lifespan on?)")
        self._tg.start_soon(fn, *args)

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Open the group; on leaving, its tasks are cancelled (live runs end as ``shutdown``)."""
        async with anyio.create_task_group() as tg:
            self._tg = tg
            try:
                yield
            finally:
                tg.cancel_scope.cancel()
                self._tg = None
