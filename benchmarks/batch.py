"""Batch throughput: N scripted tasks (one code cell each), local and on Ray.

Run by hand: ``.venv/bin/python benchmarks/batch.py [--tasks 200] [--skip-ray]``.

Every task gets a fresh agent and a fresh sandbox (the default: a process worker inside
bubblewrap), runs one cell (``final_answer(i * i)``) and ends. The baseline is the same work
without the batch: for each task, a fresh executor, ``start()``, one ``execute()`` and
``aclose()``, one after another (interleaved in chunks with the batch at concurrency 1, so
the machine's changing load hits both alike). Printed: wall time, tasks/s, the per-task time at
concurrency 1 and its overhead over that bare baseline (what the agent loop, the events, the
result and the scheduling add), and the Ray backend on a local cluster of 1 and 2 nodes
(``ray.cluster_utils.Cluster``; each node runs its own sandboxes, all on this machine).
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path
from typing import Any

import anyio

from codeact import CodeActAgent
from codeact.agents.base import BaseAgent
from codeact.batch import Task, collect_batch
from codeact.executors.restricted.defaults import default_executor
from codeact.llms import LLM, FunctionLLM

CELL = "final_answer({n} * {n})"


def reply(messages: list[Any], tools: list[Any]) -> str:
    """The scripted model: the task's number squared, in one cell."""
    prompt = next(m.text for m in messages if m.role == "user")
    return f"<execute>\n{CELL.format(n=int(prompt.split()[-1]))}\n</execute>"


def make_llm() -> LLM:
    """One shared fake model per worker."""
    return FunctionLLM(reply, function_calling=False)


def make_agent(llm: LLM) -> BaseAgent:
    """A fresh agent per task; its sandbox is made on the first cell."""
    return CodeActAgent(llm=llm, executor=lambda: default_executor(), max_iterations=2)


def tasks(count: int) -> list[Task]:
    """``count`` tasks: square the number."""
    return [Task(id=str(i), prompt=f"Square {i}") for i in range(count)]


async def bare(count: int) -> float:
    """Seconds for ``count`` fresh executors, each running the cell once (sequentially)."""
    t0 = time.perf_counter()
    for i in range(count):
        async with default_executor() as ex:
            result = await ex.execute(CELL.format(n=i))
            assert result.final_answer == i * i, result
    return time.perf_counter() - t0


async def warm(count: int) -> float:
    """Seconds for ``count`` executes in one already started sandbox."""
    async with default_executor() as ex:
        await ex.execute("1")
        t0 = time.perf_counter()
        for i in range(count):
            await ex.execute(CELL.format(n=i))
        return time.perf_counter() - t0


async def batch(count: int, **kwargs: Any) -> float:
    """Seconds for the batch of ``count`` tasks (every one checked)."""
    t0 = time.perf_counter()
    got = await collect_batch(tasks(count), make_agent, make_llm, **kwargs)
    took = time.perf_counter() - t0
    bad = [r for r in got if not (r.ok and r.value == int(r.id) ** 2)]
    assert not bad, bad[:3]
    return took


async def interleaved(count: int, chunk: int = 20) -> tuple[float, float]:
    """``(bare, batch)`` seconds for ``count`` tasks each, run in alternating chunks so that a
    change in the machine's load hits both alike (the overhead is their difference)."""
    bare_s = batch_s = 0.0
    for start in range(0, count, chunk):
        size = min(chunk, count - start)
        bare_s += await bare(size)
        batch_s += await batch(size, concurrency=1)
    return bare_s, batch_s


def line(label: str, took: float, count: int, base_per_task: float | None = None) -> str:
    """One row of the table."""
    per = took / count
    extra = f"   overhead {1000 * (per - base_per_task):+7.1f} ms/task" if base_per_task else ""
    return (
        f"{label:<28} {took:7.1f} s  {count / took:6.2f} tasks/s  {1000 * per:7.1f} ms/task{extra}"
    )


def ray_rows(count: int, per_node: int) -> list[str]:
    """The Ray backend on a local cluster of one node, then two."""
    import ray
    from ray.cluster_utils import Cluster

    os.environ["PYTHONPATH"] = os.pathsep.join(
        [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parents[1])]
    )
    rows = []
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    try:
        ray.init(address=cluster.address)
        for nodes in (1, 2):
            if nodes == 2:
                cluster.add_node(num_cpus=1)
                cluster.wait_for_nodes()
            anyio.run(lambda: batch(4, backend="ray", concurrency=per_node))  # start workers
            took = anyio.run(lambda: batch(count, backend="ray", concurrency=per_node))
            rows.append(line(f"ray, {nodes} node(s) x {per_node}", took, count))
    finally:
        ray.shutdown()
        cluster.shutdown()
    return rows


def main() -> None:
    """Print the table."""
    p = argparse.ArgumentParser()
    p.add_argument("--tasks", type=int, default=200)
    p.add_argument("--skip-ray", action="store_true")
    p.add_argument("--per-node", type=int, default=4, help="Ray tasks at once per node")
    args = p.parse_args()
    n = args.tasks
    print(f"{n} tasks, one cell each, each in a fresh sandbox ({os.cpu_count()} CPUs)")
    anyio.run(bare, 3)  # warm the caches
    print(line("execute() in one sandbox", anyio.run(warm, n), n))
    base, one = anyio.run(interleaved, n)
    print(line("bare fresh sandbox + execute", base, n))
    print(line("local, concurrency 1", one, n, base / n), flush=True)
    for c in (2, 4, 8):
        took = anyio.run(lambda c=c: batch(n, concurrency=c))
        print(line(f"local, concurrency {c}", took, n), flush=True)
    if not args.skip_ray:
        for row in ray_rows(n, args.per_node):
            print(row, flush=True)
    print("(single runs; the machine's other load varies: rerun to compare)")


if __name__ == "__main__":
    main()
