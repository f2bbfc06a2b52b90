"""Rich cell results on the AG-UI stream: the ``codeact.cell`` CUSTOM event.

After the ``TOOL_CALL_RESULT`` of every code cell (a CodeAct ``execute`` call, or any tool whose
output carries an executor result) the translator sends one event::

    {"type": "CUSTOM", "name": "codeact.cell", "value": {
        "toolCallId": "...",          # the TOOL_CALL_RESULT it belongs to
        "durationS": 0.12, "ok": true, "timedOut": false, "restarted": false,
        "truncated": false,
        "stdout": "...", "stderr": "...",            # each capped at MAX_STREAM_CHARS
        "value": "repr of the trailing expression",  # when there is one
        "error": {"type": "...", "message": "...", "traceback": "..."},  # when it failed
        "images": [{"mimeType": "image/png", "data": "<base64>"}],
        "tables": [{"columns": [...], "index": [...], "rows": [[...]], "shape": [r, c],
                    "truncated": false}],
        "files": ["out.csv"],         # files the cell wrote (relative to the working dir)
        "finalAnswer": "..."          # when the cell called final_answer(value) (JSON if not str)
    }}

The TOOL_CALL_RESULT keeps the text the model saw; this event is for front ends. It is stored
with the run's other events, so ``/history`` replays it (see ``stored_cells``): a reloaded
thread shows the same cells, images included.
"""

from __future__ import annotations

import json
from typing import Any

from ag_ui.core import BaseEvent, CustomEvent

from codeact import events as ev
from codeact.server._sse import frame
from codeact.server.store import SessionKey, SessionStore

CELL_EVENT = "codeact.cell"
HISTORY_EVENT = "codeact.cells"
#: stdout/stderr in the event are capped (the TOOL_CALL_RESULT has the model's view).
MAX_STREAM_CHARS = 64 * 1024
#: Images of one cell, in base64 characters, beyond which the rest are left out.
MAX_IMAGE_CHARS = 8 * 1024 * 1024
#: Stored events read per store call when collecting a thread's cells for history.
PAGE = 256

__all__ = ["CELL_EVENT", "HISTORY_EVENT", "cell_event", "cell_value", "stored_cells"]


def cell_event(e: ev.ToolCallResult) -> list[BaseEvent]:
    """The ``codeact.cell`` event for a tool result that carries an executor result."""
    if not isinstance(e.execution, dict):
        return []
    return [CustomEvent(name=CELL_EVENT, value=cell_value(e.tool_id, e.execution))]


def cell_value(tool_id: str, execution: dict[str, Any]) -> dict[str, Any]:
    """The event's value from an ``ExecutionResult.model_dump()`` (see the module docstring)."""
    images: list[dict[str, str]] = []
    spent = 0
    for data in execution.get("images") or []:
        if isinstance(data, str) and spent + len(data) <= MAX_IMAGE_CHARS:
            images.append({"mimeType": "image/png", "data": data})
            spent += len(data)
    value: dict[str, Any] = {
        "toolCallId": tool_id,
        "durationS": round(float(execution.get("duration_s") or 0.0), 4),
        "ok": execution.get("error") is None and not execution.get("timed_out"),
        "timedOut": bool(execution.get("timed_out")),
        "restarted": bool(execution.get("restarted")),
        "truncated": bool(execution.get("truncated")),
        "stdout": _capped(execution.get("stdout")),
        "stderr": _capped(execution.get("stderr")),
        "images": images,
        "tables": [t for t in execution.get("tables") or [] if isinstance(t, dict)],
        "files": [f for f in execution.get("files") or [] if isinstance(f, str)],
    }
    if isinstance(execution.get("value"), str):
        value["value"] = _capped(execution["value"])
    if execution.get("is_final_answer"):
        answer = execution.get("final_answer")
        value["finalAnswer"] = (
            answer if isinstance(answer, str) else json.dumps(answer, default=str)
        )
    error = execution.get("error")
    if isinstance(error, dict):
        value["error"] = {k: str(error.get(k) or "") for k in ("type", "message", "traceback")}
    return value


def _capped(value: Any) -> str:
    text = value if isinstance(value, str) else ""
    if len(text) <= MAX_STREAM_CHARS:
        return text
    return text[:MAX_STREAM_CHARS] + "\n[output cut for display]"


async def stored_cells(
    store: SessionStore, key: SessionKey, runs: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The values of every ``codeact.cell`` event stored for the thread's runs, in order."""
    cells: list[dict[str, Any]] = []
    for run in runs:
        run_id = run.get("runId")
        if not isinstance(run_id, str):
            continue
        after = 0
        while True:
            page = await store.event_page(key, run_id, after=after, skip=0, limit=PAGE)
            for after, data in page:  # noqa: B007  (the last cursor is the next start)
                if CELL_EVENT in data:
                    cells.extend(_cell_of(data))
            if len(page) < PAGE:
                break
    return cells


def _cell_of(data: str) -> list[dict[str, Any]]:
    try:
        event = json.loads(data)
    except ValueError:
        return []
    if event.get("type") == "CUSTOM" and event.get("name") == CELL_EVENT:
        value = event.get("value")
        return [value] if isinstance(value, dict) else []
    return []


def with_cells(frames: list[bytes], cells: list[dict[str, Any]]) -> list[bytes]:
    """History frames with one CUSTOM ``codeact.cells`` (the thread's cells, in order) before
    the terminal RUN_FINISHED frame, ids renumbered."""
    if not cells or not frames:
        return frames
    event = CustomEvent(name=HISTORY_EVENT, value=cells)
    extra = event.model_dump_json(by_alias=True, exclude_none=True)
    last = frames[-1]
    data = last.split(b"\ndata: ", 1)[1].rstrip(b"\n").decode("utf-8")
    return [*frames[:-1], frame(len(frames) - 1, extra), frame(len(frames), data)]
