"""The server's life around its runs: health, recovery after a crash, the drain on shutdown,
and what the served agent needs (a sandbox? agents' names?)."""

from __future__ import annotations

import contextlib
import logging
from typing import TYPE_CHECKING, Any

import anyio
from starlette.responses import JSONResponse, Response

from codeact.agents import Runnable
from codeact.server import _turns

if TYPE_CHECKING:
    from codeact.server._app import AGUIServer

log = logging.getLogger("codeact.server")
#: ``/healthz`` answers within this many seconds whatever the store does (503 past it).
HEALTH_S = 0.5


async def healthz(server: AGUIServer) -> Response:
    """200 with the store's report, or 503 when it does not answer within ``HEALTH_S``."""
    inner = server.store.inner

    async def check() -> dict[str, Any]:
        await inner.ping()
        return await inner.health()

    try:
        database = await server.store.call(check, timeout=HEALTH_S)
    except Exception as exc:
        log.warning("health check: the store is unreachable: %r", exc)
        body = {"status": "degraded", "store": "unreachable", "liveRuns": len(server.live)}
        return JSONResponse(body, status_code=503)
    status = "draining" if server.draining else "ok"
    body = {"status": status, "store": "ok", "liveRuns": len(server.live)}
    return JSONResponse({**body, "database": database} if database else body)


async def recover(server: AGUIServer) -> None:
    """Runs left ``running`` by a process that died are marked interrupted."""
    for key, run_id in await server.store.running_runs():
        try:
            await _turns.mark_interrupted(server.store, key, run_id)
            log.warning("run %r on thread %r was interrupted by a restart", run_id, key[2])
        except Exception:
            log.exception("marking run %r interrupted failed", run_id)


async def drain(server: AGUIServer, timeout: float) -> None:
    """Stop accepting runs, let live ones finish for ``timeout`` s, cancel the rest."""
    server.draining = True
    had_runs = bool(server.unrecorded)
    with anyio.move_on_after(timeout):
        while server.unrecorded:
            await next(iter(server.unrecorded)).done.wait()
    for live in list(server.live.values()):
        if live.handler is not None:
            log.warning("drain timeout: cancelling run %r", live.run_id)
            with contextlib.suppress(Exception):
                await live.handler.cancel()
    with anyio.move_on_after(10):
        for live in list(server.unrecorded):
            await live.done.wait()
    if had_runs:
        await anyio.sleep(0.6)  # let the readers write the terminal events


def is_workflow(agent: Runnable) -> bool:
    """Whether ``agent`` is a workflow of several agents (its messages carry their names)."""
    from codeact.agents.workflow import AgentWorkflow

    return isinstance(agent, AgentWorkflow)


def runs_code(agent: Runnable) -> bool:
    """Whether ``agent`` may start a sandbox (unknown kinds of agent: yes)."""
    from codeact.agents import FunctionAgent, ReActAgent
    from codeact.agents.workflow import AgentWorkflow

    if isinstance(agent, AgentWorkflow):
        return any(runs_code(a) for a in agent.agents.values())
    return not isinstance(agent, FunctionAgent | ReActAgent)
