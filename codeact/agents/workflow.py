"""AgentWorkflow: several agents share one conversation and hand it to each other."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel

from codeact._messages import ChatMessage
from codeact.agents._config import RunConfig, build_config
from codeact.agents._handoff import HandoffTool
from codeact.agents._runnable import Runnable
from codeact.agents.base import (
    DEFAULT_NAME,
    DEFAULT_STATE_PROMPT,
    BaseAgent,
    EarlyStopping,
    RunOptions,
    StructuredOutputFn,
    run_sync,
)
from codeact.agents.function import FunctionAgent
from codeact.agents.react import ReActAgent
from codeact.errors import UserError
from codeact.events import AgentOutput
from codeact.llms.base import LLM
from codeact.tools import BaseTool

HANDOFF_PROMPT = (
    "Hand the conversation to another agent when it is better suited to the request. "
    "Agents you can hand off to: {agent_info}"
)
HANDOFF_OUTPUT_PROMPT = (
    "Agent {to_agent} is now handling the request due to the following reason: {reason}.\n"
    "Please continue with the current request."
)


class AgentWorkflow(Runnable):
    """Runs several agents on one conversation, starting with ``root_agent``.

    Each agent may call ``handoff(to_agent, reason)`` to pass the conversation on (restricted by
    its ``can_handoff_to``; an empty list means it cannot hand off). The active agent persists
    across runs on the same ``Context``. ``initial_state`` is shared by all agents.
    """

    def __init__(
        self,
        agents: Sequence[BaseAgent],
        *,
        root_agent: str | None = None,
        initial_state: dict[str, Any] | None = None,
        state_prompt: str = DEFAULT_STATE_PROMPT,
        handoff_prompt: str = HANDOFF_PROMPT,
        handoff_output_prompt: str = HANDOFF_OUTPUT_PROMPT,
        max_iterations: int = 20,
        early_stopping_method: EarlyStopping = "force",
        output_cls: type[BaseModel] | None = None,
        structured_output_fn: StructuredOutputFn | None = None,
        timeout: float | None = None,
    ) -> None:
        if not agents:
            raise UserError("At least one agent must be provided")
        names = [a.name for a in agents]
        if len(agents) > 1:
            if any(a.name == DEFAULT_NAME for a in agents):
                raise UserError(
                    "All agents must have a name in a multi-agent workflow (not the default "
                    f"{DEFAULT_NAME!r})"
                )
            if any(not a.description for a in agents):
                raise UserError("All agents must have a description in a multi-agent workflow")
            if len(set(names)) != len(names):
                raise UserError(f"Agent names must be distinct, got {names}")
        if any(a.initial_state for a in agents):
            raise UserError(
                "Initial state is not supported per-agent in AgentWorkflow; pass "
                "initial_state= to the workflow"
            )
        if root_agent is None:
            if len(agents) > 1:
                raise UserError("Exactly one root agent must be provided (root_agent=...)")
            root_agent = agents[0].name
        if root_agent not in names:
            raise UserError(f"Root agent {root_agent!r} not found in provided agents: {names}")
        for template, needed in (
            (handoff_prompt, ("{agent_info}",)),
            (handoff_output_prompt, ("{to_agent}", "{reason}")),
            (state_prompt, ("{state}", "{msg}")),
        ):
            missing = [p for p in needed if p not in template]
            if missing:
                raise UserError(
                    f"Prompt template is missing the placeholders {missing}: {template!r}"
                )
        for agent in agents:
            for target in agent.can_handoff_to or []:
                if target not in names:
                    raise UserError(
                        f"Agent {agent.name!r} can_handoff_to unknown agent {target!r}; "
                        f"agents are {names}"
                    )
        self.agents = {a.name: a for a in agents}
        self.root_agent = root_agent
        self.initial_state = initial_state
        self.state_prompt = state_prompt
        self.handoff_prompt = handoff_prompt
        self.handoff_output_prompt = handoff_output_prompt
        self.max_iterations = max_iterations
        self.early_stopping_method: EarlyStopping = early_stopping_method
        self.output_cls = output_cls
        self.structured_output_fn = structured_output_fn
        self.timeout = timeout

    @classmethod
    def from_tools_or_functions(
        cls,
        tools: Sequence[BaseTool | Callable[..., Any]],
        llm: LLM,
        *,
        system_prompt: str | None = None,
        **kwargs: Any,
    ) -> AgentWorkflow:
        """One agent with these tools: a FunctionAgent when ``llm`` supports native tool
        calling, a ReActAgent otherwise."""
        agent_cls = FunctionAgent if llm.metadata.is_function_calling_model else ReActAgent
        agent = agent_cls(llm=llm, tools=tools, system_prompt=system_prompt)
        return cls([agent], **kwargs)

    def targets(self, name: str) -> list[str]:
        """The agents ``name`` may hand off to, in the order they were given."""
        allowed = self.agents[name].can_handoff_to
        others = [n for n in self.agents if n != name]
        return others if allowed is None else [n for n in others if n in allowed]

    def _handoff_tool(self, name: str) -> BaseTool | None:
        targets = self.targets(name)
        if len(self.agents) < 2 or not targets:
            return None
        info = {t: self.agents[t].description for t in targets}
        return HandoffTool(
            current=name,
            targets=targets,
            agents=list(self.agents),
            description=self.handoff_prompt.format(agent_info=info),
            output=self.handoff_output_prompt,
        )

    def run_config(self, options: RunOptions | None = None) -> RunConfig:
        """The ``RunConfig`` of a run of this workflow (``run`` starts one with it)."""
        extra: dict[str, list[BaseTool]] = {}
        for name in self.agents:
            tool = self._handoff_tool(name)
            if tool is not None:
                extra[name] = [tool]
        return build_config(
            self, options, agents=self.agents, root=self.root_agent, extra_tools=extra
        )

    def run_sync(self, user_msg: str | ChatMessage | None = None, **kwargs: Any) -> AgentOutput:
        """Run to completion from plain code or from a running loop."""
        return run_sync(lambda: self.run(user_msg, **kwargs))
