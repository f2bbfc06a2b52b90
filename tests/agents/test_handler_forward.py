"""``RunHandler.forward``: every event handed to a sink as it is emitted (what the server
uses instead of a queue), in order, once; a sink that fails stops the run, not the emitter."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from codeact import FunctionAgent
from codeact.errors import RunCancelledError, UserError
from codeact.events import (
    AgentStream,
    Event,
    RunCancelled,
    RunFinished,
    TerminalEvent,
    ToolCallResult,
)
from codeact.llms import Reply, ScriptedLLM, tool_call

pytestmark = pytest.mark.anyio


def double(x: int) -> int:
    """Twice x."""
    return 2 * x


async def test_the_sink_gets_what_stream_events_yields_in_the_same_order() -> None:
    def agent() -> FunctionAgent:
        replies: list[object] = [tool_call("double", x=21), Reply(chunks=["4", "2", "!"])]
        return FunctionAgent(llm=ScriptedLLM(replies), tools=[double])  # type: ignore[arg-type]

    streamed = [e async for e in agent().run("go").stream_events()]
    got: list[Event] = []
    handler = agent().run("go")
    handler.forward(got.append)
    await handler.wait()
    assert [type(e) for e in got] == [type(e) for e in streamed]
    assert [e.seq for e in got] == list(range(len(got)))
    assert {e.run_id for e in got} == {handler.run_id}
    assert isinstance(got[-1], RunFinished)
    assert sum(isinstance(e, TerminalEvent) for e in got) == 1
    assert [e.delta for e in got if isinstance(e, AgentStream) and e.delta] == ["4", "2", "!"]
    assert any(isinstance(e, ToolCallResult) and e.tool_output.content == "42" for e in got)
    assert (await handler).response.text == "42!"


async def test_events_emitted_before_forward_are_handed_over_first() -> None:
    handler = FunctionAgent(llm=ScriptedLLM(["hi"])).run("go")
    await handler.wait()  # the whole run is emitted before anyone forwards it
    got: list[Event] = []
    handler.forward(got.append)
    assert [e.seq for e in got] == list(range(len(got)))
    assert isinstance(got[-1], RunFinished)


async def test_a_failing_sink_cancels_the_run_and_gets_nothing_more() -> None:
    agent = FunctionAgent(llm=ScriptedLLM([Reply(chunks=["a"] * 1000, chunk_delay=0.01)]))
    handler = agent.run("go")
    got: list[Event] = []

    def sink(event: Event) -> None:
        got.append(event)
        if isinstance(event, AgentStream):
            raise ValueError("the consumer broke")

    handler.forward(sink)
    with anyio.fail_after(10):  # (1000 chunks 10 ms apart: only a cancelled run ends now)
        await handler.wait()
    assert isinstance(handler.sink_error, ValueError)
    assert isinstance(got[-1], AgentStream)  # nothing after the failure
    assert isinstance(handler.error, RunCancelledError)
    with pytest.raises(RunCancelledError):
        await handler


async def test_forward_is_once_per_handler_like_stream_events() -> None:
    handler = FunctionAgent(llm=ScriptedLLM(["hi"])).run("go")
    handler.forward(lambda e: None)
    with pytest.raises(UserError):
        handler.forward(lambda e: None)
    with pytest.raises(UserError):
        await handler.stream_events().__anext__()
    await handler.cancel()
    assert handler.done()


async def test_cancel_reaches_the_sink_as_the_terminal_event() -> None:
    agent = FunctionAgent(llm=ScriptedLLM([Reply(text="slow", delay=60)]))
    handler = agent.run("go")
    got: list[Event] = []
    handler.forward(got.append)
    await handler.cancel()
    assert isinstance(got[-1], RunCancelled)
    assert handler.sink_error is None


@pytest.mark.parametrize("thinking", [None, "hmm"])
def test_a_streamed_piece_is_the_event_validation_makes(thinking: str | None) -> None:
    """The per-chunk ``AgentStream`` (made without validation) equals the validated one."""
    import pydantic

    from codeact.agents._handler import _stream_piece
    from codeact.events import AgentStream, TextBuffer, event_adapter

    buffer = TextBuffer()
    buffer.append("ab")
    made = _stream_piece(("run", "Agent", 7, 1.5), "b", 1, buffer, "msg-1", thinking)
    fields: dict[str, Any] = {"thinking_delta": thinking} if thinking else {}
    valid = AgentStream(
        delta="b",
        offset=1,
        text_buffer=buffer,
        message_id="msg-1",
        run_id="run",
        agent_name="Agent",
        seq=7,
        timestamp=1.5,
        **fields,
    )
    assert made == valid and made.model_fields_set == valid.model_fields_set
    assert made.model_dump() == valid.model_dump()
    assert made.model_dump_json() == valid.model_dump_json()
    assert event_adapter.validate_json(made.model_dump_json()) == event_adapter.validate_json(
        valid.model_dump_json()
    )
    assert made.response == "ab" and made.tool_calls == []
    with pytest.raises(pydantic.ValidationError):
        made.delta = "changed"  # type: ignore[misc]  # (frozen, like every event)


async def test_a_text_sink_takes_plain_pieces_and_the_sink_gets_the_rest() -> None:
    """``forward(sink, text)``: plain text pieces go to ``text`` (no event made), numbered as
    the events they stand for; pieces it declines, thinking and tool calls reach ``sink``."""
    replies: list[object] = [
        tool_call("double", x=21),
        Reply(chunks=["4", "2", "!"], thinking="hmm"),
    ]
    agent = FunctionAgent(llm=ScriptedLLM(replies), tools=[double])  # type: ignore[arg-type]
    handler = agent.run("go")
    got: list[Event] = []
    texts: list[tuple[int, str]] = []

    def text(delta: str) -> bool:
        taken_so_far = sum(d != "2" for _, d in texts)
        texts.append((len(got) + taken_so_far, delta))  # (the number this piece gets if taken)
        return delta != "2"  # one piece declined: the sink gets its event

    handler.forward(got.append, text)
    await handler.wait()
    assert [d for _, d in texts] == ["4", "2", "!"]
    streamed = [e for e in got if isinstance(e, AgentStream)]
    assert [e.delta for e in streamed if e.delta] == ["2"]
    assert any(e.thinking_delta == "hmm" for e in streamed)  # (thinking is never offered)
    taken = [seq for seq, d in texts if d != "2"]
    seqs = sorted([e.seq for e in got] + taken)
    assert seqs == list(range(len(seqs)))  # taken pieces keep their numbers
    assert (await handler).response.text == "42!"


async def test_a_failing_text_sink_cancels_the_run_like_a_failing_sink() -> None:
    agent = FunctionAgent(llm=ScriptedLLM([Reply(chunks=["a"] * 1000, chunk_delay=0.01)]))
    handler = agent.run("go")
    got: list[Event] = []

    def text(delta: str) -> bool:
        raise ValueError("the consumer broke")

    handler.forward(got.append, text)
    with anyio.fail_after(10):
        await handler.wait()
    assert isinstance(handler.sink_error, ValueError)
    assert not any(isinstance(e, AgentStream) for e in got)  # nothing after the failure
    assert isinstance(handler.error, RunCancelledError)


@pytest.mark.parametrize("text", ["", "piece", "é\n"])
def test_a_text_delta_made_without_validation_is_the_validated_one(text: str) -> None:
    from codeact.llms import ChatDelta

    made, valid = ChatDelta.of_text(text), ChatDelta(text=text)
    assert made == valid and made.model_fields_set == valid.model_fields_set
    assert made.model_dump_json() == valid.model_dump_json() and repr(made) == repr(valid)
    assert made.tool_calls is not ChatDelta.of_text(text).tool_calls  # (no shared list)


def test_a_stamped_event_is_what_model_copy_makes() -> None:
    """``emit`` stamps events without ``model_copy``; the copy is the same, for events with
    and without an agent name, with nested models, and the original is left as it was."""
    from codeact._messages import ChatMessage
    from codeact.agents._handler import _stamped
    from codeact.events import AgentOutput, AgentSetup, RunFinished, ToolCall

    events = [
        AgentSetup(input=[ChatMessage.user("hi")]),
        ToolCall(tool_name="double", tool_kwargs={"x": 1}, tool_id="c1", agent_name="Other"),
        RunFinished(result=AgentOutput(response=ChatMessage.assistant("42"))),
    ]
    for event in events:
        name = event.agent_name or "Agent"
        update = {"run_id": "r", "agent_name": name, "seq": 3, "timestamp": 1.5}
        made, copied = _stamped(event, "r", name, 3, 1.5), event.model_copy(update=update)
        assert made == copied and made.model_fields_set == copied.model_fields_set
        assert made.model_dump_json() == copied.model_dump_json()
        assert type(made) is type(event) and event.seq != 3 and made.seq == 3
