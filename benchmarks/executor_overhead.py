"""Executor overhead on a broad set of everyday cells: plain ``exec`` vs RestrictedExecutor.

Run by hand: ``.venv/bin/python benchmarks/executor_overhead.py [--repeat N] [--only SUBSTR]``.

The cells are what data-processing code does all day (numeric loops with products, divisions and
modulo of variables, string building and formatting, dict/list/set work, comprehensions, calls and
recursion, classes with attribute updates, exceptions, generators, sorting with keys, ``re``,
``json``, ``datetime``, pandas and numpy), not cells picked because the guards leave them alone.
Plain ``exec`` of pre-compiled code in a namespace prepared the same way is the physical limit.
Timing is interleaved: each round runs every cell in plain exec, then RestrictedExecutor inline,
then in process isolation (inside the OS sandbox when bubblewrap is there), back to back, so
machine load moves all three together. For each cell it prints the median µs and the ratios to
plain exec of the medians and of the bests, then per mode the geometric mean and the worst cell,
the whole ``execute()`` time of a trivial cell (thread hop or round trip to the worker
included) and the load average. ``--smolagents`` adds smolagents' LocalPythonExecutor when it is
installed; ``--cpu`` adds the guards' cost alone by thread CPU time (the policy-compiled cell in
a restricted session's namespace against plain ``exec``, in one thread: no scheduling noise).
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import time
import warnings
from collections.abc import Callable
from typing import Any

import anyio

from codeact.executors import RestrictedExecutor

SETUP = """
import re, json, datetime, math
from collections import Counter
import numpy as np
import pandas as pd
words = ['alpha', 'beta', 'gamma', 'delta', 'epsilon'] * 400
texts = [f'order {i} shipped {i * 3} items to zone {i % 9}' for i in range(1000)]
records = [{'id': i, 'v': (i * 7919) % 1000, 'name': f'n{i}'} for i in range(2000)]
data = {'rows': records[:500], 'meta': {'source': 'bench', 'n': 500}}
pairs = [(i, i + 1) for i in range(5000)]
a, b = 1.5, 0.75
df = pd.DataFrame({'k': [('a', 'b', 'c', 'd')[i % 4] for i in range(20000)],
                   'v': [float(i % 97) for i in range(20000)]})
arr = np.arange(100000, dtype=float)
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
def inc(x):
    return x + 1
def gen(n):
    for i in range(n):
        yield i * 2
class Counter2:
    def __init__(self):
        self.n = 0
    def inc(self):
        self.n += 1
class Point:
    def __init__(self, x, y):
        self.x = x
        self.y = y
    def norm2(self):
        return self.x * self.x + self.y * self.y
