"""Example 5: a multi-agent workflow with handoff — a chat agent and a CodeAct analyst.

The front desk (a FunctionAgent) hands data questions to the analyst (a CodeActAgent), which
computes the answer in its sandbox. Uses scripted models so it runs anywhere; swap in
OpenAILike(...) for real ones.
"""

from __future__ import annotations

import anyio

from codeact import AgentWorkflow, CodeActAgent, Context, FunctionAgent
from codeact.events import AgentSetup, ToolCall
from codeact.llms import ScriptedLLM, tool_call


async def main() -> None:
    desk = FunctionAgent(
        name="desk",
        description="Talks with the user and routes data questions.",
        llm=ScriptedLLM([tool_call("handoff", to_agent="analyst", reason="needs computation")]),
    )
    analyst = CodeActAgent(
        name="analyst",
        description="Answers numeric questions by running Python.",
        llm=ScriptedLLM(
            [
                "<execute>\nimport statistics\n"
                "print(statistics.median([3, 1, 4, 1, 5, 9, 2, 6]))\n</execute>",
                "The median is 3.5.",
            ],
            function_calling=False,
        ),
        can_handoff_to=["desk"],
    )
    workflow = AgentWorkflow([desk, analyst], root_agent="desk")
    async with Context() as ctx:
        handler = workflow.run("What is the median of 3 1 4 1 5 9 2 6?", ctx=ctx)
        async for ev in handler.stream_events():
            if isinstance(ev, AgentSetup):
                print(f"-> {ev.agent_name} is active")
            elif isinstance(ev, ToolCall):
                print(f"   {ev.agent_name} calls {ev.tool_name}")
        result = await handler
        print("answer:", result.response.text, "| active agent now:", ctx.current_agent_name)


if __name__ == "__main__":
    anyio.run(main)
