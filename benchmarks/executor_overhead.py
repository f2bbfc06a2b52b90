"""Executor overhead on a broad set of everyday cells: plain ``exec`` vs RestrictedExecutor.

Run by hand: ``.venv/bin/python benchmarks/executor_overhead.py [--repeat N] [--only SUBSTR]``.

The cells are what data-processing code does all day (numeric loops with products, divisions and
modulo of variables, string building and formatting, dict/list/set work, comprehensions, calls and
recursion, classes with attribute updates, exceptions, generators, sorting with keys, ``re``,
``json``, ``datetime``, pandas and numpy), not cells picked because the guards leave them alone.
Plain ``exec`` of pre-compiled code in a namespace prepared the same way is the physical limit.
For RestrictedExecutor (inline, and process isolation inside the OS sandbox when bubblewrap is
there) it prints the code's own run time inside the sandbox (``ExecutionResult.duration_s``) and
its ratio to plain exec, then the geometric mean and the worst cell, then the whole
``execute()`` time of a trivial cell (thread hop or round trip to the worker included).
smolagents' LocalPythonExecutor gets a column when it is installed.
"""

from __future__ import annotations

import argparse
import math
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


def plain(cells: dict[str, str], repeat: int) -> dict[str, float]:
    """Each cell through plain ``exec`` of pre-compiled code."""
    ns: dict[str, Any] = {}
    exec(SETUP, ns)
    out = {}
    for name, cell in cells.items():
        code = compile(cell, "<cell>", "exec")
        out[name] = median_us(lambda code=code: exec(code, ns), repeat)
    return out


async def restricted(
    isolation: str, cells: dict[str, str], repeat: int
) -> tuple[dict[str, float], dict[str, float], str]:
    """Each cell through RestrictedExecutor: (inner µs, total execute() µs, sandbox label)."""
    out, total = {}, {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # inline + pandas warns that no OS sandbox stands behind
        ex = RestrictedExecutor(isolation=isolation, allowed_modules=MODULES)  # type: ignore[arg-type]
    async with ex:
        setup = await ex.execute(SETUP)
        assert setup.error is None, setup.error
        label = isolation + (" + bwrap" if getattr(ex, "os_sandboxed", False) else "")
        for name, cell in cells.items():
            for _ in range(3):
                await ex.execute(cell)
            samples, inner = [], []
            for _ in range(repeat):
                t0 = time.perf_counter()
                r = await ex.execute(cell)
                samples.append(time.perf_counter() - t0)
                inner.append(r.duration_s)
                assert r.error is None, f"{name}: {r.error}"
            out[name] = statistics.median(inner) * 1e6
            total[name] = statistics.median(samples) * 1e6
    return out, total, label


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


def report(
    cells: dict[str, str], base: dict[str, float], columns: dict[str, dict[str, float]]
) -> None:
    """Print the per-cell table, then each column's geometric mean and worst cell."""
    head = f"{'cell':28} {'exec µs':>9}" + "".join(
        f" {k[:14] + ' µs':>17} {'ratio':>6}" for k in columns
    )
    print(head)
    print("-" * len(head))
    for name in cells:
        row = f"{name:28} {base[name]:9.1f}"
        for col in columns.values():
            row += f" {col[name]:17.1f} {col[name] / base[name]:6.2f}"
        print(row)
    print()
    for key, col in columns.items():
        ratios = {n: col[n] / base[n] for n in cells if n != "trivial" and not math.isnan(col[n])}
        worst = max(ratios, key=ratios.__getitem__)
        print(
            f"{key:18}: {len(ratios)} cells, geometric mean {geomean(list(ratios.values())):.2f}x "
            f"plain exec, worst {ratios[worst]:.2f}x ({worst})"
        )


def main() -> None:
    """Run every column and print the table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--only", default="", help="run only cells whose name contains this")
    args = parser.parse_args()
    cells = {k: v for k, v in CELLS.items() if args.only in k or k == "trivial"}
    base = plain(cells, args.repeat)
    inline, inline_total, inline_label = anyio.run(restricted, "inline", cells, args.repeat)
    process, process_total, process_label = anyio.run(restricted, "process", cells, args.repeat)
    columns = {inline_label: inline, process_label: process}
    smol = smolagents(cells, args.repeat)
    if smol is not None:
        columns["smolagents"] = smol
    report(cells, base, columns)
    print(
        f"trivial cell, whole execute(): {inline_label} {inline_total['trivial']:.0f} µs, "
        f"{process_label} {process_total['trivial']:.0f} µs"
    )
    if smol is None:
        print("smolagents is not installed: pip install smolagents to add its column")


if __name__ == "__main__":
    main()
