"""Picklable agent and model factories for ``run_batch`` and the ``codeact batch`` command (they
travel to worker processes and Ray nodes and build the agent, the sandbox and the model there)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from codeact.agents.base import BaseAgent
from codeact.executors import SandboxSpec
from codeact.llms.base import LLM


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
class CodeActAgentFactory:
    """A ``CodeActAgent`` around the worker's LLM, with a fresh sandbox per task as ``executor``
    describes (an ``AgentFactory`` for ``run_batch`` that pickles, so it also runs on Ray)."""

    executor: SandboxSpec = field(default_factory=SandboxSpec)
    max_steps: int = 10
    #: Accept an answer only after code ran without an error (on when the tasks carry files).
    require_execution: bool = False
    #: Run fenced code blocks; None: only for the embedded model.
    lenient_code: bool | None = None
    #: The model rates the code of each answer once (``SelfCheck``).
    self_check: bool = False

    def __call__(self, llm: LLM) -> BaseAgent:
        """The agent, with ``codeact run``'s answer options: code first (when asked), the
        ``@name[...]`` format check, and lenient code blocks for the embedded model."""
        from codeact.agents import command_line_options
        from codeact.agents.code import CodeActAgent

        options = command_line_options(
            llm,
            require_execution=self.require_execution,
            lenient_code=self.lenient_code,
            self_check=self.self_check,
        )
        return CodeActAgent(
            llm=llm, executor=self.executor, max_iterations=self.max_steps, **options
        )
