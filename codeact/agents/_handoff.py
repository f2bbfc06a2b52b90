"""The workflow's ``handoff`` tool, typed: its output names the agent that takes over.

The loop reads ``ToolOutput.handoff_to`` from a round's results (no tool name to match, no
hidden context field). Code in a CodeAct sandbox calls the same tool through
``SandboxHandoff``, which keeps the target for the ``execute`` result of its cell.
"""

from __future__ import annotations

from typing import Any

from codeact.tools import BaseTool, FunctionTool, ToolMetadata, ToolOutput

HANDOFF = "handoff"


class HandoffTool(BaseTool):
    """``handoff(to_agent, reason)``: pass the conversation to one of ``targets``."""

    needs_context = True

    def __init__(
        self, *, current: str, targets: list[str], agents: list[str], description: str, output: str
    ) -> None:
        self.current, self.targets, self.agents, self.output = current, targets, agents, output
        self.metadata = ToolMetadata(
            name=HANDOFF,
            description=description,
            parameters={
                "type": "object",
                "properties": {"to_agent": {"type": "string"}, "reason": {"type": "string"}},
                "required": ["to_agent", "reason"],
            },
        )

    def sandbox_spec(self) -> tuple[str, list[str], str]:
        """``handoff(to_agent, reason)`` in the sandbox's ``tools`` module."""
        return HANDOFF, ["to_agent", "reason"], self.metadata.description

    async def acall(self, arguments: dict[str, Any], *, ctx: Any = None) -> ToolOutput:
        """Check the target; the output's ``handoff_to`` tells the loop who takes over."""
        to_agent, reason = arguments.get("to_agent"), arguments.get("reason", "")
        valid = ", ".join(self.targets)
        if not isinstance(to_agent, str) or to_agent not in self.agents:
            problem = (
                f"Agent {to_agent} not found. Please select a valid agent to hand off to. "
                f"Valid agents: {valid}"
            )
        elif to_agent not in self.targets:
            problem = (
                f"Agent {self.current} cannot hand off to {to_agent}. Please select a valid "
                f"agent to hand off to. Valid agents: {valid}"
            )
        else:
            text = self.output.format(to_agent=to_agent, reason=reason)
            return ToolOutput(content=text, tool_name=HANDOFF, raw_output=text, handoff_to=to_agent)
        return ToolOutput(
            content=f"Error calling tool {HANDOFF}: ValueError: {problem}",
            tool_name=HANDOFF,
            is_error=True,
            raw_output=problem,
        )


class SandboxHandoff:
    """``handoff`` as sandboxed code calls it: the target waits here until the ``execute``
    result of the cell carries it to the loop (``take``)."""

    def __init__(self, tool: HandoffTool) -> None:
        self.handoff = tool
        self.requested: str | None = None

    def as_tool(self) -> BaseTool:
        """A plain function tool the sandbox can import (``from tools import handoff``)."""

        async def handoff(to_agent: str, reason: str) -> str:
            out = await self.handoff.acall({"to_agent": to_agent, "reason": reason})
            if out.is_error:
                raise ValueError(str(out.raw_output))
            self.requested = out.handoff_to
            return out.content

        handoff.__doc__ = self.handoff.metadata.description
        return FunctionTool.from_function(handoff, name=HANDOFF, _allow_reserved=True)

    def take(self) -> str | None:
        """The agent a cell handed off to since the last call, if any."""
        requested, self.requested = self.requested, None
        return requested
