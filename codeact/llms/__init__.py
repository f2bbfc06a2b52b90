"""Model adapters and the LLM seam.

``LLM`` is the base class; ``ScriptedLLM`` and ``FunctionLLM`` drive agents in tests.
Adapters for real models load lazily so ``import codeact.llms`` pulls in no provider SDK.
"""

from __future__ import annotations

from codeact.llms.base import (
    LLM,
    ChatDelta,
    ChatResponse,
    LLMMetadata,
    StreamAccumulator,
    ToolCallDelta,
)
from codeact.llms.testing import FunctionLLM, LLMRequest, Reply, ScriptedLLM, tool_call

__all__ = [
    "ChatDelta",
    "ChatResponse",
    "FunctionLLM",
    "LLM",
    "LLMMetadata",
    "LLMRequest",
    "Reply",
    "ScriptedLLM",
    "StreamAccumulator",
    "ToolCallDelta",
    "tool_call",
]
