"""Picklable agent and model factories for the ``codeact batch`` command (they travel to Ray
nodes and build the agent, the sandbox and the model there)."""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from codeact.agents.base import BaseAgent
from codeact.executors.base import CodeExecutor
from codeact.llms.base import LLM

if TYPE_CHECKING:
    from codeact.executors.restricted.defaults import SandboxChoice


def resolve_llm(model: str | None, base_url: str | None) -> LLM:
    """The model named by ``--model`` (any ``codeact.llms.infer_llm`` spec; default
    ``$CODEACT_MODEL``, else the embedded model)."""
    from codeact.llms import infer_llm

    return infer_llm(model or os.environ.get("CODEACT_MODEL") or "local", base_url=base_url)


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
        from codeact.llms import Reply, ScriptedLLM

        # Items are reply texts or objects with Reply fields, as for `--model scripted:` in run.
        replies = [r if isinstance(r, str) else Reply.model_validate(r) for r in self.replies]
        return ScriptedLLM(replies, function_calling=False, model_name=self.name)


@dataclass(frozen=True)
class ExecutorFactory:
    """A fresh sandbox per task, chosen as ``codeact run`` chooses it."""

    executor: str = "restricted"
    isolation: str = "process"
    allow: tuple[str, ...] | None = None
    os_sandbox: str = "auto"
    cell_timeout: float = 60.0
    memory_mb: int = 2048
    disk_mb: int = 1024
    cpus: float | None = 1.0

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

        if self.executor == "ray":  # on the cluster batch --ray uses (or RAY_ADDRESS)
            from codeact.executors.ray import RayExecutor

            return RayExecutor.with_limits(
                address=None,
                allowed_modules=self.choice().allowed_modules,
                os_sandbox=self.os_sandbox,
                cell_timeout=self.cell_timeout,
                memory_mb=self.memory_mb,
                disk_mb=self.disk_mb,
                cpus=self.cpus,
            )
        if self.executor != "restricted":
            return get_executor(self.executor)
        from codeact.executors.restricted import UnsandboxedWarning
        from codeact.executors.restricted.executor import RestrictedExecutor

        choice = self.choice()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UnsandboxedWarning)  # the CLI prints the choice
            return RestrictedExecutor(
                isolation=choice.isolation,
                os_sandbox=choice.os_sandbox,
                allowed_modules=choice.allowed_modules,
                timeout=self.cell_timeout,
                memory_limit_mb=self.memory_mb,
                disk_limit_mb=self.disk_mb,
                cpus=self.cpus,
            )


@dataclass(frozen=True)
class AgentFactory:
    """A ``CodeActAgent`` around the worker's LLM, with its own sandbox per task."""

    executor: ExecutorFactory = field(default_factory=ExecutorFactory)
    max_steps: int = 10
    #: Accept an answer only after code ran without an error (on when the tasks carry files).
    require_execution: bool = False
    #: Run fenced code blocks; None: only for the embedded model.
    lenient_code: bool | None = None

    def __call__(self, llm: LLM) -> BaseAgent:
        """The agent, with ``codeact run``'s answer options: code first (when asked), the
        ``@name[...]`` format check, and lenient code blocks for the embedded model."""
        from codeact.agents import command_line_options
        from codeact.agents.codeact import CodeActAgent

        options = command_line_options(
            llm, require_execution=self.require_execution, lenient_code=self.lenient_code
        )
        return CodeActAgent(
            llm=llm, executor=self.executor, max_iterations=self.max_steps, **options
        )
