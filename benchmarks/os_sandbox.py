"""What the OS sandbox costs: RestrictedExecutor(isolation="process") with and without bubblewrap.

Run by hand: ``.venv/bin/python benchmarks/os_sandbox.py [--starts N] [--cells N]``.
For each mode it prints the median and the worst of: session start (``start()`` until the worker
is ready), a trivial cell's ``execute()`` round trip, and ordinary data cells (first
``import pandas`` in a fresh worker, then a CSV read + groupby, each on a fresh session), and the
ratio bubblewrap / no OS sandbox. On a root host the unsandboxed worker cannot drop to uid
65534 when the interpreter lives under /root; ``CODEACT_WORKER_AS_ROOT=1`` keeps it root for this
measurement only.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
import warnings
from collections.abc import Awaitable, Callable

import anyio

from codeact.executors import RestrictedExecutor

CSV = "city,product,units\n" + "".join(f"c{i % 13},p{i % 7},{i % 50}\n" for i in range(20000))
DATA_CELL = "df = pd.read_csv('sales.csv')\nt = df.groupby(['city', 'product']).units.sum()\nlen(t)"


async def timed(fn: Callable[[], Awaitable[object]]) -> float:
    t0 = time.perf_counter()
    await fn()
    return time.perf_counter() - t0


async def measure(mode: str, starts: int, cells: int) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {
        "start": [],
        "trivial cell": [],
        "import pandas": [],
        "csv + groupby": [],
    }
    for _ in range(starts):
        ex = RestrictedExecutor(
            isolation="process",
            os_sandbox=mode,  # type: ignore[arg-type]
            allowed_modules=["pandas"],
            timeout=60,
        )
        out["start"].append(await timed(ex.start))
        await ex.upload("sales.csv", CSV.encode())
        out["import pandas"].append(await timed(lambda ex=ex: ex.execute("import pandas as pd")))
        out["csv + groupby"].append(await timed(lambda ex=ex: ex.execute(DATA_CELL)))
        await ex.aclose()
    async with RestrictedExecutor(isolation="process", os_sandbox=mode) as ex:  # type: ignore[arg-type]
        for _ in range(20):
            await ex.execute("x = 1")
        for _ in range(cells):
            out["trivial cell"].append(await timed(lambda: ex.execute("x = 1")))
    return out


def fmt(seconds: float) -> str:
    return f"{seconds * 1e3:8.2f} ms" if seconds >= 1e-3 else f"{seconds * 1e6:8.1f} µs"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--starts", type=int, default=15)
    parser.add_argument("--cells", type=int, default=500)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    if os.geteuid() == 0:
        os.environ["CODEACT_WORKER_AS_ROOT"] = "1"
    results = {m: anyio.run(measure, m, args.starts, args.cells) for m in ("none", "bwrap")}
    print(f"{'':16}{'no OS sandbox':>24}{'bubblewrap':>24}{'ratio':>9}")
    print(f"{'':16}{'median':>12}{'worst':>12}{'median':>12}{'worst':>12}")
    for key in results["none"]:
        a, b = results["none"][key], results["bwrap"][key]
        ma, mb = statistics.median(a), statistics.median(b)
        print(
            f"{key:16}{fmt(ma):>12}{fmt(max(a)):>12}{fmt(mb):>12}{fmt(max(b)):>12}{mb / ma:8.2f}x"
        )
    added = statistics.median(results["bwrap"]["start"]) - statistics.median(
        results["none"]["start"]
    )
    print(f"\nbubblewrap adds {added * 1e3:.1f} ms to a session start (median; target ≤ 100 ms)")


if __name__ == "__main__":
    main()
