"""What a crashed host process left behind (session folders, control groups and the workers
in them) is removed by the next process that starts a session, once; and the warnings that say,
once per process, which containment this host cannot give."""

from __future__ import annotations

import threading
import warnings
from dataclasses import dataclass

import anyio
import anyio.to_thread

from codeact.executors.restricted._cgroups import cgroup_support, reap_cgroups
from codeact.executors.restricted._ossandbox import UnsandboxedWarning
from codeact.executors.restricted._workspace import quota_possible, reap_workspaces

NO_QUOTA_WARNING = (
    "RestrictedExecutor: session folders have no disk quota here ({why}); a session can fill "
    "the host's temporary disk up to its file-size limit per file. Run as root (or in a "
    "container with CAP_SYS_ADMIN) for per-session quotas."
)
NO_CGROUP_WARNING = (
    "RestrictedExecutor: no per-session control group ({why}); each worker keeps its RLIMITs "
    "but sessions share the host's memory and CPU without a per-session cap."
)
_WARNED: set[str] = set()
_REAPED = False


def warn_once(key: str, message: str) -> None:
    """Warn (``UnsandboxedWarning``) the first time ``key`` comes up in this process."""
    if key in _WARNED:
        return
    _WARNED.add(key)
    warnings.warn(message, UnsandboxedWarning, stacklevel=4)


@dataclass(frozen=True)
class Reaped:
    """What ``reap_leftovers`` removed, and what it could not (one line each)."""

    folders: int
    cgroups: int
    problems: tuple[str, ...] = ()


def reap_leftovers() -> Reaped:
    """Remove the session folders and control groups (killing what still runs in them) of host
    processes that no longer exist. Never touches a live process's sessions. Blocking."""
    global _REAPED
    _REAPED = True
    groups, group_problems = reap_cgroups() if cgroup_support().version is not None else (0, [])
    folders, folder_problems = reap_workspaces()
    return Reaped(folders, groups, tuple(folder_problems + group_problems))


_REAP_LOCK = threading.Lock()


def _reap_first_time() -> None:
    with _REAP_LOCK:
        if not _REAPED:
            reap_leftovers()


async def reap_once() -> None:
    """``reap_leftovers`` in a thread, the first time a session starts in this process (other
    sessions starting meanwhile wait for it)."""
    if not _REAPED:
        await anyio.to_thread.run_sync(_reap_first_time)


@dataclass(frozen=True)
class HostContainment:
    """What this host lets the process worker have besides bubblewrap (``codeact doctor``)."""

    #: Per-session control groups: how (``"cgroup v1 ..."``), or why not.
    cgroups: str
    cgroups_ok: bool
    #: Per-session tmpfs with a size and inode cap (needs root to mount).
    disk_quota_ok: bool
    #: The system-call filter: ``"allow-list (libseccomp)"``, ``"deny-list"`` or ``"none"``.
    seccomp: str


def host_containment() -> HostContainment:
    """Probe (cheaply, cached) the per-session containment this host offers."""
    from codeact.executors.restricted._seccomp import filter_kind

    support = cgroup_support()
    return HostContainment(
        cgroups=support.detail,
        cgroups_ok=support.version is not None,
        disk_quota_ok=quota_possible(),
        seccomp=filter_kind(),
    )
