"""Rich outputs of a restricted cell: matplotlib figures as PNG, DataFrames as tables, and the
files the cell wrote.

``RestrictedInterpreter`` holds one ``RichCapture`` and calls it at three points (``begin``
before the cell, ``value`` with the cell's trailing expression, ``end`` for the result's extra
fields). The
capture runs on the sandbox side (the worker process in process mode), with matplotlib's Agg
backend: no display is needed and ``plt.show()`` only marks the figure as shown. Everything it
returns is plain JSON, bounded in size, so the result frame stays small.
"""

from __future__ import annotations

import base64
import contextlib
import io
import os
import sys
from typing import Any

#: At most this many figures per cell, each at most this many PNG bytes (larger ones are
#: re-rendered at a lower resolution, then dropped with a note).
MAX_IMAGES = 8
MAX_IMAGE_BYTES = 1_500_000
#: A table shows at most this many rows and columns, each cell at most this many characters.
MAX_ROWS = 50
MAX_COLUMNS = 30
MAX_CELL_CHARS = 200
#: The working directory is scanned this deep and for at most this many files (two scans per
#: cell cost about 10 µs per file).
MAX_SCAN_DEPTH = 3
MAX_SCAN_ENTRIES = 500
MAX_FILES = 50

__all__ = ["RichCapture", "figures", "table_of"]


class RichCapture:
    """Collects a cell's figures, table and written files (see the module docstring)."""

    def __init__(self, workdir: str | None) -> None:
        self.workdir = workdir
        self._before: dict[str, tuple[int, int]] = {}
        self._table: dict[str, Any] | None = None
        if "matplotlib" not in sys.modules:
            os.environ.setdefault("MPLBACKEND", "Agg")

    def begin(self) -> None:
        """Before a cell: remember the working directory's files."""
        self._table = None
        self._before = _scan(self.workdir)

    def value(self, value: Any) -> None:
        """The cell's trailing expression: a DataFrame or Series becomes a table."""
        try:
            self._table = table_of(value)
        except Exception:  # a value whose conversion fails keeps only its repr
            self._table = None

    def end(self) -> dict[str, Any]:
        """Extra result fields: ``images`` (base64 PNG), ``tables``, ``files`` (written)."""
        out: dict[str, Any] = {"images": figures(), "tables": [], "files": []}
        if self._table is not None:
            out["tables"].append(self._table)
        after = _scan(self.workdir)
        written = [p for p, stat in after.items() if self._before.get(p) != stat]
        out["files"] = sorted(written)[:MAX_FILES]
        self._table = None
        return out


def figures() -> list[str]:
    """Every open pyplot figure as base64 PNG; the figures are closed afterwards."""
    plt = sys.modules.get("matplotlib.pyplot")
    if plt is None:
        return []
    images: list[str] = []
    try:
        for num in plt.get_fignums()[:MAX_IMAGES]:
            png = _png(plt.figure(num))
            if png is not None:
                images.append(base64.b64encode(png).decode("ascii"))
    except Exception:  # a broken figure must not break the cell's result
        pass
    finally:
        with contextlib.suppress(Exception):
            plt.close("all")
    return images


def _png(figure: Any) -> bytes | None:
    for dpi in (100, 60):
        buf = io.BytesIO()
        figure.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
        if buf.tell() <= MAX_IMAGE_BYTES:
            return buf.getvalue()
    return None


def table_of(value: Any) -> dict[str, Any] | None:
    """A DataFrame (or Series) as ``{"columns", "index", "rows", "shape", "truncated"}`` with
    every cell as text; None for anything else."""
    module = type(value).__module__.split(".")[0]
    if module != "pandas":
        return None
    kind = type(value).__name__
    if kind == "Series":
        value = value.to_frame()
    elif kind != "DataFrame":
        return None
    rows, cols = value.shape
    head = value.iloc[:MAX_ROWS, :MAX_COLUMNS]
    return {
        "columns": [_cell(c) for c in head.columns],
        "index": [_cell(i) for i in head.index],
        "rows": [[_cell(v) for v in row] for row in head.itertuples(index=False, name=None)],
        "shape": [int(rows), int(cols)],
        "truncated": rows > MAX_ROWS or cols > MAX_COLUMNS,
    }


def _cell(value: Any) -> str:
    text = str(value)
    return text if len(text) <= MAX_CELL_CHARS else text[: MAX_CELL_CHARS - 1] + "…"


def _scan(root: str | None) -> dict[str, tuple[int, int]]:
    """Relative path → (size, mtime ns) of the files under ``root`` (bounded; hidden entries
    such as ``.matplotlib`` skipped)."""
    if root is None:
        return {}
    found: dict[str, tuple[int, int]] = {}
    stack: list[tuple[str, int]] = [(root, 0)]
    while stack and len(found) < MAX_SCAN_ENTRIES:
        path, depth = stack.pop()
        try:
            entries = list(os.scandir(path))
        except OSError:
            continue
        for entry in entries:
            if entry.name.startswith("."):
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    if depth + 1 < MAX_SCAN_DEPTH:
                        stack.append((entry.path, depth + 1))
                elif entry.is_file(follow_symlinks=False):
                    st = entry.stat(follow_symlinks=False)
                    found[os.path.relpath(entry.path, root)] = (st.st_size, st.st_mtime_ns)
            except OSError:
                continue
    return found
