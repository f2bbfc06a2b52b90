"""Replicas on PostgreSQL (``benchmarks/server.py --db ...``): runs/s and p99 time to first
event of short scripted runs with 1 and 3 replicas (the client spreads runs round-robin),
MemoryStore as the baseline, and the database's cost per run start measured two ways: the
time-to-first-event difference of sequential runs, and the store calls a run start makes
(``run_status`` + ``start_run``, and ``latest_run`` for a thread seen before), timed alone."""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from pathlib import Path
from typing import Any

from server import cpu_seconds, one_run, start_server

SHORT_CHUNKS = 10  # a short answer: the run's start and end dominate


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


async def spread(ports: list[int], n: int, concurrency: int, tag: str) -> dict[str, float]:
    """``n`` runs, ``concurrency`` at a time, round-robin over the replicas."""
    gate = asyncio.Semaphore(concurrency)

    async def run(i: int) -> tuple[float, int, bool]:
        async with gate:
            return await one_run(ports[i % len(ports)], f"{tag}-{i}")

    t0 = time.perf_counter()
    results = await asyncio.gather(*(run(i) for i in range(n)))
    wall = time.perf_counter() - t0
    firsts = [r[0] * 1000 for r in results]
    return {
        "runs_per_s": n / wall,
        "p50": statistics.median(firsts),
        "p99": pct(firsts, 0.99),
        "failures": sum(1 for r in results if not r[2]),
    }


async def sequential(ports: list[int], n: int, tag: str) -> float:
    """Median time to first event of ``n`` runs one after another (no queueing)."""
    firsts = [(await one_run(ports[i % len(ports)], f"{tag}-{i}"))[0] for i in range(n)]
    return statistics.median(firsts) * 1000


async def store_calls(url: str, n: int) -> dict[str, float]:
    """Milliseconds per run start and end of the store calls alone (one connection's worth)."""
    from codeact._messages import ChatMessage
    from codeact.server._postgres import PostgresStore

    store = PostgresStore(url, max_size=2)
    coordinator = store.coordinator()
    messages = [ChatMessage.user("hi"), ChatMessage.assistant("w " * 50)]
    await store.ping()
    starts, ends = [], []
    for i in range(n):
        key = ("bench", "u", f"calls-{i % 50}")
        t0 = time.perf_counter()
        await store.run_status(key, f"r{i}")
        if i >= 50:
            await coordinator.latest_run(key)
        await store.start_run(key, f"r{i}", messages)
        t1 = time.perf_counter()
        await store.finish_run(key, f"r{i}", "finished", messages)
        starts.append((t1 - t0) * 1000)
        ends.append((time.perf_counter() - t1) * 1000)
    await store.aclose()
    return {"start_p50": statistics.median(starts), "start_p99": pct(starts, 0.99),
            "end_p50": statistics.median(ends)}  # fmt: skip


def measure(code: Path, db: str, replicas: int, args: argparse.Namespace) -> dict[str, float]:
    procs = [start_server(code, 0, args.chunk_delay, db, SHORT_CHUNKS) for _ in range(replicas)]
    ports = [port for _, port in procs]
    try:
        for port in ports:
            asyncio.run(one_run(port, f"warm-{port}"))
        seq = asyncio.run(sequential(ports, 100, f"s{replicas}"))
        cpu0 = sum(cpu_seconds(p.pid) for p, _ in procs)
        n, c = args.bench_runs, args.concurrency
        r = asyncio.run(spread(ports, n, c, f"c{replicas}"))
        r["cpu_ms_per_run"] = (sum(cpu_seconds(p.pid) for p, _ in procs) - cpu0) / n * 1000
        r["seq_ttfe_ms"] = seq
        return r
    finally:
        for p, _ in procs:
            p.terminate()
        for p, _ in procs:
            p.wait(30)


def bench_replicas(args: Any) -> None:
    """The replica benchmark (``--db``), printed as lines of numbers."""
    code = Path(args.code).resolve()
    pg = None
    if args.db == "temp-postgres":
        from codeact.testing.postgres import PostgresServer

        pg = PostgresServer()
        pg.start()
    args.bench_runs, args.concurrency = 400, 20
    print(f"{SHORT_CHUNKS}-chunk scripted runs; {args.bench_runs} runs, {args.concurrency} at a "
          "time, round-robin over the replicas")  # fmt: skip
    try:
        rows: list[tuple[str, dict[str, float]]] = []
        rows.append(("memory, 1 replica", measure(code, "", 1, args)))
        for n in (int(x) for x in args.replicas.split(",")):
            url = pg.create_database() if pg else args.db
            rows.append((f"postgres, {n} replica(s)", measure(code, url, n, args)))
        for name, r in rows:
            print(
                f"{name:22s}: {r['runs_per_s']:6.1f} runs/s; first event p50 {r['p50']:6.1f} ms, "
                f"p99 {r['p99']:6.1f} ms; sequential first event {r['seq_ttfe_ms']:5.2f} ms; "
                f"server CPU {r['cpu_ms_per_run']:5.2f} ms/run; failures {r['failures']:.0f}"
            )
        base = rows[0][1]["seq_ttfe_ms"]
        print(f"added time to first event per run start (1 replica): "
              f"{rows[1][1]['seq_ttfe_ms'] - base:+.2f} ms")  # fmt: skip
        url = pg.create_database() if pg else args.db
        calls = asyncio.run(store_calls(url, 500))
        print(f"store calls per run start: p50 {calls['start_p50']:.2f} ms, p99 "
              f"{calls['start_p99']:.2f} ms; per run end {calls['end_p50']:.2f} ms")  # fmt: skip
    finally:
        if pg is not None:
            pg.close()
