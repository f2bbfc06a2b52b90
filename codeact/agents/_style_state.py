"""The per-run state of the built-in agent styles, each kept apart from the shared
``RunState`` (which holds only what the loop itself needs): ``run.state_of(CodeActRunState)``.

An agent style defined outside codeact keeps its own per-run data the same way: a dataclass
whose fields all have defaults, fetched with ``step.run.state_of(MyRunState)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from codeact.agents.validators import CellRun
from codeact.events import AgentOutput


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
    #: How many cells had run when a validator's note last gave code (-1: never), and the
    #: note and code the agent runs for a model that then answered in words (once per run).
    suggested_at: int = -1
    took_over: tuple[str, str] | None = None
    taken_over: bool = False
    #: On the last step, when the agent runs a rule's code itself: the model's (traced)
    #: answer, and how many cells had run before (``_atlimit.limit_cell``).
    kept_at_limit: tuple[AgentOutput, int] | None = None
    #: What the model wrote for cells whose code the agent changed (a column name fixed, a
    #: suggestion run instead), by the code that ran, one entry per such cell in order: a
    #: re-run of it is still a repeat.
    written: dict[str, list[str]] = field(default_factory=dict)
    #: How often the model was asked again for a reply that repeated a failed cell
    #: (``_resample``), and whether the next request is such a second try.
    resamples: int = 0
    resample_next: bool = False
    #: Whether the self-check (``SelfCheck``) has rated an answer of this run.
    self_checked: bool = False

    def ok_codes(self) -> list[str]:
        """For each successful cell, the code that ran, and what the model wrote for each cell
        the agent changed into it, whitespace-normalised (for noticing a block the model sends
        again: a block counts once per cell it became, so two blocks the agent fixed into the
        same code count once each)."""
        ran = [c.code for c in self.cells if c.error is None]
        wrote = [w for code in dict.fromkeys(ran) for w in self.written.get(code, [])]
        return [" ".join(code.split()) for code in [*ran, *wrote]]


@dataclass
class ReActRunState:
    """What one run of a ReAct agent accumulates."""

    #: The reasoning trace (actions, observations, answer), returned as the result's raw.
    reasoning: list[dict[str, Any]] = field(default_factory=list)