points = [Point(i, i + 1) for i in range(3000)]
"""

CELLS = {
    "trivial": "x = 1",
    "loop s += i * i": "s = 0\nfor i in range(20000):\n    s += i * i",
    "loop i // j, i % j": "s = 0\nj = 7\nfor i in range(20000):\n    s += i // j + i % j",
    "loop float a * b / i": "t = 0.0\nfor i in range(1, 20000):\n    t += a * b / i",
    "count i % 7 == 0": "c = sum(1 for i in range(20000) if i % 7 == 0)",
    "while n < N": "n = 0\nwhile n < 20000:\n    n += 1",
    "tuple unpack a * b": "s = 0\nfor p, q in pairs:\n    s += p * q",
    "str join of str(i)": (
        "parts = []\nfor i in range(5000):\n    parts.append(str(i))\nout = ','.join(parts)"
    ),
    "str += in loop": "s = ''\nfor i in range(3000):\n    s += 'x' + str(i)",
    "f-string format spec": "lines = [f'{i:05d} {i / 3:.2f}' for i in range(5000)]",
    "%-formatting": "lines = ['%d-%s' % (i, i) for i in range(5000)]",
    "str.format": "lines = ['{}:{}'.format(i, i * 2) for i in range(5000)]",
    "dict counting": "d = {}\nfor w in words:\n    d[w] = d.get(w, 0) + 1",
    "dict comprehension": "d = {f'k{i}': i % 7 for i in range(5000)}",
    "list item writes": "l = [0] * 1000\nfor i in range(10000):\n    l[i % 1000] += i",
    "list append/pop": "l = []\nfor i in range(10000):\n    l.append(i)\nwhile l:\n    l.pop()",
    "set algebra": "u = set(range(10000)) & set(range(5000, 15000))\nv = len(u | {1, 2, 3})",
    "nested comprehension i * j": "m = [[i * j for j in range(60)] for i in range(60)]",
    "function calls": "t = 0\nfor i in range(10000):\n    t = inc(t)",
    "recursion fib(16)": "r = fib(16)",
    "method calls, attr +=": "c = Counter2()\nfor i in range(5000):\n    c.inc()",
    "attr products (Point)": "s = sum(p.norm2() for p in points)",
    "attr writes in loop": "p = Point(0, 0)\nfor i in range(5000):\n    p.x = i\n    p.y = p.x * 2",
    "exceptions raised/caught": (
        "n = 0\nfor i in range(3000):\n    try:\n        raise ValueError(i)\n"
        "    except ValueError:\n        n += 1"
    ),
    "generator": "t = sum(gen(10000))",
    "sorted with key": "srt = sorted(records, key=lambda r: (r['v'], r['id']))",
    "re.findall": "m = [re.findall(r'\\d+', t) for t in texts]",
    "json round trip": "d = json.loads(json.dumps(data))",
    "datetime arithmetic": (
        "base = datetime.date(2024, 1, 1)\n"
        "ds = [(base + datetime.timedelta(days=i)).isoformat() for i in range(2000)]"
    ),
    "math + Counter": "r = sum(math.sqrt(i) for i in range(10000))\nc = Counter(words)",
    "pandas groupby mean": "g = df.groupby('k')['v'].mean()",
    "pandas apply lambda": "r = df['v'].apply(lambda x: x * 2 + 1)",
    "pandas row loop tolist()": (
        "t = 0.0\nfor k, v in zip(df['k'].tolist(), df['v'].tolist()):\n"
        "    if k == 'a':\n        t += v * v"
    ),
    "numpy vector ops": "s = float((arr * arr).sum() / arr.size)",
    "numpy loop of array ops": "x = arr[:1000]\nfor i in range(200):\n    x = x * a + b",
}
MODULES = ["pandas", "numpy"]


def median_us(fn: Callable[[], Any], repeat: int) -> float:
    """Median wall time of ``fn`` in µs after three warm-up calls."""
    for _ in range(3):
        fn()
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples) * 1e6


Samples = dict[str, dict[str, list[float]]]  # mode → cell → µs per repetition


def _executor(isolation: str) -> RestrictedExecutor:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # inline + pandas warns that no OS sandbox stands behind
        return RestrictedExecutor(isolation=isolation, allowed_modules=MODULES)  # type: ignore[arg-type]


async def interleaved(cells: dict[str, str], repeat: int) -> tuple[Samples, dict[str, str]]:
    """Every repetition times each cell back to back in plain ``exec``, inline and process, so
    a change of machine load hits all three alike. Plain ``exec`` is timed around the call;
    the executors report the code's own run time inside the sandbox
    (``ExecutionResult.duration_s``). Also the whole ``execute()`` of the trivial cell."""
    ns: dict[str, Any] = {}
    exec(SETUP, ns)
    codes = {name: compile(cell, "<cell>", "exec") for name, cell in cells.items()}
    samples: Samples = {m: {n: [] for n in cells} for m in ("plain", "inline", "process")}
    labels = {"plain": "plain exec"}
    async with _executor("inline") as inline, _executor("process") as process:
        executors = {"inline": inline, "process": process}
        for mode, ex in executors.items():
            setup = await ex.execute(SETUP)
            assert setup.error is None, setup.error
            labels[mode] = mode + (" + bwrap" if getattr(ex, "os_sandboxed", False) else "")
        for rep in range(repeat + 2):  # two warm-up rounds
            for name, cell in cells.items():
                t0 = time.perf_counter()
                exec(codes[name], ns)
                plain_us = (time.perf_counter() - t0) * 1e6
                row = {"plain": plain_us}
                for mode, ex in executors.items():
                    r = await ex.execute(cell)
                    assert r.error is None, f"{mode} {name}: {r.error}"
                    row[mode] = r.duration_s * 1e6
                if rep >= 2:
                    for mode, us in row.items():
                        samples[mode][name].append(us)
        for mode, ex in executors.items():
            t0 = time.perf_counter()
            for _ in range(repeat):
                await ex.execute("x = 1")
            samples[mode]["whole execute()"] = [(time.perf_counter() - t0) / repeat * 1e6]
    return samples, labels


def guards_cpu(cells: dict[str, str], repeat: int) -> dict[str, tuple[float, float]]:
    """The guards alone, free of scheduling noise: each cell compiled under the policy and run
    in a restricted session's namespace, against plain ``exec``, alternating in this thread and
    timed by this thread's CPU time. Per cell: (median of per-round ratios, ratio of bests)."""
    import tempfile

    from codeact.executors.restricted._compile import compile_cell
    from codeact.executors.restricted._interpreter import RestrictedInterpreter

    with tempfile.TemporaryDirectory() as workdir:
        session = RestrictedInterpreter(allowed_modules=MODULES, workdir=workdir)
        assert session.run_cell(SETUP, None)["error"] is None
        ns: dict[str, Any] = {}
        exec(SETUP, ns)
        out = {}
        for name, cell in cells.items():
            plain_code, guarded = compile(cell, "<cell>", "exec"), compile_cell(cell).code
            times: list[tuple[float, float]] = []
            for _ in range(repeat + 2):
                t0 = time.thread_time()
                exec(plain_code, ns)
                t1 = time.thread_time()
                exec(guarded, session.globals)
                times.append((t1 - t0, time.thread_time() - t1))
            times = times[2:]
            med = statistics.median(g / max(p, 1e-9) for p, g in times)
            best = min(g for _, g in times) / max(min(p for p, _ in times), 1e-9)
            out[name] = (med, best)
    return out


