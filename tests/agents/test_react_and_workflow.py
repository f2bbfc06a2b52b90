from __future__ import annotations

import pytest

from codeact import (
    AgentWorkflow,
    CodeActAgent,
    Context,
    FunctionAgent,
    ReActAgent,
    UserError,
)
from codeact.agents.react import ReActParseError, parse_react
from codeact.errors import MaxIterationsError
from codeact.events import AgentOutput, AgentSetup, ToolCallResult
from codeact.llms import ScriptedLLM, tool_call
from tests.helpers import collect

pytestmark = pytest.mark.anyio


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


# -- ReAct parsing ------------------------------------------------------------------------------
def test_parse_action_with_and_without_thought_and_lenient_json() -> None:
    step = parse_react('Thought: need math\nAction: add\nAction Input: {"a": 1, "b": 2}')
    assert (step.thought, step.action, step.action_input) == ("need math", "add", {"a": 1, "b": 2})
    step = parse_react("I should add.\nAction: add\nAction Input: {'a': 1, 'b': 2}")
    assert step.action == "add" and step.action_input == {"a": 1, "b": 2}
    step = parse_react(
        'Action: add(x)\nAction Input: ```json\n{"a": 1, "b": 3}\n```\nObservation: 4\nAnswer: 4'
    )
    assert step.action == "add" and step.action_input == {"a": 1, "b": 3}
    assert "Observation" not in step.text  # a hallucinated observation is cut


def test_parse_answer_and_implicit_answer() -> None:
    assert parse_react("Thought: done\nAnswer: 42").answer == "42"
    implicit = parse_react("The answer is 42.")
    assert implicit.answer == "The answer is 42." and implicit.action is None


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("", "empty"),
        ("Thought: hmm", "without an Action"),
        ("Action: add", "no 'Action Input:'"),
        ("Action: add\nAction Input: not json", "JSON object"),
    ],
)
def test_parse_failures(text: str, fragment: str) -> None:
    with pytest.raises(ReActParseError, match=fragment):
        parse_react(text)


async def test_react_round_trip_and_answer_prefix_removed() -> None:
    llm = ScriptedLLM(
        [
            'Thought: add them\nAction: add\nAction Input: {"a": 2, "b": 5}',
            "Thought: I know\nAnswer: 7",
        ],
        function_calling=False,
    )
    agent = ReActAgent(llm=llm, tools=[add])
    handler = agent.run("2+5?")
    events = await collect(handler)
    result = await handler
    assert result.response.text == "7"
    assert next(e for e in events if isinstance(e, ToolCallResult)).tool_output.content == "7"
    second = llm.requests[1].messages
    assert second[0].role == "system" and "add: Add two integers." in second[0].text
    assert second[-1].role == "user" and second[-1].text == "Observation: 7"
    assert [s["type"] for s in result.raw] == ["action", "observation", "answer"]
    assert llm.requests[0].tools == []


async def test_react_parse_failure_is_retried_and_not_stored() -> None:
    llm = ScriptedLLM(
        ["Thought: thinking only", "Thought: ok\nAnswer: fine"], function_calling=False
    )
    handler = ReActAgent(llm=llm).run("x")
    events = await collect(handler)
    outs = [e for e in events if isinstance(e, AgentOutput)]
    assert "Error while parsing the output" in outs[0].retry_messages[1].text
    assert (await handler).response.text == "fine"
    retry_input = llm.requests[1].messages
    assert retry_input[-1].text.startswith("Error while parsing")
    assert [m.role for m in retry_input if m.role != "system"] == ["user", "assistant", "user"]
    assert all("Error while parsing" not in m.text for m in handler.ctx.memory.get_all())


async def test_react_parse_failures_count_as_iterations() -> None:
    llm = ScriptedLLM(["Thought: a", "Thought: b"], function_calling=False)
    handler = ReActAgent(llm=llm, max_iterations=2).run("x")
    with pytest.raises(MaxIterationsError, match="Max iterations of 2"):
        await handler


