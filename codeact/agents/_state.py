"""What one run of one agent carries through the loop: its state and each step's context.

Kept apart from ``base`` so the loop and the agents both build on it without importing each
other.
"""

from __future__ import annotations

import uuid
import warnings
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar

from pydantic import BaseModel

from codeact._messages import ChatMessage
from codeact.agents._handler import RunHandler
from codeact.agents._style_state import CodeActRunState, ReActRunState
from codeact.context import Context
from codeact.events import AgentOutput, ToolCallResult
from codeact.llms.base import LLM
from codeact.tools import BaseTool

S = TypeVar("S")
EarlyStopping = Literal["force", "generate"]
DEFAULT_STATE_PROMPT = "Current state:\n{state}\n\nCurrent message:\n{msg}\n"
StructuredOutputFn = Callable[[list[ChatMessage]], "dict[str, Any] | BaseModel | Awaitable[Any]"]


@dataclass(frozen=True)
class RunOptions:
    """The per-run options of ``run(...)``, over the runnable's own settings (``None`` or
    empty: the runnable's setting applies)."""

    max_iterations: int | None = None
    early_stopping_method: EarlyStopping | None = None
    timeout: float | None = None
    #: Tools the caller executes (``ClientTool``); server tools win on name clashes.
    client_tools: Sequence[BaseTool] = ()
    #: Extra system messages for this run only (sent after the system prompt, never stored).
    instructions: Sequence[str] = ()


@dataclass
class RunState:
    """What one run accumulates in the shared loop (not persisted beyond the run). An agent
    style's own per-run data lives in an object of its own: ``run.state_of(MyRunState)``."""

    user_msg: str
    #: This run's complete tool rounds (typed turns), moved to memory when the run ends.
    scratchpad: list[ChatMessage] = field(default_factory=list)
    retry_messages: list[ChatMessage] = field(default_factory=list)
    tool_results: list[ToolCallResult] = field(default_factory=list)
    iterations: int = 0
    #: The run's step limit (0: unknown), so an agent can tell its last step.
    max_iterations: int = 0
    #: Free-form per-run data (prefer a typed object of the style's own: ``state_of``).
    extra: dict[str, Any] = field(default_factory=dict)
    _styles: dict[type, Any] = field(default_factory=dict, repr=False)

    def state_of(self, kind: type[S]) -> S:
        """This run's object of type ``kind`` (made with ``kind()`` on first use): where an
        agent style keeps its per-run data, typed, e.g. ``run.state_of(CodeActRunState)``."""
        found = self._styles.get(kind)
        if found is None:
            found = self._styles[kind] = kind()
        return found

    if not TYPE_CHECKING:  # (hidden from type checkers: the moved fields are errors there)

        def __getattr__(self, name: str) -> Any:
            kind = _MOVED.get(name)
            if kind is None or name.startswith("_"):
                raise AttributeError(f"'RunState' object has no attribute {name!r}")
            warnings.warn(
                f"RunState.{name} is deprecated; use run.state_of({kind.__name__}).{name}",
                DeprecationWarning,
                stacklevel=2,
            )
            return getattr(self.state_of(kind), name)


#: Fields that moved from ``RunState`` to a style's own state (read through a deprecation).
_MOVED: dict[str, type] = {
    "last_failure": CodeActRunState,
    "cells": CodeActRunState,
    "execution_nudges": CodeActRunState,
    "answer_retries": CodeActRunState,
    "reasoning": ReActRunState,
}


@dataclass
class StepContext:
    """Passed to ``take_step``: the run's handler (to emit events), context and state."""

    handler: RunHandler
    ctx: Context
    run: RunState
    agent: AgentStyle
    #: The id of the assistant message this step produces (live stream and history share it).
    message_id: str = field(default_factory=lambda: f"msg-{uuid.uuid4().hex[:12]}")


#: In ``AgentOutput.raw`` of a reply on the run's last step: its tool calls are the agent's
#: own (no LLM step follows), run so that ``answer_from_round`` answers from their results.
ANSWER_FROM_CALLS = "answer_from_calls"


class AgentStyle(Protocol):
    """What the shared loop asks of an agent, hook by hook. ``BaseAgent`` implements every
    hook (its docstrings say what each is for); an agent style subclasses it and overrides
    ``take_step`` and whichever others it needs."""

    name: str
    llm: LLM
    #: How many tool calls of one step may run at once (1 = in order).
    tool_concurrency: int

    async def prepare(self, ctx: Context) -> None: ...
    def tools_for_run(self) -> list[BaseTool]: ...
    def context_tools(self, ctx: Context) -> list[BaseTool]: ...
    async def on_activate(self, ctx: Context, tools: list[BaseTool]) -> None: ...
    def system_message(self, tools: list[BaseTool]) -> ChatMessage | None: ...
    def offered_tools(self, tools: list[BaseTool]) -> list[BaseTool]: ...
    def render_messages(self, messages: list[ChatMessage]) -> list[ChatMessage]: ...
    async def take_step(
        self, step: StepContext, llm_input: list[ChatMessage], tools: list[BaseTool]
    ) -> AgentOutput: ...
    def record_tool_round(
        self, run: RunState, output: AgentOutput, results: list[ToolCallResult]
    ) -> None: ...
    def check_final(self, step: StepContext, output: AgentOutput) -> AgentOutput: ...
    def direct_output(self, run: RunState, result: ToolCallResult) -> AgentOutput: ...
    def answer_from_round(self, run: RunState) -> AgentOutput | None: ...
    def final_messages(self, run: RunState, output: AgentOutput) -> list[ChatMessage]: ...
