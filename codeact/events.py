"""Typed events: every intermediate state of a run, in order.

Each event carries ``run_id``, ``agent_name`` (the agent active when it was emitted), ``seq`` (a
per-run sequence number that increases by one per event) and ``timestamp`` (seconds since the
epoch). All are frozen pydantic models and serialise to JSON; ``type`` names the event. The
run's handler stamps an event by copying it (``RunHandler.emit`` returns the stamped copy), so
an event, once emitted, never changes.

Order per LLM step: ``AgentInput`` → ``AgentStream``* → ``AgentOutput``; then per tool call
``ToolCall`` → (``CodeOutputStream``*) → ``ToolCallResult``. A run ends with exactly one terminal
event: ``RunFinished``, ``RunFailed``, ``RunCancelled`` or ``RunTimedOut``.
"""

from __future__ import annotations

import builtins
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from codeact._messages import ChatMessage, ToolCallRequest
from codeact.tools import ToolOutput


class Event(BaseModel):
    """Fields every event has."""

    model_config = ConfigDict(arbitrary_types_allowed=True, frozen=True)
    run_id: str = ""
    agent_name: str = ""
    seq: int = 0
    timestamp: float = 0.0


class AgentSetup(Event):
    """An agent became active for this run: its system prompt and the tools it offers."""

    type: Literal["agent_setup"] = "agent_setup"
    system_prompt: str | None = None
    tools: list[str] = Field(default_factory=list)


class AgentInput(Event):
    """The exact messages about to be sent to the LLM (system prompt included)."""

    type: Literal["agent_input"] = "agent_input"
    input: list[ChatMessage]


class TextBuffer:
    """The text of one streamed reply, kept as its pieces (appending is O(1), not a copy)."""

    __slots__ = ("_joined", "_parts", "_size")

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._size = 0
        self._joined = ""

    def append(self, piece: str) -> int:
        """Add a piece; return its offset (the characters before it)."""
        offset = self._size
        if piece:
            self._parts.append(piece)
            self._size += len(piece)
        return offset

    def __len__(self) -> int:
        return self._size

    def text(self, upto: int | None = None) -> str:
        """The text so far (or its first ``upto`` characters)."""
        if len(self._parts) > 1:
            self._joined = "".join(self._parts)
            self._parts = [self._joined]
        elif self._parts:
            self._joined = self._parts[0]
        return self._joined if upto is None or upto >= self._size else self._joined[:upto]


class AgentStream(Event):
    """A streamed piece of the LLM's reply.

    Each event carries only its ``delta`` (so a streamed answer costs O(n), not O(n²)) and its
    ``offset`` in the reply: the reply is the concatenation of the step's deltas, and
    ``message_id`` names the assistant message they build (the id it keeps in history).
    ``response`` rebuilds the reply so far on demand (O(n) per access: prefer accumulating
    ``delta``); an event parsed from JSON knows only its own delta.
    """

    type: Literal["agent_stream"] = "agent_stream"
    delta: str = ""
    offset: int = 0
    message_id: str = ""
    thinking_delta: str | None = None
    tool_calls: list[ToolCallRequest] = Field(default_factory=list)
    #: The step's whole reply so far, shared by its events (not serialised).
    text_buffer: TextBuffer | None = Field(default=None, exclude=True, repr=False)

    @classmethod
    def piece(
        cls, buffer: TextBuffer, delta: str, *, appended: bool = False, **fields: Any
    ) -> AgentStream:
        """An event for ``delta``, appended to the step's ``buffer`` (unless ``appended``: it
        is already its last piece)."""
        offset = len(buffer) - len(delta) if appended else buffer.append(delta)
        return cls(delta=delta, offset=offset, text_buffer=buffer, **fields)

    @property
    def response(self) -> str:
        """The reply up to and including this delta."""
        if self.text_buffer is None:
            return self.delta
        return self.text_buffer.text(self.offset + len(self.delta))


