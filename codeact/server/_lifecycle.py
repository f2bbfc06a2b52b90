"""The server's life around its runs: health, recovery after a crash, and what the served
agent needs (a sandbox? agents' names?). The drain on shutdown is ``LiveRuns.drain``."""

from __future__ import annotations

import logging
from typing import Any

from starlette.responses import JSONResponse, Response

from codeact.agents import Runnable
from codeact.server import _turns
from codeact.server._timed import TimedStore
from codeact.server.store import SessionKey

log = logging.getLogger("codeact.server")
#: ``/healthz`` answers within this many seconds whatever the store does (503 past it).
HEALTH_S = 0.5


async def healthz(store: TimedStore, live_runs: int, draining: bool) -> Response:
    """200 with the store's report, or 503 when it does not answer within ``HEALTH_S``."""
    inner = store.inner

    async def check() -> dict[str, Any]:
        await inner.ping()
        return await inner.health()

    try:
        database = await store.call(check, timeout=HEALTH_S)
    except Exception as exc:
        log.warning("health check: the store is unreachable: %r", exc)
        body = {"status": "degraded", "store": "unreachable", "liveRuns": live_runs}
        return JSONResponse(body, status_code=503)
    status = "draining" if draining else "ok"
    body = {"status": status, "store": "ok", "liveRuns": live_runs}
    return JSONResponse({**body, "database": database} if database else body)


async def recover(store: TimedStore) -> None:
    """Runs left ``running`` by a process that died are marked interrupted."""
    for key, run_id in await store.running_runs():
        try:
            await _turns.mark_interrupted(store, key, run_id)
            thread = SessionKey(*key).thread
            log.warning("run %r on thread %r was interrupted by a restart", run_id, thread)
        except Exception:
            log.exception("marking run %r interrupted failed", run_id)


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
