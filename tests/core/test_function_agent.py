from __future__ import annotations

import asyncio
import subprocess
import sys
import time

import anyio
import pytest
from pydantic import BaseModel

from codeact import ChatMemory, ChatMessage, Context, FunctionAgent, FunctionTool, UserError
from codeact.errors import LLMError, MaxIterationsError, RunCancelledError, RunTimeoutError
from codeact.events import AgentInput, AgentOutput, AgentStream, RunFailed, ToolCallResult
from codeact.llms import Reply, ScriptedLLM, tool_call
from tests.helpers import collect, kinds

pytestmark = pytest.mark.anyio


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def boom() -> str:
    """Always fails."""
    raise RuntimeError("kaput")


async def test_no_tools_plain_answer_and_system_prompt_not_stored() -> None:
    llm = ScriptedLLM(["Hello there"])
    agent = FunctionAgent(llm=llm, system_prompt="Be nice.")
    handler = agent.run("hi")
    events = await collect(handler)
    assert kinds(events) == [
        "agent_setup",
        "agent_input",
        "agent_stream",
        "agent_output",
        "run_finished",
    ]
    result = await handler
    assert result.response.text == "Hello there"
    sent = llm.requests[0].messages
    assert [m.role for m in sent] == ["system", "user"] and sent[0].text == "Be nice."
    stored = handler.ctx.memory.get_all()
    assert [(m.role, m.text) for m in stored] == [("user", "hi"), ("assistant", "Hello there")]
    streams = [e for e in events if isinstance(e, AgentStream)]
    assert "".join(s.delta for s in streams) == "Hello there"
    assert streams[-1].response == "Hello there"
    inp = next(e for e in events if isinstance(e, AgentInput))
    assert inp.input == sent


async def test_one_tool_call_round_trip() -> None:
    llm = ScriptedLLM([tool_call("add", id="c1", a=2, b=3), "It is 5."])
    agent = FunctionAgent(llm=llm, tools=[add])
    handler = agent.run("2+3?")
    events = await collect(handler)
    assert kinds(events) == [
        "agent_setup",
        "agent_input",
        "agent_stream",
        "agent_output",
        "tool_call",
        "tool_call_result",
        "agent_input",
        "agent_stream",
        "agent_output",
        "run_finished",
    ]
    result = await handler
    assert result.response.text == "It is 5."
    assert [c.name for c in result.tool_calls] == ["add"]
    second = llm.requests[1].messages
    assert second[-2].role == "assistant" and second[-2].tool_calls[0].id == "c1"
    assert second[-1].role == "tool" and second[-1].tool_call_id == "c1" and second[-1].text == "5"
    assert [t.name for t in llm.requests[0].tools] == ["add"]
    # memory holds the whole turn in a provider-acceptable shape
    roles = [m.role for m in handler.ctx.memory.get_all()]
    assert roles == ["user", "assistant", "tool", "assistant"]


async def test_parallel_calls_run_concurrently_and_results_come_back_in_call_order() -> None:
    started: list[str] = []

    async def slow(tag: str, delay: float) -> str:
        """Sleep then echo."""
        started.append(tag)
        await anyio.sleep(delay)
        return tag

    llm = ScriptedLLM(
        [
            [
                tool_call("slow", id="a", tag="A", delay=0.3),
                tool_call("slow", id="b", tag="B", delay=0.01),
            ],
            "ok",
        ]
    )
    agent = FunctionAgent(llm=llm, tools=[slow])
    handler = agent.run("go")
    t0 = time.monotonic()
    events = await collect(handler)
    assert time.monotonic() - t0 < 0.55  # concurrent, not 0.31 + sequential overhead twice
    results = [e for e in events if isinstance(e, ToolCallResult)]
    assert [r.tool_id for r in results] == ["b", "a"]  # completion order in the stream
    fed_back = llm.requests[1].messages
    assert [m.tool_call_id for m in fed_back if m.role == "tool"] == ["a", "b"]  # call order
    calls = [e for e in events if e.type == "tool_call"]
    for r in results:  # each ToolCall precedes its result
        assert next(c.seq for c in calls if c.tool_id == r.tool_id) < r.seq


async def test_tool_concurrency_is_bounded() -> None:
    running = 0
    peak = 0

    async def work() -> str:
        """Work."""
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        await anyio.sleep(0.05)
        running -= 1
        return "x"

    class Two(FunctionAgent):
        tool_concurrency = 2

    llm = ScriptedLLM([[tool_call("work") for _ in range(6)], "done"])
    await Two(llm=llm, tools=[work]).run("go")
    assert peak == 2


