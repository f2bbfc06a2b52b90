"""The in-process backend: RestrictedPython-guarded Python, inline or in a worker process."""

from codeact.executors.restricted.executor import RestrictedExecutor

__all__ = ["RestrictedExecutor"]
