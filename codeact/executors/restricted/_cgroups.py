"""Per-session control groups for the process worker: one memory limit for everything the
session holds (the worker's heap and the pages of its tmpfs and memfd files), a CPU quota and a
pids limit that bind the whole worker tree (bubblewrap's init, the worker, its threads).

Where the groups live: cgroup v2 (a host with the unified hierarchy and its controllers, as
current distributions have) at ``/sys/fs/cgroup/codeact/<owner>/<session>``; cgroup v1 (one
hierarchy per controller, as this project's CI machines have) under the host process's own group
in each of ``memory``, ``cpu`` and ``pids``: ``<own group>/codeact/<owner>/<session>``. ``owner``
is ``<pid>.<start time>`` of the host process, so a later process can tell the groups of a
crashed owner from those of a live one and reap them (``reap_cgroups``).

Creating groups needs write access to the hierarchy (root, or a delegated subtree). Without it
``cgroup_support()`` says why and the worker keeps only its RLIMITs.
"""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from codeact.executors._owner import owner_alive, owner_id

CGROUP_FS = Path("/sys/fs/cgroup")
_V1_CONTROLLERS = ("memory", "cpu", "pids")
_V2_CONTROLLERS = "+memory +cpu +pids"


@dataclass(frozen=True)
class CgroupLimits:
    """What one session may use: bytes of memory (heap + tmpfs + memfd), CPUs (``None``: no
    quota, only an equal share) and processes/threads."""

    memory_bytes: int
    cpus: float | None
    pids: int


@dataclass(frozen=True)
class CgroupSupport:
    """Whether per-session groups can be made here (``version`` 1 or 2, else None) and where."""

    version: int | None
    detail: str
    #: controller name -> the folder holding ``<owner>/<session>`` groups (v2: key ``""``).
    bases: dict[str, Path] = field(default_factory=dict)


def _own_groups() -> dict[str, str]:
    """This process's group in each hierarchy (``""`` for v2), from ``/proc/self/cgroup``."""
    groups: dict[str, str] = {}
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        for name in controllers.split(",") if controllers else [""]:
            groups[name] = path
    return groups


def _probe_v2() -> CgroupSupport:
    base = CGROUP_FS / "codeact"
    available = set((CGROUP_FS / "cgroup.controllers").read_text().split())
    missing = {"memory", "cpu", "pids"} - available
    if missing:
        return CgroupSupport(None, f"cgroup v2 lacks the {', '.join(sorted(missing))} controller")
    try:
        (CGROUP_FS / "cgroup.subtree_control").write_text(_V2_CONTROLLERS)
        base.mkdir(exist_ok=True)
        (base / "cgroup.subtree_control").write_text(_V2_CONTROLLERS)
    except OSError as exc:
        return CgroupSupport(
            None, f"cgroup v2 is not writable here ({exc.strerror}): run as root or delegate it"
        )
    return CgroupSupport(2, f"cgroup v2 at {base}", {"": base})


def _probe_v1() -> CgroupSupport:
    own = _own_groups()
    bases: dict[str, Path] = {}
    for name in _V1_CONTROLLERS:
        mount = CGROUP_FS / name
        if name not in own or not (mount / "cgroup.procs").exists():
            return CgroupSupport(None, f"no cgroup v1 {name} controller is mounted")
        bases[name] = mount / own[name].lstrip("/") / "codeact"
        try:
            bases[name].mkdir(exist_ok=True)
        except OSError as exc:
            return CgroupSupport(
                None, f"cgroup v1 {name} is not writable here ({exc.strerror}): run as root"
            )
    acct = CGROUP_FS / "cpuacct"
    if "cpuacct" in own and (acct / "cpuacct.usage").exists() and not (
        bases["cpu"].parent / "cpuacct.usage"
    ).exists():  # mounted apart from cpu: a group there too, for the CPU time used
        bases["cpuacct"] = acct / own["cpuacct"].lstrip("/") / "codeact"
        with contextlib.suppress(OSError):
            bases["cpuacct"].mkdir(exist_ok=True)
    return CgroupSupport(1, "cgroup v1 (memory, cpu, pids)", bases)


