"""The in-process backend: RestrictedPython-guarded Python, inline or in a worker process."""

from codeact.executors.restricted._reaping import (
    HostContainment,
    Reaped,
    host_containment,
    reap_leftovers,
)
from codeact.executors.restricted.executor import RestrictedExecutor

__all__ = ["HostContainment", "Reaped", "RestrictedExecutor", "host_containment", "reap_leftovers"]
