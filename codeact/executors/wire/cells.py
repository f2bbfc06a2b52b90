"""What serving one cell takes on the host, whatever the backend: running host tools for it,
holding its output to a cap, and turning the (untrusted) result frame into an ExecutionResult."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, Literal

import anyio

from codeact.executors.base import ExecutionError, ExecutionResult, OutputCallback
from codeact.executors.wire.frames import ProtocolError, encode
from codeact.tools import BaseTool, from_plain_json


async def run_host_tool(
    tools: Sequence[BaseTool], name: str, args: dict[str, Any], deadline: float
) -> tuple[str, Any]:
    """Run a tool on the host for a cell: ``("ok", plain data)``, ``("error", text)`` or
    ``("timeout", None)`` when the cell's deadline passes first."""
    tool = next((t for t in tools if t.sandbox_spec()[0] == name), None)
    if tool is None:
        return "error", f"no tool named {name!r}"
    with anyio.move_on_after(max(deadline - time.monotonic(), 0.0)):
        output = await tool.acall(args)
        if output.is_error:
            return "error", output.content
        return "ok", from_plain_json(output.raw_output)
    return "timeout", None


async def tool_reply(
    tools: Sequence[BaseTool], msg: dict[str, Any], deadline: float
) -> dict[str, Any]:
    """The ``tool_result`` frame answering a ``tool_call`` frame (an error when too large)."""
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
    return reply


class CellOutput:
    """What a cell printed, as the host keeps it: at most ``limit`` characters, whatever the
    sandbox sends (a hostile worker can write frames of its own)."""

    def __init__(self, limit: int | None, on_output: OutputCallback | None) -> None:
        self.parts: dict[str, list[str]] = {"stdout": [], "stderr": []}
        self.limit = limit
        self.size = 0
        self.truncated = False
        self.on_output = on_output

    def add(self, name: Literal["stdout", "stderr"], text: str) -> None:
        """Keep (and forward) ``text`` as far as the cap allows."""
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
        if self.limit is not None:
            slack = self.limit + 1000  # room for the sandbox's own truncation notice
            for name in ("stdout", "stderr"):
                text = result.get(name)
                if isinstance(text, str) and len(text) > slack:
                    result = {**result, name: text[:slack], "truncated": True}
        return {**result, "truncated": True} if self.truncated else result


def lost_result(out: CellOutput | None, kind: str | None, message: str | None) -> dict[str, Any]:
    """The result of a cell whose sandbox was restarted (with what it printed so far)."""
    parts = out.parts if out is not None else {"stdout": [], "stderr": []}
    result: dict[str, Any] = {
        "stdout": "".join(parts["stdout"]),
        "stderr": "".join(parts["stderr"]),
        "restarted": True,
    }
    if kind is not None:
        result["error"] = error_dict(kind, message or "")
    return result


def error_dict(kind: str, message: str) -> dict[str, str]:
    """The ``error`` field of a result frame."""
    return {"type": kind, "message": message, "traceback": f"{kind}: {message}"}


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
