"""DockerExecutor: session starts, per-cell round trips, tool calls, concurrency, and the
`docker exec python -c` baseline (AutoGen's style), measured in the same run; then runc against
gVisor (runsc): cold start and trivial-cell round trip, medians and worst cases, the runtimes
interleaved so that both see the same machine load.

Run by hand (needs the engine and the image; runsc registered for the comparison):
``.venv/bin/python benchmarks/docker_executor.py`` (``--runtimes-only`` for the comparison).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import time

import anyio

from codeact.executors.docker import DockerExecutor, SandboxPool


def echo(x: int) -> int:
    """Return x (a host tool)."""
    return x


def med_ms(samples: list[float]) -> str:
    return f"{statistics.median(samples) * 1000:8.2f} ms"


def worst_ms(samples: list[float]) -> str:
    return f"{max(samples) * 1000:8.2f} ms"


async def cold_start(runtime: str | None = None) -> float:
    t0 = time.perf_counter()
    ex = DockerExecutor(runtime=runtime)
    await ex.start()
    elapsed = time.perf_counter() - t0
    await ex.aclose()
    return elapsed


async def cold_starts(n: int) -> list[float]:
    return [await cold_start() for _ in range(n)]


async def time_cells(ex: DockerExecutor, n: int) -> tuple[list[float], list[float]]:
    """A trivial cell and a cell making one tool call, ``n`` times each (after a warm-up)."""
    cells, tools = [], []
    await ex.execute("from tools import echo")
    for _ in range(20):
        await ex.execute("x = 1")
    for _ in range(n):
        t0 = time.perf_counter()
        await ex.execute("x = 1")
        cells.append(time.perf_counter() - t0)
    for i in range(n):
        t0 = time.perf_counter()
        r = await ex.execute(f"echo({i})")
        tools.append(time.perf_counter() - t0)
        assert r.value == str(i)
    return cells, tools


async def cell_round_trips(runtime: str, n: int) -> tuple[list[float], list[float]]:
    """``time_cells`` in a fresh sandbox of ``runtime``."""
    async with DockerExecutor(runtime=runtime, tools=[echo]) as ex:
        return await time_cells(ex, n)


async def compare_runtimes(runtimes: list[str], starts: int, cells: int) -> None:
    """runc vs runsc: cold session start and trivial cell, median and worst case."""
    start_s: dict[str, list[float]] = {rt: [] for rt in runtimes}
    for _ in range(starts):  # interleaved: the same load for each runtime
        for rt in runtimes:
            start_s[rt].append(await cold_start(rt))
    trips = {rt: await cell_round_trips(rt, cells) for rt in runtimes}
    cell_s = {rt: trips[rt][0] for rt in runtimes}
    print(f"runtimes ({starts} cold starts, {cells} cells each; median / worst):")
    for rt in runtimes:
        tool_s = trips[rt][1]
        print(
            f"  {rt:6} cold start {med_ms(start_s[rt])} / {worst_ms(start_s[rt])}   "
            f"trivial cell {med_ms(cell_s[rt])} / {worst_ms(cell_s[rt])}   "
            f"tool call {med_ms(tool_s)} / {worst_ms(tool_s)}"
        )
    base = runtimes[0]
    for rt in runtimes[1:]:
        print(
            f"  {rt} vs {base}: cold start +"
            f"{(statistics.median(start_s[rt]) - statistics.median(start_s[base])) * 1000:.0f} ms"
            f", trivial cell x"
            f"{statistics.median(cell_s[rt]) / statistics.median(cell_s[base]):.1f}"
        )


async def warm_starts(n: int) -> list[float]:
    out = []
    async with SandboxPool(size=2) as pool:
        for _ in range(n):
            await anyio.sleep(1.0)  # the pool refills between sessions
            t0 = time.perf_counter()
            ex = pool.executor()
            await ex.start()
            out.append(time.perf_counter() - t0)
            await ex.aclose()
    return out


async def round_trips(n: int) -> tuple[list[float], list[float], str]:
    async with DockerExecutor(tools=[echo]) as ex:
        cells, tools = await time_cells(ex, n)
        cid = ex.container.id
        exec_samples = []
        for _ in range(max(n // 20, 5)):
            t0 = time.perf_counter()
            subprocess.run(["docker", "exec", cid, "python3", "-c", "x = 1"], check=True)  # noqa: ASYNC221 - the baseline is a blocking CLI call
            exec_samples.append(time.perf_counter() - t0)
    return cells, tools, med_ms(exec_samples)


async def concurrent(n: int) -> tuple[float, int]:
    errors = 0

    async def one(i: int) -> None:
        nonlocal errors
        try:
            async with DockerExecutor() as ex:
                for _ in range(5):
                    r = await ex.execute(f"{i} + 1")
                    if r.value != str(i + 1):
                        errors += 1
        except Exception:
            errors += 1

    t0 = time.perf_counter()
    async with anyio.create_task_group() as tg:
        for i in range(n):
            tg.start_soon(one, i)
    return time.perf_counter() - t0, errors


async def main(runs: int, runtimes: list[str], starts: int, runtimes_only: bool) -> None:
    if not runtimes_only:
        await overview(runs)
    await compare_runtimes(runtimes, starts, runs)


async def overview(runs: int) -> None:
    cold = await cold_starts(5)
    warm = await warm_starts(5)
    cells, tools, docker_exec = await round_trips(runs)
    total, errors = await concurrent(20)
    cell_ms = statistics.median(cells) * 1000
    exec_ms = float(docker_exec.split()[0])
    print(f"cold session start (create + start + kernel ready): {med_ms(cold)}")
    print(f"warm session start from a SandboxPool:               {med_ms(warm)}")
    print(f"trivial cell round trip:                             {med_ms(cells)}")
    print(f"tool call from inside the container (round trip):    {med_ms(tools)}")
    print(f"`docker exec python -c` per cell (baseline):         {docker_exec}")
    print(f"  -> kernel round trip is {exec_ms / cell_ms:.0f}x faster than docker exec per cell")
    print(
        f"20 concurrent sessions x 5 cells: {total:.2f} s total, {errors} errors, "
        f"{100 / total:.1f} cells/s"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=200, help="cells per measurement")
    parser.add_argument("--starts", type=int, default=10, help="cold starts per runtime")
    parser.add_argument("--runtimes", default="runc,runsc", help="comma-separated, first = base")
    parser.add_argument("--runtimes-only", action="store_true", help="only the runtime comparison")
    args = parser.parse_args()
    anyio.run(main, args.runs, args.runtimes.split(","), args.starts, args.runtimes_only)
