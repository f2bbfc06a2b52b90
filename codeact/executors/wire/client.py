"""KernelClient: the host side of the kernel protocol over any byte stream.

A backend starts something that speaks the protocol (a worker process, a kernel in a container)
and hands the client an ``anyio.abc.ByteStream`` to it; the client does the framing, the
handshake and every operation. What the client cannot decide — the peer is gone, sent a
malformed or foreign frame, or missed its deadline — it raises as ``KernelLost``: the backend's
lifecycle replaces the peer (``session.run_cell`` does that for a ``RestartableKernel``).
"""

from __future__ import annotations

import base64
import secrets
import time
from collections.abc import Sequence
from typing import Any

import anyio
from anyio.abc import ByteStream
from anyio.streams.buffered import BufferedByteReceiveStream

from codeact.errors import ExecutorError, UserError
from codeact.executors.base import OutputCallback
from codeact.executors.wire.cells import CellOutput, lost_result, tool_reply
from codeact.executors.wire.files import check_relative, tar_file, untar_file
from codeact.executors.wire.frames import (
    HEADER,
    MAX_FRAME,
    ProtocolError,
    decode_worker_frame,
    encode,
    frame_length,
)
from codeact.tools import BaseTool

#: What reading or writing a stream raises when the peer went away.
STREAM_GONE = (
    anyio.EndOfStream,
    anyio.IncompleteRead,
    anyio.BrokenResourceError,
    anyio.ClosedResourceError,
    OSError,
)


