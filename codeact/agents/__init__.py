"""Agent styles that share one loop."""

from __future__ import annotations

from codeact.agents._handler import RunHandler
from codeact.agents.base import BaseAgent, RunState, StepContext
from codeact.agents.function import FunctionAgent

__all__ = ["BaseAgent", "FunctionAgent", "RunHandler", "RunState", "StepContext"]
