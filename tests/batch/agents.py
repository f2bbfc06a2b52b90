"""Agents and models for the batch tests. Module-level, so they pickle by reference and reach
Ray workers (which import this module: the tests put the repository on PYTHONPATH).

A task's prompt tells the fake model what to do:
``code:<python>`` runs that cell (which usually calls ``final_answer``); ``tag:<python>`` the
same with ``TAG`` replaced by the model instance's tag (which process and which instance made
it); ``llm-error`` makes the model raise; anything else is answered as plain text.
"""

from __future__ import annotations

import os
import uuid
from typing import Any

from codeact import CodeActAgent
from codeact.agents.base import BaseAgent
from codeact.errors import LLMError
from codeact.executors.restricted.defaults import default_executor
from codeact.llms import FunctionLLM
from codeact.llms.base import LLM

MADE: list[str] = []


class TaskModel:
    """The reply function: the first reply follows the task's directive, the next ones end."""

    def __init__(self) -> None:
        self.tag = f"{os.getpid()}-{uuid.uuid4().hex[:8]}"

    def __call__(self, messages: list[Any], tools: list[Any]) -> str:
        prompt = next(m.text for m in messages if m.role == "user")
        replied = sum(1 for m in messages if m.role == "assistant")
        if prompt.startswith("llm-error"):
            raise LLMError("the model is down")
        if replied:
            return "done"
        for prefix in ("code:", "tag:"):
            if prompt.startswith(prefix):
                code = prompt[len(prefix) :].split("\n\nFiles in the working directory")[0]
                code = code.replace("TAG", self.tag) if prefix == "tag:" else code
                return f"<execute>\n{code}\n</execute>"
        return f"plain answer to {prompt}"


def make_llm() -> LLM:
    """A fresh fake model (the batch makes one per worker)."""
    model = TaskModel()
    MADE.append(model.tag)
    return FunctionLLM(model, function_calling=False, model_name=f"fn-{model.tag}")


def failing_llm() -> LLM:
    """A model that cannot be made (as when weights are missing)."""
    raise LLMError("no weights on this machine")


def make_agent(llm: LLM) -> BaseAgent:
    """A CodeAct agent with the default sandbox: a process worker inside bubblewrap."""
    return CodeActAgent(llm=llm, executor=lambda: default_executor(timeout=60), max_iterations=3)
