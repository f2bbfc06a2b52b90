"""SSE framing and JSON encoding of AG-UI events (a leaf: the run registry, replays and
history all use it)."""

from __future__ import annotations

import json

from ag_ui.core import (
    BaseEvent,
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
)


def frame(seq: int, data: str) -> bytes:
    """One SSE frame with its id (for ``Last-Event-ID``): LF framing, one event per data.
    A lone surrogate (which UTF-8 cannot carry) becomes ``?`` rather than failing the run."""
    return b"id: %d\ndata: %s\n\n" % (seq, data.encode("utf-8", "replace"))


def encode(event: BaseEvent) -> str:
    """The event's camelCase JSON without nulls (``model_dump_json(by_alias=True,
    exclude_none=True)``); the frequent events made of strings only (text deltas, a message's
    start and end, a run's start and end) by a fast path that writes the same text."""
    if type(event) is TextMessageContentEvent and not _has_extras(event):
        return text_delta_json(event.message_id, event.delta)
    fast = _FAST.get(type(event))
    if fast is not None and not event.__pydantic_extra__:
        head, fields, allowed = fast
        if event.__pydantic_fields_set__ <= allowed:
            values = event.__dict__
            parts = [head]
            for name, key in fields:
                value = values[name]
                if value is None:
                    continue
                if type(value) is not str:
                    break  # (a str subclass, or anything else: the full encoder)
                parts += (key, dumps_str(value))
            else:
                parts.append("}")
                return "".join(parts)
    return event.model_dump_json(by_alias=True, exclude_none=True)


def text_delta_json(message_id: str, delta: str) -> str:
    """A plain ``TEXT_MESSAGE_CONTENT`` event's JSON (the most frequent event)."""
    return _CONTENT % (dumps_str(message_id), dumps_str(delta))


def _fast(
    cls: type[BaseEvent], *fields: str
) -> tuple[type[BaseEvent], tuple[str, tuple[tuple[str, str], ...], frozenset[str]]]:
    """``cls`` written by hand when only ``fields`` (strings, in the model's field order) are
    set; its other fields default to None."""
    order = [name for name in cls.model_fields if name in fields]
    assert order == list(fields), (cls, order)
    keys = tuple((name, f',"{cls.model_fields[name].alias or name}":') for name in fields)
    kind = cls.model_fields["type"].default.value
    return cls, ('{"type":"' + kind + '"', keys, frozenset({"type", *fields}))


_FAST = dict(
    [
        _fast(TextMessageStartEvent, "message_id", "role", "name"),
        _fast(TextMessageEndEvent, "message_id"),
        _fast(RunStartedEvent, "thread_id", "run_id"),
        _fast(RunFinishedEvent, "thread_id", "run_id"),
    ]
)
_CONTENT = '{"type":"TEXT_MESSAGE_CONTENT","messageId":%s,"delta":%s}'
#: A str as JSON (what ``json.dumps(s, ensure_ascii=False)`` gives), by the C encoder.
dumps_str = json.encoder.encode_basestring
#: The fields a plain text delta has set (those the fast path writes).
_PLAIN_CONTENT = frozenset({"type", "message_id", "delta"})


def _has_extras(event: BaseEvent) -> bool:
    """Whether the event has a field set beyond type, message id and delta (a hook's
    timestamp, metadata, ...: the full encoder writes it), or extra fields."""
    if not event.__pydantic_fields_set__ <= _PLAIN_CONTENT:
        fields = event.__dict__
        return (
            fields.get("timestamp") is not None
            or fields.get("raw_event") is not None
            or fields.get("metadata") is not None
            or fields.get("subagent_run_id") is not None
            or bool(event.model_extra)
        )
    return bool(event.__pydantic_extra__)
