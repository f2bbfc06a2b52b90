"""Agent-loop overhead: a 10-step tool-calling run driven by ScriptedLLM with a trivial tool.

Run by hand: ``.venv/bin/python benchmarks/loop_overhead.py [--runs N]``. Prints the median wall
time per step (one LLM step + one tool call) and, if llama-index-core is installed, the same run
through LlamaIndex's FunctionAgent with its mock function-calling LLM, and the ratio.
"""

from __future__ import annotations

import argparse
import statistics
import time

import anyio

from codeact import FunctionAgent
from codeact.llms import ScriptedLLM, tool_call

STEPS = 10


def noop(x: int) -> int:
    """Return x."""
    return x


async def trivial(x: int) -> int:
    """Return x (async, no thread hop)."""
    return x


async def one_run(tool: object) -> float:
    name = getattr(tool, "__name__", "noop")
    replies: list[object] = [tool_call(name, x=i) for i in range(STEPS - 1)] + ["done"]
    agent = FunctionAgent(llm=ScriptedLLM(replies), tools=[tool], max_iterations=STEPS)  # type: ignore[list-item]
    t0 = time.perf_counter()
    handler = agent.run("go")
    async for _ in handler.stream_events():
        pass
    await handler
    return (time.perf_counter() - t0) / STEPS


async def measure(tool: object, runs: int) -> float:
    for _ in range(20):
        await one_run(tool)
    samples = [await one_run(tool) for _ in range(runs)]
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=300)
    args = parser.parse_args()
    sync_ms = anyio.run(measure, noop, args.runs) * 1000
    async_ms = anyio.run(measure, trivial, args.runs) * 1000
    print(f"codeact FunctionAgent, {STEPS}-step run, {args.runs} runs (median per step):")
    print(f"  sync tool (worker thread): {sync_ms:.3f} ms/step")
    print(f"  async tool:                {async_ms:.3f} ms/step")
    print("  target: <= 0.5 ms/step")
    try:
        from _llamaindex_anchor import measure_llamaindex
    except ImportError:
        print("llama-index-core not installed: no LlamaIndex anchor in this run")
        return
    li_ms = anyio.run(measure_llamaindex, STEPS, args.runs) * 1000
    print(
        f"llama-index-core FunctionAgent, same run: {li_ms:.3f} ms/step "
        f"(codeact is {li_ms / sync_ms:.1f}x faster with a sync tool)"
    )


if __name__ == "__main__":
    main()
