"""The LLM seam: one small base class every model adapter implements.

An adapter implements ``stream_chat`` (yielding ``ChatDelta``s) or ``chat`` (returning a
``ChatResponse``); each has a default built on the other. ``metadata`` says the model's name and
whether it supports native tool calling.
"""

from __future__ import annotations

import contextlib
import json
from abc import ABC
from collections.abc import AsyncIterator, Iterator, Sequence
from contextvars import ContextVar
from types import TracebackType
from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field

from codeact._messages import ChatMessage, ToolCallRequest
from codeact.tools import ToolMetadata

ToolChoice = Literal["auto", "none", "required"] | str

_SAMPLING: ContextVar[dict[str, float] | None] = ContextVar("codeact_sampling", default=None)


@contextlib.contextmanager
def sampling(*, temperature: float) -> Iterator[None]:
    """Requests made inside are sampled at ``temperature`` by adapters that support it (the
    OpenAI-compatible ones given a temperature, and the embedded model; one left at its
    provider's default is not changed, as some models refuse any other; an adapter of your
    own reads ``sampling_options()``). The CodeAct agent uses it to ask again (up to three
    times a turn) when a model at temperature 0 repeats code that just failed: the same
    input gives it the same reply."""
    token = _SAMPLING.set({"temperature": temperature})
    try:
        yield
    finally:
        _SAMPLING.reset(token)


def sampling_options() -> dict[str, float]:
    """The sampling options ``sampling`` set for the current request (empty: the adapter's)."""
    return dict(_SAMPLING.get() or {})


class LLMMetadata(BaseModel):
    """What the agent loop needs to know about a model."""

    model_name: str = "unknown"
    is_function_calling_model: bool = False
    context_window: int = 32_768


class ToolCallDelta(BaseModel):
    """A fragment of a streamed tool call; fragments with the same ``index`` belong together."""

    index: int = 0
    id: str | None = None
    name: str | None = None
    arguments: str = ""


class ChatDelta(BaseModel):
    """One streamed piece of a reply: text, thinking text and/or tool-call fragments."""

    text: str = ""
    thinking: str = ""
    tool_calls: list[ToolCallDelta] = Field(default_factory=list)

    @classmethod
    def of_text(cls, text: str) -> ChatDelta:
        """``ChatDelta(text=text)`` for a ``str`` made without validation (the per-chunk path
        of the adapters; equal to the validated delta)."""
        if type(text) is not str:
            return cls(text=text)
        delta = _new(cls)
        _set(delta, "__dict__", {"text": text, "thinking": "", "tool_calls": []})
        _set(delta, "__pydantic_fields_set__", {"text"})
        _set(delta, "__pydantic_extra__", None)
        _set(delta, "__pydantic_private__", None)
        return delta


_new = object.__new__
_set = object.__setattr__


class ChatResponse(BaseModel):
    """A whole reply."""

    model_config = ConfigDict(arbitrary_types_allowed=True)
    message: ChatMessage
    thinking: str = ""
    raw: Any = Field(default=None, exclude=True)


