"""Code executors: the ``CodeExecutor`` seam and its backends (loaded lazily)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from codeact.errors import ExecutorError
from codeact.executors._spec import SandboxSpec
from codeact.executors.base import (
    CellError,
    CodeExecutor,
    ExecutionError,
    ExecutionResult,
    OutputCallback,
    executor_class,
    get_executor,
)

if TYPE_CHECKING:
    from codeact.executors.docker import DockerExecutor
    from codeact.executors.ray import RayExecutor
    from codeact.executors.restricted import RestrictedExecutor

__all__ = [
    "CodeExecutor",
    "DockerExecutor",
    "CellError",
    "ExecutionError",
    "ExecutionResult",
    "ExecutorError",
    "OutputCallback",
    "RayExecutor",
    "RestrictedExecutor",
    "SandboxSpec",
    "executor_class",
    "get_executor",
]


def __getattr__(name: str) -> Any:
    if name == "RestrictedExecutor":
        from codeact.executors.restricted import RestrictedExecutor

        return RestrictedExecutor
    if name == "DockerExecutor":
        from codeact.executors.docker import DockerExecutor

        return DockerExecutor
    if name == "RayExecutor":
        from codeact.executors.ray import RayExecutor

        return RayExecutor
    raise AttributeError(f"module 'codeact.executors' has no attribute {name!r}")
