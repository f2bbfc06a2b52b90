"""What a worker (this process, or one Ray node) needs to run tasks: the spec it gets and the
holder of its LLM."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import anyio.to_thread

from codeact.batch._types import AgentFactory, LLMFactory, LLMScope
from codeact.llms.base import LLM

#: Called with a task's id when a worker starts it.
Started = Callable[[str], None]


@dataclass(frozen=True)
class WorkerSpec:
    """What every worker needs to run tasks (travels to Ray nodes, so it must pickle)."""

    agent_factory: AgentFactory
    llm_factory: LLMFactory
    llm_scope: LLMScope = "worker"
    timeout: float | None = None
    #: Results keep the run's messages (``TaskResult.messages``).
    keep_messages: bool = False


class LLMHolder:
    """Makes the worker's LLM once (``llm_scope="worker"``) or a new one per task (``"task"``,
    for stateful fakes such as ``ScriptedLLM``)."""

    def __init__(self, spec: WorkerSpec) -> None:
        self.spec = spec
        self._llm: LLM | None = None

    async def prepare(self) -> None:
        """Make the worker's LLM now and load its weights if it has any (``load()``, as the
        embedded model has), so that a model that cannot load fails before any task."""
        if self.spec.llm_scope != "worker":
            return
        load = getattr(self.get(), "load", None)
        if callable(load):
            await anyio.to_thread.run_sync(load)

    def get(self) -> LLM:
        """The LLM for the next task."""
        if self.spec.llm_scope == "task":
            return self.spec.llm_factory()
        if self._llm is None:
            self._llm = self.spec.llm_factory()
        return self._llm
