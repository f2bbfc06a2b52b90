"""A run's configuration: ``RunConfig`` (the agents and run-wide settings), and
``build_config``, the one place where a run's ``RunOptions`` meet an agent's or a workflow's
settings."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from codeact.agents._state import (
    DEFAULT_STATE_PROMPT,
    AgentStyle,
    EarlyStopping,
    RunOptions,
    StructuredOutputFn,
)
from codeact.tools import BaseTool


@dataclass
class RunConfig:
    """Everything a run needs besides its input: the agents and run-wide settings."""

    agents: Mapping[str, AgentStyle]
    root: str
    max_iterations: int = 20
    early_stopping_method: EarlyStopping = "force"
    output_cls: type[Any] | None = None
    structured_output_fn: StructuredOutputFn | None = None
    initial_state: dict[str, Any] | None = None
    state_prompt: str = DEFAULT_STATE_PROMPT
    timeout: float | None = None
    #: Extra tools per agent name (the workflow's ``handoff``).
    extra_tools: dict[str, list[BaseTool]] = field(default_factory=dict)
    #: Tools the caller executes (``ClientTool``); server tools win on name clashes.
    client_tools: list[BaseTool] = field(default_factory=list)
    #: Extra system messages for this run only (a front end's context and instructions).
    instructions: list[str] = field(default_factory=list)


class RunSettings(Protocol):
    """The run-wide settings an agent or a workflow holds (what ``RunOptions`` overrides)."""

    @property
    def max_iterations(self) -> int: ...
    @property
    def early_stopping_method(self) -> EarlyStopping: ...
    @property
    def output_cls(self) -> type[Any] | None: ...
    @property
    def structured_output_fn(self) -> StructuredOutputFn | None: ...
    @property
    def initial_state(self) -> dict[str, Any] | None: ...
    @property
    def state_prompt(self) -> str: ...
    @property
    def timeout(self) -> float | None: ...


def build_config(
    settings: RunSettings,
    options: RunOptions | None,
    *,
    agents: Mapping[str, AgentStyle],
    root: str,
    extra_tools: dict[str, list[BaseTool]] | None = None,
) -> RunConfig:
    """The ``RunConfig`` of one run: ``settings`` (an agent's or a workflow's) with the
    run's ``options`` over them. The one place where options meet settings."""
    opts = options or RunOptions()
    return RunConfig(
        agents=agents,
        root=root,
        max_iterations=opts.max_iterations or settings.max_iterations,
        early_stopping_method=opts.early_stopping_method or settings.early_stopping_method,
        output_cls=settings.output_cls,
        structured_output_fn=settings.structured_output_fn,
        initial_state=settings.initial_state,
        state_prompt=settings.state_prompt,
        timeout=opts.timeout if opts.timeout is not None else settings.timeout,
        extra_tools=extra_tools or {},
        client_tools=list(opts.client_tools),
        instructions=list(opts.instructions),
    )
