"""Async framed I/O over a container's attached stdin/stdout (Docker's multiplexed stream)."""

from __future__ import annotations

import contextlib
import socket
import struct
from typing import Any

import anyio

from codeact.executors.restricted._protocol import HEADER, encode, frame_length

_MUX = struct.Struct(">BxxxI")


class ContainerStream:
    """Frames to and from the kernel through the attach socket (non-blocking, anyio)."""

    def __init__(self, sock: socket.socket) -> None:
        sock.setblocking(False)
        self.sock = sock
        self._raw = bytearray()  # bytes of the multiplexed stream not yet parsed
        self._out = bytearray()  # demultiplexed stdout bytes
        self.closed = False

    async def send_raw(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            await anyio.wait_writable(self.sock)
            try:
                sent = self.sock.send(view)
            except BlockingIOError:
                continue
            view = view[sent:]

    async def send(self, message: dict[str, Any]) -> None:
        """Send one JSON frame to the kernel."""
        await self.send_raw(encode(message))

    async def _fill(self) -> bool:
        await anyio.wait_readable(self.sock)
        try:
            chunk = self.sock.recv(1 << 16)
        except BlockingIOError:
            return True
        except OSError:
            chunk = b""
        if not chunk:
            self.closed = True
            return False
        self._raw += chunk
        while len(self._raw) >= _MUX.size:
            kind, size = _MUX.unpack_from(self._raw)
            if len(self._raw) < _MUX.size + size:
                break
            payload = bytes(self._raw[_MUX.size : _MUX.size + size])
            del self._raw[: _MUX.size + size]
            if kind == 1:
                self._out += payload
        return True

    async def _exactly(self, n: int) -> bytes | None:
        while len(self._out) < n:
            if not await self._fill():
                return None
        data = bytes(self._out[:n])
        del self._out[:n]
        return data

    async def recv_body(self) -> bytes | None:
        """The next frame's body, or None when the stream ended."""
        header = await self._exactly(HEADER.size)
        if header is None:
            return None
        return await self._exactly(frame_length(header))

    def close(self) -> None:
        """Close the socket."""
        if not self.closed:
            self.closed = True
            with contextlib.suppress(OSError):
                self.sock.close()
