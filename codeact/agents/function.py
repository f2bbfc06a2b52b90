"""FunctionAgent: an agent for LLMs with native tool calling."""

from __future__ import annotations

from typing import Any

from codeact._messages import ChatMessage
from codeact.agents.base import BaseAgent, StepContext
from codeact.errors import UserError
from codeact.events import AgentOutput
from codeact.llms.base import StreamAccumulator, ToolChoice
from codeact.tools import BaseTool


class FunctionAgent(BaseAgent):
    """Calls tools through the LLM's native tool-calling API.

    ``allow_parallel_tool_calls=False`` runs only the first call of a step; ``initial_tool_choice``
    is sent when the last input message is the user's (e.g. ``"required"`` or a tool name).
    """

    def __init__(
        self,
        *,
        allow_parallel_tool_calls: bool = True,
        initial_tool_choice: ToolChoice | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.allow_parallel_tool_calls = allow_parallel_tool_calls
        self.initial_tool_choice = initial_tool_choice

    async def take_step(
        self, step: StepContext, llm_input: list[ChatMessage], tools: list[BaseTool]
    ) -> AgentOutput:
        """Stream one reply with tools offered; return its text and tool calls."""
        meta = self.llm.metadata
        if not meta.is_function_calling_model:
            raise UserError(
                f"The LLM {meta.model_name!r} does not support native tool calling, which "
                f"FunctionAgent needs. Use ReActAgent or CodeActAgent with this model instead."
            )
        choice = self.initial_tool_choice if llm_input and llm_input[-1].role == "user" else None
        acc = StreamAccumulator()
        specs = [t.metadata for t in tools] or None
        emit_text, buffer = step.handler._emit_text, acc.buffer
        async for delta in self.llm.stream_chat(llm_input, specs, choice if specs else None):
            text = delta.text
            if text and type(text) is str and not delta.thinking and not delta.tool_calls:
                emit_text(buffer, text, step.message_id)  # (most pieces; as acc.add would)
                continue
            acc.add(delta)
            if delta.text or delta.thinking or delta.tool_calls:
                step.handler._emit_piece(
                    acc.buffer,
                    delta.text,
                    appended=True,
                    message_id=step.message_id,
                    thinking_delta=delta.thinking or None,
                    tool_calls=acc.tool_calls(partial=True) if delta.tool_calls else None,
                )
        calls = acc.tool_calls()
        if not self.allow_parallel_tool_calls:
            calls = calls[:1]
        text = acc.text
        if not calls and not text.strip() and acc.thinking.strip():
            text = acc.thinking.strip()  # some reasoning models put the answer in thinking only
        return AgentOutput(response=ChatMessage.assistant(text, calls), tool_calls=calls)