class AgentOutput(Event):
    """The LLM's complete reply for one step, or the final result of a run.

    As a step: ``tool_calls`` are the actions the reply asks for; non-empty ``retry_messages``
    mean the reply was refused (they are sent back to the model, and not kept in memory). The
    loop's own per-run state is in ``RunState``, not here. As the run's result (``await
    handler``, ``RunFinished.result``): ``tool_calls`` lists every call of the run.
    """

    type: Literal["agent_output"] = "agent_output"
    response: ChatMessage
    tool_calls: list[ToolCallRequest] = Field(default_factory=list)
    structured_response: dict[str, Any] | None = None
    #: A value returned by code (``final_answer(value)`` in CodeAct), if any.
    value: Any = None
    retry_messages: list[ChatMessage] = Field(default_factory=list)
    raw: Any = Field(default=None, exclude=True, repr=False)

    def __str__(self) -> str:
        return self.response.text

    def get_pydantic_model(self, cls: builtins.type[BaseModel]) -> BaseModel | None:
        """``structured_response`` validated as ``cls``, or None when absent or invalid."""
        if self.structured_response is None:
            return None
        try:
            return cls.model_validate(self.structured_response)
        except ValueError:
            return None


class ToolCall(Event):
    """A tool call is starting."""

    type: Literal["tool_call"] = "tool_call"
    tool_name: str
    tool_kwargs: dict[str, Any] = Field(default_factory=dict)
    tool_id: str


class CodeOutputStream(Event):
    """Output written by a code cell while it runs (CodeAct ``execute`` calls)."""

    type: Literal["code_output_stream"] = "code_output_stream"
    tool_id: str
    stream: Literal["stdout", "stderr"] = "stdout"
    text: str


class ToolCallResult(Event):
    """A tool call finished (successfully or with an error output)."""

    type: Literal["tool_call_result"] = "tool_call_result"
    tool_name: str
    tool_kwargs: dict[str, Any] = Field(default_factory=dict)
    tool_id: str
    tool_output: ToolOutput
    return_direct: bool = False
    #: For CodeAct ``execute`` calls: the executor's result as a dict.
    execution: dict[str, Any] | None = None


class AnswerRetry(Event):
    """The agent did not accept a final answer and asked the model again: no code had run yet
    (``reason="no_code"``, with ``require_execution``) or a validator refused it
    (``reason="validator"``) or the self-check rated its code unlikely to compute what is
    asked (``reason="self_check"``). ``message`` is what the model was told."""

    type: Literal["answer_retry"] = "answer_retry"
    reason: Literal["no_code", "validator", "self_check"]
    message: str
    attempt: int = 1


class TerminalEvent(Event):
    """Base of the events that end a run; exactly one is emitted, last."""


class RunFinished(TerminalEvent):
    """The run ended with a result."""

    type: Literal["run_finished"] = "run_finished"
    result: AgentOutput


class RunFailed(TerminalEvent):
    """The run ended with an error."""

    type: Literal["run_failed"] = "run_failed"
    error_type: str
    message: str
    exception: BaseException | None = Field(default=None, exclude=True, repr=False)


class RunCancelled(TerminalEvent):
    """The run was cancelled."""

    type: Literal["run_cancelled"] = "run_cancelled"


class RunTimedOut(TerminalEvent):
    """The run exceeded its timeout."""

    type: Literal["run_timed_out"] = "run_timed_out"
    timeout: float


AnyEvent = Annotated[
    AgentSetup
    | AgentInput
    | AgentStream
    | AgentOutput
    | ToolCall
    | CodeOutputStream
    | ToolCallResult
    | RunFinished
    | RunFailed
    | RunCancelled
    | RunTimedOut,
    Field(discriminator="type"),
]

#: Validates any event from its JSON form: ``event_adapter.validate_json(text)``.
event_adapter: TypeAdapter[AnyEvent] = TypeAdapter(AnyEvent)

__all__ = [
    "AnswerRetry",
    "AgentInput",
    "AgentOutput",
    "AgentSetup",
    "AgentStream",
    "AnyEvent",
    "CodeOutputStream",
    "Event",
    "RunCancelled",
    "RunFailed",
    "RunFinished",
    "RunTimedOut",
    "TerminalEvent",
    "TextBuffer",
    "ToolCall",
    "ToolCallResult",
    "event_adapter",
]
