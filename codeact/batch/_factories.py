"""Picklable agent and model factories for the ``codeact batch`` command (they travel to Ray
nodes and build the agent, the sandbox and the model there)."""

from __future__ import annotations

import argparse
import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from codeact.agents.base import BaseAgent
from codeact.executors.base import CodeExecutor
from codeact.llms.base import LLM

if TYPE_CHECKING:
    from codeact.executors.restricted.defaults import SandboxChoice


def resolve_llm(model: str | None, base_url: str | None) -> LLM:
    """The model named by ``--model`` (``local``, a model name on an OpenAI-compatible server)."""
    # TODO(merge): use codeact.llms.infer_llm(spec) once the CLI package lands.
    from codeact._cli_run import make_llm

    return make_llm(argparse.Namespace(model=model, base_url=base_url), lambda _msg: None)


@dataclass(frozen=True)
class ModelFactory:
    """Makes the named model (once per worker: the embedded model loads once per node)."""

    model: str | None = None
    base_url: str | None = None

    def __call__(self) -> LLM:
        return resolve_llm(self.model, self.base_url)


@dataclass(frozen=True)
class ScriptedFactory:
    """A fresh ``ScriptedLLM`` replaying ``replies`` (read on the driver, so the file need not
    exist on the nodes). Use it with ``llm_scope="task"``: scripted replies are consumed."""

    replies: tuple[Any, ...]
    name: str = "scripted"

    def __call__(self) -> LLM:
        from codeact.llms import ScriptedLLM

        return ScriptedLLM(list(self.replies), function_calling=False, model_name=self.name)


@dataclass(frozen=True)
class ExecutorFactory:
    """A fresh sandbox per task, chosen as ``codeact run`` chooses it."""

    executor: str = "restricted"
    isolation: str = "process"
    allow: tuple[str, ...] | None = None
    os_sandbox: str = "auto"
    cell_timeout: float = 60.0

    def choice(self) -> SandboxChoice:
        """What the restricted sandbox will be on this machine (options and a sentence)."""
        from codeact.executors.restricted.defaults import choose_sandbox

        return choose_sandbox(
            self.allow,
            isolation=self.isolation,  # type: ignore[arg-type]
            os_sandbox=self.os_sandbox,  # type: ignore[arg-type]
        )

    def __call__(self) -> CodeExecutor:
        from codeact.executors import get_executor

        if self.executor != "restricted":
            return get_executor(self.executor)
        from codeact.executors.restricted._ossandbox import UnsandboxedWarning
        from codeact.executors.restricted.executor import RestrictedExecutor

        choice = self.choice()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UnsandboxedWarning)  # the CLI prints the choice
            return RestrictedExecutor(
                isolation=choice.isolation,
                os_sandbox=choice.os_sandbox,
                allowed_modules=choice.allowed_modules,
                timeout=self.cell_timeout,
            )


@dataclass(frozen=True)
class AgentFactory:
    """A ``CodeActAgent`` around the worker's LLM, with its own sandbox per task."""

    executor: ExecutorFactory = field(default_factory=ExecutorFactory)
    max_steps: int = 10

    def __call__(self, llm: LLM) -> BaseAgent:
        from codeact.agents.codeact import CodeActAgent

        return CodeActAgent(llm=llm, executor=self.executor, max_iterations=self.max_steps)
