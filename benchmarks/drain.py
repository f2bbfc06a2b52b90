"""The drain on shutdown: seconds from the client's terminal event to the end of
``AGUIServer.drain()`` with one live run and one reader (negative: the drain ended before the
run did).

Run by hand against a checkout: ``PYTHONPATH=DIR .venv/bin/python benchmarks/drain.py N``
(N rounds; prints them as JSON). Before the drain waited on its readers it slept 0.6 s.
"""

from __future__ import annotations

import asyncio
import json
import socket
import sys
import time
from typing import Any

import httpx

from codeact import FunctionAgent
from codeact.llms import Reply, ScriptedLLM
from codeact.server import MemoryStore, create_app

try:
    from codeact.server import make_server
except ImportError:  # (an older checkout)
    from codeact.server._uvicorn import make_server  # type: ignore[no-redef]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def live_runs(server: Any) -> int:
    return len(getattr(server, "runs", None) or getattr(server, "live", {}))


async def once() -> float:
    words = [f"w{i} " for i in range(20)]
    agent = FunctionAgent(llm=ScriptedLLM([Reply(chunks=words, chunk_delay=0.01)] * 3))
    app = create_app(agent, store=MemoryStore())
    port = free_port()
    srv = make_server(app, host="127.0.0.1", port=port)
    serving = asyncio.create_task(srv.serve())
    while not srv.started:  # noqa: ASYNC110  (uvicorn offers no event for it)
        await asyncio.sleep(0.01)
    body = {"threadId": "t", "runId": "r1", "messages": [{"role": "user", "content": "go"}]}
    ended: list[float] = []

    async def read() -> None:
        url = f"http://127.0.0.1:{port}/"
        async with httpx.AsyncClient(timeout=30) as c, c.stream("POST", url, json=body) as r:
            async for line in r.aiter_lines():
                if '"RUN_FINISHED"' in line or '"RUN_ERROR"' in line:
                    ended.append(time.perf_counter())

    reader = asyncio.create_task(read())
    while not live_runs(app.state.server):  # noqa: ASYNC110  (the run is claimed: drain now)
        await asyncio.sleep(0.001)
    await app.state.server.drain(10)
    drained = time.perf_counter()
    await reader
    srv.should_exit = True
    await serving
    return drained - ended[0]


if __name__ == "__main__":
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    print(json.dumps([round(asyncio.run(once()), 4) for _ in range(rounds)]))
