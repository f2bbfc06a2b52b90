"""The typed transcript: memory keeps tool rounds as typed turns for every agent style, each
style renders them in its own protocol for the LLM; frozen events; typed context resources and
state; the Runnable protocol."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from codeact import (
    AgentWorkflow,
    ChatMemory,
    ChatMessage,
    CodeActAgent,
    Context,
    ExecutionResult,
    FunctionAgent,
    ReActAgent,
    RestrictedExecutor,
    ToolCallRequest,
    UserError,
)
from codeact.agents import RunConfig, RunHandler, Runnable, RunOptions, start_run
from codeact.events import AgentInput, AgentOutput, AgentStream, ToolCall, ToolCallResult
from codeact.llms import ScriptedLLM, tool_call
from tests.helpers import collect

pytestmark = pytest.mark.anyio


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


TWO_BLOCKS = "Two.\n<execute>\nx = 2\nprint('first')\n</execute>\n<execute>\n1 / 0\n</execute>"


async def test_codeact_memory_keeps_typed_turns_and_the_llm_sees_the_text_protocol() -> None:
    llm = ScriptedLLM([TWO_BLOCKS, "<execute>\nprint(x)\n</execute>", "done"])
    async with Context() as ctx:
        handler = CodeActAgent(llm=llm).run("go", ctx=ctx)
        events = await collect(handler)
        memory = ctx.memory.get_all()
    assert [m.role for m in memory] == [
        "user",
        "assistant",
        "tool",
        "tool",
        "assistant",
        "tool",
        "assistant",
    ]
    reply = memory[1]
    assert reply.text == TWO_BLOCKS  # what the model wrote, unchanged
    calls = [e for e in events if isinstance(e, ToolCall)]
    assert [(c.id, c.name, c.arguments) for c in reply.tool_calls] == [
        (c.tool_id, "execute", c.tool_kwargs) for c in calls[:2]
    ]
    assert reply.tool_calls[0].arguments == {"code": "x = 2\nprint('first')"}
    first, second = memory[2], memory[3]
    assert first.tool_call_id == calls[0].tool_id and second.tool_call_id == calls[1].tool_id
    assert isinstance(first.execution, ExecutionResult) and first.execution.stdout == "first\n"
    assert second.execution is not None and second.execution.error is not None
    assert second.execution.error.type == "ZeroDivisionError"
    stream_ids = {e.message_id for e in events if isinstance(e, AgentStream)}
    assert reply.id in stream_ids
    # the LLM input (and its AgentInput event) is the CodeAct protocol, rendered from the turns
    sent = llm.requests[1].messages
    assert [m.role for m in sent] == ["system", "user", "assistant", "user"]
    assert sent[2].text == TWO_BLOCKS and not sent[2].tool_calls
    assert sent[3].text.startswith("Execution result of block 1:\nfirst\n\nExecution result of")
    assert "ZeroDivisionError" in sent[3].text
    inputs = [e for e in events if isinstance(e, AgentInput)]
    assert [m.text for m in inputs[1].input] == [m.text for m in sent]
    assert [m.text for m in llm.requests[2].messages][-1] == "Execution result:\n2"


async def test_a_failed_block_is_nudged_once_from_the_typed_run_state() -> None:
    llm = ScriptedLLM(["<execute>\n1 / 0\n</execute>", "It failed, sorry.", "Still no."])
    handler = CodeActAgent(llm=llm).run("go")
    events = await collect(handler)
    outputs = [e for e in events if isinstance(e, AgentOutput)]
    assert "Your last code block failed" in outputs[1].retry_messages[1].text
    assert not outputs[2].retry_messages  # told once; the next answer stands
    assert (await handler).response.text == "Still no."


async def test_legacy_prose_rounds_in_memory_are_sent_unchanged() -> None:
    old = [
        ChatMessage.user("2 + 3?"),
        ChatMessage.assistant("<execute>\nprint(2 + 3)\n</execute>"),
        ChatMessage.user("Execution result:\n5"),
        ChatMessage.assistant("It is 5."),
    ]
    llm = ScriptedLLM(["Ten."])
    await CodeActAgent(llm=llm).run("doubled?", memory=ChatMemory(old))
    assert [(m.role, m.text) for m in llm.requests[0].messages[1:]] == [
        *((m.role, m.text) for m in old),
        ("user", "doubled?"),
    ]


async def test_react_keeps_typed_turns_and_renders_observations() -> None:
    llm = ScriptedLLM(
        ['Thought: add\nAction: add\nAction Input: {"a": 3, "b": 4}', "Answer: 7"],
        function_calling=False,
    )
    ctx = Context()
    out = await ReActAgent(llm=llm, tools=[add]).run("3+4?", ctx=ctx)
    memory = ctx.memory.get_all()
    assert [m.role for m in memory] == ["user", "assistant", "tool", "assistant"]
    assert memory[1].tool_calls[0].name == "add" and memory[1].tool_calls[0].arguments == {
        "a": 3,
        "b": 4,
    }
    assert memory[2].text == "7" and memory[2].tool_call_id == memory[1].tool_calls[0].id
    assert out.raw[-1]["type"] == "answer" and out.raw[-2] == {
        "type": "observation",
        "content": "7",
    }
    assert [(m.role, m.text) for m in llm.requests[1].messages[-2:]] == [
        ("assistant", 'Thought: add\nAction: add\nAction Input: {"a": 3, "b": 4}'),
        ("user", "Observation: 7"),
    ]


async def test_react_renders_a_native_round_it_did_not_write_as_action_lines() -> None:
    native = [
        ChatMessage.user("3+4?"),
        ChatMessage.assistant(
            "", [ToolCallRequest(id="c1", name="add", arguments={"a": 3, "b": 4})]
        ),
        ChatMessage.tool("7", "c1", name="add"),
        ChatMessage.assistant("7"),
    ]
    agent = ReActAgent(llm=ScriptedLLM([]), tools=[add])
    rendered = agent.render_messages(native)
    assert [(m.role, m.text, m.tool_calls) for m in rendered] == [
        ("user", "3+4?", []),
        ("assistant", 'Action: add\nAction Input: {"a": 3, "b": 4}', []),
        ("user", "Observation: 7", []),
        ("assistant", "7", []),
    ]
    assert FunctionAgent(llm=ScriptedLLM([])).render_messages(native) == native


async def test_a_function_agent_sees_code_rounds_of_a_workflow_as_codeact_text() -> None:
    coder_llm = ScriptedLLM(
        [
            "<execute>\nfrom tools import handoff\nprint(41 + 1)\nhandoff('talker', 'chat')\n</execute>"
        ],
        function_calling=False,
    )
    talker_llm = ScriptedLLM(["Hello."])
    coder = CodeActAgent(llm=coder_llm, name="coder", description="Codes")
    talker = FunctionAgent(llm=talker_llm, name="talker", description="Chats")
    async with Context() as ctx:
        await AgentWorkflow([coder, talker], root_agent="coder").run("hi", ctx=ctx)
    sent = talker_llm.requests[0].messages
    assert not any(m.role == "tool" or m.tool_calls for m in sent)
    assert sent[-1].role == "user" and sent[-1].text.startswith("Execution result:\n42")


# -- frozen events ----------------------------------------------------------------------------
async def test_events_are_frozen_and_stamped_by_copy() -> None:
    llm = ScriptedLLM([tool_call("add", id="c1", a=1, b=2), "3"])
    handler = FunctionAgent(llm=llm, tools=[add]).run("go")
    events = await collect(handler)
    result = next(e for e in events if isinstance(e, ToolCallResult))
    with pytest.raises(ValidationError):
        result.tool_id = "other"  # type: ignore[misc]
    with pytest.raises(ValidationError):
        events[-1].seq = 0  # type: ignore[misc]
    final = await handler
    assert final.run_id == handler.run_id and final.tool_calls[0].id == "c1"


async def test_emit_returns_a_stamped_copy_and_leaves_the_event_as_it_was() -> None:
    seen: list[tuple[ToolCall, ToolCall]] = []

    async def body(handler: RunHandler) -> AgentOutput:
        fresh = ToolCall(tool_name="x", tool_id="t")
        seen.append((fresh, handler.emit(fresh)))
        return AgentOutput(response=ChatMessage.assistant("done"))

    handler = RunHandler(body, Context())
    events = await collect(handler)
    fresh, stamped = seen[0]
    assert (fresh.run_id, fresh.agent_name, fresh.timestamp) == ("", "", 0.0)
    assert stamped.run_id == handler.run_id and stamped.timestamp > 0
    assert events[0] is stamped and events[0] == fresh.model_copy(
        update={"run_id": stamped.run_id, "timestamp": stamped.timestamp}
    )


async def test_structured_output_is_a_copy_not_a_mutated_event() -> None:
    llm = ScriptedLLM(["The answer is 4.", '{"value": 4}'])
    agent = FunctionAgent(llm=llm, structured_output_fn=lambda msgs: {"n": len(msgs)})
    handler = agent.run("go")
    events = await collect(handler)
    step = next(e for e in events if isinstance(e, AgentOutput))
    assert step.structured_response is None
    assert (await handler).structured_response == {"n": 2}


# -- context ---------------------------------------------------------------------------------
async def test_a_borrowed_executor_stays_open_an_owned_session_is_closed() -> None:
    shared = RestrictedExecutor()
    llm = ScriptedLLM(["<execute>\nv = 1\n</execute>", "ok"] * 2)
    async with shared:
        async with Context() as ctx:
            await CodeActAgent(llm=llm, executor=shared).run("go", ctx=ctx)
            held = ctx.resources["executor:Agent"]
            assert held.resource is shared and not held.owned
        assert (await shared.execute("v")).value == "1"  # the context did not close it
    made: list[RestrictedExecutor] = []

    def factory() -> RestrictedExecutor:
        made.append(RestrictedExecutor(isolation="process"))
        return made[-1]

    async with Context() as ctx:
        await CodeActAgent(llm=llm, executor=factory).run("go", ctx=ctx)
        assert ctx.resources["executor:Agent"].owned
        workdir = made[0].workdir
        assert workdir is not None and workdir.exists()
    assert ctx.resources == {} and not workdir.exists()  # closed with its context


async def test_context_resources_are_typed() -> None:
    ctx = Context()
    with pytest.raises(TypeError, match="aclose"):
        ctx.hold("x", object(), owned=True)  # type: ignore[arg-type]

    class Thing:
        closed = 0

        async def aclose(self) -> None:
            self.closed += 1

    thing = Thing()
    ctx.hold("executor:Agent", thing, owned=True)
    assert ctx.resource("executor:Agent") is thing and ctx.resource("nope") is None
    with pytest.raises(UserError, match="not an executor"):
        CodeActAgent(llm=ScriptedLLM([])).executor_for(ctx)
    await ctx.aclose()
    await ctx.aclose()
    assert thing.closed == 1


async def test_set_state_wins_over_the_agents_initial_state() -> None:
    llm = ScriptedLLM(["a", "b"])
    agent = FunctionAgent(llm=llm, initial_state={"plan": "free"})
    fresh = Context()
    assert not fresh.state_is_set
    await agent.run("x", ctx=fresh)
    assert fresh.state == {"plan": "free"} and fresh.state_is_set
    chosen = Context()
    chosen.set_state({"plan": "pro"})
    await agent.run("y", ctx=chosen)
    assert chosen.state == {"plan": "pro"}
    assert '"plan": "pro"' in llm.requests[1].messages[-1].text
    with pytest.raises(TypeError):
        chosen.set_state(["not", "a", "dict"])


# -- Runnable --------------------------------------------------------------------------------
async def test_agents_and_workflows_are_runnables_with_one_config_builder() -> None:
    agent = FunctionAgent(llm=ScriptedLLM(["hi"]), max_iterations=7, timeout=9.0)
    wf = AgentWorkflow([agent])
    assert isinstance(agent, Runnable) and isinstance(wf, Runnable)
    config = agent.run_config(RunOptions(max_iterations=3, instructions=["Be brief."]))
    assert isinstance(config, RunConfig)
    assert (config.max_iterations, config.timeout, config.instructions) == (3, 9.0, ["Be brief."])
    assert wf.run_config().max_iterations == 20 and wf.run_config().agents == {"Agent": agent}
    out = await start_run(config, "hello")
    assert out.response.text == "hi"


def test_a_code_round_is_estimated_once_not_as_its_text_plus_its_calls() -> None:
    from codeact.memory import estimate_tokens

    code = "x = 1\n" * 200
    text = f"<execute>\n{code}</execute>"
    typed = ChatMessage.assistant(text, [ToolCallRequest(name="execute", arguments={"code": code})])
    assert estimate_tokens(typed) - estimate_tokens(ChatMessage.assistant(text)) < 10
    native = ChatMessage.assistant("", [ToolCallRequest(name="add", arguments={"a": 12345})])
    assert estimate_tokens(native) > estimate_tokens(ChatMessage.assistant("")) + 3


async def test_a_final_answer_no_json_can_carry_is_kept_as_its_repr() -> None:
    class Odd:
        def __repr__(self) -> str:
            return "Odd()"

    def cell(code: str) -> ExecutionResult:
        return ExecutionResult(is_final_answer=True, final_answer={"odd": Odd(), "n": {1}})

    ctx = Context()
    out = await CodeActAgent(
        llm=ScriptedLLM(["<execute>\nx\n</execute>"]), code_execute_fn=cell
    ).run("go", ctx=ctx)
    assert isinstance(out.value["odd"], Odd)  # the run's result keeps the object itself
    assert "Odd()" in out.response.text
    kept = ctx.memory.get_all()[2].execution
    assert kept is not None and kept.final_answer == {"odd": "Odd()", "n": [1]}
    for m in ctx.memory.get_all():  # the turns serialise as stores write them
        assert ChatMessage.model_validate_json(m.model_dump_json()) == m
