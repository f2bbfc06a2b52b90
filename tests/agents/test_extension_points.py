"""The loop's extension points are typed: a tool says through its ``ToolOutput`` that the
conversation moves to another agent (``handoff_to``) or that the later calls of its reply must
not run (``skip_later_calls``), and any ``BaseTool`` can be the caller's to run
(``executed_by_caller``). Nothing depends on a tool's name or on hidden context fields."""

from __future__ import annotations

from typing import Any

import pytest

from codeact import BaseTool, Context, FunctionAgent, ToolOutput
from codeact.agents import AgentWorkflow, CodeActRunState, ReActRunState, RunOptions, RunState
from codeact.agents.validators import CellRun
from codeact.events import AgentSetup, ToolCallResult
from codeact.llms import ScriptedLLM, tool_call
from codeact.tools import ToolMetadata
from tests.helpers import collect

pytestmark = pytest.mark.anyio


class Recorder(BaseTool):
    """A tool that records its calls and returns what it was built to return."""

    def __init__(self, name: str, **output: Any) -> None:
        self.metadata = ToolMetadata(name=name, description=f"{name} tool")
        self.calls: list[dict[str, Any]] = []
        self.output = output

    async def acall(self, arguments: dict[str, Any], *, ctx: Any = None) -> ToolOutput:
        self.calls.append(arguments)
        return ToolOutput(content=f"{self.name} ran", tool_name=self.name, **self.output)


class Sequential(FunctionAgent):
    tool_concurrency = 1


async def test_skip_later_calls_stops_the_rest_of_the_reply_only() -> None:
    stopper = Recorder("stop", is_error=True, skip_later_calls="[Not run: stop said so.]")
    later = Recorder("later")
    llm = ScriptedLLM(
        [
            [tool_call("later", id="1"), tool_call("stop", id="2"), tool_call("later", id="3")],
            [tool_call("later", id="4")],
            "done",
        ]
    )
    handler = Sequential(llm=llm, tools=[stopper, later]).run("go")
    events = await collect(handler)
    outputs = {e.tool_id: e.tool_output for e in events if isinstance(e, ToolCallResult)}
    assert outputs["3"].is_error and outputs["3"].content == "[Not run: stop said so.]"
    assert outputs["4"].content == "later ran"  # the next reply runs again
    assert len(later.calls) == 2 and len(stopper.calls) == 1
    assert (await handler).response.text == "done"


async def test_a_tool_of_any_name_hands_off_through_its_output() -> None:
    transfer = Recorder("transfer_to_b", handoff_to="b")
    a_llm = ScriptedLLM([tool_call("transfer_to_b", id="t")])
    b_llm = ScriptedLLM(["b speaking"])
    a = FunctionAgent(llm=a_llm, name="a", description="A", tools=[transfer])
    b = FunctionAgent(llm=b_llm, name="b", description="B")
    wf = AgentWorkflow([a, b], root_agent="a")
    async with Context() as ctx:
        handler = wf.run("hi", ctx=ctx)
        events = await collect(handler)
        assert [e.agent_name for e in events if isinstance(e, AgentSetup)] == ["a", "b"]
        assert (await handler).response.text == "b speaking"
        assert ctx.current_agent_name == "b"
        assert not hasattr(ctx, "pending_handoff")


async def test_any_base_tool_can_be_run_by_the_caller() -> None:
    class AskUser(Recorder):
        executed_by_caller = True

    ask = AskUser("ask_user")
    llm = ScriptedLLM([tool_call("ask_user", id="q", question="ok?")])
    result = await FunctionAgent(llm=llm, tools=[ask]).run("go")
    assert [c.name for c in result.tool_calls] == ["ask_user"]
    assert ask.calls == []  # announced to the caller, never run here


async def test_run_options_are_one_object_for_every_runnable() -> None:
    llm = ScriptedLLM(["hi"])
    agent = FunctionAgent(llm=llm, name="solo", max_iterations=7, timeout=30)
    options = RunOptions(max_iterations=3, instructions=("Be brief.",))
    workflow = AgentWorkflow([agent], max_iterations=7, timeout=30)
    for runnable in (agent, workflow):
        config = runnable.run_config(options)
        assert (config.max_iterations, config.timeout) == (3, 30)
        assert config.instructions == ["Be brief."]
        assert runnable.run_config().max_iterations == 7
        assert runnable.run_config(RunOptions(timeout=0.5)).timeout == 0.5


def test_each_style_keeps_its_own_typed_run_state() -> None:
    run = RunState(user_msg="q")
    mine = run.state_of(CodeActRunState)
    assert run.state_of(CodeActRunState) is mine  # made once, then the same object
    assert run.state_of(ReActRunState) is not mine
    mine.cells.append(CellRun(code="1", stdout="1"))
    assert run.state_of(ReActRunState).reasoning == []
    assert not hasattr(RunState(user_msg="q"), "nothing_like_this")


def test_the_moved_fields_still_read_with_a_deprecation_warning() -> None:
    run = RunState(user_msg="q")
    run.state_of(CodeActRunState).answer_retries = 2
    with pytest.warns(DeprecationWarning, match=r"state_of\(CodeActRunState\)"):
        assert run.answer_retries == 2
    with pytest.warns(DeprecationWarning, match=r"state_of\(ReActRunState\)"):
        assert run.reasoning is run.state_of(ReActRunState).reasoning
