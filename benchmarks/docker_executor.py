"""DockerExecutor: session starts, per-cell round trips, tool calls, concurrency, and the
`docker exec python -c` baseline (AutoGen's style), measured in the same run.

Run by hand (needs the engine and the image): ``.venv/bin/python benchmarks/docker_executor.py``.
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


async def cold_starts(n: int) -> list[float]:
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        ex = DockerExecutor()
        await ex.start()
        out.append(time.perf_counter() - t0)
        await ex.aclose()
    return out


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
    cells, tools = [], []
    async with DockerExecutor(tools=[echo]) as ex:
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


async def main(runs: int) -> None:
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
    parser.add_argument("--runs", type=int, default=200)
    anyio.run(main, parser.parse_args().runs)
