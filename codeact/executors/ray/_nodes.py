"""What ``codeact doctor --ray ADDRESS`` asks of a cluster: its live nodes, and whether each one
can start a sandbox and run a cell in it (a session pinned to the node)."""

from __future__ import annotations

from dataclasses import dataclass

import anyio

from codeact.errors import CodeActError
from codeact.executors.ray.executor import RayExecutor, connect_ray


@dataclass(frozen=True)
class NodeReport:
    """One node of the cluster: ``ok`` when a test cell ran there; ``detail`` says how the cell
    was isolated, or what failed."""

    node_id: str
    address: str
    cpus: float
    memory_mb: int
    ok: bool
    detail: str


async def probe_nodes(address: str | None, *, timeout: float = 120.0) -> list[NodeReport]:
    """Start a session on every live node of the cluster at ``address`` (at once) and run
    ``6 * 7`` in it; one report per node."""
    ray = await anyio.to_thread.run_sync(connect_ray, address)
    nodes = [n for n in ray.nodes() if n.get("Alive")]
    reports: list[NodeReport] = []

    async def probe(node: dict[str, object]) -> None:
        resources = node.get("Resources") or {}
        assert isinstance(resources, dict)
        ok, detail = await _probe_one(str(node["NodeID"]), address, timeout)
        reports.append(
            NodeReport(
                node_id=str(node["NodeID"]),
                address=str(node.get("NodeManagerAddress", "?")),
                cpus=float(resources.get("CPU", 0)),
                memory_mb=int(resources.get("memory", 0)) >> 20,
                ok=ok,
                detail=detail,
            )
        )

    async with anyio.create_task_group() as tg:
        for node in nodes:
            tg.start_soon(probe, node)
    return sorted(reports, key=lambda r: r.node_id)


async def _probe_one(node_id: str, address: str | None, timeout: float) -> tuple[bool, str]:
    ex = RayExecutor(address=address, node_id=node_id, num_cpus=0, start_timeout=timeout)
    try:
        with anyio.fail_after(timeout):
            async with ex:
                r = await ex.execute("6 * 7", timeout=30)
                level = ex.node.get("isolation", "?")
    except (CodeActError, TimeoutError) as exc:
        return False, f"cannot start a sandbox: {str(exc).splitlines()[0] if str(exc) else exc!r}"
    if r.value != "42":
        return False, f"a test cell returned {r.value!r} ({r.error})"
    return True, f"runs cells: {level}"
