"""What the answer validators look at: the turn's cells and the answer under validation.

Public from ``codeact.agents.validators``; kept here so the validators' helpers (``_trace``,
``_rules``) use them without referring back to ``validators``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from codeact.events import ToolCallResult


@dataclass(frozen=True)
class CellRun:
    """One code cell of the turn: its source and what it printed, or its error."""

    code: str
    stdout: str = ""
    error: str | None = None
    final_answer: Any = None
    #: The repr of the cell's last expression, if it had one.
    value: str | None = None
    #: The exception's type name when the cell failed (``KeyError``).
    error_type: str | None = None


@dataclass(frozen=True)
class AnswerCandidate:
    """A final answer under validation."""

    text: str
    value: Any = None
    question: str = ""
    cells: Sequence[CellRun] = field(default_factory=tuple)

    def replace(self, **changes: Any) -> AnswerCandidate:
        """A copy with some fields changed."""
        return dataclasses.replace(self, **changes)

    @property
    def ok_cells(self) -> list[CellRun]:
        """Cells that ran without an error, in order."""
        return [c for c in self.cells if c.error is None]


def cell_run(result: ToolCallResult, code: str | None = None) -> CellRun:
    """One ``execute`` result as a ``CellRun`` (code, stdout, last value, error)."""
    execution: dict[str, Any] = result.execution or {}
    error = execution.get("error")
    message = (error or {}).get("message") if isinstance(error, dict) else None
    kind = (error or {}).get("type") if isinstance(error, dict) else None
    value = execution.get("value")
    return CellRun(
        code=str(result.tool_kwargs.get("code", "")) if code is None else code,
        stdout=str(execution.get("stdout", "")),
        error=(message or "failed") if result.tool_output.is_error else None,
        final_answer=execution.get("final_answer"),
        value=None if value is None else str(value),
        error_type=str(kind) if kind and result.tool_output.is_error else None,
    )
