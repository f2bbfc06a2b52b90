"""BaseAgent: configuration and the per-style hooks the shared loop calls.

A subclass implements ``take_step`` (ask the LLM, return an ``AgentOutput`` whose ``tool_calls``
are the actions to run) and may override how the typed transcript is rendered in its text
protocol for the LLM (``render_messages``). Memory keeps the same typed turns for every style.
Everything else — iterations, tools, events, memory, state, cancellation, handoff — is the shared
loop's job (``codeact.agents._loop``).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import anyio
from pydantic import BaseModel
from pydantic_core import to_jsonable_python

from codeact._messages import ChatMessage
from codeact.agents._handler import RunHandler
from codeact.agents._render import render_code_rounds
from codeact.agents._runnable import Runnable
from codeact.agents._state import DEFAULT_STATE_PROMPT as DEFAULT_STATE_PROMPT
from codeact.agents._state import EarlyStopping as EarlyStopping
from codeact.agents._state import RunOptions as RunOptions
from codeact.agents._state import RunState as RunState
from codeact.agents._state import StepContext as StepContext
from codeact.agents._state import StructuredOutputFn as StructuredOutputFn
from codeact.context import Context
from codeact.errors import UserError
from codeact.events import AgentOutput, TextBuffer, ToolCallResult
from codeact.executors.base import ExecutionResult
from codeact.llms.base import LLM
from codeact.tools import BaseTool, to_tool

if TYPE_CHECKING:
    from codeact.agents._config import RunConfig
    from codeact.mcp import MCPServer

DEFAULT_NAME = "Agent"


class BaseAgent(Runnable, ABC):
    """Common configuration of all agents and the hooks the shared loop calls."""

    #: How many tool calls of one step may run at once (1 = one after another, in order).
    tool_concurrency: int = 4

    def __init__(
        self,
        *,
        llm: LLM,
        tools: Sequence[BaseTool | Callable[..., Any]] = (),
        system_prompt: str | None = None,
        name: str = DEFAULT_NAME,
        description: str = "",
        max_iterations: int = 20,
        early_stopping_method: EarlyStopping = "force",
        output_cls: type[BaseModel] | None = None,
        structured_output_fn: StructuredOutputFn | None = None,
        initial_state: dict[str, Any] | None = None,
        state_prompt: str = DEFAULT_STATE_PROMPT,
        timeout: float | None = None,
        can_handoff_to: Sequence[str] | None = None,
        mcp_servers: Sequence[MCPServer] = (),
    ) -> None:
        if max_iterations < 1:
            raise UserError(f"max_iterations must be at least 1, got {max_iterations}")
        if early_stopping_method not in ("force", "generate"):
            raise UserError(
                "early_stopping_method must be 'force' or 'generate', "
                f"got {early_stopping_method!r}"
            )
        if "{state}" not in state_prompt or "{msg}" not in state_prompt:
            raise UserError("state_prompt must contain the placeholders {state} and {msg}")
        self.llm = llm
        self.tools: list[BaseTool] = [to_tool(t) for t in tools]
        names = [t.name for t in self.tools]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise UserError(f"Two tools share the name(s) {dupes}; tool names must be unique")
        self.system_prompt = system_prompt
        self.name = name
        self.description = description
        self.max_iterations = max_iterations
        self.early_stopping_method: EarlyStopping = early_stopping_method
        self.output_cls = output_cls
        self.structured_output_fn = structured_output_fn
        self.initial_state = initial_state
        self.state_prompt = state_prompt
        self.timeout = timeout
        self.can_handoff_to = list(can_handoff_to) if can_handoff_to is not None else None
        self.mcp_servers: list[MCPServer] = []
        if mcp_servers:
            from codeact.mcp import check_servers

            self.mcp_servers = check_servers(mcp_servers, [t.name for t in self.tools])

    # -- hooks for agent styles ----------------------------------------------------------------
    @abstractmethod
    async def take_step(
        self, step: StepContext, llm_input: list[ChatMessage], tools: list[BaseTool]
    ) -> AgentOutput:
        """Ask the LLM once and return its output; emit ``AgentStream`` events while streaming."""

    def system_message(self, tools: list[BaseTool]) -> ChatMessage | None:
        """The system message sent first on every step (never stored in memory)."""
        return ChatMessage.system(self.system_prompt) if self.system_prompt else None

    def offered_tools(self, tools: list[BaseTool]) -> list[BaseTool]:
        """The tools given to the LLM for a step (CodeAct hides them behind ``execute``)."""
        return tools

    def render_messages(self, messages: list[ChatMessage]) -> list[ChatMessage]:
        """The typed transcript (history and this run's rounds) as this style's LLM sees it.
        Native tool calling sends tool rounds as they are; rounds of code blocks (written by
        a CodeActAgent of a workflow) are shown as CodeAct's text."""
        return render_code_rounds(messages)

    def record_tool_round(
        self, run: RunState, output: AgentOutput, results: list[ToolCallResult]
    ) -> None:
        """Write one step's request and its results (in call order) into the scratchpad as
        typed turns: the reply with its calls, then a tool message per result (code cells
        keep their ``ExecutionResult``). Styles extend this to update their run state."""
        run.scratchpad.append(output.response.model_copy(update={"tool_calls": output.tool_calls}))
        for res in results:
            execution = _cell_result(res.execution)
            run.scratchpad.append(
                ChatMessage.tool(
                    res.tool_output.content, res.tool_id, name=res.tool_name, execution=execution
                )
            )

    def final_messages(self, run: RunState, output: AgentOutput) -> list[ChatMessage]:
        """The messages a finished run adds to memory (default: scratchpad + final answer)."""
        return [*run.scratchpad, output.response]

    async def prepare(self, ctx: Context) -> None:
        """Called before the agent's tools are listed for a run: connects its MCP servers for
        ``ctx`` (once; they stop when the context is closed)."""
        if self.mcp_servers:
            from codeact.mcp import context_toolset

            taken = [t.name for t in self.tools]
            await context_toolset(ctx, f"mcp:{self.name}", self.mcp_servers, taken)

    def context_tools(self, ctx: Context) -> list[BaseTool]:
        """Tools this agent has in ``ctx`` only: those of its connected MCP servers."""
        held = ctx.resource(f"mcp:{self.name}") if self.mcp_servers else None
        return list(getattr(held, "tools", []))

    async def on_activate(self, ctx: Context, tools: list[BaseTool]) -> None:
        """Called when the agent becomes active in a run (e.g. to start an executor session)."""

    def check_final(self, step: StepContext, output: AgentOutput) -> AgentOutput:
        """A last look at a final answer that a tool produced directly (``final_answer`` from
        code): return it, or an output with ``retry_messages`` to send the model back."""
        return output

    def direct_output(self, run: RunState, result: ToolCallResult) -> AgentOutput:
        """The run's result when a tool call ends it (``return_direct``)."""
        return AgentOutput(
            response=ChatMessage.assistant(result.tool_output.content),
            raw=result.tool_output.raw_output,
        )

    def answer_from_round(self, run: RunState) -> AgentOutput | None:
        """The run's result from the tool round its last step asked for itself
        (``raw[ANSWER_FROM_CALLS]``: no LLM step is left to read it); None ends the run as the
        iteration limit does."""
        return None

    def tools_for_run(self) -> list[BaseTool]:
        """The agent's own tools (a workflow adds ``handoff``)."""
        return list(self.tools)

    async def stream_text(
        self,
        step: StepContext,
        llm_input: list[ChatMessage],
        stop: Callable[[str], bool] | None = None,
    ) -> str:
        """Stream a plain-text reply (no native tools), emitting ``AgentStream`` events;
        ``stop(text)``, asked after each piece that ends a line, ends the reply early (the
        request is closed: a model looping on the same lines stops costing time)."""
        text = TextBuffer()
        emit_text = step.handler._emit_text
        stream = self.llm.stream_chat(llm_input)
        try:
            async for delta in stream:
                piece = delta.text
                if piece and type(piece) is str and not delta.thinking:
                    emit_text(text, piece, step.message_id)  # (most pieces)
                    if stop is not None and "\n" in piece and stop(text.text()):
                        break
                elif piece or delta.thinking:
                    step.handler._emit_piece(
                        text,
                        delta.text,
                        message_id=step.message_id,
                        thinking_delta=delta.thinking or None,
                    )
        finally:
            close = getattr(stream, "aclose", None)
            if close is not None:  # (at once, not when collected: the request ends now)
                await close()
        return text.text()

    # -- running -------------------------------------------------------------------------------
    def run_config(self, options: RunOptions | None = None) -> RunConfig:
        """The ``RunConfig`` of a run of this agent alone (``run`` starts one with it)."""
        from codeact.agents._config import build_config

        return build_config(self, options, agents={self.name: self}, root=self.name)

    def run_sync(self, user_msg: str | ChatMessage | None = None, **kwargs: Any) -> AgentOutput:
        """Run to completion from plain code or from inside a running loop (notebooks)."""
        return run_sync(lambda: self.run(user_msg, **kwargs))


def _cell_result(execution: dict[str, Any] | None) -> ExecutionResult | None:
    """A cell's result as kept in memory: its ``final_answer`` made JSON data (stores write
    JSON; a custom executor may hand over any object, which is kept as its ``repr``)."""
    if not execution:
        return None
    result = ExecutionResult.model_validate(execution)
    if result.final_answer is not None:
        plain = to_jsonable_python(result.final_answer, fallback=repr)
        result = result.model_copy(update={"final_answer": plain})
    return result


def run_sync(start: Callable[[], RunHandler]) -> AgentOutput:
    """Drive a run to completion synchronously, also when an event loop is already running."""

    async def main() -> AgentOutput:
        return await start()

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return anyio.run(main)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(anyio.run, main).result()
