"""OpenAILike over real HTTP against a fake OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

import socket
import time

import pytest

from codeact import ChatMessage, FunctionAgent, UserError
from codeact._messages import BinaryPart, TextPart
from codeact.errors import LLMError
from codeact.events import AgentStream
from codeact.llms import Reply, StreamAccumulator, sampling, tool_call
from codeact.llms.openai_like import OpenAILike, to_openai_messages
from codeact.testing import FakeOpenAIServer, HTTPFailure, Malformed
from tests.helpers import collect

pytestmark = pytest.mark.anyio


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


async def test_streams_text_and_reasoning() -> None:
    with FakeOpenAIServer(
        [Reply(text="", thinking="let me think", chunks=["Hel", "lo", " world"])]
    ) as srv:
        async with OpenAILike("m", base_url=srv.base_url, api_key="k") as llm:
            deltas = [d async for d in llm.stream_chat([ChatMessage.user("hi")])]
    assert [d.text for d in deltas if d.text] == ["Hel", "lo", " world"]
    assert [d.thinking for d in deltas if d.thinking] == ["let me think"]
    body = srv.requests[0]
    assert body["stream"] is True and body["model"] == "m"
    assert body["messages"] == [{"role": "user", "content": "hi"}]


async def test_sampling_sets_the_temperature_of_the_requests_inside_only() -> None:
    with FakeOpenAIServer(["one", "two", "three"]) as srv:
        async with OpenAILike("m", base_url=srv.base_url, api_key="k", temperature=0) as llm:
            [_ async for _ in llm.stream_chat([ChatMessage.user("hi")])]
            with sampling(temperature=0.7):
                [_ async for _ in llm.stream_chat([ChatMessage.user("hi")])]
            [_ async for _ in llm.stream_chat([ChatMessage.user("hi")])]
    assert [body["temperature"] for body in srv.requests] == [0, 0.7, 0]
    with FakeOpenAIServer(["one"]) as srv:  # a model left at its provider's default stays so
        async with OpenAILike("m", base_url=srv.base_url, api_key="k") as llm:
            with sampling(temperature=0.7):
                [_ async for _ in llm.stream_chat([ChatMessage.user("hi")])]
    assert "temperature" not in srv.requests[0]


async def test_parallel_tool_call_deltas_are_kept_apart_by_index() -> None:
    calls = [tool_call("add", id="c1", a=1, b=2), tool_call("add", id="c2", a=30, b=4)]
    with FakeOpenAIServer([calls, "3 and 34"]) as srv:
        llm = OpenAILike("m", base_url=srv.base_url)
        acc = StreamAccumulator()
        async for d in llm.stream_chat([ChatMessage.user("x")], tools=[]):
            acc.add(d)
        got = acc.tool_calls()
        assert [(c.id, c.name, c.arguments) for c in got] == [
            ("c1", "add", {"a": 1, "b": 2}),
            ("c2", "add", {"a": 30, "b": 4}),
        ]


async def test_function_agent_end_to_end_over_http() -> None:
    calls = [tool_call("add", id="c1", a=1, b=2), tool_call("add", id="c2", a=3, b=4)]
    with FakeOpenAIServer([calls, Reply(chunks=["3", " and 7"])]) as srv:
        agent = FunctionAgent(
            llm=OpenAILike("m", base_url=srv.base_url), tools=[add], initial_tool_choice="required"
        )
        handler = agent.run("add")
        events = await collect(handler)
        assert (await handler).response.text == "3 and 7"
        assert any(isinstance(e, AgentStream) and e.delta == " and 7" for e in events)
        first, second = srv.requests
        assert first["tools"][0]["function"]["name"] == "add" and first["tool_choice"] == "required"
        assert (
            second["messages"][-3]["tool_calls"][1]["function"]["arguments"] == '{"a": 3, "b": 4}'
        )
        assert second["messages"][-2:] == [
            {"role": "tool", "tool_call_id": "c1", "content": "3"},
            {"role": "tool", "tool_call_id": "c2", "content": "7"},
        ]


async def test_429_and_503_are_retried_with_backoff() -> None:
    with FakeOpenAIServer([HTTPFailure(429), HTTPFailure(503), "finally"]) as srv:
        llm = OpenAILike("m", base_url=srv.base_url, max_retries=3)
        text = "".join([d.text async for d in llm.stream_chat([ChatMessage.user("x")])])
    assert text == "finally" and len(srv.requests) == 3


async def test_errors_are_translated_with_the_cause_chained() -> None:
    with FakeOpenAIServer([HTTPFailure(400, "bad request: model not found")]) as srv:
        llm = OpenAILike("m", base_url=srv.base_url, max_retries=0)
        with pytest.raises(LLMError, match="HTTP 400") as info:
            async for _ in llm.stream_chat([ChatMessage.user("x")]):
                pass
        assert type(info.value.__cause__).__name__ == "BadRequestError"
    with FakeOpenAIServer([Malformed()]) as srv:
        llm = OpenAILike("m", base_url=srv.base_url, max_retries=0)
        with pytest.raises(LLMError, match="malformed"):
            async for _ in llm.stream_chat([ChatMessage.user("x")]):
                pass
    with FakeOpenAIServer([HTTPFailure(401, "no key")]) as srv:
        llm = OpenAILike("m", base_url=srv.base_url, max_retries=0)
        with pytest.raises(LLMError, match="OPENAI_API_KEY"):
            async for _ in llm.stream_chat([ChatMessage.user("x")]):
                pass


async def test_connection_refused_and_timeout() -> None:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    llm = OpenAILike("m", base_url=f"http://127.0.0.1:{port}/v1", max_retries=0)
    with pytest.raises(LLMError, match="Could not reach"):
        async for _ in llm.stream_chat([ChatMessage.user("x")]):
            pass
    with FakeOpenAIServer([Reply(text="late", delay=2)]) as srv:
        llm = OpenAILike("m", base_url=srv.base_url, max_retries=0, timeout=0.3)
        t0 = time.monotonic()
        with pytest.raises(LLMError, match="timed out"):
            async for _ in llm.stream_chat([ChatMessage.user("x")]):
                pass
        assert time.monotonic() - t0 < 1.5


def test_configuration_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODEACT_MODEL", "env-model")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    llm = OpenAILike()
    assert (llm.model, llm.base_url, llm.api_key) == (
        "env-model",
        "http://127.0.0.1:9/v1",
        "sk-env",
    )
    assert llm.metadata.is_function_calling_model
    monkeypatch.delenv("CODEACT_MODEL")
    with pytest.raises(UserError, match="CODEACT_MODEL"):
        OpenAILike()


def test_message_conversion_with_parts() -> None:
    msgs = [
        ChatMessage.user(
            [
                TextPart(text="see"),
                BinaryPart(mime_type="image/png", data="aGk="),
                BinaryPart(mime_type="text/csv", data="YSxi", filename="a.csv"),
            ]
        ),
        ChatMessage.assistant("", [tool_call("add", id="t", a=1, b=2)]),
        ChatMessage.tool("3", "t"),
    ]
    out = to_openai_messages(msgs)
    assert out[0]["content"][1] == {
        "type": "image_url",
        "image_url": {"url": "data:image/png;base64,aGk="},
    }
    assert out[0]["content"][2]["file"]["filename"] == "a.csv"
    assert out[1]["content"] is None and out[1]["tool_calls"][0]["id"] == "t"
    assert out[2] == {"role": "tool", "tool_call_id": "t", "content": "3"}


def test_one_instance_across_event_loops_leaves_no_stray_tasks() -> None:
    import asyncio
    import gc

    with FakeOpenAIServer(["one", "two"]) as srv:
        llm = OpenAILike("m", base_url=srv.base_url)

        async def ask() -> str:
            return "".join([d.text async for d in llm.stream_chat([ChatMessage.user("x")])])

        assert asyncio.run(ask()) == "one"
        assert asyncio.run(ask()) == "two"  # a new loop: a new client, the old one abandoned

        async def idle() -> None:
            gc.collect()
            await asyncio.sleep(0.05)

        errors: list[object] = []
        loop = asyncio.new_event_loop()
        loop.set_exception_handler(lambda _loop, ctx: errors.append(ctx))
        loop.run_until_complete(idle())
        loop.close()
        assert errors == []
