"""Where the AG-UI server's CPU per event goes, stage by stage, without a profiler.

Run by hand: ``.venv/bin/python benchmarks/server_stages.py``. Everything runs in this process
(no sockets, no uvicorn), ``--runs`` concurrent paced runs of ``--chunks`` text pieces each,
``--delay`` seconds apart (the paced mode of ``benchmarks/server.py``), and CPU time
(``time.process_time``) per event is measured for three stages, interleaved round by round:

- ``agent``: the agent alone (``FunctionAgent`` on a ``ScriptedLLM``), each run's events handed
  to a no-op sink with ``RunHandler.forward`` as the server does: the LLM's paced pieces, the
  agent loop and the event hand-off;
- ``server``: the whole app (``create_app``, ``MemoryStore``) called through ASGI with a send
  that only counts the frames: the agent plus translation, framing, the reader and the
  response;
- ``anchor``: the bare Starlette SSE endpoint of ``benchmarks/server.py`` called the same way.

``server - agent`` is what serving costs per event on top of producing it; ``anchor`` is what the
transport alone costs, sleeps included. Medians of ``--rounds`` rounds; the first round (imports,
warm-up) is left out.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import time
from collections.abc import Awaitable, Callable
from typing import Any

from server import anchor_app  # (benchmarks/server.py: the same anchor)

Stage = Callable[[int], Awaitable[int]]


def agent_stage(runs: int, chunks: int, delay: float) -> Stage:
    """The agent alone: ``runs`` concurrent runs forwarded to a sink that counts."""
    from codeact import FunctionAgent
    from codeact.llms import Reply, ScriptedLLM

    words = [f"w{i} " for i in range(chunks)]
    agent = FunctionAgent(llm=ScriptedLLM([Reply(chunks=words, chunk_delay=delay)] * 100_000))

    async def stage(_: int) -> int:
        count = 0

        def sink(_: object) -> None:
            nonlocal count
            count += 1

        def text(_: str) -> bool:
            nonlocal count
            count += 1
            return True

        async def one() -> None:
            handler = agent.run("hi")
            handler.forward(sink, text)
            await handler.wait()

        await asyncio.gather(*(one() for _ in range(runs)))
        return count

    return stage


def asgi_stage(app: Any, runs: int) -> Stage:
    """``runs`` concurrent POSTs through ``app``'s ASGI interface; returns the frames sent."""

    async def stage(round_no: int) -> int:
        count = 0

        async def one(i: int) -> None:
            nonlocal count
            body = json.dumps(
                {
                    "threadId": f"t{round_no}-{i}",
                    "runId": f"r{round_no}-{i}",
                    "messages": [{"role": "user", "content": "hi", "id": "m1"}],
                }
            ).encode()
            scope = {
                "type": "http",
                "asgi": {"version": "3.0"},
                "http_version": "1.1",
                "method": "POST",
                "scheme": "http",
                "path": "/",
                "raw_path": b"/",
                "query_string": b"",
                "root_path": "",
                "headers": [
                    (b"host", b"127.0.0.1:8000"),
                    (b"content-type", b"application/json"),
                    (b"accept", b"text/event-stream"),
                    (b"content-length", str(len(body)).encode()),
                ],
                "client": ("127.0.0.1", 10_000 + i),
                "server": ("127.0.0.1", 8000),
                "state": {},
            }
            asked = False
            done = asyncio.Event()

            async def receive() -> dict[str, Any]:
                nonlocal asked
                if not asked:
                    asked = True
                    return {"type": "http.request", "body": body, "more_body": False}
                await done.wait()
                return {"type": "http.disconnect"}

            async def send(message: dict[str, Any]) -> None:
                nonlocal count
                if message["type"] == "http.response.start" and message["status"] != 200:
                    raise RuntimeError(f"status {message['status']}")
                if message["type"] == "http.response.body":
                    count += message.get("body", b"").count(b"data: ")
                    if not message.get("more_body"):
                        done.set()

            await app(scope, receive, send)

        await asyncio.gather(*(one(i) for i in range(runs)))
        return count

    return stage


def server_app(chunks: int, delay: float) -> Any:
    """The codeact app as ``benchmarks/server.py`` serves it."""
    from codeact import FunctionAgent
    from codeact.llms import Reply, ScriptedLLM
    from codeact.server import MemoryStore, create_app

    words = [f"w{i} " for i in range(chunks)]
    agent = FunctionAgent(llm=ScriptedLLM([Reply(chunks=words, chunk_delay=delay)] * 100_000))
    return create_app(agent, store=MemoryStore(), max_sessions=0)


async def measure(args: argparse.Namespace) -> None:
    """Interleaved rounds of the three stages; medians and the differences."""
    server = server_app(args.chunks, args.delay)
    anchor = anchor_app(args.delay, args.chunks)
    stages: dict[str, Stage] = {
        "agent": agent_stage(args.runs, args.chunks, args.delay),
        "server": asgi_stage(server, args.runs),
        "anchor": asgi_stage(anchor, args.runs),
    }
    cpu: dict[str, list[float]] = {name: [] for name in stages}
    rate: dict[str, list[float]] = {name: [] for name in stages}
    async with contextlib.AsyncExitStack() as stack:
        await stack.enter_async_context(server.router.lifespan_context(server))
        for round_no in range(args.rounds + 1):
            for name, stage in stages.items():
                c0, t0 = time.process_time(), time.perf_counter()
                events = await stage(round_no)
                c1, t1 = time.process_time(), time.perf_counter()
                if round_no:  # (round 0: imports and warm-up)
                    cpu[name].append((c1 - c0) / events * 1e6)
                    rate[name].append(events / (t1 - t0))
    med = {name: statistics.median(v) for name, v in cpu.items()}
    print(
        f"{args.runs} concurrent runs x {args.chunks} pieces, {args.delay * 1000:.0f} ms apart; "
        f"medians of {args.rounds} rounds; load average {os.getloadavg()[0]:.2f}"
    )
    for name in stages:
        worst = max(cpu[name])
        print(
            f"  {name:7} CPU {med[name]:6.1f} us/event (worst round {worst:6.1f}); "
            f"{statistics.median(rate[name]):8,.0f} events/s"
        )
    print(
        f"  serving on top of the agent: {med['server'] - med['agent']:.1f} us/event; "
        f"server / anchor {med['server'] / med['anchor']:.2f}x"
    )


def main() -> None:
    """Parse arguments and measure."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=200, help="concurrent runs per round")
    p.add_argument("--chunks", type=int, default=100, help="text pieces per run")
    p.add_argument("--delay", type=float, default=0.01, help="seconds between pieces")
    p.add_argument("--rounds", type=int, default=3, help="measured rounds (after a warm-up)")
    asyncio.run(measure(p.parse_args()))


if __name__ == "__main__":
    main()
