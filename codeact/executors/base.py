"""The CodeExecutor seam: one small async interface every code-running backend implements.

An executor is a session: variables persist across ``execute`` calls until ``reset()``. It is an
async context manager; ``aclose()`` always works, twice. Files move in and out of the session's
working area with ``upload``/``download``. Tools given at construction are importable inside the
session (``from tools import lookup``) and run on the host.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from types import TracebackType
from typing import Any, Literal, Self, TypeAlias

from codeact._execution import CellError as CellError
from codeact._execution import ExecutionError as ExecutionError
from codeact._execution import ExecutionResult as ExecutionResult
from codeact._execution import truncate_middle as truncate_middle
from codeact._plugins import find_plugin, load_target, plugin_names
from codeact.errors import UserError
from codeact.tools import BaseTool, to_tool

#: Called with ("stdout" | "stderr", text) while a cell runs.
OutputCallback: TypeAlias = Callable[[Literal["stdout", "stderr"], str], None]
#: What a sandbox needs to build its ``tools`` module: (name, parameter names, description).
#: A dotted name ``"module.name"`` puts the function in the submodule ``tools.module``.
ToolSpec: TypeAlias = tuple[str, list[str], str]


def check_cell_tools(
    tools: Sequence[BaseTool], hint: str = "Give it to the agent as a normal tool instead."
) -> None:
    """``UserError`` for the first tool taking a ``Context``: code in a session cannot call it
    (the context lives with the agent). ``hint`` ends the message."""
    for tool in tools:
        name = tool.sandbox_spec()[0]
        if not all(part.isidentifier() for part in name.split(".")) or name.count(".") > 1:
            raise UserError(
                f"Tool {tool.name!r} has the sandbox name {name!r}: it must be an identifier or "
                "'module.identifier'"
            )
        if tool.needs_context:
            raise UserError(
                f"Tool {tool.name!r} takes a Context argument, so it cannot be called from "
                f"sandboxed code. {hint}"
            )


class CodeExecutor(ABC):
    """Base class of code executors (sessions that keep state between cells)."""

    #: The name executors are found by (``get_executor("restricted")``).
    name: str = ""

    def __init__(self, *, tools: Sequence[BaseTool | Callable[..., Any]] = ()) -> None:
        self.tools: list[BaseTool] = [to_tool(t) for t in tools]

    def add_tools(self, tools: Sequence[BaseTool]) -> None:
        """Bind more tools (before ``start()``); names must be unique."""
        known = {t.sandbox_spec()[0] for t in self.tools}
        for tool in tools:
            name = tool.sandbox_spec()[0]
            if name not in known:
                self.tools.append(tool)
                known.add(name)

    def check_tools(self) -> None:
        """Refuse tools a cell cannot call (``UserError``): those taking a ``Context``, which
        lives with the agent, not in the session. Backends call it in ``start()``."""
        check_cell_tools(self.tools)

    def tool_specs(self) -> list[ToolSpec]:
        """The tools as a session's ``tools`` module sees them (sent to workers and kernels)."""
        return [t.sandbox_spec() for t in self.tools]

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


EXECUTOR_GROUP = "codeact.executors"
_BUILTIN = {
    "restricted": "codeact.executors.restricted:RestrictedExecutor",
    "docker": "codeact.executors.docker:DockerExecutor",
    "ray": "codeact.executors.ray:RayExecutor",
}


def executor_class(name: str) -> type[CodeExecutor]:
    """Find an executor class by name: a built-in one, else an entry point in
    ``codeact.executors`` (built-in names win: see ``codeact._plugins``)."""
    target = find_plugin(EXECUTOR_GROUP, name, _BUILTIN)
    if target is None:
        raise UserError(
            f"Unknown executor {name!r}. Known executors: "
            f"{', '.join(plugin_names(EXECUTOR_GROUP, _BUILTIN))}. Third-party executors "
            f"register an entry point in the group '{EXECUTOR_GROUP}'."
        )
    cls = load_target(target, f"Executor {name!r}")
    if not (isinstance(cls, type) and issubclass(cls, CodeExecutor)):
        raise UserError(f"Executor {name!r} ({target}) is not a CodeExecutor subclass")
    return cls


def get_executor(name: str, **kwargs: Any) -> CodeExecutor:
    """Create an executor by name, e.g. ``get_executor("restricted", tools=[lookup])``."""
    return executor_class(name)(**kwargs)


__all__ = [
    "CodeExecutor",
    "CellError",
    "ExecutionError",
    "ExecutionResult",
    "OutputCallback",
    "ToolSpec",
    "check_cell_tools",
    "executor_class",
    "get_executor",
    "truncate_middle",
]