def smolagents(cells: dict[str, str], repeat: int) -> dict[str, float] | None:
    """The same cells through smolagents' LocalPythonExecutor, when it is installed."""
    try:
        from smolagents.local_python_executor import LocalPythonExecutor
    except ImportError:
        return None
    ex = LocalPythonExecutor(additional_authorized_imports=["*"])
    ex.send_tools({})
    ex(SETUP)
    out = {}
    for name, cell in cells.items():
        try:
            out[name] = median_us(lambda cell=cell: ex(cell), max(repeat // 5, 3))
        except Exception:  # a cell smolagents' interpreter cannot run
            out[name] = math.nan
    return out


def geomean(values: list[float]) -> float:
    """Geometric mean of positive numbers."""
    return math.exp(sum(math.log(v) for v in values) / len(values))


def report(cells: dict[str, str], samples: Samples, labels: dict[str, str]) -> None:
    """Per cell: plain exec's median µs, then per mode the median µs, the median of the
    per-round ratios (each round's sandbox time over the same round's plain time) and the ratio
    of the bests; then each mode's geometric mean and worst cell (both ways)."""
    modes = [m for m in samples if m != "plain"]
    head = f"{'cell':28} {'exec µs':>9}" + "".join(
        f" {labels[m][:14] + ' µs':>17} {'med x':>5} {'bestx':>5}" for m in modes
    )
    print(head)
    print("-" * len(head))
    ratios: dict[str, dict[str, dict[str, float]]] = {m: {"med": {}, "best": {}} for m in modes}
    for name in cells:
        base = samples["plain"][name]
        row = f"{name:28} {statistics.median(base):9.1f}"
        for m in modes:
            own = samples[m][name]
            med = statistics.median(o / b for o, b in zip(own, base, strict=True))
            best = min(own) / min(base)
            row += f" {statistics.median(own):17.1f} {med:5.2f} {best:5.2f}"
            if name != "trivial":
                ratios[m]["med"][name], ratios[m]["best"][name] = med, best
        print(row)
    print()
    for m in modes:
        for kind in ("med", "best"):
            r = ratios[m][kind]
            worst = max(r, key=r.__getitem__)
            print(
                f"{labels[m]:18} {kind + ':':5} {len(r)} cells, geometric mean "
                f"{geomean(list(r.values())):.2f}x plain exec, worst {r[worst]:.2f}x ({worst})"
            )


def main() -> None:
    """Run the interleaved timing and print the table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--only", default="", help="run only cells whose name contains this")
    parser.add_argument("--smolagents", action="store_true", help="add smolagents' column")
    parser.add_argument(
        "--cpu", action="store_true", help="also time the guards alone by thread CPU time"
    )
    args = parser.parse_args()
    cells = {k: v for k, v in CELLS.items() if args.only in k or k == "trivial"}
    load = os.getloadavg()
    samples, labels = anyio.run(interleaved, cells, args.repeat)
    report(cells, samples, labels)
    after = os.getloadavg()
    whole = samples["inline"]["whole execute()"][0], samples["process"]["whole execute()"][0]
    print(f"trivial cell, whole execute(): inline {whole[0]:.0f} µs, process {whole[1]:.0f} µs")
    print(f"load average (1 min) before {load[0]:.2f}, after {after[0]:.2f}; {args.repeat} rounds")
    if args.cpu:
        cpu = guards_cpu(cells, args.repeat)
        worst = max((n for n in cpu if n != "trivial"), key=lambda n: cpu[n][0])
        print(
            f"guards alone (thread CPU time): worst median {cpu[worst][0]:.2f}x ({worst}), "
            f"worst best {max(b for n, (_m, b) in cpu.items() if n != 'trivial'):.2f}x"
        )
        for name, (med, best) in sorted(cpu.items(), key=lambda kv: -kv[1][0])[:5]:
            print(f"  {name:28} median {med:.2f}x, best {best:.2f}x")
    if args.smolagents:
        smol = smolagents(cells, args.repeat)
        if smol is None:
            print("smolagents is not installed: pip install smolagents to add its column")
        else:
            base = {n: statistics.median(v) for n, v in samples["plain"].items()}
            r = {n: smol[n] / base[n] for n in cells if n != "trivial" and not math.isnan(smol[n])}
            print(f"smolagents: geometric mean {geomean(list(r.values())):.2f}x plain exec")


if __name__ == "__main__":
    main()
