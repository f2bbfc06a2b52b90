"""AG-UI server: time to first event, events per second, 50 concurrent runs.

Run by hand: ``.venv/bin/python benchmarks/server.py``. Uvicorn on 127.0.0.1 (one process), a
ScriptedLLM agent, httpx as the client; prints medians and failures.
"""

from __future__ import annotations

import asyncio
import socket
import statistics
import threading
import time

import httpx
import uvicorn

from codeact import FunctionAgent
from codeact.llms import Reply, ScriptedLLM
from codeact.server import MemoryStore, create_app

LONG = 5000  # chunks in the long answer


def start(app: object) -> tuple[uvicorn.Server, str]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.01)
    return server, f"http://127.0.0.1:{port}/"


def payload(thread: str) -> dict[str, object]:
    return {
        "threadId": thread,
        "runId": f"r-{thread}",
        "messages": [{"role": "user", "content": "hi"}],
    }


async def first_event(url: str, n: int) -> list[float]:
    out = []
    async with httpx.AsyncClient(timeout=30) as c:
        for i in range(n):
            t0 = time.perf_counter()
            async with c.stream("POST", url, json=payload(f"ttfe-{i}")) as r:
                first = True
                async for _ in r.aiter_bytes():
                    if first:
                        out.append(time.perf_counter() - t0)
                        first = False
    return out


async def throughput(url: str) -> tuple[int, float]:
    async with httpx.AsyncClient(timeout=60) as c:
        t0 = time.perf_counter()
        r = await c.post(url, json=payload("long"))
        took = time.perf_counter() - t0
    return r.content.count(b"data: "), took


async def concurrent(url: str, n: int) -> tuple[list[float], int]:
    times: list[float] = []
    failures = 0

    async def one(i: int) -> None:
        nonlocal failures
        t0 = time.perf_counter()
        try:
            async with httpx.AsyncClient(timeout=60) as c:
                r = await c.post(url, json=payload(f"c-{i}"))
            if r.status_code != 200 or b"RUN_FINISHED" not in r.content:
                failures += 1
        except httpx.HTTPError:
            failures += 1
        times.append(time.perf_counter() - t0)

    await asyncio.gather(*(one(i) for i in range(n)))
    return times, failures


def main() -> None:
    replies = [Reply(chunks=["x"] * LONG)] + ["short answer"] * 400
    server, url = start(create_app(FunctionAgent(llm=ScriptedLLM(replies)), store=MemoryStore()))
    try:
        events, took = asyncio.run(throughput(url))
        ttfe = asyncio.run(first_event(url, 50))
        times, failures = asyncio.run(concurrent(url, 50))
    finally:
        server.should_exit = True
    print(f"time to first event: median {statistics.median(ttfe) * 1000:.2f} ms (50 runs)")
    print(f"long streamed answer: {events} events in {took:.2f} s = {events / took:,.0f} events/s")
    print(
        f"50 concurrent runs on distinct threads: median {statistics.median(times) * 1000:.1f} ms, "
        f"max {max(times) * 1000:.1f} ms, failures {failures}"
    )


if __name__ == "__main__":
    main()
