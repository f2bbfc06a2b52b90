"""Chat messages: roles, text and binary content parts, tool-call requests and tool results.

Memory and stores keep the conversation as typed turns, the same for every agent style: an
assistant message with the ``tool_calls`` it made (a CodeAct code block is an ``execute`` call
with its ``code``), then one ``tool`` message per call with its result (for code, the full
``ExecutionResult`` too). Each agent renders them in its own text protocol when it builds the
LLM input (``BaseAgent.render_messages``); nothing stored depends on that protocol.
"""

from __future__ import annotations

import base64
import binascii
import uuid
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from codeact._execution import ExecutionResult

Role = Literal["system", "user", "assistant", "tool"]


class TextPart(BaseModel):
    """A piece of text inside a message."""

    model_config = ConfigDict(frozen=True)
    type: Literal["text"] = "text"
    text: str


class BinaryPart(BaseModel):
    """Binary content (image, file, audio...) given by URL or as base64 data with a MIME type."""

    model_config = ConfigDict(frozen=True)
    type: Literal["binary"] = "binary"
    mime_type: str
    url: str | None = None
    data: str | None = None
    filename: str | None = None

    @model_validator(mode="after")
    def _check_source(self) -> BinaryPart:
        if (self.url is None) == (self.data is None):
            raise ValueError("a binary part needs exactly one of `url` or `data` (base64)")
        if self.data is not None:
            try:
                base64.b64decode(self.data, validate=True)
            except (binascii.Error, ValueError) as exc:
                raise ValueError(f"`data` is not valid base64: {exc}") from exc
        if "/" not in self.mime_type:
            raise ValueError(f"`mime_type` must look like 'type/subtype', got {self.mime_type!r}")
        return self

    @property
    def is_image(self) -> bool:
        """True when the MIME type is an image type."""
        return self.mime_type.startswith("image/")

    def as_bytes(self) -> bytes:
        """Decode ``data``; raises ``ValueError`` for URL parts, which hold no bytes."""
        if self.data is None:
            raise ValueError("this part refers to a URL and holds no data")
        return base64.b64decode(self.data)


ContentPart = Annotated[TextPart | BinaryPart, Field(discriminator="type")]


def new_id(prefix: str = "call") -> str:
    """A short random id, e.g. for tool calls."""
    return f"{prefix}_{uuid.uuid4().hex[:16]}"


class ToolCallRequest(BaseModel):
    """A request from the assistant to call one tool with arguments."""

    id: str = Field(default_factory=new_id)
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    #: Set when the model's argument text could not be parsed as a JSON object.
    parse_error: str | None = None


class ChatMessage(BaseModel):
    """One message of a conversation.

    ``content`` is plain text or a list of parts (text and binary). Assistant messages may carry
    ``tool_calls``; tool messages carry the ``tool_call_id`` they answer.
    """

    role: Role
    content: str | list[ContentPart] = ""
    tool_calls: list[ToolCallRequest] = Field(default_factory=list)
    tool_call_id: str | None = None
    name: str | None = None
    #: A stable id (the id a front end saw for it live), when one is known.
    id: str | None = None
    #: On the tool message answering a code cell (CodeAct ``execute``): what the cell produced.
    execution: ExecutionResult | None = None

    @model_validator(mode="after")
    def _check_roles(self) -> ChatMessage:
        if self.role == "tool" and not self.tool_call_id:
            raise ValueError("a tool message needs the `tool_call_id` it answers")
        if self.tool_calls and self.role != "assistant":
            raise ValueError("only assistant messages can carry `tool_calls`")
        if self.execution is not None and self.role != "tool":
            raise ValueError("only tool messages can carry an `execution` result")
        return self

    @property
    def text(self) -> str:
        """The text of the message: ``content`` itself, or its text parts joined by newlines."""
        if isinstance(self.content, str):
            return self.content
        return "\n".join(p.text for p in self.content if isinstance(p, TextPart))

    def with_text(self, text: str) -> ChatMessage:
        """A copy whose text is replaced (for parts: the last text part, or a new one)."""
        if isinstance(self.content, str):
            return self.model_copy(update={"content": text})
        parts = list(self.content)
        for i in range(len(parts) - 1, -1, -1):
            if isinstance(parts[i], TextPart):
                parts[i] = TextPart(text=text)
                break
        else:
            parts.append(TextPart(text=text))
        return self.model_copy(update={"content": parts})

    @classmethod
    def system(cls, text: str) -> ChatMessage:
        """A system message."""
        return cls(role="system", content=text)

    @classmethod
    def user(cls, content: str | list[ContentPart]) -> ChatMessage:
        """A user message."""
        return cls(role="user", content=content)

    @classmethod
    def assistant(
        cls, text: str = "", tool_calls: list[ToolCallRequest] | None = None
    ) -> ChatMessage:
        """An assistant message, optionally requesting tool calls."""
        return cls(role="assistant", content=text, tool_calls=tool_calls or [])

    @classmethod
    def tool(
        cls,
        text: str,
        tool_call_id: str,
        name: str | None = None,
        *,
        execution: ExecutionResult | None = None,
    ) -> ChatMessage:
        """A tool result answering ``tool_call_id`` (with the cell's result for code)."""
        return cls(
            role="tool", content=text, tool_call_id=tool_call_id, name=name, execution=execution
        )


__all__ = ["BinaryPart", "ChatMessage", "ContentPart", "Role", "TextPart", "ToolCallRequest"]
