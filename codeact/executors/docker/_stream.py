"""A container's attach socket as an ``anyio.abc.ByteStream``: what goes in is the kernel's
stdin; what comes out is its stdout, taken out of Docker's multiplexed stream format."""

from __future__ import annotations

import contextlib
import socket
import struct

import anyio
from anyio.abc import ByteStream

_MUX = struct.Struct(">BxxxI")
_STDOUT = 1


class ContainerStream(ByteStream):
    """Non-blocking I/O on the attach socket (anyio); a failed socket is a broken stream."""

    def __init__(self, sock: socket.socket) -> None:
        sock.setblocking(False)
        self.sock = sock
        self._raw = bytearray()  # bytes of the multiplexed stream not yet parsed
        self._out = bytearray()  # demultiplexed stdout bytes
        self._eof = False
        self.closed = False

    async def send(self, item: bytes) -> None:
        """Write all of ``item`` to the kernel's stdin."""
        view = memoryview(item)
        while view:
            if self.closed:
                raise anyio.ClosedResourceError
            await anyio.wait_writable(self.sock)
            try:
                sent = self.sock.send(view)
            except BlockingIOError:
                continue
            except OSError as exc:
                raise anyio.BrokenResourceError from exc
            view = view[sent:]

    async def receive(self, max_bytes: int = 65536) -> bytes:
        """The next bytes the kernel wrote to stdout (``EndOfStream`` when it is gone)."""
        while not self._out:
            if self._eof or self.closed:
                raise anyio.EndOfStream
            await self._fill()
        data = bytes(self._out[:max_bytes])
        del self._out[:max_bytes]
        return data

    async def _fill(self) -> None:
        await anyio.wait_readable(self.sock)
        try:
            chunk = self.sock.recv(1 << 16)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if not chunk:
            self._eof = True
            return
        self._raw += chunk
        while len(self._raw) >= _MUX.size:
            kind, size = _MUX.unpack_from(self._raw)
            if len(self._raw) < _MUX.size + size:
                break
            if kind == _STDOUT:
                self._out += self._raw[_MUX.size : _MUX.size + size]
            del self._raw[: _MUX.size + size]

    async def send_eof(self) -> None:
        """Close the kernel's stdin (it then exits)."""
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_WR)

    async def aclose(self) -> None:
        """Close the socket."""
        self.close()

    def close(self) -> None:
        """Close the socket (synchronously; safe to call twice)."""
        if not self.closed:
            self.closed = True
            with contextlib.suppress(OSError):
                self.sock.close()
