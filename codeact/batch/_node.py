"""The per-node worker of the Ray backend: one Ray actor on each node holds the node's LLM
(made once) and runs that node's tasks, each in its own sandbox on that node.

This module does not import Ray; the driver wraps ``NodeWorker`` with ``ray.remote``.
"""

from __future__ import annotations

import os
import socket

from codeact.batch._runone import run_task
from codeact.batch._types import Task, TaskResult
from codeact.batch._worker import LLMHolder, WorkerSpec


class NodeWorker:
    """Runs tasks on one node. ``ready()`` loads the LLM (or says why it cannot)."""

    def __init__(self, spec: WorkerSpec) -> None:
        import ray

        self.spec = spec
        self.node_id: str = ray.get_runtime_context().get_node_id()
        self.holder = LLMHolder(spec)

    async def ready(self) -> tuple[str, str, str | None]:
        """``(node id, host name, error)``: the error is why the LLM could not be made."""
        try:
            await self.holder.prepare()
        except Exception as exc:
            return self.node_id, socket.gethostname(), f"{type(exc).__name__}: {exc}"
        return self.node_id, socket.gethostname(), None

    async def run(self, task: Task, attempt: int) -> TaskResult:
        """Run one task here (a fresh agent and sandbox; the node's shared LLM)."""
        return await run_task(
            task,
            self.spec.agent_factory,
            self.holder.get(),
            timeout=self.spec.timeout,
            node=self.node_id,
            attempt=attempt,
            keep_messages=self.spec.keep_messages,
        )

    async def pid(self) -> int:
        """This worker's process id (tests use it to find its sandboxes)."""
        return os.getpid()
