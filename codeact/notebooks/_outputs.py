"""A cell's outputs in nbformat 4 from its ``ExecutionResult``: stdout/stderr streams, the
trailing value (a table as ``text/html`` + ``text/plain``), figures as ``image/png`` and the
error, each bounded so a runaway cell cannot make a 50 MB notebook."""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import Any

from codeact._execution import ExecutionResult, truncate_middle
from codeact.notebooks._nodes import Nodes

#: A stream, a value or a traceback longer than this is cut in the middle, with a note.
MAX_TEXT_CHARS = 64 * 1024
#: Figures of the whole notebook, in base64 characters; past it figures are left out (noted).
MAX_IMAGE_CHARS = 20 * 1024 * 1024
#: Rows and columns of a table rendered as HTML (the executor already bounds them).
MAX_TABLE_ROWS = 200
MAX_TABLE_COLUMNS = 50

__all__ = ["Budget", "cell_outputs"]


@dataclass
class Budget:
    """What is left of the notebook's figure budget (shared by all its cells)."""

    image_chars: int = field(default_factory=lambda: MAX_IMAGE_CHARS)
    images_left_out: int = 0


def bounded(text: str, what: str = "output") -> str:
    """``text`` cut in the middle past ``MAX_TEXT_CHARS``, with a note saying so."""
    if len(text) <= MAX_TEXT_CHARS:
        return text
    cut = truncate_middle(text, MAX_TEXT_CHARS)
    return f"{cut}\n[{what} truncated in this notebook: it was {len(text)} characters]\n"


def cell_outputs(
    result: ExecutionResult, count: int, budget: Budget, nbf: Nodes
) -> list[dict[str, Any]]:
    """The nbformat outputs of one cell."""
    outputs: list[dict[str, Any]] = []
    if result.stdout:
        outputs.append(nbf.new_output("stream", name="stdout", text=bounded(result.stdout)))
    if result.stderr:
        outputs.append(nbf.new_output("stream", name="stderr", text=bounded(result.stderr)))
    if result.truncated:
        note = "[the sandbox cut this cell's output: it printed more than its output cap]\n"
        outputs.append(nbf.new_output("stream", name="stderr", text=note))
    outputs += _figures(result.images, budget, nbf)
    value = _value(result, count, nbf)
    if value is not None:
        outputs.append(value)
    if result.error is not None:
        err = result.error
        trace = bounded(err.traceback or f"{err.type}: {err.message}", "traceback")
        outputs.append(
            nbf.new_output(
                "error",
                ename=err.type,
                evalue=bounded(err.message, "message"),
                traceback=trace.rstrip("\n").split("\n"),
            )
        )
    if result.timed_out:
        lost = " and the session was restarted (variables were lost)" if result.restarted else ""
        note = f"[this cell timed out in the sandbox after {result.duration_s:.1f} s{lost}]\n"
        outputs.append(nbf.new_output("stream", name="stderr", text=note))
    return outputs


def _figures(images: list[str], budget: Budget, nbf: Nodes) -> list[dict[str, Any]]:
    out = []
    for data in images:
        if len(data) > budget.image_chars:
            budget.images_left_out += 1
            note = "[a figure was left out: the notebook's figure budget is spent]\n"
            out.append(nbf.new_output("stream", name="stderr", text=note))
            continue
        budget.image_chars -= len(data)
        out.append(nbf.new_output("display_data", data={"image/png": data}, metadata={}))
    return out


def _value(result: ExecutionResult, count: int, nbf: Nodes) -> dict[str, Any] | None:
    """The trailing expression as Jupyter shows it: ``text/plain`` (and a table's HTML)."""
    data: dict[str, str] = {}
    if result.value is not None:
        data["text/plain"] = bounded(result.value, "value")
    if result.tables:
        data["text/html"] = "\n".join(table_html(t) for t in result.tables)
        data.setdefault("text/plain", "\n\n".join(table_text(t) for t in result.tables))
    if not data:
        return None
    out: dict[str, Any] = nbf.new_output(
        "execute_result", data=data, metadata={}, execution_count=count
    )
    return out


def _cells(table: dict[str, Any]) -> tuple[list[str], list[str], list[list[str]]]:
    columns = [str(c) for c in table.get("columns") or []][:MAX_TABLE_COLUMNS]
    index = [str(i) for i in table.get("index") or []][:MAX_TABLE_ROWS]
    rows = [[str(v) for v in row][:MAX_TABLE_COLUMNS] for row in table.get("rows") or []]
    rows = rows[:MAX_TABLE_ROWS]
    if len(index) < len(rows):
        index += [""] * (len(rows) - len(index))
    return columns, index, rows


def table_html(table: dict[str, Any]) -> str:
    """A captured table as an HTML table like pandas's (every cell escaped)."""
    columns, index, rows = _cells(table)
    e = html.escape
    head = "".join(f"<th>{e(c)}</th>" for c in columns)
    body = "".join(
        f"<tr><th>{e(i)}</th>" + "".join(f"<td>{e(v)}</td>" for v in row) + "</tr>"
        for i, row in zip(index, rows, strict=False)
    )
    caption = ""
    shape = table.get("shape")
    if isinstance(shape, list | tuple) and len(shape) == 2:
        caption = f"<p>{e(str(shape[0]))} rows \u00d7 {e(str(shape[1]))} columns</p>"
    return (
        '<table border="1" class="dataframe">'
        f"<thead><tr><th></th>{head}</tr></thead><tbody>{body}</tbody></table>{caption}"
    )


def table_text(table: dict[str, Any]) -> str:
    """A captured table as aligned plain text."""
    columns, index, rows = _cells(table)
    grid = [["", *columns]] + [[i, *row] for i, row in zip(index, rows, strict=False)]
    widths = [max(len(r[k]) if k < len(r) else 0 for r in grid) for k in range(len(grid[0]))]
    lines = ["  ".join(v.rjust(w) for v, w in zip(r, widths, strict=False)) for r in grid]
    return "\n".join(line.rstrip() for line in lines)
