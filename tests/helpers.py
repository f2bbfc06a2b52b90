"""Small helpers shared by the tests."""

from __future__ import annotations

from codeact.agents import RunHandler
from codeact.events import Event


async def collect(handler: RunHandler) -> list[Event]:
    """All events of a run, checking the invariants every stream must keep."""
    events = [ev async for ev in handler.stream_events()]
    assert [e.seq for e in events] == list(range(len(events))), "seq must count up by one"
    assert all(e.run_id == handler.run_id for e in events)
    terminal = [e for e in events if e.type.startswith("run_")]
    assert len(terminal) == 1 and events[-1] is terminal[0], "exactly one terminal event, last"
    stamps = [e.timestamp for e in events]
    assert stamps == sorted(stamps)
    return events


def kinds(events: list[Event]) -> list[str]:
    """The event types, with AgentStream runs collapsed to one entry."""
    out: list[str] = []
    for e in events:
        if e.type == "agent_stream" and out and out[-1] == "agent_stream":
            continue
        out.append(e.type)
    return out
