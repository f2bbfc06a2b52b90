"""Finding the processes a test started (sandbox workers, bubblewrap), from /proc."""

from __future__ import annotations

import time
from pathlib import Path


def _parents() -> dict[int, int]:
    out = {}
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                out[int(p.name)] = int((p / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    return out


def descendants(pid: int) -> set[int]:
    """Every live process below ``pid``."""
    parents = _parents()
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {c for c, p in parents.items() if p in frontier and c not in found}
        found |= frontier
    return found


def alive(pids: set[int]) -> set[int]:
    """Those of ``pids`` still running (zombies count as gone)."""
    out = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state != "Z":
            out.add(pid)
    return out


def wait_gone(pids: set[int], timeout: float = 15.0) -> set[int]:
    """Wait until none of ``pids`` runs; returns those still running at the deadline."""
    deadline = time.monotonic() + timeout
    left = alive(pids)
    while left and time.monotonic() < deadline:
        time.sleep(0.2)
        left = alive(left)
    return left


def sandboxes(pids: set[int], only_bwrap: bool = False) -> set[int]:
    """Those of ``pids`` that are sandbox processes (bubblewrap or the restricted worker)."""
    out = set()
    for pid in pids:
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
        except OSError:
            continue
        if b"bwrap" in cmd or (not only_bwrap and b"codeact.executors.restricted._worker" in cmd):
            out.add(pid)
    return out
