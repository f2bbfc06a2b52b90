"""A protocol checker for AG-UI SSE streams (the ordering and closing rules the official
client enforces, plus framing and no-null rules)."""

from __future__ import annotations

import json
from typing import Any

TERMINAL = {"RUN_FINISHED", "RUN_ERROR"}


def parse_sse(raw: bytes) -> list[dict[str, Any]]:
    """Events of an SSE body; comments (heartbeats) are skipped. Fails on CRLF framing."""
    assert b"\r" not in raw, "SSE must be framed with LF only"
    events = []
    for block in raw.decode().split("\n\n"):
        if not block.strip():
            continue
        lines = [ln for ln in block.split("\n") if not ln.startswith((":", "id: "))]
        if not lines:
            continue
        assert all(ln.startswith("data: ") for ln in lines), block
        events.append(json.loads("\n".join(ln[6:] for ln in lines)))
    return events


def _no_nulls(obj: Any, path: str = "") -> None:
    if isinstance(obj, dict):
        for k, v in obj.items():
            assert v is not None, f"null at {path}.{k}"
            assert "_" not in k or k.startswith("_"), f"snake_case key {k!r} at {path}"
            _no_nulls(v, f"{path}.{k}")
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            _no_nulls(v, f"{path}[{i}]")


def check_stream(events: list[dict[str, Any]]) -> list[str]:
    """Assert the rules; return the event types."""
    types = [e["type"] for e in events]
    assert types and types[0] == "RUN_STARTED", types
    assert types[-1] in TERMINAL and sum(t in TERMINAL for t in types) == 1, types
    open_text: set[str] = set()
    open_tools: set[str] = set()
    open_reasoning: set[str] = set()
    for e in events:
        _no_nulls(e)
        t = e["type"]
        if t == "TEXT_MESSAGE_START":
            assert e["messageId"] not in open_text
            open_text.add(e["messageId"])
        elif t == "TEXT_MESSAGE_CONTENT":
            assert e["messageId"] in open_text and e["delta"], e
        elif t == "TEXT_MESSAGE_END":
            open_text.remove(e["messageId"])
        elif t == "TOOL_CALL_START":
            assert e["toolCallId"] not in open_tools
            open_tools.add(e["toolCallId"])
        elif t == "TOOL_CALL_ARGS":
            assert e["toolCallId"] in open_tools and e["delta"], e
        elif t == "TOOL_CALL_END":
            open_tools.remove(e["toolCallId"])
        elif t == "REASONING_MESSAGE_START":
            open_reasoning.add(e["messageId"])
        elif t == "REASONING_MESSAGE_END":
            open_reasoning.remove(e["messageId"])
        elif t in TERMINAL:
            assert not open_text and not open_tools and not open_reasoning, (
                t,
                open_text,
                open_tools,
            )
    return types
