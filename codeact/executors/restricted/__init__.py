"""The in-process backend: RestrictedPython-guarded Python, inline or in a worker process.

``default_executor()`` builds the one ``codeact run`` and ``codeact serve`` use: a worker process
inside bubblewrap when it works, with the installed data libraries offered only then.
"""

from codeact.executors.restricted.defaults import default_executor
from codeact.executors.restricted.executor import RestrictedExecutor

__all__ = ["RestrictedExecutor", "default_executor"]
