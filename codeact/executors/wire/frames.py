"""Frames of the kernel protocol, spoken by process workers and container kernels alike.

A frame is a 4-byte big-endian length followed by that many bytes of UTF-8 JSON (an object with
an ``op``). JSON only, never pickle. Every frame read is checked (size, JSON, shape) before use.
"""

from __future__ import annotations

import json
import struct
from typing import Any

from codeact.errors import ExecutorError

HEADER = struct.Struct(">I")
MAX_FRAME = 16 * 1024 * 1024

#: Operations a worker may send, with the fields each needs and their types.
WORKER_OPS: dict[str, dict[str, type | tuple[type, ...]]] = {
    "ready": {},
    "stream": {"name": str, "text": str},
    "tool_call": {"id": int, "name": str, "args": dict},
    "result": {"stdout": str, "stderr": str, "timed_out": bool, "truncated": bool},
    "reset_done": {},
    # container kernels only
    "file_done": {},
    "file": {"data": str},
    "file_error": {"message": str},
    "tools_done": {},
}


#: Operations the host sends (the kernel and the worker act on these; ``init`` comes first).
HOST_OPS = frozenset({"init", "exec", "reset", "tools", "put", "get", "tool_result"})


class ProtocolError(ExecutorError):
    """A frame was malformed (too big, not JSON, unknown op or missing fields)."""


def encode(message: dict[str, Any]) -> bytes:
    """One frame for ``message``."""
    body = json.dumps(message, separators=(",", ":"), default=str).encode("utf-8")
    if len(body) > MAX_FRAME:
        raise ProtocolError(f"frame of {len(body)} bytes exceeds the {MAX_FRAME}-byte limit")
    return HEADER.pack(len(body)) + body


def raw_frame(body: bytes) -> bytes:
    """A frame around bytes that are not JSON (the kernel's source, sent to the bootstrap)."""
    if len(body) > MAX_FRAME:
        raise ProtocolError(f"frame of {len(body)} bytes exceeds the {MAX_FRAME}-byte limit")
    return HEADER.pack(len(body)) + body


def frame_length(header: bytes) -> int:
    """The body length announced by a header, refusing oversized frames."""
    (length,) = HEADER.unpack(header)
    if length > MAX_FRAME:
        raise ProtocolError(f"announced frame of {length} bytes exceeds the {MAX_FRAME}-byte limit")
    return int(length)


def decode_worker_frame(body: bytes) -> dict[str, Any]:
    """Parse and validate one frame sent by a worker."""
    try:
        msg = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:  # incl. deep nesting
        raise ProtocolError(f"frame is not UTF-8 JSON: {type(exc).__name__}: {exc}") from None
    if not isinstance(msg, dict) or not isinstance(msg.get("op"), str):
        raise ProtocolError("frame is not an object with a string 'op'")
    fields = WORKER_OPS.get(msg["op"])
    if fields is None:
        raise ProtocolError(f"unknown op {msg['op']!r}")
    for name, kind in fields.items():
        if not isinstance(msg.get(name), kind) or isinstance(msg.get(name), bool) != (kind is bool):
            raise ProtocolError(f"op {msg['op']!r}: field {name!r} missing or of the wrong type")
    return msg
