"""Model adapters and the LLM seam.

``LLM`` is the base class; ``ScriptedLLM`` and ``FunctionLLM`` drive agents in tests.
``infer_llm("openai:gpt-4o-mini")`` (or ``"local"``, ``"scripted:replies.json"``, a provider
registered in the entry-point group ``codeact.llms``) builds an adapter from its name.
Adapters for real models load lazily so ``import codeact.llms`` pulls in no provider SDK.
"""

from __future__ import annotations

from codeact.errors import LLMError
from codeact.llms._infer import LLMFactory, LLMSpec, infer_llm, llm_providers, parse_llm_spec
from codeact.llms.base import (
    LLM,
    ChatDelta,
    ChatResponse,
    LLMMetadata,
    StreamAccumulator,
    ToolCallDelta,
    sampling,
    sampling_options,
)
from codeact.llms.testing import FunctionLLM, LLMRequest, Reply, ScriptedLLM, tool_call

__all__ = [
    "ChatDelta",
    "ChatResponse",
    "FunctionLLM",
    "LLM",
    "LLMError",
    "LLMFactory",
    "LLMMetadata",
    "LLMRequest",
    "LLMSpec",
    "Reply",
    "ScriptedLLM",
    "StreamAccumulator",
    "ToolCallDelta",
    "infer_llm",
    "llm_providers",
    "parse_llm_spec",
    "sampling",
    "sampling_options",
    "tool_call",
]