# -- workflow validation -------------------------------------------------------------------------
def _agents(**kw: object) -> list[FunctionAgent]:
    llm = ScriptedLLM([])
    return [
        FunctionAgent(llm=llm, name="a", description="A agent", **kw),  # type: ignore[arg-type]
        FunctionAgent(llm=llm, name="b", description="B agent"),
    ]


def test_workflow_validation_errors() -> None:
    llm = ScriptedLLM([])
    with pytest.raises(UserError, match="At least one agent"):
        AgentWorkflow([])
    with pytest.raises(UserError, match="must have a name"):
        AgentWorkflow(
            [
                FunctionAgent(llm=llm, description="x"),
                FunctionAgent(llm=llm, name="b", description="y"),
            ],
            root_agent="b",
        )
    with pytest.raises(UserError, match="must have a description"):
        AgentWorkflow(
            [FunctionAgent(llm=llm, name="a"), FunctionAgent(llm=llm, name="b", description="y")],
            root_agent="a",
        )
    with pytest.raises(UserError, match="Exactly one root agent"):
        AgentWorkflow(_agents())
    with pytest.raises(UserError, match="Root agent 'zz' not found"):
        AgentWorkflow(_agents(), root_agent="zz")
    with pytest.raises(UserError, match="per-agent"):
        AgentWorkflow(_agents(initial_state={"x": 1}), root_agent="a")
    with pytest.raises(UserError, match="placeholders"):
        AgentWorkflow(_agents(), root_agent="a", handoff_output_prompt="no placeholders")
    with pytest.raises(UserError, match="unknown agent 'c'"):
        AgentWorkflow(_agents(can_handoff_to=["c"]), root_agent="a")
    single = AgentWorkflow([FunctionAgent(llm=llm)])
    assert single.root_agent == "Agent"


def test_from_tools_or_functions_picks_the_agent_style() -> None:
    wf = AgentWorkflow.from_tools_or_functions([add], ScriptedLLM([], function_calling=True))
    assert isinstance(wf.agents["Agent"], FunctionAgent)
    wf = AgentWorkflow.from_tools_or_functions([add], ScriptedLLM([], function_calling=False))
    assert isinstance(wf.agents["Agent"], ReActAgent)


# -- handoff ------------------------------------------------------------------------------------
def _pair(llm_a: ScriptedLLM, llm_b: ScriptedLLM, **kw: object) -> AgentWorkflow:
    a = FunctionAgent(llm=llm_a, name="planner", description="Plans", tools=[add], **kw)  # type: ignore[arg-type]
    b = FunctionAgent(llm=llm_b, name="writer", description="Writes")
    return AgentWorkflow([a, b], root_agent="planner")


async def test_handoff_success_switches_agent_and_persists_across_runs() -> None:
    llm_a = ScriptedLLM([tool_call("handoff", to_agent="writer", reason="needs prose")])
    llm_b = ScriptedLLM(["Here is the prose.", "Second turn from writer."])
    wf = _pair(llm_a, llm_b)
    ctx = Context()
    handler = wf.run("write something", ctx=ctx)
    events = await collect(handler)
    setups = [e for e in events if isinstance(e, AgentSetup)]
    assert [s.agent_name for s in setups] == ["planner", "writer"]
    assert "handoff" in setups[0].tools and "handoff" in setups[1].tools
    res = next(e for e in events if isinstance(e, ToolCallResult))
    assert (
        "Agent writer is now handling the request due to the following reason: needs prose"
        in res.tool_output.content
    )
    assert res.agent_name == "planner"
    final = await handler
    assert final.response.text == "Here is the prose."
    assert events[-1].agent_name == "writer"
    # the writer saw the handoff exchange in its input
    assert any(m.role == "tool" and "now handling" in m.text for m in llm_b.requests[0].messages)
    second = await wf.run("again", ctx=ctx)
    assert second.response.text == "Second turn from writer." and ctx.current_agent_name == "writer"
    assert len(llm_a.requests) == 1


