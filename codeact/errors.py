"""One error tree for everything codeact raises.

``CodeActError`` is the root. ``UserError`` means the library was misused (bad configuration,
bad arguments) and says how to fix it; ``RunError`` means something failed while a run was going
(the LLM, a sandbox, a limit). Third-party exceptions are translated at the adapter boundary with
``raise ... from exc`` so the cause is never lost.
"""

from __future__ import annotations


class CodeActError(Exception):
    """Base class of every error raised by codeact."""


class UserError(CodeActError, ValueError):
    """The library was used in a way it does not support; the message says what to change."""


class RunError(CodeActError):
    """A run failed at runtime (LLM failure, sandbox failure, limit reached)."""


class LLMError(RunError):
    """The LLM call failed or returned something unusable."""


class MaxIterationsError(RunError):
    """The agent reached ``max_iterations`` LLM steps without a final answer."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        super().__init__(
            f"Max iterations of {limit} reached without a final answer. Raise the limit with "
            f"`.run(..., max_iterations=...)` or pass `early_stopping_method='generate'` to get "
            f"a final answer from what was gathered so far."
        )


class RunCancelledError(RunError):
    """The run was cancelled by ``RunHandler.cancel()``."""


class RunTimeoutError(RunError, TimeoutError):
    """The run exceeded its ``timeout``."""

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        super().__init__(
            f"The run timed out after {timeout:g} s. "
            "Pass a larger `timeout=` (or None for no limit)."
        )


class ExecutorError(RunError):
    """A code executor failed (could not start, died, or was used after it was closed)."""


class StoreError(RunError):
    """The server's session store failed: unreachable, locked by another server, busy on a
    thread, or written with a schema this version cannot use (``codeact.server`` raises the
    specific subclasses)."""


__all__ = [
    "CodeActError",
    "ExecutorError",
    "LLMError",
    "MaxIterationsError",
    "RunCancelledError",
    "RunError",
    "RunTimeoutError",
    "StoreError",
    "UserError",
]
