"""What one run of one agent carries through the loop: its state and each step's context.

Kept apart from ``base`` so the loop and the agents both build on it without importing each
other.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel

from codeact._messages import ChatMessage
from codeact.agents._handler import RunHandler
from codeact.agents.validators import CellRun
from codeact.context import Context
from codeact.events import ToolCallResult

if TYPE_CHECKING:
    from codeact.agents.base import BaseAgent

EarlyStopping = Literal["force", "generate"]
StructuredOutputFn = Callable[[list[ChatMessage]], "dict[str, Any] | BaseModel | Awaitable[Any]"]


@dataclass
class RunState:
    """What one run of one agent accumulates (not persisted beyond the run)."""

    user_msg: str
    #: This run's complete tool rounds (typed turns), moved to memory when the run ends.
    scratchpad: list[ChatMessage] = field(default_factory=list)
    retry_messages: list[ChatMessage] = field(default_factory=list)
    tool_results: list[ToolCallResult] = field(default_factory=list)
    iterations: int = 0
    #: The run's step limit (0: unknown), so an agent can tell its last step.
    max_iterations: int = 0
    #: CodeAct: the later blocks of the current reply are not run (one failed or ended the task).
    skip_rest: bool = False
    #: CodeAct: the tail of the last failed block's output, until the model has been told once.
    last_failure: str | None = None
    #: CodeAct: every cell run in this turn (code, output, error), for answer checks.
    cells: list[CellRun] = field(default_factory=list)
    #: CodeAct: how often the model was sent back for answering before any code ran.
    execution_nudges: int = 0
    #: CodeAct: how often a validator sent a final answer back.
    answer_retries: int = 0
    #: ReAct: the reasoning trace (actions, observations, answer), returned as the result's raw.
    reasoning: list[dict[str, Any]] = field(default_factory=list)
    #: Per-run data of agent styles defined outside codeact.
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class StepContext:
    """Passed to ``take_step``: the run's handler (to emit events), context and state."""

    handler: RunHandler
    ctx: Context
    run: RunState
    agent: BaseAgent
    #: The id of the assistant message this step produces (live stream and history share it).
    message_id: str = field(default_factory=lambda: f"msg-{uuid.uuid4().hex[:12]}")