class LLM(ABC):
    """Base class of model adapters. Override ``stream_chat`` or ``chat`` (or both).

    An LLM is an async context manager: ``async with llm:`` closes what it holds (HTTP
    connections, a loaded model) on exit. ``aclose()`` may be called any number of times;
    adapters that hold resources override it (the default holds nothing).
    """

    async def aclose(self) -> None:
        """Release what this adapter holds. Idempotent: a second call does nothing."""

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    @property
    def metadata(self) -> LLMMetadata:
        """The model's name and abilities."""
        return LLMMetadata()

    async def chat(
        self,
        messages: Sequence[ChatMessage],
        tools: Sequence[ToolMetadata] | None = None,
        tool_choice: ToolChoice | None = None,
    ) -> ChatResponse:
        """Return the whole reply (default: gather ``stream_chat``)."""
        if type(self).stream_chat is LLM.stream_chat:
            raise NotImplementedError(
                f"{type(self).__name__} must implement chat() or stream_chat()"
            )
        acc = StreamAccumulator()
        async for delta in self.stream_chat(messages, tools, tool_choice):
            acc.add(delta)
        return acc.response()

    async def stream_chat(
        self,
        messages: Sequence[ChatMessage],
        tools: Sequence[ToolMetadata] | None = None,
        tool_choice: ToolChoice | None = None,
    ) -> AsyncIterator[ChatDelta]:
        """Yield the reply piece by piece (default: one piece from ``chat``)."""
        if type(self).chat is LLM.chat:
            raise NotImplementedError(
                f"{type(self).__name__} must implement chat() or stream_chat()"
            )
        resp = await self.chat(messages, tools, tool_choice)
        yield ChatDelta(
            text=resp.message.text,
            thinking=resp.thinking,
            tool_calls=[
                ToolCallDelta(index=i, id=c.id, name=c.name, arguments=json.dumps(c.arguments))
                for i, c in enumerate(resp.message.tool_calls)
            ],
        )

    async def next_token_probabilities(
        self, messages: Sequence[ChatMessage], top: int = 10
    ) -> dict[str, float] | None:
        """The probabilities of the most likely first tokens of the reply to ``messages``
        (token text → probability, at most ``top``), without generating a reply: a cheap
        verdict ("OK" or "WRONG") from one forward pass. None when the adapter or its server
        cannot tell (the default; an agent's self-check is then skipped)."""
        return None


class StreamAccumulator:
    """Builds a reply from streamed deltas, keeping parallel tool calls apart by index."""

    def __init__(self) -> None:
        from codeact.events import TextBuffer

        #: The reply's text as pieces (``AgentStream.piece`` shares it without copying).
        self.buffer = TextBuffer()
        self._thinking: list[str] = []
        self._calls: dict[int, dict[str, str]] = {}

    @property
    def text(self) -> str:
        return self.buffer.text()

    @property
    def thinking(self) -> str:
        return "".join(self._thinking)

    def add(self, delta: ChatDelta) -> None:
        """Fold one delta in (without copying the text so far)."""
        if delta.text:
            self.buffer.append(delta.text)
        if delta.thinking:
            self._thinking.append(delta.thinking)
        for d in delta.tool_calls:
            slot = self._calls.setdefault(d.index, {"id": "", "name": "", "arguments": ""})
            if d.id:
                slot["id"] = d.id
            if d.name and d.name != slot["name"]:  # servers send the name once or repeat it
                slot["name"] += d.name
            slot["arguments"] += d.arguments

    def tool_calls(self, *, partial: bool = False) -> list[ToolCallRequest]:
        """The tool calls so far; ``partial`` tolerates incomplete argument JSON."""
        calls = []
        for index in sorted(self._calls):
            slot = self._calls[index]
            if not slot["name"]:
                continue
            args, err = parse_arguments(slot["arguments"], partial=partial)
            req = ToolCallRequest(name=slot["name"], arguments=args, parse_error=err)
            if slot["id"]:
                req.id = slot["id"]
            calls.append(req)
        return calls

    def response(self) -> ChatResponse:
        """The accumulated reply as a ``ChatResponse``."""
        msg = ChatMessage.assistant(self.text, self.tool_calls())
        return ChatResponse(message=msg, thinking=self.thinking)


def parse_arguments(text: str, *, partial: bool = False) -> tuple[dict[str, Any], str | None]:
    """Parse a tool call's argument text into a dict; returns ``(args, error)``."""
    if not text.strip():
        return {}, None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        if partial:
            return {}, None
        return {}, f"arguments are not valid JSON ({exc.msg} at char {exc.pos}): {text[:200]}"
    if not isinstance(value, dict):
        return {}, f"arguments must be a JSON object, got {type(value).__name__}"
    return value, None


__all__ = [
    "ChatDelta",
    "ChatResponse",
    "LLM",
    "LLMMetadata",
    "StreamAccumulator",
    "ToolCallDelta",
    "ToolChoice",
    "parse_arguments",
]
