"""codeact: agents that solve tasks by writing and running code in a real sandbox.

Importing ``codeact`` loads no optional dependency (docker, uvicorn, provider SDKs);
backends load when first used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

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
from codeact.errors import CodeActError, ExecutorError, LLMError, RunError, UserError
from codeact.executors import CodeExecutor, ExecutionResult
from codeact.executors.restricted import RestrictedExecutor
from codeact.mcp import MCPServer
from codeact.memory import ChatMemory
from codeact.tools import BaseTool, FunctionTool, ToolOutput

if TYPE_CHECKING:
    from codeact.executors.docker import DockerExecutor

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
    "DockerExecutor",
    "ExecutionResult",
    "ExecutorError",
    "FunctionAgent",
    "FunctionTool",
    "LLMError",
    "MCPServer",
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


def __getattr__(name: str) -> Any:
    if name == "DockerExecutor":  # loaded on first use: no docker SDK at ``import codeact``
        from codeact.executors.docker import DockerExecutor

        return DockerExecutor
    raise AttributeError(f"module 'codeact' has no attribute {name!r}")
