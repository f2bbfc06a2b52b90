from __future__ import annotations

import base64
import threading
import time

import anyio
import pytest
from pydantic import ValidationError

from codeact import ChatMessage, FunctionTool, ToolOutput, UserError
from codeact._messages import BinaryPart, TextPart, ToolCallRequest
from codeact.context import Context


def test_message_json_round_trip_with_parts_and_tool_calls() -> None:
    png = base64.b64encode(b"\x89PNG fake").decode()
    msgs = [
        ChatMessage.system("be brief"),
        ChatMessage.user(
            [TextPart(text="what is this?"), BinaryPart(mime_type="image/png", data=png)]
        ),
        ChatMessage.user(
            [BinaryPart(mime_type="text/csv", url="https://example.org/a.csv", filename="a.csv")]
        ),
        ChatMessage.assistant("", [ToolCallRequest(id="c1", name="look", arguments={"q": "x"})]),
        ChatMessage.tool("result", "c1", name="look"),
    ]
    for m in msgs:
        again = ChatMessage.model_validate_json(m.model_dump_json())
        assert again == m
    assert msgs[1].text == "what is this?"
    assert isinstance(msgs[1].content, list)
    part = msgs[1].content[1]
    assert isinstance(part, BinaryPart) and part.is_image and part.as_bytes() == b"\x89PNG fake"


@pytest.mark.parametrize(
    "kwargs, fragment",
    [
        ({"mime_type": "image/png"}, "exactly one of"),
        ({"mime_type": "image/png", "data": "!!notbase64!!"}, "not valid base64"),
        ({"mime_type": "png", "url": "http://x"}, "type/subtype"),
        ({"mime_type": "image/png", "url": "http://x", "data": "aGk="}, "exactly one of"),
    ],
)
def test_binary_part_rejects_bad_input(kwargs: dict[str, str], fragment: str) -> None:
    with pytest.raises(ValidationError, match=fragment):
        BinaryPart(**kwargs)


def test_role_rules() -> None:
    with pytest.raises(ValidationError, match="tool_call_id"):
        ChatMessage(role="tool", content="x")
    with pytest.raises(ValidationError, match="only assistant"):
        ChatMessage(role="user", content="x", tool_calls=[ToolCallRequest(name="a")])


def test_with_text_replaces_last_text_part_only() -> None:
    m = ChatMessage.user(
        [TextPart(text="a"), BinaryPart(mime_type="image/png", url="u"), TextPart(text="b")]
    )
    new = m.with_text("B")
    assert new.text == "a\nB" and m.text == "a\nb"


def lookup(city: str, limit: int = 3, *, exact: bool = False) -> dict[str, object]:
    """Look a city up.

    Args:
        city: The city's name.
        limit: How many rows to return
            at most.
        exact: Match exactly.
    """
    return {"city": city, "limit": limit, "exact": exact}


def test_schema_from_signature_and_google_docstring() -> None:
    tool = FunctionTool.from_function(lookup)
    meta = tool.metadata
    assert meta.name == "lookup" and meta.description == "Look a city up."
    props = meta.parameters["properties"]
    assert props["city"] == {"type": "string", "description": "The city's name."}
    assert props["limit"]["default"] == 3 and props["limit"]["type"] == "integer"
    assert props["limit"]["description"] == "How many rows to return at most."
    assert meta.parameters["required"] == ["city"]
    assert "title" not in meta.parameters
    assert tool.signature().startswith("def lookup(city: str, limit: int = 3")


def test_sphinx_and_numpy_docstrings() -> None:
    def f(a: int, b: str) -> None:
        """Do f.

        :param a: the a
        :param b: the b
        """

    def g(a: int) -> None:
        """Do g.

        Parameters
        ----------
        a : int
            the a value
        """

    pf = FunctionTool.from_function(f).metadata.parameters["properties"]
    assert pf["a"]["description"] == "the a" and pf["b"]["description"] == "the b"
    pg = FunctionTool.from_function(g).metadata.parameters["properties"]
    assert pg["a"]["description"] == "the a value"


@pytest.mark.anyio
async def test_validation_failure_is_an_error_result_not_a_crash() -> None:
    tool = FunctionTool.from_function(lookup)
    out = await tool.acall({"limit": "many"})
    assert out.is_error and "city" in out.content and "limit" in out.content
    out = await tool.acall({"city": "Paris", "bogus": 1})
    assert out.is_error and "bogus" in out.content
    ok = await tool.acall({"city": "Paris", "limit": "2"})
    assert not ok.is_error and ok.raw_output == {"city": "Paris", "limit": 2, "exact": False}
    assert ok.content == '{"city": "Paris", "limit": 2, "exact": false}'


@pytest.mark.anyio
async def test_raising_tool_gives_error_output() -> None:
    def boom() -> None:
        raise RuntimeError("boom")

    out = await FunctionTool.from_function(boom).acall({})
    assert out.is_error and "RuntimeError: boom" in out.content
    assert isinstance(out.exception, RuntimeError)
    # the exception is not serialised
    assert "exception" not in ToolOutput.model_validate_json(out.model_dump_json()).model_fields_set


@pytest.mark.anyio
async def test_sync_tools_run_in_a_worker_thread_and_do_not_block_the_loop() -> None:
    seen: list[str] = []

    def slow() -> str:
        seen.append(threading.current_thread().name)
        time.sleep(0.3)
        return "done"

    tool = FunctionTool.from_function(slow)
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        for _ in range(10):
            await anyio.sleep(0.02)
            ticks += 1

    async with anyio.create_task_group() as tg:
        tg.start_soon(ticker)
        out = await tool.acall({})
    assert out.content == "done"
    assert seen and seen[0] != threading.current_thread().name
    assert ticks == 10


@pytest.mark.anyio
async def test_async_tool_and_context_injection() -> None:
    async def bump(by: int, ctx: Context) -> int:
        """Bump the counter."""
        ctx.state["n"] = ctx.state.get("n", 0) + by
        return int(ctx.state["n"])

    tool = FunctionTool.from_function(bump)
    assert tool.needs_context
    assert "ctx" not in tool.metadata.parameters["properties"]
    ctx = Context(state={"n": 1})
    out = await tool.acall({"by": 2}, ctx=ctx)
    assert out.content == "3" and ctx.state == {"n": 3}
    assert tool.signature() == "async def bump(by: int) -> int"


def test_reserved_and_invalid_names() -> None:
    def handoff() -> None: ...

    with pytest.raises(UserError, match="reserved tool name"):
        FunctionTool.from_function(handoff)
    with pytest.raises(UserError, match="not a valid identifier"):
        FunctionTool.from_function(lambda: 1, name="not valid")
