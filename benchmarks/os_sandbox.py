"""What the OS sandbox costs: RestrictedExecutor(isolation="process") with and without bubblewrap.

Run by hand: ``.venv/bin/python benchmarks/os_sandbox.py [--starts N] [--cells N] [--limits]``.
For each mode it prints the median and the worst of: session start (``start()`` until the worker
is ready), a trivial cell's ``execute()`` round trip, and ordinary data cells (first
``import pandas`` in a fresh worker, then a CSV read + groupby, each on a fresh session), and the
ratio bubblewrap / no OS sandbox. On a root host the unsandboxed worker cannot drop to uid
65534 when the interpreter lives under /root; ``CODEACT_WORKER_AS_ROOT=1`` keeps it root for this
measurement only.

``--limits`` measures the per-session containment instead, under bubblewrap: session start,
trivial cell and close with and without the session's cgroup and quota'd tmpfs workspace
(interleaved, one session of each in turn), then a trivial cell of a fifth session while four
others spin, with and without their cgroups' CPU quota, against the same cell on an idle host.
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


def _containment(on: bool) -> None:
    from codeact.executors.restricted import _cgroups

    os.environ["CODEACT_NO_CGROUPS"] = "0" if on else "1"
    os.environ["CODEACT_NO_QUOTA"] = "0" if on else "1"
    _cgroups.cgroup_support.cache_clear()


async def measure_limits(starts: int, cells: int) -> dict[str, dict[str, list[float]]]:
    out = {m: {"start": [], "trivial cell": [], "close": []} for m in ("today", "limits")}
    for _ in range(starts):
        for mode in ("today", "limits"):  # interleaved: the machine is shared
            _containment(mode == "limits")
            ex = RestrictedExecutor(isolation="process", os_sandbox="bwrap")
            out[mode]["start"].append(await timed(ex.start))
            for _ in range(cells // starts):
                out[mode]["trivial cell"].append(await timed(lambda ex=ex: ex.execute("x = 1")))
            out[mode]["close"].append(await timed(ex.aclose))
    return out


async def fifth_session(cells: int) -> dict[str, list[float]]:
    """A trivial cell's round trip in a fifth session: idle host, four spinners without a CPU
    quota, four spinners each with ``cpus=0.25``."""
    out: dict[str, list[float]] = {}
    spin = "import time\nend = time.monotonic() + 600\nwhile time.monotonic() < end:\n    pass"
    for label, quota in (
        ("idle", None),
        ("4 spinning, no quota", 0),
        ("4 spinning, cpus=0.25", 0.25),
    ):
        _containment(quota != 0)
        spinners: list[RestrictedExecutor] = []
        async with RestrictedExecutor(isolation="process") as probe:
            async with anyio.create_task_group() as tg:
                if quota is not None:
                    for _ in range(4):
                        ex = RestrictedExecutor(
                            isolation="process", cpus=quota or None, timeout=600
                        )
                        await ex.start()
                        spinners.append(ex)
                        tg.start_soon(ex.execute, spin)
                    await anyio.sleep(1)
                for _ in range(10):
                    await probe.execute("x = 1")
                out[label] = [await timed(lambda: probe.execute("x = 1")) for _ in range(cells)]
                tg.cancel_scope.cancel()
            for ex in spinners:  # after their cells were interrupted
                await ex.aclose()
    return out


def main_limits(starts: int, cells: int) -> None:
    warnings.simplefilter("ignore")
    res = anyio.run(measure_limits, starts, cells)
    print(f"{'bubblewrap':16}{'today':>24}{'+ cgroup + quota':>24}{'ratio':>9}")
    print(f"{'':16}{'median':>12}{'worst':>12}{'median':>12}{'worst':>12}")
    for key in res["today"]:
        a, b = res["today"][key], res["limits"][key]
        ma, mb = statistics.median(a), statistics.median(b)
        print(
            f"{key:16}{fmt(ma):>12}{fmt(max(a)):>12}{fmt(mb):>12}{fmt(max(b)):>12}{mb / ma:8.2f}x"
        )
    added = statistics.median(res["limits"]["start"]) - statistics.median(res["today"]["start"])
    print(
        f"\nthe cgroup and quota'd workspace add {added * 1e3:.1f} ms to a start (target ≤ 20 ms)"
    )
    fifth = anyio.run(fifth_session, cells)
    idle = statistics.median(fifth["idle"])
    print(f"\n{'fifth session, trivial cell':32}{'median':>12}{'worst':>12}{'vs idle':>9}")
    for label, times in fifth.items():
        m = statistics.median(times)
        print(f"{label:32}{fmt(m):>12}{fmt(max(times)):>12}{m / idle:8.2f}x")


if __name__ == "__main__":
    import sys

    if "--limits" in sys.argv:
        sys.argv.remove("--limits")
        parser = argparse.ArgumentParser()
        parser.add_argument("--starts", type=int, default=15)
        parser.add_argument("--cells", type=int, default=300)
        a = parser.parse_args()
        main_limits(a.starts, a.cells)
    else:
        main()
