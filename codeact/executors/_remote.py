"""What the executors that run cells in another process share: collecting one cell's frames,
running host tools for it, and turning the (untrusted) result frame into an ExecutionResult."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, Literal, Protocol

import anyio

from codeact.executors.base import ExecutionError, ExecutionResult, OutputCallback
from codeact.executors.restricted._protocol import ProtocolError, encode
from codeact.tools import BaseTool, from_plain_json


class FramePeer(Protocol):
    """The host side of a worker or kernel speaking the frame protocol."""

    async def recv(self) -> dict[str, Any] | None:
        """The next validated frame; None when the peer is gone; ``ProtocolError`` if malformed."""

    async def send(self, message: dict[str, Any]) -> None:
        """Send one frame."""

    async def restart(self) -> None:
        """Replace the peer with a fresh one (its state is lost)."""

    async def death_reason(self) -> tuple[str, str]:
        """Why the peer went away: an error type (``SandboxCrashed``, ``MemoryError``...) and
        a message for the cell's result."""


async def run_host_tool(
    tools: Sequence[BaseTool], name: str, args: dict[str, Any], deadline: float
) -> tuple[str, Any]:
    """Run a tool on the host for a cell: ``("ok", plain data)``, ``("error", text)`` or
    ``("timeout", None)`` when the cell's deadline passes first."""
    tool = next((t for t in tools if t.name == name), None)
    if tool is None:
        return "error", f"no tool named {name!r}"
    with anyio.move_on_after(max(deadline - time.monotonic(), 0.0)):
        output = await tool.acall(args)
        if output.is_error:
            return "error", output.content
        return "ok", from_plain_json(output.raw_output)
    return "timeout", None


class _Output:
    """What a cell printed, as the host keeps it: at most ``limit`` characters, whatever the
    sandbox sends (a hostile worker can write frames of its own)."""

    def __init__(self, limit: int | None, on_output: OutputCallback | None) -> None:
        self.parts: dict[str, list[str]] = {"stdout": [], "stderr": []}
        self.limit = limit
        self.size = 0
        self.truncated = False
        self.on_output = on_output

    def add(self, name: Literal["stdout", "stderr"], text: str) -> None:
        if self.limit is not None:
            room = max(self.limit - self.size, 0)
            if len(text) > room:
                text, self.truncated = text[:room], True
            if not text:
                return
        self.size += len(text)
        self.parts[name].append(text)
        if self.on_output is not None:
            self.on_output(name, text)

    def cap(self, result: dict[str, Any]) -> dict[str, Any]:
        """The result frame with its own stdout/stderr held to the limit too."""
        if self.limit is None:
            return result
        slack = self.limit + 1000  # room for the sandbox's own truncation notice
        for name in ("stdout", "stderr"):
            text = result.get(name)
            if isinstance(text, str) and len(text) > slack:
                result = {**result, name: text[:slack], "truncated": True}
        return result


async def collect_result(
    peer: FramePeer,
    tools: Sequence[BaseTool],
    deadline: float,
    grace: float,
    on_output: OutputCallback | None,
    *,
    max_output: int | None = None,
    nonce: str | None = None,
) -> dict[str, Any]:
    """Serve one running cell until its result frame: forward output (at most ``max_output``
    characters), run tool calls; restart the peer when it dies, sends a malformed frame, answers
    with another cell's result (``nonce`` not echoed), or misses ``deadline + grace``."""
    out = _Output(max_output, on_output)
    while True:
        wait = max(deadline + grace - time.monotonic(), 0.0)
        try:
            with anyio.move_on_after(wait) as scope:
                msg = await peer.recv()
        except ProtocolError as exc:
            await peer.restart()
            return lost_result(
                out.parts, "ProtocolError", f"the sandbox sent a malformed frame: {exc}"
            )
        if scope.cancelled_caught:
            await peer.restart()
            return {**lost_result(out.parts, None, None), "timed_out": True}
        if msg is None:
            kind, reason = await peer.death_reason()
            await peer.restart()
            return lost_result(out.parts, kind, reason)
        op = msg["op"]
        if op == "stream":
            out.add("stderr" if msg["name"] == "stderr" else "stdout", msg["text"])
        elif op == "tool_call":
            await _serve_tool_call(peer, tools, msg, deadline)
        elif op == "result":
            if nonce is not None and msg.get("nonce") != nonce:
                await peer.restart()
                reason = "the sandbox answered with a result that was not this cell's"
                return lost_result(out.parts, "ProtocolError", reason)
            result = out.cap(msg)
            return {**result, "truncated": True} if out.truncated else result


async def _serve_tool_call(
    peer: FramePeer, tools: Sequence[BaseTool], msg: dict[str, Any], deadline: float
) -> None:
    status, value = await run_host_tool(tools, msg["name"], msg["args"], deadline)
    reply: dict[str, Any] = {"op": "tool_result", "id": msg["id"], "status": status}
    reply["value" if status == "ok" else "error"] = value
    try:
        encode(reply)
    except ProtocolError as exc:  # too big for one frame: the cell learns it at once
        reply = {
            "op": "tool_result",
            "id": msg["id"],
            "status": "error",
            "error": f"the result of tool {msg['name']!r} is too large to send to the "
            f"sandbox ({exc}); return less data, e.g. write it to a file",
        }
    await peer.send(reply)


def lost_result(out: dict[str, list[str]], kind: str | None, message: str | None) -> dict[str, Any]:
    """The result of a cell whose sandbox was restarted (with what it printed so far)."""
    result: dict[str, Any] = {
        "stdout": "".join(out["stdout"]),
        "stderr": "".join(out["stderr"]),
        "restarted": True,
    }
    if kind is not None:
        result["error"] = {
            "type": kind,
            "message": message or "",
            "traceback": f"{kind}: {message}",
        }
    return result


def to_result(raw: dict[str, Any]) -> ExecutionResult:
    """An ExecutionResult from a result frame, keeping only well-typed fields."""
    err = raw.get("error")
    images = raw.get("images")
    value = raw.get("value")
    return ExecutionResult(
        stdout=str(raw.get("stdout", "")),
        stderr=str(raw.get("stderr", "")),
        value=value if isinstance(value, str) else None,
        error=ExecutionError(**{k: str(err.get(k, "")) for k in ("type", "message", "traceback")})
        if isinstance(err, dict)
        else None,
        duration_s=float(raw.get("duration_s", 0.0) or 0.0),
        timed_out=bool(raw.get("timed_out", False)),
        restarted=bool(raw.get("restarted", False)),
        truncated=bool(raw.get("truncated", False)),
        is_final_answer=bool(raw.get("is_final_answer", False)),
        final_answer=raw.get("final_answer"),
        images=[i for i in images if isinstance(i, str)] if isinstance(images, list) else [],
        **rich_fields(raw),
    )


def rich_fields(raw: dict[str, Any]) -> dict[str, Any]:
    """``tables`` (dicts) and ``files`` (strings) of a result frame, when well typed."""
    tables, files = raw.get("tables"), raw.get("files")
    return {
        "tables": [t for t in tables if isinstance(t, dict)] if isinstance(tables, list) else [],
        "files": [f for f in files if isinstance(f, str)] if isinstance(files, list) else [],
    }