@functools.lru_cache(maxsize=1)
def cgroup_support() -> CgroupSupport:
    """Probe (once per process) whether per-session groups can be made, and how."""
    if not Path("/proc/self/cgroup").exists():
        return CgroupSupport(None, "no cgroups on this system")
    if os.environ.get("CODEACT_NO_CGROUPS") == "1":
        return CgroupSupport(None, "cgroups turned off by CODEACT_NO_CGROUPS=1")
    try:
        if (CGROUP_FS / "cgroup.controllers").exists():
            return _probe_v2()
        return _probe_v1()
    except OSError as exc:
        return CgroupSupport(None, f"cgroups could not be probed: {exc}")


def _write(path: Path, value: str) -> None:
    path.write_text(value)


class SessionCgroup:
    """One session's group (one folder per v1 controller, one in v2)."""

    def __init__(self, support: CgroupSupport, name: str) -> None:
        self.version = support.version
        self.dirs = {ctrl: base / owner_id() / name for ctrl, base in support.bases.items()}

    @classmethod
    def create(cls, limits: CgroupLimits, support: CgroupSupport | None = None) -> SessionCgroup:
        """Make the group and set its limits (``OSError`` when the kernel refuses)."""
        support = support or cgroup_support()
        group = cls(support, uuid.uuid4().hex[:12])
        try:
            for path in group.dirs.values():
                if support.version == 2:
                    path.parent.mkdir(exist_ok=True)
                    _write(path.parent / "cgroup.subtree_control", _V2_CONTROLLERS)
                path.mkdir(parents=True)
            group._limit(limits)
        except BaseException:
            group.remove()
            raise
        return group

    def _limit(self, limits: CgroupLimits) -> None:
        if self.version == 2:
            d = self.dirs[""]
            _write(d / "memory.max", str(limits.memory_bytes))
            with contextlib.suppress(OSError):
                _write(d / "memory.swap.max", "0")
            _write(d / "memory.oom.group", "1")
            quota = "max" if limits.cpus is None else str(int(limits.cpus * 100_000))
            _write(d / "cpu.max", f"{quota} 100000")
            _write(d / "pids.max", str(limits.pids))
            return
        mem, cpu, pids = self.dirs["memory"], self.dirs["cpu"], self.dirs["pids"]
        _write(mem / "memory.limit_in_bytes", str(limits.memory_bytes))
        if (mem / "memory.memsw.limit_in_bytes").exists():
            with contextlib.suppress(OSError):  # no swap accounting: swap stays unlimited
                _write(mem / "memory.memsw.limit_in_bytes", str(limits.memory_bytes))
        if limits.cpus is not None:
            period = int((cpu / "cpu.cfs_period_us").read_text())
            _write(cpu / "cpu.cfs_quota_us", str(max(1000, int(limits.cpus * period))))
        _write(pids / "pids.max", str(limits.pids))

    def procs_files(self) -> list[str]:
        """The ``cgroup.procs`` files a new process writes its pid to, to join the group."""
        return [str(d / "cgroup.procs") for d in self.dirs.values()]

    def _main(self) -> Path:
        return self.dirs["" if self.version == 2 else "memory"]

    def oom_kills(self) -> int:
        """How often the kernel killed a process of this group for its memory limit."""
        name = "memory.events" if self.version == 2 else "memory.oom_control"
        try:
            text = (self._main() / name).read_text()
        except OSError:
            return 0
        for line in text.splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill":
                return int(value)
        return 0

    def _read_int(self, v2_name: str, v1_name: str) -> int:
        name = v2_name if self.version == 2 else v1_name
        try:
            return int((self._main() / name).read_text())
        except (OSError, ValueError):
            return 0

    def memory_limit(self) -> int:
        """The group's memory limit in bytes."""
        return self._read_int("memory.max", "memory.limit_in_bytes")

    def memory_usage(self) -> int:
        """Bytes charged to the group now (heap, page cache, tmpfs)."""
        return self._read_int("memory.current", "memory.usage_in_bytes")

    def cpu_usage_s(self) -> float:
        """CPU seconds the group has used."""
        if self.version == 2:
            for line in (self.dirs[""] / "cpu.stat").read_text().splitlines():
                if line.startswith("usage_usec "):
                    return int(line.split()[1]) / 1e6
            return 0.0
        acct = self.dirs.get("cpuacct", self.dirs["cpu"]) / "cpuacct.usage"
        try:
            return int(acct.read_text()) / 1e9
        except (OSError, ValueError):
            return float("nan")

    def pids(self) -> list[int]:
        """The processes in the group."""
        return _pids_in(self.dirs.values())

    def remove(self, timeout: float = 5.0) -> None:
        """Kill what is left in the group and delete it (blocking: call from a thread). A group
        whose processes do not exit in time stays, and the next process's reaper retries."""
        _kill_and_remove(list(self.dirs.values()), timeout)


