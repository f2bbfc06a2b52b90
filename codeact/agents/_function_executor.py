"""FunctionExecutor: any ``code -> str | dict | ExecutionResult`` callable as a CodeExecutor
(LlamaIndex's ``code_execute_fn`` style)."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Any

import anyio.to_thread

from codeact.executors.base import (
    CellError,
    CodeExecutor,
    ExecutionResult,
    OutputCallback,
)

CodeExecuteFn = Callable[[str], "str | dict[str, Any] | ExecutionResult | Awaitable[Any]"]


class FunctionExecutor(CodeExecutor):
    """Adapts a ``code -> str | dict | ExecutionResult`` callable (sync or async) to the seam."""

    name = "function"

    def __init__(self, fn: CodeExecuteFn) -> None:
        super().__init__()
        self.fn = fn

    async def start(self) -> None:
        """Nothing to start."""

    async def execute(
        self,
        code: str,
        *,
        timeout: float | None = None,
        on_output: OutputCallback | None = None,
    ) -> ExecutionResult:
        """Call the function; exceptions it raises are reported as the cell's error."""
        try:
            if inspect.iscoroutinefunction(self.fn):
                out = await self.fn(code)
            else:
                out = await anyio.to_thread.run_sync(self.fn, code)
                if inspect.isawaitable(out):
                    out = await out
        except Exception as exc:
            return ExecutionResult(
                error=CellError(
                    type=type(exc).__name__,
                    message=str(exc),
                    traceback=f"{type(exc).__name__}: {exc}",
                )
            )
        return _normalise(out)

    async def reset(self) -> None:
        """A plain function has no state to reset."""

    async def aclose(self) -> None:
        """Nothing to close."""


def _normalise(out: Any) -> ExecutionResult:
    if isinstance(out, ExecutionResult):
        return out
    if isinstance(out, str):
        return ExecutionResult(stdout=out)
    if isinstance(out, dict):
        error = out.get("error") or out.get("exception")
        value = out.get("value", out.get("return_value"))
        return ExecutionResult(
            stdout=str(out.get("stdout", out.get("output", "")) or ""),
            stderr=str(out.get("stderr", "") or ""),
            value=None if value is None else str(value),
            error=CellError(type="Error", message=str(error), traceback=str(error))
            if error
            else None,
        )
    return ExecutionResult(stdout=str(out))
