"""The lifecycle half of a backend and ``run_cell``, which joins it to the client: a lost peer
is asked why it died and replaced; a cancelled cell is interrupted. ``RestartableKernel`` is the
protocol ``run_cell`` needs (formerly ``KernelSession``, a deprecated alias now: "session" names
a whole executor session elsewhere); ``KernelPeer`` is a base class that implements most of it.
"""

from __future__ import annotations

import warnings
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, Protocol

import anyio

from codeact.errors import ExecutorError
from codeact.executors.base import OutputCallback
from codeact.executors.wire.client import KernelClient, KernelLost
from codeact.tools import BaseTool


class RestartableKernel(Protocol):
    """A running kernel ``run_cell`` can serve: its client, and how to interrupt it, ask why it
    died and replace it. What a backend writes: start a peer and hand a ``KernelClient`` a
    stream to it; the rest is the same for every backend (``run_cell``)."""

    @property
    def kernel(self) -> KernelClient:
        """The client of the running peer."""

    async def restart(self) -> None:
        """Replace the peer with a fresh one (its state is lost) and a new ``kernel`` client."""

    async def death_reason(self) -> tuple[str, str]:
        """Why the peer went away: an error type (``SandboxCrashed``, ``MemoryError``...) and
        a message for the cell's result."""

    async def interrupt(self) -> bool:
        """Ask the running cell to stop (a signal); False when that is impossible."""


async def run_cell(
    session: RestartableKernel,
    code: str,
    *,
    limit: float,
    tools: Sequence[BaseTool],
    grace: float,
    on_output: OutputCallback | None = None,
    max_output: int | None = None,
) -> dict[str, Any]:
    """Run one cell on ``session``'s peer and return its result frame; a peer that is lost on
    the way is replaced (``restarted`` in the result). When the caller is cancelled the cell is
    interrupted (``grace`` seconds to stop, else the peer is replaced) before the cancellation
    goes on, so the session is usable again."""
    client = session.kernel
    try:
        return await client.execute(
            code,
            limit=limit,
            tools=tools,
            grace=grace,
            on_output=on_output,
            max_output=max_output,
        )
    except KernelLost as lost:
        kind, message = (lost.kind, lost.message) if lost.kind else (None, None)
        if lost.gone:
            kind, message = await session.death_reason()
        await session.restart()
        return lost.result(kind, message)
    except anyio.get_cancelled_exc_class():
        with anyio.CancelScope(shield=True):
            await interrupt_cell(session, grace)
        raise


async def interrupt_cell(session: RestartableKernel, grace: float) -> None:
    """Stop the running cell: signal it and wait ``grace`` seconds for its result; replace the
    peer when it cannot be signalled, dies or does not answer in time."""
    if not await session.interrupt():
        await session.restart()
        return
    if await session.kernel.wait_for({"result"}, grace) is None:
        await session.restart()


class KernelPeer(ABC):
    """One running kernel and how to replace it: the lifecycle half a backend writes (``start``
    sets ``client`` to a ready ``KernelClient``; ``stop`` ends the peer, twice is fine). It is a
    ``RestartableKernel``, so ``run`` (cells), ``reset`` and ``restart`` come with it; override
    ``death_reason`` and ``interrupt`` when the backend can tell why a peer died or signal it."""

    def __init__(self) -> None:
        #: The client of the running peer (None while there is none).
        self.client: KernelClient | None = None
        #: Set when its executor closes: a cell racing the close gets no new peer.
        self.retired = False

    @abstractmethod
    async def start(self) -> None:
        """Start a peer and set ``client`` once it answered ``ready`` (``ExecutorError`` if not)."""

    @abstractmethod
    async def stop(self) -> None:
        """End the peer and release what it holds; safe to call twice."""

    @property
    def kernel(self) -> KernelClient:
        """The client of the running peer (``ExecutorError`` when there is none)."""
        if self.client is None:
            raise ExecutorError("the sandbox is not running")
        return self.client

    async def restart(self) -> None:
        """Replace the peer with a fresh one (its state is lost); ``ExecutorError`` once
        retired."""
        await self.stop()
        if self.retired:
            raise ExecutorError("the session was closed")
        await self.start()

    async def death_reason(self) -> tuple[str, str]:
        """Why the peer went away (an error type and a message for the cell's result)."""
        return "SandboxCrashed", "the sandbox is gone; the session was restarted"

    async def interrupt(self) -> bool:
        """Ask the running cell to stop; False (the default) replaces the peer instead."""
        return False

    async def reset(self, timeout: float = 10.0) -> None:
        """A fresh namespace; a peer that does not confirm within ``timeout`` is replaced."""
        if not await self.kernel.reset(timeout=timeout):
            await self.restart()

    async def run(
        self,
        code: str,
        *,
        limit: float,
        tools: Sequence[BaseTool],
        grace: float,
        on_output: OutputCallback | None = None,
        max_output: int | None = None,
    ) -> dict[str, Any]:
        """``run_cell`` on this peer: the cell's result frame (a peer that failed to restart
        earlier is started first)."""
        if self.client is None:
            await self.start()
        return await run_cell(
            self,
            code,
            limit=limit,
            tools=tools,
            grace=grace,
            on_output=on_output,
            max_output=max_output,
        )


def __getattr__(name: str) -> Any:
    if name == "KernelSession":
        warnings.warn(
            "KernelSession is deprecated; use RestartableKernel",
            DeprecationWarning,
            stacklevel=2,
        )
        return RestartableKernel
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
