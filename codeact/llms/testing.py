"""LLMs for tests: ``ScriptedLLM`` replays replies, ``FunctionLLM`` computes them.

Both are public so users can test their own agents deterministically, without a model.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any, TypeAlias

import anyio
from pydantic import BaseModel, ConfigDict, Field

from codeact._messages import ChatMessage, ToolCallRequest
from codeact.errors import LLMError
from codeact.llms.base import (
    LLM,
    ChatDelta,
    LLMMetadata,
    ToolCallDelta,
    ToolChoice,
    sampling_options,
)
from codeact.tools import ToolMetadata


class Reply(BaseModel):
    """One scripted reply: text, thinking, tool calls, streaming pieces, a delay or an error."""

    model_config = ConfigDict(arbitrary_types_allowed=True)
    text: str = ""
    thinking: str = ""
    tool_calls: list[ToolCallRequest] = Field(default_factory=list)
    #: Stream the text in exactly these pieces (default: word by word).
    chunks: list[str] | None = None
    #: Seconds to wait before the reply (and between chunks when ``chunk_delay`` is set).
    delay: float = 0.0
    chunk_delay: float = 0.0
    #: Raise this instead of replying.
    error: BaseException | None = None
    #: What ``next_token_probabilities`` answers for this reply (token → probability; None:
    #: no probabilities, as from a server without log-probabilities).
    token_probabilities: dict[str, float] | None = None


ReplySpec: TypeAlias = (
    str | Reply | ToolCallRequest | list[ToolCallRequest] | ChatMessage | BaseException
)


def tool_call(name: str, id: str | None = None, **arguments: Any) -> ToolCallRequest:
    """Shorthand for a scripted tool call: ``tool_call("add", a=1, b=2)``."""
    req = ToolCallRequest(name=name, arguments=arguments)
    if id is not None:
        req.id = id
    return req


def to_reply(spec: ReplySpec) -> Reply:
    """Normalise any reply spec into a ``Reply``."""
    if isinstance(spec, Reply):
        return spec
    if isinstance(spec, str):
        return Reply(text=spec)
    if isinstance(spec, BaseException):
        return Reply(error=spec)
    if isinstance(spec, ToolCallRequest):
        return Reply(tool_calls=[spec])
    if isinstance(spec, ChatMessage):
        return Reply(text=spec.text, tool_calls=list(spec.tool_calls))
    if isinstance(spec, list) and all(isinstance(c, ToolCallRequest) for c in spec):
        return Reply(tool_calls=list(spec))
    raise TypeError(f"Cannot use {type(spec).__name__} as a scripted reply")


class LLMRequest(BaseModel):
    """One request an LLM received (recorded by the testing LLMs)."""

    messages: list[ChatMessage]
    tools: list[ToolMetadata] = Field(default_factory=list)
    tool_choice: str | None = None
    #: What ``codeact.llms.sampling`` asked of this request (empty: the model's defaults).
    sampling: dict[str, float] = Field(default_factory=dict)


_WORDS = re.compile(r"\S+\s*|\s+")


def _sleeper() -> Callable[[float], Awaitable[None]]:
    """``asyncio.sleep`` under asyncio (runs are asyncio tasks; anyio's sleep looks the event
    loop up again on every call), anyio's elsewhere."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return anyio.sleep
    return asyncio.sleep


async def _stream_reply(
    next_reply: Callable[[], Reply | Awaitable[Reply]],
) -> AsyncIterator[ChatDelta]:
    """The reply ``next_reply()`` gives (called when iteration starts), piece by piece."""
    reply = next_reply()
    if inspect.isawaitable(reply):
        reply = await reply
    sleep = _sleeper()
    if reply.delay:
        await sleep(reply.delay)
    if reply.error is not None:
        raise reply.error
    if reply.thinking:
        yield ChatDelta(thinking=reply.thinking)
    pieces = reply.chunks if reply.chunks is not None else _WORDS.findall(reply.text)
    for piece in pieces:
        if reply.chunk_delay:
            await sleep(reply.chunk_delay)
        yield ChatDelta.of_text(piece)
    for index, call in enumerate(reply.tool_calls):
        args = json.dumps(call.arguments)
        half = len(args) // 2
        yield ChatDelta(
            tool_calls=[
                ToolCallDelta(index=index, id=call.id, name=call.name, arguments=args[:half])
            ]
        )
        yield ChatDelta(tool_calls=[ToolCallDelta(index=index, arguments=args[half:])])


async def _probabilities(reply: Reply) -> dict[str, float] | None:
    if reply.delay:
        await _sleeper()(reply.delay)
    if reply.error is not None:
        raise reply.error
    return reply.token_probabilities


