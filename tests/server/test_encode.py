"""The SSE encoder's fast paths write exactly what pydantic writes (camelCase, no nulls)."""

from __future__ import annotations

from enum import StrEnum

import pytest
from ag_ui.core import (
    BaseEvent,
    CustomEvent,
    RunFinishedCancelledOutcome,
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
)

from codeact.server._sse import encode, frame


class Name(StrEnum):
    A = "a"


ODD = 'quote " back \\ nl \n tab \t é 😀 \x00 \u2028 \x7f'


def _cases() -> list[BaseEvent]:
    plain = [
        TextMessageContentEvent(message_id="m1", delta="w1 "),
        TextMessageContentEvent(message_id=ODD, delta=ODD),
        TextMessageStartEvent(message_id="m1", role="assistant"),
        TextMessageStartEvent(message_id="m1"),
        TextMessageStartEvent(message_id=ODD, role="assistant", name=ODD),
        TextMessageStartEvent(message_id="m1", role=None, name=None),
        TextMessageEndEvent(message_id=ODD),
        RunStartedEvent(thread_id="t", run_id=ODD),
        RunFinishedEvent(thread_id=ODD, run_id="r"),
    ]
    extra = [  # (fields the fast paths leave to pydantic)
        TextMessageContentEvent(message_id="m", delta="d", timestamp=5),
        TextMessageContentEvent(message_id="m", delta="d", metadata={"k": 1}),
        TextMessageContentEvent.model_validate({"messageId": "m", "delta": "d", "x": 1}),
        TextMessageStartEvent(message_id="m", role="assistant", timestamp=7),
        TextMessageStartEvent.model_validate({"messageId": "m", "role": "user", "extra": [1]}),
        TextMessageEndEvent(message_id="m", raw_event={"a": None}),
        RunStartedEvent(thread_id="t", run_id="r", parent_run_id="p"),
        RunStartedEvent(thread_id="t", run_id="r", protocol_version="1.0"),
        RunFinishedEvent(thread_id="t", run_id="r", result={"ok": True}),
        RunFinishedEvent(thread_id="t", run_id="r", outcome=RunFinishedCancelledOutcome()),
        TextMessageStartEvent(message_id=Name.A, role="assistant"),
        CustomEvent(name="codeact.agent", value={"agentName": "A", "tools": []}),
    ]
    changed = TextMessageEndEvent(message_id="m")
    changed.timestamp = 9  # (set after construction, as an ``after`` hook may)
    return [*plain, *extra, changed]


@pytest.mark.parametrize("event", _cases(), ids=lambda e: type(e).__name__)
def test_encode_writes_what_pydantic_writes(event: BaseEvent) -> None:
    assert encode(event) == event.model_dump_json(by_alias=True, exclude_none=True)


def test_a_lone_surrogate_becomes_a_question_mark_not_an_error() -> None:
    for event in (
        TextMessageContentEvent(message_id="m", delta="a\ud800b"),
        TextMessageStartEvent(message_id="m\udfff", role="assistant"),
    ):
        assert b"?" in frame(0, encode(event))
