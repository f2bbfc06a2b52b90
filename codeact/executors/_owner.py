"""Who owns a sandbox on this host: ``<pid>.<start time>`` of the host process that made it.

Session folders, control groups and Docker containers carry it, so that a later process can
tell what a crashed owner left behind (reap it) from what a live one uses (never touch it),
even when the pid has been reused since."""

from __future__ import annotations

import functools
import os
from pathlib import Path


def process_start(pid: int) -> str | None:
    """The start time of ``pid`` (clock ticks since boot), None when it does not exist."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[19]


@functools.lru_cache(maxsize=1)
def owner_id() -> str:
    """``<pid>.<start time>`` of this process: names what it owns on the host."""
    return f"{os.getpid()}.{process_start(os.getpid())}"


def owner_alive(owner: str) -> bool:
    """Whether the process an ``owner_id`` names still runs (same pid and start time)."""
    pid, _, start = owner.partition(".")
    if not pid.isdigit():
        return False
    return process_start(int(pid)) == start