async def test_raising_tool_missing_tool_and_invalid_arguments_continue_the_loop() -> None:
    llm = ScriptedLLM(
        [
            [tool_call("boom", id="1"), tool_call("nope", id="2"), tool_call("add", id="3", a="x")],
            "recovered",
        ]
    )
    agent = FunctionAgent(llm=llm, tools=[add, boom])
    handler = agent.run("try")
    events = await collect(handler)
    res = {e.tool_id: e.tool_output for e in events if isinstance(e, ToolCallResult)}
    assert res["1"].is_error and "kaput" in res["1"].content
    assert (
        res["2"].is_error
        and "Tool nope not found" in res["2"].content
        and "add, boom" in res["2"].content
    )
    assert res["3"].is_error and "Invalid arguments for tool add" in res["3"].content
    assert (await handler).response.text == "recovered"
    tool_texts = [m.text for m in llm.requests[1].messages if m.role == "tool"]
    assert "kaput" in tool_texts[0] and "not found" in tool_texts[1]


async def test_malformed_tool_arguments_from_the_model_become_an_error_result() -> None:
    from codeact.llms import LLM, ChatDelta, LLMMetadata, ToolCallDelta

    class TruncatingLLM(LLM):
        """A model whose first reply cuts its tool-call arguments off mid-JSON."""

        calls = 0

        @property
        def metadata(self) -> LLMMetadata:
            return LLMMetadata(is_function_calling_model=True)

        async def stream_chat(self, messages, tools=None, tool_choice=None):  # type: ignore[no-untyped-def, override]
            self.calls += 1
            if self.calls == 1:
                yield ChatDelta(
                    tool_calls=[ToolCallDelta(index=0, id="x", name="add", arguments='{"a": 1,')]
                )
            else:
                yield ChatDelta(text="fine")

    agent = FunctionAgent(llm=TruncatingLLM(), tools=[add])
    handler = agent.run("go")
    events = await collect(handler)
    res = next(e for e in events if isinstance(e, ToolCallResult))
    assert res.tool_output.is_error and "not valid JSON" in res.tool_output.content
    assert (await handler).response.text == "fine"


async def test_return_direct_ends_the_run_with_the_tool_output() -> None:
    direct = FunctionTool.from_function(add, return_direct=True)
    llm = ScriptedLLM([tool_call("add", a=20, b=22)])
    agent = FunctionAgent(llm=llm, tools=[direct])
    handler = agent.run("x")
    events = await collect(handler)
    assert kinds(events)[-3:] == ["tool_call", "tool_call_result", "run_finished"]
    result = await handler
    assert result.response.text == "42" and result.raw == 42
    assert len(llm.requests) == 1
    assert [m.role for m in handler.ctx.memory.get_all()] == [
        "user",
        "assistant",
        "tool",
        "assistant",
    ]


async def test_return_direct_tool_that_fails_does_not_stop_the_run() -> None:
    direct = FunctionTool.from_function(boom, return_direct=True)
    llm = ScriptedLLM([tool_call("boom"), "after failure"])
    result = await FunctionAgent(llm=llm, tools=[direct]).run("x")
    assert result.response.text == "after failure"


async def test_max_iterations_counts_llm_calls_and_force_raises() -> None:
    llm = ScriptedLLM([tool_call("add", a=1, b=1)] * 3)
    agent = FunctionAgent(llm=llm, tools=[add])
    handler = agent.run("loop", max_iterations=3)
    events = await collect(handler)
    assert len(llm.requests) == 3
    assert sum(e.type == "tool_call_result" for e in events) == 2  # the 3rd step's calls do not run
    assert isinstance(events[-1], RunFailed) and events[-1].error_type == "MaxIterationsError"
    with pytest.raises(MaxIterationsError, match="Max iterations of 3 reached.*max_iterations"):
        await handler
    roles = [m.role for m in handler.ctx.memory.get_all()]
    assert roles == ["user", "assistant", "tool", "assistant", "tool"]  # no orphan tool call


async def test_max_iterations_allows_a_final_answer_on_the_last_step() -> None:
    llm = ScriptedLLM([tool_call("add", a=1, b=1), "two"])
    result = await FunctionAgent(llm=llm, tools=[add], max_iterations=2).run("x")
    assert result.response.text == "two"


async def test_early_stopping_generate_includes_tool_results() -> None:
    llm = ScriptedLLM(
        [tool_call("add", id="k", a=1, b=1), tool_call("add", a=2, b=2), "Summary: 2"]
    )
    agent = FunctionAgent(llm=llm, tools=[add], early_stopping_method="generate")
    handler = agent.run("loop", max_iterations=2)
    events = await collect(handler)
    result = await handler
    assert result.response.text == "Summary: 2"
    final_req = llm.requests[-1]
    assert final_req.tools == []
    texts = [m.text for m in final_req.messages]
    assert "2" in [m.text for m in final_req.messages if m.role == "tool"]
    assert "maximum number of iterations (2)" in texts[-1]
    assert [e.type for e in events].count("agent_output") == 3


