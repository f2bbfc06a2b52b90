"""How many sessions ``codeact serve`` keeps live: the machine's (or its cgroup's) memory, or
the Ray cluster's, over what one session may hold."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any


def machine_memory_mb() -> int:
    """The memory this server may use: the machine's, or its cgroup's limit when lower."""
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    files = []
    try:
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, group = line.split(":", 2)
            if controllers == "":
                files.append(f"/sys/fs/cgroup{group.rstrip('/')}/memory.max")
            elif "memory" in controllers.split(","):
                files.append(f"/sys/fs/cgroup/memory{group.rstrip('/')}/memory.limit_in_bytes")
    except (OSError, ValueError):
        pass
    for limit_file in files:
        try:
            text = Path(limit_file).read_text().strip()
        except OSError:
            continue
        if text.isdigit():
            total = min(total, int(text))
    return total >> 20


def session_budget(args: argparse.Namespace, say: Any) -> int:
    """How many live sessions fit: ``--max-sessions`` if given, else the memory budget (75 %
    of the machine's memory unless ``--memory-budget``) over what one session may hold
    (``--session-memory`` + ``--session-disk``: its files live in memory). It bounds the
    sessions holding a sandbox; sessions without one are bounded at 16 times that (at least
    1024)."""
    if args.max_sessions is not None:
        return int(args.max_sessions)
    cluster = getattr(args, "cluster_memory_mb", None)
    machine = cluster or machine_memory_mb()
    where = "the Ray cluster's" if cluster else "this machine's"
    budget = int(args.memory_budget or machine * 3 // 4)
    per_session = int(args.session_memory + args.session_disk)
    sessions: int = max(1, budget // per_session)
    say(
        f"sessions: at most {sessions} sandboxes live at once ({per_session} MB each: "
        f"{args.session_memory} MB memory + {args.session_disk} MB disk, within a "
        f"{budget} MB budget of {where} {machine} MB; --max-sessions, --memory-budget "
        "and --session-memory/--session-disk change it)"
    )
    return sessions