async def test_handoff_to_unknown_and_forbidden_targets() -> None:
    llm = ScriptedLLM([])
    a = FunctionAgent(
        llm=ScriptedLLM(
            [
                tool_call("handoff", to_agent="ghost", reason="r"),
                tool_call("handoff", to_agent="c", reason="r"),
                "stay",
            ]
        ),
        name="a",
        description="A",
        can_handoff_to=["b"],
    )
    b = FunctionAgent(llm=llm, name="b", description="B")
    c = FunctionAgent(llm=llm, name="c", description="C")
    wf = AgentWorkflow([a, b, c], root_agent="a")
    handler = wf.run("x")
    events = await collect(handler)
    results = [e.tool_output for e in events if isinstance(e, ToolCallResult)]
    assert (
        results[0].is_error
        and "Agent ghost not found" in results[0].content
        and "Valid agents: b" in results[0].content
    )
    assert results[1].is_error and "Agent a cannot hand off to c" in results[1].content
    assert (await handler).response.text == "stay"
    assert handler.ctx.current_agent_name == "a"


async def test_no_handoff_tool_when_can_handoff_to_is_empty() -> None:
    llm_a = ScriptedLLM(["solo"])
    a = FunctionAgent(llm=llm_a, name="a", description="A", can_handoff_to=[])
    b = FunctionAgent(llm=ScriptedLLM([]), name="b", description="B")
    await AgentWorkflow([a, b], root_agent="a").run("x")
    assert [t.name for t in llm_a.requests[0].tools] == []


async def test_codeact_to_function_handoff_and_back() -> None:
    coder_llm = ScriptedLLM(
        [
            "<execute>\nfrom tools import handoff\nhandoff('talker', 'the user wants a chat')\n</execute>",
            "<execute>\nprint(6 * 7)\n</execute>",
            "The result is 42.",
        ],
        function_calling=False,
    )
    talker_llm = ScriptedLLM(
        [
            "Hello! Let me hand this back.",
            tool_call("handoff", to_agent="coder", reason="needs code"),
        ]
    )
    coder = CodeActAgent(llm=coder_llm, name="coder", description="Writes code")
    talker = FunctionAgent(llm=talker_llm, name="talker", description="Chats")
    wf = AgentWorkflow([coder, talker], root_agent="coder")
    async with Context() as ctx:
        first = wf.run("chat please", ctx=ctx)
        events = await collect(first)
        assert (await first).response.text == "Hello! Let me hand this back."
        assert [e.agent_name for e in events if isinstance(e, AgentSetup)] == ["coder", "talker"]
        assert "def handoff(to_agent: str, reason: str)" in coder_llm.requests[0].messages[0].text
        second = wf.run("compute 6*7", ctx=ctx)
        events = await collect(second)
        assert [e.agent_name for e in events if isinstance(e, AgentSetup)] == ["talker", "coder"]
        assert (await second).response.text == "The result is 42."


async def test_shared_state_visible_to_all_agents() -> None:
    def remember(fact: str, ctx: Context) -> str:
        """Remember a fact in the shared state."""
        ctx.state.setdefault("facts", []).append(fact)
        return "ok"

    llm_a = ScriptedLLM(
        [
            [
                tool_call("remember", fact="sky is blue"),
                tool_call("handoff", to_agent="b", reason="r"),
            ]
        ]
    )
    llm_b = ScriptedLLM(["noted"])
    a = FunctionAgent(llm=llm_a, name="a", description="A", tools=[remember])
    b = FunctionAgent(llm=llm_b, name="b", description="B")
    wf = AgentWorkflow([a, b], root_agent="a", initial_state={"facts": []})
    handler = wf.run("remember")
    await handler
    user_text = [m for m in llm_b.requests[0].messages if m.role == "user"][-1].text
    assert "sky is blue" in user_text and "Current state" in user_text