class Answer(BaseModel):
    value: int
    unit: str


async def test_output_cls_success_and_failure() -> None:
    llm = ScriptedLLM(["It is 5 kg", '```json\n{"value": 5, "unit": "kg"}\n```'])
    result = await FunctionAgent(llm=llm, output_cls=Answer).run("weight?")
    assert result.structured_response == {"value": 5, "unit": "kg"}
    assert result.get_pydantic_model(Answer) == Answer(value=5, unit="kg")
    assert "It is 5 kg" in llm.requests[1].messages[0].text

    llm = ScriptedLLM(["It is heavy", '{"value": "heavy"}'])
    with pytest.warns(RuntimeWarning, match="Structured output extraction failed"):
        result = await FunctionAgent(llm=llm, output_cls=Answer).run("weight?")
    assert result.structured_response is None and result.response.text == "It is heavy"


async def test_structured_output_fn() -> None:
    def extract(messages: list[ChatMessage]) -> dict[str, object]:
        return {"n_messages": len(messages)}

    result = await FunctionAgent(llm=ScriptedLLM(["ok"]), structured_output_fn=extract).run("x")
    assert result.structured_response == {"n_messages": 2}


async def test_cancel_mid_tool_stops_promptly_and_keeps_memory_consistent() -> None:
    entered = anyio.Event()
    finished = False

    async def hang() -> str:
        """Hang."""
        nonlocal finished
        entered.set()
        await anyio.sleep(30)
        finished = True
        return "never"

    llm = ScriptedLLM([tool_call("add", a=1, b=2), tool_call("hang"), "unused"])
    agent = FunctionAgent(llm=llm, tools=[add, hang])
    handler = agent.run("go")
    events: list = []

    async def consume() -> None:
        async for ev in handler.stream_events():
            events.append(ev)

    async with anyio.create_task_group() as tg:
        tg.start_soon(consume)
        await entered.wait()
        t0 = time.monotonic()
        await handler.cancel()
        assert time.monotonic() - t0 < 1
    assert not finished
    assert events[-1].type == "run_cancelled"
    assert events[-2].type == "tool_call"  # the hanging call never produced a result
    with pytest.raises(RunCancelledError):
        await handler
    roles = [m.role for m in handler.ctx.memory.get_all()]
    assert roles == ["user", "assistant", "tool"]  # the completed round only


async def test_run_timeout_ends_with_a_timeout_event() -> None:
    llm = ScriptedLLM([Reply(text="late", delay=5)])
    handler = FunctionAgent(llm=llm).run("x", timeout=0.2)
    t0 = time.monotonic()
    events = await collect(handler)
    assert time.monotonic() - t0 < 2
    assert events[-1].type == "run_timed_out"
    with pytest.raises(RunTimeoutError, match="timed out after 0.2 s"):
        await handler


async def test_llm_error_fails_the_run_with_the_cause() -> None:
    llm = ScriptedLLM([ConnectionError("server gone")])
    handler = FunctionAgent(llm=llm).run("x")
    events = await collect(handler)
    assert isinstance(events[-1], RunFailed) and "server gone" in events[-1].message
    with pytest.raises(LLMError, match="server gone") as info:
        await handler
    assert isinstance(info.value.__cause__, ConnectionError)


async def test_scripted_llm_running_out_says_so() -> None:
    handler = FunctionAgent(llm=ScriptedLLM([tool_call("add", a=1, b=1)]), tools=[add]).run("x")
    with pytest.raises(LLMError, match="ran out of replies"):
        await handler


async def test_llm_without_tool_calling_gets_a_clear_error() -> None:
    handler = FunctionAgent(llm=ScriptedLLM(["x"], function_calling=False)).run("x")
    with pytest.raises(UserError, match="ReActAgent"):
        await handler


async def test_multi_turn_with_the_same_context_and_memory() -> None:
    llm = ScriptedLLM(["first", "second", "third"])
    agent = FunctionAgent(llm=llm)
    ctx = Context()
    await agent.run("one", ctx=ctx)
    await agent.run("two", ctx=ctx)
    assert [m.text for m in llm.requests[1].messages] == ["one", "first", "two"]
    memory = ChatMemory()
    await agent.run("three", memory=memory)
    assert [m.text for m in memory.get_all()] == ["three", "third"]


