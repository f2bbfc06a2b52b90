"""A ``SandboxHost`` actor's kernel as an ``anyio.abc.ByteStream`` on the driver.

``receive`` is a long poll (``recv`` on the actor waits for the kernel's bytes). A receive that
is cancelled (a deadline, ``wait_for``'s timeout) keeps its call pending and the next receive
takes its bytes, so the frame stream never loses a piece. Any Ray failure — the actor or its
node died — is a broken stream: the kernel client then asks the peer why it died.
"""

from __future__ import annotations

import asyncio
from typing import Any

import anyio
from anyio.abc import ByteStream


class ActorStream(ByteStream):
    """Bytes to and from the kernel relayed by ``actor`` (a ``SandboxHost`` handle)."""

    def __init__(self, actor: Any) -> None:
        self.actor = actor
        self._pending: asyncio.Future[Any] | None = None
        self._closed = False
        #: The Ray error that broke the stream, if one did (for the death reason).
        self.failure: BaseException | None = None

    async def send(self, item: bytes) -> None:
        """Write ``item`` to the kernel (``BrokenResourceError`` when it or its node is gone)."""
        if self._closed:
            raise anyio.ClosedResourceError
        try:
            ok = await self.actor.send.remote(item)
        except Exception as exc:  # a Ray error: the actor or its node died
            self.failure = exc
            raise anyio.BrokenResourceError from exc
        if not ok:
            raise anyio.BrokenResourceError

    async def receive(self, max_bytes: int = 65536) -> bytes:
        """The kernel's next bytes (``EndOfStream`` when it ended, ``BrokenResourceError`` when
        the actor or its node died)."""
        if self._closed:
            raise anyio.ClosedResourceError
        if self._pending is None:
            self._pending = asyncio.wrap_future(self.actor.recv.remote(max_bytes).future())
        pending = self._pending
        try:
            data = await asyncio.shield(pending)
        except asyncio.CancelledError:
            if pending.cancelled():  # the call itself was cancelled, not only our wait
                self._pending = None
            raise
        except Exception as exc:
            self._pending = None
            self.failure = exc
            raise anyio.BrokenResourceError from exc
        self._pending = None
        if not data:
            raise anyio.EndOfStream
        return bytes(data)

    async def send_eof(self) -> None:
        """Nothing to half-close: the actor ends the kernel when stopped."""

    async def aclose(self) -> None:
        """Forget the stream (a pending call's bytes are dropped)."""
        self._closed = True
        self._pending = None