class _RecordingLLM(LLM):
    def __init__(self, *, function_calling: bool, model_name: str) -> None:
        self.requests: list[LLMRequest] = []
        self._meta = LLMMetadata(model_name=model_name, is_function_calling_model=function_calling)

    @property
    def metadata(self) -> LLMMetadata:
        return self._meta

    def _record(
        self,
        messages: Sequence[ChatMessage],
        tools: Sequence[ToolMetadata] | None,
        tool_choice: ToolChoice | None,
    ) -> None:
        self.requests.append(
            LLMRequest(
                messages=[m.model_copy(deep=True) for m in messages],
                tools=list(tools or []),
                tool_choice=tool_choice,
                sampling=sampling_options(),
            )
        )


class ScriptedLLM(_RecordingLLM):
    """Replays ``replies`` in order and records every request in ``requests``.

    Each reply is a string (text), a ``ToolCallRequest`` or a list of them (tool calls), a
    ``ChatMessage``, an exception (raised), or a ``Reply`` for streaming pieces, thinking text and
    delays. Running out of replies raises ``LLMError`` saying how many were used.
    """

    def __init__(
        self,
        replies: Sequence[ReplySpec],
        *,
        function_calling: bool = True,
        model_name: str = "scripted",
    ) -> None:
        super().__init__(function_calling=function_calling, model_name=model_name)
        self.replies = [to_reply(r) for r in replies]
        self._next = 0

    @property
    def remaining(self) -> int:
        """How many replies are left."""
        return len(self.replies) - self._next

    def stream_chat(
        self,
        messages: Sequence[ChatMessage],
        tools: Sequence[ToolMetadata] | None = None,
        tool_choice: ToolChoice | None = None,
    ) -> AsyncIterator[ChatDelta]:
        """Yield the next scripted reply piece by piece (the request is recorded and the reply
        taken when iteration starts; one generator, not one wrapped in another)."""
        return _stream_reply(lambda: self._take(messages, tools, tool_choice))

    async def next_token_probabilities(
        self, messages: Sequence[ChatMessage], top: int = 10
    ) -> dict[str, float] | None:
        """The next scripted reply's ``token_probabilities`` (the request is recorded and the
        reply used up, as a streamed one)."""
        return await _probabilities(self._take(messages, None, None))

    def _take(
        self,
        messages: Sequence[ChatMessage],
        tools: Sequence[ToolMetadata] | None,
        tool_choice: ToolChoice | None,
    ) -> Reply:
        self._record(messages, tools, tool_choice)
        if self._next >= len(self.replies):
            raise LLMError(
                f"ScriptedLLM ran out of replies: all {len(self.replies)} were used and a "
                f"request number {len(self.requests)} came in. Add more replies to the script."
            )
        reply = self.replies[self._next]
        self._next += 1
        return reply


ReplyFunction: TypeAlias = Callable[
    [list[ChatMessage], list[ToolMetadata]], "ReplySpec | Awaitable[ReplySpec]"
]


class FunctionLLM(_RecordingLLM):
    """Computes each reply with ``fn(messages, tools)`` (sync or async); records requests."""

    def __init__(
        self,
        fn: ReplyFunction,
        *,
        function_calling: bool = True,
        model_name: str = "function",
    ) -> None:
        super().__init__(function_calling=function_calling, model_name=model_name)
        self.fn = fn

    def stream_chat(
        self,
        messages: Sequence[ChatMessage],
        tools: Sequence[ToolMetadata] | None = None,
        tool_choice: ToolChoice | None = None,
    ) -> AsyncIterator[ChatDelta]:
        """Yield the reply computed by the function (called when iteration starts)."""
        return _stream_reply(lambda: self._compute(messages, tools, tool_choice))

    async def next_token_probabilities(
        self, messages: Sequence[ChatMessage], top: int = 10
    ) -> dict[str, float] | None:
        """The computed reply's ``token_probabilities``."""
        return await _probabilities(await self._compute(messages, None, None))

    async def _compute(
        self,
        messages: Sequence[ChatMessage],
        tools: Sequence[ToolMetadata] | None,
        tool_choice: ToolChoice | None,
    ) -> Reply:
        self._record(messages, tools, tool_choice)
        out = self.fn(list(messages), list(tools or []))
        if inspect.isawaitable(out):
            out = await out
        return to_reply(out)


__all__ = ["FunctionLLM", "LLMRequest", "Reply", "ReplySpec", "ScriptedLLM", "tool_call"]
