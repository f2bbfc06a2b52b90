"""codeact: agents that solve tasks by writing and running code in a real sandbox.

Importing ``codeact`` loads no optional dependency (docker, uvicorn, provider SDKs);
backends load when first used.
"""

from __future__ import annotations

from codeact._messages import BinaryPart, ChatMessage, TextPart, ToolCallRequest
from codeact._version import __version__
from codeact.agents import (
    AgentWorkflow,
    BaseAgent,
    CodeActAgent,
    FunctionAgent,
    ReActAgent,
    RunHandler,
)
from codeact.context import Context
from codeact.errors import CodeActError, RunError, UserError
from codeact.executors import CodeExecutor, ExecutionResult
from codeact.executors.restricted import RestrictedExecutor
from codeact.memory import ChatMemory
from codeact.tools import BaseTool, FunctionTool, ToolOutput

__all__ = [
    "AgentWorkflow",
    "BaseAgent",
    "BaseTool",
    "BinaryPart",
    "ChatMemory",
    "ChatMessage",
    "CodeActAgent",
    "CodeActError",
    "CodeExecutor",
    "Context",
    "ExecutionResult",
    "FunctionAgent",
    "FunctionTool",
    "ReActAgent",
    "RestrictedExecutor",
    "RunError",
    "RunHandler",
    "TextPart",
    "ToolCallRequest",
    "ToolOutput",
    "UserError",
    "__version__",
]