def _pids_in(dirs: Iterable[Path]) -> list[int]:
    pids: set[int] = set()
    for d in dirs:
        with contextlib.suppress(OSError, ValueError):  # gone meanwhile
            pids.update(int(p) for p in (d / "cgroup.procs").read_text().split())
    return sorted(pids)


def _kill_and_remove(dirs: list[Path], timeout: float) -> list[Path]:
    """Kill the processes in ``dirs`` and remove them; returns those still there after
    ``timeout`` (a process that does not exit, e.g. stuck in the kernel)."""
    existing = [d for d in dirs if d.is_dir()]
    if not existing:
        return []
    for d in existing:
        if (d / "cgroup.kill").exists():
            with contextlib.suppress(OSError):
                _write(d / "cgroup.kill", "1")
    deadline = time.monotonic() + timeout
    while True:
        for pid in _pids_in(existing):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        left = []
        for d in existing:
            try:
                d.rmdir()
            except FileNotFoundError:
                pass
            except OSError:  # EBUSY: a process is still exiting
                left.append(d)
        if not left or time.monotonic() > deadline:
            return left
        existing = left
        time.sleep(0.01)


def reap_cgroups(support: CgroupSupport | None = None) -> tuple[int, list[str]]:
    """Remove the groups of owners that no longer run (their processes are killed first);
    returns how many session groups were removed and what could not be. Groups of live owners
    are never touched."""
    support = support or cgroup_support()
    removed, problems = 0, []
    owners: dict[str, list[Path]] = {}
    for base in support.bases.values():
        with contextlib.suppress(OSError):
            for entry in base.iterdir():
                if entry.is_dir():
                    owners.setdefault(entry.name, []).append(entry)
    for owner, folders in owners.items():
        if owner == owner_id() or owner_alive(owner):
            continue
        sessions: dict[str, list[Path]] = {}
        for folder in folders:
            with contextlib.suppress(OSError):  # another reaper got there first
                for entry in folder.iterdir():
                    if entry.is_dir():
                        sessions.setdefault(entry.name, []).append(entry)
        for dirs in sessions.values():
            stuck = _kill_and_remove(dirs, 5.0)
            if stuck:
                problems.append(f"control group {stuck[0]} still has processes")
            else:
                removed += 1
        for folder in folders:
            with contextlib.suppress(OSError):  # not empty: reported above
                folder.rmdir()
    return removed, problems


def join_command(procs_files: list[str], command: list[str]) -> list[str]:
    """``command`` started through ``/bin/sh``, which first writes its own pid into each of
    ``procs_files`` (so the command and all it starts are in the group from their first
    instruction), then ``exec``s it. Costs one ``sh`` start (about a millisecond)."""
    script = (
        'n=$1; shift; while [ "$n" -gt 0 ]; do echo $$ > "$1" || exit 125; shift; '
        'n=$((n - 1)); done; exec "$@"'
    )
    return ["/bin/sh", "-c", script, "codeact-join", str(len(procs_files)), *procs_files, *command]