class KernelLost(ExecutorError):
    """The peer cannot finish this cell: it must be replaced (its state is lost).

    ``kind``/``message`` say why for the cell's result; ``gone`` means the stream ended (ask the
    backend why it died); ``timed_out`` that it missed the cell's deadline and grace."""

    def __init__(
        self,
        kind: str | None,
        message: str,
        output: CellOutput | None = None,
        *,
        gone: bool = False,
        timed_out: bool = False,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.output = output
        self.gone = gone
        self.timed_out = timed_out

    def result(self, kind: str | None, message: str | None) -> dict[str, Any]:
        """The cell's result frame: what it printed so far, ``restarted`` and the error."""
        result = lost_result(self.output, kind, message)
        return {**result, "timed_out": True} if self.timed_out else result


class KernelClient:
    """Frames to and from one peer over ``stream``; one operation at a time (callers lock)."""

    def __init__(self, stream: ByteStream) -> None:
        self.stream = stream
        self._reader = BufferedByteReceiveStream(stream)

    # -- frames ------------------------------------------------------------------------------
    async def send(self, message: dict[str, Any]) -> None:
        """Send one frame (``ProtocolError`` if too large; stream errors when the peer is gone)."""
        await self.stream.send(encode(message))

    async def send_bytes(self, data: bytes) -> None:
        """Send bytes already framed (e.g. ``frames.raw_frame`` of a kernel's source)."""
        await self.stream.send(data)

    async def recv(self) -> dict[str, Any] | None:
        """The next validated frame; None when the peer is gone; ``ProtocolError`` if malformed."""
        try:
            header = await self._reader.receive_exactly(HEADER.size)
            body = await self._reader.receive_exactly(frame_length(header))
        except STREAM_GONE:
            return None
        return decode_worker_frame(body)

    async def wait_for(self, ops: set[str], timeout: float | None = None) -> dict[str, Any] | None:
        """The first frame whose op is in ``ops`` (others are skipped); None when the peer is
        gone, sent a malformed frame, or ``timeout`` passed first."""
        with anyio.move_on_after(timeout):
            try:
                while (msg := await self.recv()) is not None:
                    if msg["op"] in ops:
                        return msg
            except ProtocolError:
                return None
        return None

    async def request(
        self, message: dict[str, Any], ops: set[str], timeout: float | None = None
    ) -> dict[str, Any] | None:
        """Send ``message``, wait for its answer (see ``wait_for``); None if it cannot be sent."""
        try:
            await self.send(message)
        except STREAM_GONE:
            return None
        return await self.wait_for(ops, timeout)

    async def aclose(self) -> None:
        """Close the stream."""
        await self.stream.aclose()

    # -- operations --------------------------------------------------------------------------
    async def handshake(
        self, init: dict[str, Any], *, timeout: float, preamble: bytes = b""
    ) -> dict[str, Any] | None:
        """Send ``preamble`` (raw bytes, e.g. the kernel's source) and the ``init`` frame, and
        wait for ``ready``; None when the peer did not get ready in ``timeout`` seconds."""
        try:
            if preamble:
                await self.send_bytes(preamble)
        except STREAM_GONE:
            return None
        return await self.request({"op": "init", **init}, {"ready"}, timeout)

    async def reset(self, timeout: float | None = 10.0) -> bool:
        """Ask for a fresh namespace; False when the peer did not confirm (replace it then)."""
        return await self.request({"op": "reset"}, {"reset_done"}, timeout) is not None

    async def set_tools(self, specs: list[Any], timeout: float | None = 30.0) -> bool:
        """Replace the peer's ``tools`` module (container kernels); False if not confirmed."""
        return (
            await self.request({"op": "tools", "tools": specs}, {"tools_done"}, timeout) is not None
        )

    async def put_archive(self, archive: bytes, timeout: float | None = 120.0) -> None:
        """Extract a tar ``archive`` into the kernel's working area (``put``). ``UserError``
        when it is too large for one frame, ``ExecutorError`` when the kernel refuses or dies."""
        message = {"op": "put", "data": base64.b64encode(archive).decode()}
        try:
            msg = await self.request(message, {"file_done", "file_error"}, timeout)
        except ProtocolError as exc:  # raised before anything was sent
            raise UserError(
                f"Upload of {len(archive)} bytes is too large for one frame "
                f"(about {MAX_FRAME * 3 // 4 >> 20} MB at most): {exc}"
            ) from None
        if msg is None or msg["op"] == "file_error":
            raise ExecutorError(f"upload failed: {msg['message'] if msg else 'the sandbox died'}")

    async def put_file(self, path: str, data: bytes, timeout: float | None = 120.0) -> None:
        """Write ``data`` to ``path`` (relative) in the kernel's working area."""
        await self.put_archive(tar_file(path, data), timeout)

    async def get_path(self, path: str, timeout: float | None = 120.0) -> bytes:
        """``path`` (relative) from the kernel's working area: a file's bytes, or a tar archive
        of a folder. ``UserError`` when there is no such file, ``ExecutorError`` if it died."""
        check_relative(path)
        msg = await self.request({"op": "get", "path": path}, {"file", "file_error"}, timeout)
        if msg is None:
            raise ExecutorError("download failed: the sandbox died")
        if msg["op"] == "file_error":
            raise UserError(f"No file {path!r} in the sandbox: {msg['message']}")
        try:
            data = base64.b64decode(msg["data"], validate=True)
        except ValueError:
            raise ExecutorError("download failed: the sandbox sent malformed data") from None
        return untar_file(data)

    async def execute(
        self,
        code: str,
        *,
        limit: float,
        tools: Sequence[BaseTool],
        grace: float,
        on_output: OutputCallback | None = None,
        max_output: int | None = None,
    ) -> dict[str, Any]:
        """Run one cell and serve it until its result frame: forward output (at most
        ``max_output`` characters), run tool calls on the host. A cell too large for one frame
        is an error result (the peer is untouched); ``KernelLost`` when the peer must go."""
        deadline = time.monotonic() + limit
        nonce = secrets.token_hex(8)  # the result must echo it: stale or forged ones do not
        try:
            frame = encode({"op": "exec", "code": code, "timeout": limit, "nonce": nonce})
        except ProtocolError as exc:
            message = f"the cell's code is too large to send to the sandbox ({exc})"
            error = {"type": "FrameTooLarge", "message": message, "traceback": message}
            return {"stdout": "", "stderr": "", "error": error}
        try:
            await self.send_bytes(frame)
        except STREAM_GONE:
            raise KernelLost(None, "the sandbox is gone", gone=True) from None
        return await self._serve(CellOutput(max_output, on_output), tools, deadline, grace, nonce)

    async def _serve(
        self, out: CellOutput, tools: Sequence[BaseTool], deadline: float, grace: float, nonce: str
    ) -> dict[str, Any]:
        while True:
            try:
                with anyio.move_on_after(max(deadline + grace - time.monotonic(), 0.0)) as scope:
                    msg = await self.recv()
            except ProtocolError as exc:
                reason = f"the sandbox sent a malformed frame: {exc}"
                raise KernelLost("ProtocolError", reason, out) from None
            if scope.cancelled_caught:
                raise KernelLost(None, "the cell missed its deadline", out, timed_out=True)
            if msg is None:
                raise KernelLost(None, "the sandbox is gone", out, gone=True)
            op = msg["op"]
            if op == "stream":
                out.add("stderr" if msg["name"] == "stderr" else "stdout", msg["text"])
            elif op == "tool_call":
                reply = await tool_reply(tools, msg, deadline)
                try:
                    await self.send(reply)
                except STREAM_GONE:
                    raise KernelLost(None, "the sandbox is gone", out, gone=True) from None
            elif op == "result":
                if msg.get("nonce") != nonce:
                    reason = "the sandbox answered with a result that was not this cell's"
                    raise KernelLost("ProtocolError", reason, out)
                return out.cap(msg)
