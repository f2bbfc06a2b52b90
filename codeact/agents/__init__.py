"""Agent styles that share one loop, and the workflow that hands off between them."""

from __future__ import annotations

from codeact.agents._answers import command_line_options
from codeact.agents._config import RunConfig
from codeact.agents._handler import RunHandler
from codeact.agents._handoff import HandoffTool
from codeact.agents._loop import start_run
from codeact.agents._runnable import Runnable
from codeact.agents._state import AgentStyle
from codeact.agents._style_state import CodeActRunState, ReActRunState
from codeact.agents.base import BaseAgent, RunOptions, RunState, StepContext
from codeact.agents.code import CodeActAgent, FunctionExecutor
from codeact.agents.function import FunctionAgent
from codeact.agents.react import ReActAgent
from codeact.agents.workflow import AgentWorkflow

__all__ = [
    "AgentStyle",
    "AgentWorkflow",
    "BaseAgent",
    "CodeActAgent",
    "CodeActRunState",
    "FunctionAgent",
    "FunctionExecutor",
    "HandoffTool",
    "ReActAgent",
    "ReActRunState",
    "RunConfig",
    "RunHandler",
    "RunOptions",
    "RunState",
    "Runnable",
    "StepContext",
    "command_line_options",
    "start_run",
]
