"""The CodeExecutor seam: one small async interface every code-running backend implements.

An executor is a session: variables persist across ``execute`` calls until ``reset()``. It is an
async context manager; ``aclose()`` always works, twice. Files move in and out of the session's
working area with ``upload``/``download``. Tools given at construction are importable inside the
session (``from tools import lookup``) and run on the host.
"""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from importlib.metadata import entry_points
from types import TracebackType
from typing import Any, Literal, Self, TypeAlias

from pydantic import BaseModel, Field

from codeact.errors import UserError
from codeact.tools import BaseTool, to_tool

#: Called with ("stdout" | "stderr", text) while a cell runs.
OutputCallback: TypeAlias = Callable[[Literal["stdout", "stderr"], str], None]


class ExecutionError(BaseModel):
    """An exception raised by a cell: type name, message and the cell-only traceback."""

    type: str
    message: str
    traceback: str = ""


class ExecutionResult(BaseModel):
    """What running one cell produced."""

    stdout: str = ""
    stderr: str = ""
    #: ``repr`` of the cell's trailing expression, as a notebook shows it (None if there was none).
    value: str | None = None
    error: ExecutionError | None = None
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


class CodeExecutor(ABC):
    """Base class of code executors (sessions that keep state between cells)."""

    #: The name executors are found by (``get_executor("restricted")``).
    name: str = ""

    def __init__(self, *, tools: Sequence[BaseTool | Callable[..., Any]] = ()) -> None:
        self.tools: list[BaseTool] = [to_tool(t) for t in tools]

    def add_tools(self, tools: Sequence[BaseTool]) -> None:
        """Bind more tools (before ``start()``); names must be unique."""
        known = {t.name for t in self.tools}
        for tool in tools:
            if tool.name not in known:
                self.tools.append(tool)
                known.add(tool.name)

    @abstractmethod
    async def start(self) -> None:
        """Start the session (idempotent). Constructors do no I/O; this does."""

    @abstractmethod
    async def execute(
        self,
        code: str,
        *,
        timeout: float | None = None,
        on_output: OutputCallback | None = None,
    ) -> ExecutionResult:
        """Run one cell; errors in the cell are reported in the result, never raised."""

    @abstractmethod
    async def reset(self) -> None:
        """Forget every variable (a fresh namespace), keeping the session's files."""

    @abstractmethod
    async def aclose(self) -> None:
        """Release everything the session holds. Safe to call twice."""

    async def upload(self, path: str, data: bytes) -> None:
        """Write ``data`` to ``path`` (relative) in the session's working area."""
        raise NotImplementedError(f"{type(self).__name__} does not support upload()")

    async def download(self, path: str) -> bytes:
        """Read ``path`` (relative) from the session's working area."""
        raise NotImplementedError(f"{type(self).__name__} does not support download()")

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()


_BUILTIN = {
    "restricted": "codeact.executors.restricted:RestrictedExecutor",
    "docker": "codeact.executors.docker:DockerExecutor",
}


def executor_class(name: str) -> type[CodeExecutor]:
    """Find an executor class by name: a built-in one or an entry point in ``codeact.executors``."""
    target = None
    for ep in entry_points(group="codeact.executors"):
        if ep.name == name:
            target = ep.value
            break
    target = target or _BUILTIN.get(name)
    if target is None:
        known = sorted(set(_BUILTIN) | {ep.name for ep in entry_points(group="codeact.executors")})
        raise UserError(
            f"Unknown executor {name!r}. Known executors: {', '.join(known)}. Third-party "
            f"executors register an entry point in the group 'codeact.executors'."
        )
    module_name, _, attr = target.partition(":")
    try:
        cls = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise UserError(f"Executor {name!r} ({target}) could not be loaded: {exc}") from exc
    if not (isinstance(cls, type) and issubclass(cls, CodeExecutor)):
        raise UserError(f"Executor {name!r} ({target}) is not a CodeExecutor subclass")
    return cls


def get_executor(name: str, **kwargs: Any) -> CodeExecutor:
    """Create an executor by name, e.g. ``get_executor("restricted", tools=[lookup])``."""
    return executor_class(name)(**kwargs)


__all__ = [
    "CodeExecutor",
    "ExecutionError",
    "ExecutionResult",
    "OutputCallback",
    "executor_class",
    "get_executor",
    "truncate_middle",
]
