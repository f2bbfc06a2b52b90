"""Executor overhead: the same cells through plain ``exec``, RestrictedExecutor and smolagents.

Run by hand: ``.venv/bin/python benchmarks/executor_overhead.py [--repeat N]``.
Plain ``exec`` of pre-compiled code is the physical limit. For RestrictedExecutor (inline and
process isolation) it prints two medians per cell: the code's own run time inside the sandbox
(``ExecutionResult.duration_s``: compiled-code cache lookup, guards, namespace) with its ratio to
plain exec, and the total ``execute()`` time (adding the thread hop or the round trip to the
worker). smolagents' LocalPythonExecutor is added when installed.
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from collections.abc import Callable
from typing import Any

import anyio

from codeact.executors import RestrictedExecutor

SETUP = """
words = ['alpha', 'beta', 'gamma'] * 700
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
class Counter:
    def __init__(self):
        self.n = 0
    def inc(self):
        self.n += 1
"""

CELLS = {
    "trivial": "x = 1",
    "+= loop": "t = 0\nfor i in range(20000):\n    t += i",
    "generator of method calls": "s = sum(w.upper().count('A') for w in words)",
    "recursion": "r = fib(15)",
    "comprehension with *": "sq = [i * 2 for i in range(10000)]",
    "method calls, attr +=": "c = Counter()\nfor i in range(5000):\n    c.inc()",
    "dict + f-strings": "d = {f'k{i}': i % 7 for i in range(5000)}",
}


def median_us(fn: Callable[[], Any], repeat: int) -> float:
    for _ in range(3):
        fn()
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples) * 1e6


def plain(repeat: int) -> dict[str, float]:
    ns: dict[str, Any] = {}
    exec(SETUP, ns)
    out = {}
    for name, cell in CELLS.items():
        code = compile(cell, "<cell>", "exec")
        out[name] = median_us(lambda code=code: exec(code, ns), repeat)
    return out


async def restricted(isolation: str, repeat: int) -> tuple[dict[str, float], dict[str, float]]:
    out, total = {}, {}
    async with RestrictedExecutor(isolation=isolation) as ex:  # type: ignore[arg-type]
        await ex.execute(SETUP)
        for name, cell in CELLS.items():
            for _ in range(3):
                await ex.execute(cell)
            samples, inner = [], []
            for _ in range(repeat):
                t0 = time.perf_counter()
                r = await ex.execute(cell)
                samples.append(time.perf_counter() - t0)
                inner.append(r.duration_s)
                assert r.error is None, r.error
            out[name] = statistics.median(inner) * 1e6
            total[name] = statistics.median(samples) * 1e6
    return out, total


def smolagents(repeat: int) -> dict[str, float] | None:
    try:
        from smolagents.local_python_executor import LocalPythonExecutor
    except ImportError:
        return None
    ex = LocalPythonExecutor(additional_authorized_imports=[])
    ex.send_tools({})
    ex(SETUP)
    return {
        name: median_us(lambda cell=cell: ex(cell), max(repeat // 10, 3))
        for name, cell in CELLS.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()
    base = plain(args.repeat)
    inline, inline_total = anyio.run(restricted, "inline", args.repeat)
    process, process_total = anyio.run(restricted, "process", args.repeat)
    columns = {"inline": inline, "process": process}
    smol = smolagents(args.repeat)
    if smol is not None:
        columns["smolagents"] = smol
    head = f"{'cell':28} {'exec µs':>9}" + "".join(
        f" {k + ' µs':>14} {'ratio':>7}" for k in columns
    )
    print(head)
    print("-" * len(head))
    for name in CELLS:
        row = f"{name:28} {base[name]:9.1f}"
        for col in columns.values():
            row += f" {col[name]:14.1f} {col[name] / base[name]:7.2f}"
        print(row)
    print()
    print("total execute() per cell, µs (inline / process):")
    for name in CELLS:
        print(f"  {name:28} {inline_total[name]:9.1f} / {process_total[name]:9.1f}")
    print()
    for key, col in columns.items():
        ratios = [col[n] / base[n] for n in CELLS if n != "trivial"]
        geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        print(
            f"{key:10}: non-trivial cells: geometric mean {geo:.2f}x plain exec, "
            f"worst {max(ratios):.2f}x"
        )
    print(
        f"trivial cell, total execute(): inline {inline_total['trivial']:.0f} µs, "
        f"process {process_total['trivial']:.0f} µs"
    )
    if smol is None:
        print("smolagents not installed: pip install smolagents to add its column")


if __name__ == "__main__":
    main()
