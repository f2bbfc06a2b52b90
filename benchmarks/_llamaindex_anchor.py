"""LlamaIndex anchor for benchmarks/loop_overhead.py: the same N-step tool-calling run through
llama-index-core's FunctionAgent, with a scripted function-calling LLM. Imported only when
llama-index-core is installed."""

from __future__ import annotations

import statistics
import time

from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.base.llms.types import ChatMessage, ChatResponse, LLMMetadata
from llama_index.core.llms.function_calling import FunctionCallingLLM
from llama_index.core.llms.llm import ToolSelection
from llama_index.core.tools import FunctionTool

STEPS = 10


class Scripted(FunctionCallingLLM):
    step: int = 0

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(is_function_calling_model=True, is_chat_model=True)

    def _reply(self) -> ChatResponse:
        self.step += 1
        if self.step < STEPS:
            return ChatResponse(
                message=ChatMessage(
                    role="assistant",
                    content="",
                    additional_kwargs={
                        "tool_calls": [{"id": f"c{self.step}", "name": "noop", "x": self.step}]
                    },
                )
            )
        return ChatResponse(message=ChatMessage(role="assistant", content="done"))

    def _prepare_chat_with_tools(self, tools, **kw):
        return {"messages": kw.get("chat_history") or [], "tools": tools}

    def get_tool_calls_from_response(self, response, error_on_no_tool_call=False, **kw):
        calls = response.message.additional_kwargs.get("tool_calls", [])
        return [
            ToolSelection(tool_id=c["id"], tool_name=c["name"], tool_kwargs={"x": c["x"]})
            for c in calls
        ]

    async def achat(self, messages, **kw):
        return self._reply()

    async def astream_chat(self, messages, **kw):
        r = self._reply()

        async def gen():
            yield ChatResponse(message=r.message, delta=r.message.content or "")

        return gen()

    def chat(self, messages, **kw):
        return self._reply()

    def stream_chat(self, messages, **kw):
        raise NotImplementedError

    def complete(self, *a, **k):
        raise NotImplementedError

    def stream_complete(self, *a, **k):
        raise NotImplementedError

    async def acomplete(self, *a, **k):
        raise NotImplementedError

    async def astream_complete(self, *a, **k):
        raise NotImplementedError


def noop(x: int) -> int:
    """Return x."""
    return x


async def _one(steps: int) -> float:
    agent = FunctionAgent(llm=Scripted(), tools=[FunctionTool.from_defaults(noop)])
    t0 = time.perf_counter()
    handler = agent.run("go", max_iterations=steps + 1)  # its limit counts one more step
    async for _ in handler.stream_events():
        pass
    result = await handler
    assert "done" in str(result), result
    return (time.perf_counter() - t0) / steps


async def measure_llamaindex(steps: int, runs: int) -> float:
    """Median seconds per step."""
    for _ in range(5):
        await _one(steps)
    return statistics.median([await _one(steps) for _ in range(runs)])
