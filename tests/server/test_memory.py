"""Bounded memory: a 4 MB answer streamed in 1 KB chunks through a real ``codeact serve``
process stays far below the 200 MB peak RSS bound; ``AgentStream`` carries deltas only."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from codeact import FunctionAgent
from codeact.events import AgentStream
from codeact.llms import Reply, ScriptedLLM
from tests.server.agui_check import check_stream, parse_sse
from tests.server.test_durable import Served

BOUND_KB = 200 * 1024


def peak_rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_4mb_streamed_answer_keeps_the_server_small(tmp_path: Path) -> None:
    s = Served(tmp_path / "big.db", factory="big")
    try:
        payload = {"threadId": "big", "runId": "r", "messages": [{"role": "user", "content": "go"}]}
        r = httpx.post(s.url + "/", json=payload, timeout=300)
        events = parse_sse(r.content)
        assert check_stream(events)[-1] == "RUN_FINISHED"
        deltas = [e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT"]
        assert len(deltas) == 4096 and sum(map(len, deltas)) == 4 * 1024 * 1024
        assert peak_rss_kb(s.proc.pid) < BOUND_KB
    finally:
        s.stop()


def test_agent_stream_events_carry_deltas_and_rebuild_the_response() -> None:
    chunks = ["ab", "cd", "ef"]
    agent = FunctionAgent(llm=ScriptedLLM([Reply(chunks=chunks)]))

    async def main() -> list[AgentStream]:
        handler = agent.run("hi")
        return [e async for e in handler.stream_events() if isinstance(e, AgentStream)]

    import anyio

    streams = anyio.run(main)
    assert [e.delta for e in streams] == chunks
    assert [e.offset for e in streams] == [0, 2, 4]
    assert [e.response for e in streams] == ["ab", "abcd", "abcdef"]
    assert len({e.message_id for e in streams}) == 1 and streams[0].message_id
    assert "response" not in streams[0].model_dump()  # nothing O(n) per event on the wire


def test_stream_batches_yields_every_ready_event_in_order() -> None:
    agent = FunctionAgent(llm=ScriptedLLM([Reply(chunks=["a", "b", "c"])]))

    async def main() -> tuple[list[list[Any]], list[Any]]:
        batches = [b async for b in agent.run("hi").stream_batches()]
        events = [e async for e in agent_again.run("hi").stream_events()]
        return batches, events

    agent_again = FunctionAgent(llm=ScriptedLLM([Reply(chunks=["a", "b", "c"])]))
    import anyio

    batches, events = anyio.run(main)
    flat = [e for b in batches for e in b]
    assert [type(e) for e in flat] == [type(e) for e in events]
    assert [e.seq for e in flat] == list(range(len(flat))) and all(batches)


def test_live_cell_output_in_activity_events_is_capped() -> None:
    from codeact.events import CodeOutputStream
    from codeact.server import Translator
    from codeact.server.translator import ACTIVITY_MAX_CHARS, ACTIVITY_TRUNCATED

    tr = Translator("t", "r", activity=True)
    out = []
    for _ in range(1024):  # 1 MB printed by a cell, 1 KB at a time
        out += tr.translate(CodeOutputStream(tool_id="c1", text="y" * 1023 + "\n"))
    wire = sum(len(e.model_dump_json()) for e in out)
    assert len(out) <= ACTIVITY_MAX_CHARS // 1024 + 1 and wire < 4 * 1024 * 1024
    assert out[-1].patch[0].value.endswith(ACTIVITY_TRUNCATED)  # type: ignore[attr-defined]
