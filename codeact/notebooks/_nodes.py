"""nbformat 4.5 cells and outputs as plain dicts (the shapes of ``nbformat.v4``'s builders),
without validating each node on its own: the finished notebook is validated once, which is
what keeps a 50-cell export with figures fast (per-node validation cost ~0.4 s)."""

from __future__ import annotations

from typing import Any

__all__ = ["Nodes"]


class Nodes:
    """Builds one notebook's nodes; cell ids are ``cell-1``, ``cell-2``... (stable)."""

    def __init__(self) -> None:
        self._ids = 0

    def _id(self) -> str:
        self._ids += 1
        return f"cell-{self._ids}"

    def new_markdown_cell(self, source: str) -> dict[str, Any]:
        """A markdown cell."""
        return {"cell_type": "markdown", "id": self._id(), "metadata": {}, "source": source}

    def new_code_cell(
        self,
        source: str,
        *,
        execution_count: int | None = None,
        outputs: list[dict[str, Any]] | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """A code cell with its outputs."""
        return {
            "cell_type": "code",
            "id": self._id(),
            "metadata": metadata or {},
            "source": source,
            "execution_count": execution_count,
            "outputs": outputs or [],
        }

    def new_output(self, output_type: str, **fields: Any) -> dict[str, Any]:
        """An output: ``stream`` (name, text), ``display_data`` (data, metadata),
        ``execute_result`` (data, metadata, execution_count) or ``error``."""
        return {"output_type": output_type, **fields}

    def new_notebook(self, *, cells: list[dict[str, Any]], metadata: dict[str, Any]) -> Any:
        """The notebook (a ``NotebookNode``, not yet validated)."""
        import nbformat

        raw = {"nbformat": 4, "nbformat_minor": 5, "metadata": metadata, "cells": cells}
        return nbformat.from_dict(raw)  # type: ignore[no-untyped-call]
