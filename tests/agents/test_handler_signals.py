"""A run whose reader went away (its ``stream_events()`` loop cancelled, as Ctrl-C does) still
ends cleanly: its last events have nowhere to go, and that is not an error of the run."""

from __future__ import annotations

import pytest

from codeact import FunctionAgent
from codeact.errors import RunCancelledError
from codeact.llms import Reply, ScriptedLLM

pytestmark = pytest.mark.anyio


async def test_cancel_after_the_reader_left_ends_with_the_cancel_not_a_broken_stream() -> None:
    agent = FunctionAgent(llm=ScriptedLLM([Reply(text="slow", delay=60)]))
    handler = agent.run("hi")
    events = handler.stream_events()
    await events.__anext__()  # the run has started
    await events.aclose()  # the reader is gone
    await handler.cancel()
    with pytest.raises(RunCancelledError):
        await handler
