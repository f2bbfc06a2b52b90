"""The in-process backend: RestrictedPython-guarded Python, inline or in a worker process.

``default_executor()`` builds the one ``codeact run`` and ``codeact serve`` use: a worker process
inside bubblewrap when it works, with the installed data libraries offered only then.
``reap_leftovers()`` removes what a crashed process left (session folders, cgroups) and
``host_containment()`` says which per-session limits this host gives.
"""

from codeact.executors.restricted._ossandbox import (
    OsSandbox,
    OsSandboxStatus,
    UnsandboxedWarning,
    os_sandbox_status,
)
from codeact.executors.restricted._reaping import (
    HostContainment,
    Reaped,
    host_containment,
    reap_leftovers,
)
from codeact.executors.restricted.defaults import default_executor
from codeact.executors.restricted.executor import RestrictedExecutor

__all__ = [
    "HostContainment",
    "OsSandbox",
    "OsSandboxStatus",
    "Reaped",
    "RestrictedExecutor",
    "UnsandboxedWarning",
    "default_executor",
    "host_containment",
    "os_sandbox_status",
    "reap_leftovers",
]
