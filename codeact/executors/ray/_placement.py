"""Where this driver's sessions go: one ``NodeHost`` actor per node (started on first use, then
warm), and the choice of a node for a new session by Ray resources.

A node fits a session when it carries every custom resource the session asks for (labels such
as ``{"sandbox": 1}``) and has room for its CPUs and memory after the sessions this driver
already placed there; among those, the one with the fewest of this driver's sessions wins (so
sessions spread). Reservations are this driver's own: several drivers (serve replicas) sharing
a cluster each count theirs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import anyio

from codeact.errors import ExecutorError
from codeact.executors.ray._host import NodeHost

#: Seconds a node's host actor may take to start (a Python process that imports codeact).
HOST_START_S = 120.0


class NoRoom(ExecutorError):
    """Nodes that could take the session exist but are full for now (wait and try again)."""


@dataclass(frozen=True)
class Need:
    """What one session asks of a node."""

    cpus: float = 1.0
    memory_mb: int = 0
    resources: Mapping[str, float] = field(default_factory=dict)
    node_id: str | None = None


@dataclass
class _Node:
    host: Any  # the NodeHost actor handle
    cpus: float = 0.0
    memory_mb: int = 0
    sessions: int = 0


class Placement:
    """This driver's host actors and what its sessions hold on each node."""

    def __init__(self) -> None:
        self.nodes: dict[str, _Node] = {}
        self.lock = anyio.Lock()
        self.job: str | None = None

    @staticmethod
    def matches(node: dict[str, Any], need: Need) -> bool:
        """Whether ``node`` (an entry of ``ray.nodes()``) is one ``need`` may use at all."""
        have = node.get("Resources") or {}
        if need.node_id is not None and node["NodeID"] != need.node_id:
            return False
        return all(have.get(k, 0) >= v for k, v in need.resources.items())

    def fits(self, node: dict[str, Any], need: Need) -> bool:
        """Whether ``node`` has room now for a session needing ``need``."""
        have = node.get("Resources") or {}
        if not self.matches(node, need):
            return False
        used = self.nodes.get(node["NodeID"]) or _Node(None)
        if need.cpus and used.cpus + need.cpus > have.get("CPU", 0) + 1e-9:
            return False
        memory_mb = int(have.get("memory", 0)) >> 20
        return not (need.memory_mb and used.memory_mb + need.memory_mb > memory_mb)

    def reserve(self, ray: Any, need: Need, avoid: set[str]) -> str:
        """The node for a new session, its reservation counted there at once (so sessions
        starting together spread); ``release`` it if the session does not start."""
        job = str(ray.get_runtime_context().get_job_id())
        if job != self.job:  # connected anew (another cluster, or after ray.shutdown())
            self.nodes.clear()
            self.job = job
        alive = [n for n in ray.nodes() if n.get("Alive") and n["NodeID"] not in avoid]
        fitting = [n for n in alive if self.fits(n, need)]
        if not fitting:
            full = any(self.matches(n, need) for n in alive)
            raise (NoRoom if full else ExecutorError)(
                f"No live Ray node has room for a session needing {need.cpus:g} CPU, "
                f"{need.memory_mb} MB and {dict(need.resources) or 'no labels'}"
                + (f" on node {need.node_id}" if need.node_id else "")
                + f" ({len(alive)} live node(s); `codeact doctor --ray ADDRESS` shows them)"
            )
        best = min(fitting, key=lambda n: self.nodes.get(n["NodeID"], _Node(None)).sessions)
        node_id = str(best["NodeID"])
        self.nodes.setdefault(node_id, _Node(None))
        self.hold(node_id, need)
        return node_id

    async def host(self, ray: Any, node_id: str) -> Any:
        """The node's host actor, started (pinned to the node) on first use."""
        async with self.lock:
            node = self.nodes.setdefault(node_id, _Node(None))
            if node.host is None:
                from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

                actor = (
                    ray.remote(NodeHost)
                    .options(
                        num_cpus=0,
                        max_restarts=0,
                        max_concurrency=10_000,
                        scheduling_strategy=NodeAffinitySchedulingStrategy(node_id, soft=False),
                    )
                    .remote()
                )
                try:
                    with anyio.fail_after(HOST_START_S):
                        await actor.info.remote()
                except Exception:
                    ray.kill(actor)
                    raise
                node.host = actor
            return node.host

    def release(self, node_id: str, need: Need) -> None:
        """Give back a session's reservation."""
        self.hold(node_id, need, -1)

    def hold(self, node_id: str, need: Need, sign: int = 1) -> None:
        """Count (or with ``sign=-1`` give back) a session's reservation on a node."""
        node = self.nodes.get(node_id)
        if node is not None:
            node.cpus += sign * need.cpus
            node.memory_mb += sign * need.memory_mb
            node.sessions += sign

    def forget(self, node_id: str) -> None:
        """The node's host is gone (the node died): a later session starts a new one."""
        self.nodes.pop(node_id, None)


#: This process's placement (one set of host actors per driver).
PLACEMENT = Placement()
