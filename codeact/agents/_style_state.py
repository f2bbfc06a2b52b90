"""The per-run state of the built-in agent styles, each kept apart from the shared
``RunState`` (which holds only what the loop itself needs): ``run.state_of(CodeActRunState)``.

An agent style defined outside codeact keeps its own per-run data the same way: a dataclass
whose fields all have defaults, fetched with ``step.run.state_of(MyRunState)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from codeact.agents.validators import CellRun


@dataclass
class CodeActRunState:
    """What one run of a CodeAct agent accumulates."""

    #: The tail of the last failed block's output, until the model has been told once.
    last_failure: str | None = None
    #: Every cell run in this turn (code, output, error), for the answer checks.
    cells: list[CellRun] = field(default_factory=list)
    #: How often the model was sent back for answering before any code ran.
    execution_nudges: int = 0
    #: How often a validator sent a final answer back.
    answer_retries: int = 0
    #: How often each error was seen (the recovery hints change on a repeat).
    error_counts: dict[str, int] = field(default_factory=dict)
    #: Code a validator's note suggested (``ModelRetry.code``), until the agent ran it for a
    #: model that re-ran an old cell instead.
    suggested: str | None = None
    #: The code of the last suggestion the agent ran (its output answers first at a limit).
    suggestion_ran: str | None = None


@dataclass
class ReActRunState:
    """What one run of a ReAct agent accumulates."""

    #: The reasoning trace (actions, observations, answer), returned as the result's raw.
    reasoning: list[dict[str, Any]] = field(default_factory=list)
