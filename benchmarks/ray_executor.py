"""RayExecutor against the local process backend, side by side in one run: session start and
trivial-cell round trip (interleaved, so both see the same machine load), then many sessions
at once over the cluster's nodes (errors, p50/p99 cell time).

Both run the same sandbox (``RestrictedExecutor(isolation="process")``: the worker in
bubblewrap); Ray adds the actor that hosts it on a node and the relay of the kernel's bytes.
Without ``--ray`` a local two-node cluster is started (``ray.cluster_utils.Cluster``, one
raylet per node, on this machine).

Run by hand: ``.venv/bin/python benchmarks/ray_executor.py [--ray ADDRESS] [--sessions 100]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Awaitable, Callable
from typing import Any

import anyio

from codeact.executors import CodeExecutor, RestrictedExecutor
from codeact.executors.ray import RayExecutor


def ms(samples: list[float], q: float = 0.5) -> str:
    if not samples:
        return "     n/a"
    ordered = sorted(samples)
    value = ordered[min(len(ordered) - 1, int(q * len(ordered)))] if q != 0.5 else None
    return f"{(statistics.median(samples) if value is None else value) * 1000:8.2f} ms"


def local() -> CodeExecutor:
    return RestrictedExecutor(isolation="process")


def remote() -> CodeExecutor:
    return RayExecutor(num_cpus=0)


async def start_once(make: Callable[[], CodeExecutor]) -> float:
    ex = make()
    t0 = time.perf_counter()
    await ex.start()
    took = time.perf_counter() - t0
    await ex.aclose()
    return took


async def cells(ex: CodeExecutor, n: int) -> list[float]:
    for _ in range(20):  # warm-up
        await ex.execute("x = 1")
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        await ex.execute("x = 1")
        out.append(time.perf_counter() - t0)
    return out


async def side_by_side(starts: int, n: int) -> None:
    makers: dict[str, Callable[[], CodeExecutor]] = {"process": local, "ray": remote}
    start_s: dict[str, list[float]] = {k: [] for k in makers}
    await start_once(remote)  # the first actor of this driver also loads codeact on the node
    for _ in range(starts):  # interleaved
        for name, make in makers.items():
            start_s[name].append(await start_once(make))
    cell_s: dict[str, list[float]] = {k: [] for k in makers}
    async with local() as a, remote() as b:
        for _ in range(3):  # interleaved rounds
            cell_s["process"] += await cells(a, n // 3)
            cell_s["ray"] += await cells(b, n // 3)
    print(f"session start ({starts} each, warm node) and trivial cell ({n} each), medians:")
    for name in makers:
        print(f"  {name:8} start {ms(start_s[name])}   cell {ms(cell_s[name])}")
    added_start = statistics.median(start_s["ray"]) - statistics.median(start_s["process"])
    added_cell = statistics.median(cell_s["ray"]) - statistics.median(cell_s["process"])
    print(f"  ray adds {added_start * 1000:.1f} ms per start, {added_cell * 1000:.2f} ms per cell")


async def many(sessions: int, cells_each: int) -> None:
    errors: list[str] = []
    times: list[float] = []
    nodes: dict[str, int] = {}
    t0 = time.perf_counter()

    all_started = anyio.Event()
    started = 0

    async def one(i: int) -> None:
        nonlocal started
        try:
            async with RayExecutor(num_cpus=0, sandbox_options={"memory_limit_mb": 512}) as ex:
                nodes[ex.node["node_id"]] = nodes.get(ex.node["node_id"], 0) + 1
                started += 1
                if started == sessions:
                    all_started.set()
                with anyio.move_on_after(600):
                    await all_started.wait()  # every session is live: the cells run together
                for k in range(cells_each):
                    c0 = time.perf_counter()
                    r = await ex.execute(f"v = {i} * {k}\nv")
                    times.append(time.perf_counter() - c0)
                    if r.value != str(i * k):
                        errors.append(f"session {i}: {r.error or r.value}")
        except Exception as exc:
            errors.append(f"session {i}: {type(exc).__name__}: {exc}")
            started += 1
            if started == sessions:
                all_started.set()

    async with anyio.create_task_group() as tg:
        for i in range(sessions):
            tg.start_soon(one, i)
    wall = time.perf_counter() - t0
    print(
        f"{sessions} live sessions, then {cells_each} cells in each at once: "
        f"{len(errors)} error(s), "
        f"cell p50 {ms(times)} p99 {ms(times, 0.99)}, {wall:.1f} s wall, "
        f"sessions per node {sorted(nodes.values())}"
    )
    for e in errors[:5]:
        print("  ", e)


def cluster(address: str | None) -> Any:
    import ray

    if address is not None:
        ray.init(address=address, log_to_driver=False)
        return None
    from ray.cluster_utils import Cluster

    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    c.add_node(num_cpus=1)
    ray.init(address=c.address, log_to_driver=False)
    c.wait_for_nodes()
    return c


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ray", default=None, help="a running cluster (default: start two nodes)")
    parser.add_argument("--starts", type=int, default=10)
    parser.add_argument("--cells", type=int, default=300)
    parser.add_argument("--sessions", type=int, default=100)
    parser.add_argument("--cells-each", type=int, default=5)
    args = parser.parse_args()
    os.environ.setdefault("PYTHONPATH", os.getcwd())  # the nodes import this checkout
    c = cluster(args.ray)
    try:
        steps: list[Callable[[], Awaitable[None]]] = [
            lambda: side_by_side(args.starts, args.cells),
            lambda: many(args.sessions, args.cells_each),
        ]
        for step in steps:
            anyio.run(step)
        print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    finally:
        if c is not None:
            import ray

            ray.shutdown()
            c.shutdown()


if __name__ == "__main__":
    main()
