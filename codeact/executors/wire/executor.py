"""KernelBackedExecutor: a ``CodeExecutor`` whose cells run in a kernel it talks to over a byte
stream. A backend writes only ``open_peer`` (start a ``KernelPeer``); the session's lock,
timeouts, cells, tools, reset, files and closing are here."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Sequence
from typing import Any

import anyio

from codeact.errors import ExecutorError
from codeact.executors.base import CodeExecutor, ExecutionResult, OutputCallback
from codeact.executors.wire.cells import to_result
from codeact.executors.wire.files import check_relative
from codeact.executors.wire.session import KernelPeer
from codeact.tools import BaseTool


class KernelBackedExecutor(CodeExecutor):
    """Base class of executors whose session is one kernel peer (a process, a container, a
    remote actor...) speaking the frame protocol.

    Subclasses implement ``open_peer`` and may override ``close_resources`` (called once by
    ``aclose`` after the peer stopped). ``upload``/``download`` use the kernel's ``put``/``get``
    frames (the container kernel has them); override them when the files live elsewhere.
    ``grace`` is how long a cell past its deadline gets to report before its peer is replaced.
    """

    grace: float = 2.0

    def __init__(
        self,
        *,
        tools: Sequence[BaseTool | Callable[..., Any]] = (),
        timeout: float = 30.0,
        max_output_bytes: int = 1_000_000,
    ) -> None:
        super().__init__(tools=tools)
        self.timeout = timeout
        self.max_output_bytes = max_output_bytes
        #: The running peer (None before ``start()`` and after ``aclose()``).
        self.peer: KernelPeer | None = None
        self._lock = anyio.Lock()
        self._closed = False

    @abstractmethod
    async def open_peer(self) -> KernelPeer:
        """Create a peer and start it (its kernel answered ``ready``); called by ``start()``."""

    async def close_resources(self) -> None:
        """Release what the executor holds besides its peer (an engine client...)."""

    def init_frame(self) -> dict[str, Any]:
        """The ``init`` frame's fields for a container-style kernel: tools and output cap."""
        return {"tools": self.tool_specs(), "max_output": self.max_output_bytes}

    def running_peer(self) -> KernelPeer:
        """The started peer (``ExecutorError`` before ``start()`` or after ``aclose()``)."""
        if self.peer is None:
            raise ExecutorError(f"{type(self).__name__} is not running; call start() first")
        return self.peer

    async def start(self) -> None:
        """Start the session's peer (idempotent)."""
        if self._closed:
            raise ExecutorError("This executor was closed; create a new one.")
        if self.peer is not None:
            return
        self.check_tools()
        async with self._lock:
            if self.peer is None:
                self.peer = await self.open_peer()

    async def execute(
        self,
        code: str,
        *,
        timeout: float | None = None,
        on_output: OutputCallback | None = None,
    ) -> ExecutionResult:
        """Run one cell in the kernel (a lost kernel is replaced: ``restarted`` in the result)."""
        await self.start()
        limit = self.timeout if timeout is None else timeout
        async with self._lock:
            raw = await self.running_peer().run(
                code,
                limit=limit,
                tools=self.tools,
                grace=self.grace,
                on_output=on_output,
                max_output=self.max_output_bytes,
            )
        return to_result(raw)

    async def reset(self) -> None:
        """A fresh namespace (files stay); a kernel that does not confirm is replaced."""
        await self.start()
        async with self._lock:
            await self.running_peer().reset()

    async def aclose(self) -> None:
        """Stop the peer and release the executor's resources. Safe to call twice."""
        if self._closed and self.peer is None:
            return
        self._closed = True
        peer, self.peer = self.peer, None
        with anyio.CancelScope(shield=True):
            if peer is not None:
                peer.retired = True
                await peer.stop()
            await self.close_resources()

    async def upload(self, path: str, data: bytes) -> None:
        """Write ``data`` to ``path`` (relative) in the kernel's working area."""
        check_relative(path)
        await self.start()
        async with self._lock:
            await self.running_peer().kernel.put_file(path, data)

    async def upload_archive(self, archive: bytes) -> None:
        """Extract a tar archive (files and folders) into the kernel's working area."""
        await self.start()
        async with self._lock:
            await self.running_peer().kernel.put_archive(archive)

    async def download(self, path: str) -> bytes:
        """Read ``path`` (relative): a file's bytes, or a tar archive for a folder."""
        check_relative(path)
        await self.start()
        async with self._lock:
            return await self.running_peer().kernel.get_path(path)