async def test_state_is_rendered_into_the_llm_input_but_not_stored() -> None:
    def remember(city: str, ctx: Context) -> str:
        """Store a city in the shared state."""
        ctx.state["city"] = city
        return "saved"

    llm = ScriptedLLM([tool_call("remember", city="Oslo"), "ok"])
    agent = FunctionAgent(llm=llm, tools=[remember], initial_state={"city": None})
    handler = agent.run("where?")
    await handler
    first = llm.requests[0].messages[-1].text
    second = [m for m in llm.requests[1].messages if m.role == "user"][-1].text
    assert '"city": null' in first and "where?" in first
    assert '"city": "Oslo"' in second  # rendered per call from the current state
    assert handler.ctx.memory.get_all()[0].text == "where?"
    assert handler.ctx.state == {"city": "Oslo"}
    assert agent.initial_state == {"city": None}  # deep-copied


async def test_initial_tool_choice_only_on_the_first_step_and_parallel_flag() -> None:
    llm = ScriptedLLM([[tool_call("add", a=1, b=2), tool_call("add", a=3, b=4)], "done"])
    agent = FunctionAgent(
        llm=llm, tools=[add], initial_tool_choice="required", allow_parallel_tool_calls=False
    )
    handler = agent.run("x")
    events = await collect(handler)
    assert [r.tool_choice for r in llm.requests] == ["required", None]
    assert sum(e.type == "tool_call" for e in events) == 1


async def test_thinking_is_streamed_and_promoted_when_no_answer_text() -> None:
    llm = ScriptedLLM([Reply(thinking="the answer is 7", text="")])
    handler = FunctionAgent(llm=llm).run("x")
    events = await collect(handler)
    assert any(isinstance(e, AgentStream) and e.thinking_delta == "the answer is 7" for e in events)
    assert (await handler).response.text == "the answer is 7"


def test_run_sync_from_plain_code_and_from_a_running_loop() -> None:
    agent = FunctionAgent(llm=ScriptedLLM(["a", "b"]))
    assert agent.run_sync("x").response.text == "a"

    async def inside() -> str:
        return agent.run_sync("y").response.text

    assert asyncio.run(inside()) == "b"


async def test_events_are_json_serialisable() -> None:
    from codeact.events import event_adapter

    llm = ScriptedLLM([tool_call("boom"), "x"])
    handler = FunctionAgent(llm=llm, tools=[boom]).run("x")
    for ev in await collect(handler):
        again = event_adapter.validate_json(ev.model_dump_json())
        assert again.type == ev.type and again.seq == ev.seq


async def test_stream_events_only_once() -> None:
    handler = FunctionAgent(llm=ScriptedLLM(["a"])).run("x")
    await collect(handler)
    with pytest.raises(UserError, match="only once"):
        async for _ in handler.stream_events():
            pass


def test_validation_of_agent_arguments() -> None:
    with pytest.raises(UserError, match="max_iterations"):
        FunctionAgent(llm=ScriptedLLM([]), max_iterations=0)
    with pytest.raises(UserError, match="state_prompt"):
        FunctionAgent(llm=ScriptedLLM([]), state_prompt="no placeholders")
    with pytest.raises(UserError, match="share the name"):
        FunctionAgent(llm=ScriptedLLM([]), tools=[add, add])
    with pytest.raises(UserError, match="user_msg or chat_history"):
        FunctionAgent(llm=ScriptedLLM([])).run()


def test_import_codeact_loads_no_optional_dependency() -> None:
    code = (
        "import sys, codeact, codeact.llms, codeact.events;"
        "bad=[m for m in sys.modules if m.split('.')[0] in "
        "('docker','uvicorn','starlette','openai','xllamacpp','ag_ui','rich','testcontainers')];"
        "print(bad)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


async def test_agent_output_event_per_step_has_tool_calls() -> None:
    llm = ScriptedLLM([tool_call("add", a=1, b=2), "3"])
    handler = FunctionAgent(llm=llm, tools=[add]).run("x")
    outs = [e for e in await collect(handler) if isinstance(e, AgentOutput)]
    assert [len(o.tool_calls) for o in outs] == [1, 0]


def test_context_of_an_agent_is_a_clear_type_error() -> None:
    from codeact import Context, FunctionAgent
    from codeact.llms import ScriptedLLM

    agent = FunctionAgent(llm=ScriptedLLM(["hi"]))
    with pytest.raises(TypeError, match=r"agent\.run\(\.\.\., ctx=ctx\)"):
        Context(agent)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="needs a dict"):
        Context(state=[1])  # type: ignore[arg-type]
