"""What running a cell produced: ``ExecutionResult`` and ``CellError``.

A leaf module (pydantic only), so the transcript (``codeact._messages``) can hold results
without importing the executor package (its seam builds on tools, context and memory).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class CellError(BaseModel):
    """An exception raised by a cell: type name, message and the cell-only traceback.

    Data in a result, not an exception (``ExecutorError`` is the exception a failing
    executor raises)."""

    type: str
    message: str
    traceback: str = ""


#: Deprecated name of ``CellError`` (kept so existing imports work).
ExecutionError = CellError


class ExecutionResult(BaseModel):
    """What running one cell produced."""

    stdout: str = ""
    stderr: str = ""
    #: ``repr`` of the cell's trailing expression, as a notebook shows it (None if there was none).
    value: str | None = None
    error: CellError | None = None
    duration_s: float = 0.0
    timed_out: bool = False
    #: The session was restarted (its variables are gone), e.g. after a hard timeout or a crash.
    restarted: bool = False
    #: Output was cut because it exceeded the executor's output cap.
    truncated: bool = False
    #: Set when the cell called ``final_answer(value)``.
    is_final_answer: bool = False
    final_answer: Any = None
    #: PNG images (base64) produced by the cell, e.g. matplotlib figures.
    images: list[str] = Field(default_factory=list)
    #: Tables the cell showed (a trailing DataFrame): ``{"columns", "index", "rows", "shape",
    #: "truncated"}``, every cell as text.
    tables: list[dict[str, Any]] = Field(default_factory=list)
    #: Files the cell wrote, relative to the session's working directory (when known).
    files: list[str] = Field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when the cell ran to the end without an error or timeout."""
        return self.error is None and not self.timed_out

    def to_observation(self, max_chars: int = 4000) -> str:
        """The bounded text an LLM sees; when too long, the head and the tail are kept."""
        parts: list[str] = []
        if self.stdout:
            parts.append(self.stdout.rstrip("\n"))
        if self.stderr:
            parts.append("[stderr]\n" + self.stderr.rstrip("\n"))
        if self.value is not None:
            parts.append(f"Out: {self.value}")
        if self.images:
            parts.append(f"[{len(self.images)} image(s) produced]")
        if self.truncated:
            parts.append("[output truncated: the cell printed more than the output cap]")
        if self.error is not None:
            parts.append(self.error.traceback or f"{self.error.type}: {self.error.message}")
        if self.timed_out:
            parts.append(
                "[The cell timed out. "
                + (
                    "The session was restarted: all variables are lost.]"
                    if self.restarted
                    else "Variables defined before the timeout are kept.]"
                )
            )
        elif self.restarted:
            parts.append("[The session was restarted: all variables are lost.]")
        if self.is_final_answer:
            parts.append(f"[final_answer called with: {self.final_answer!r}]")
        text = "\n".join(parts) if parts else "[Executed successfully with no output]"
        return truncate_middle(text, max_chars)


def truncate_middle(text: str, max_chars: int) -> str:
    """Keep the head and the tail of ``text`` when it is longer than ``max_chars``."""
    if len(text) <= max_chars:
        return text
    keep = max(max_chars - 60, 20)
    head = keep * 2 // 5
    tail = keep - head
    cut = len(text) - head - tail
    return f"{text[:head]}\n...[{cut} characters cut]...\n{text[-tail:]}"
