"""An agent factory for `codeact serve --agent tests.server.serve_factory:make` (used by tests)."""

from __future__ import annotations

from codeact import FunctionAgent
from codeact.llms import ScriptedLLM


def make() -> FunctionAgent:
    return FunctionAgent(llm=ScriptedLLM(["served by the CLI"] * 5))
