"""Sandbox code that host code would run later, outside any cell (the red team's findings 5,
6, 7, 9 against the issue-26 surface): it stops at its first check, it cannot reach another
session's objects, and it gets no host state. Inline mode, where the host is the same process."""

from __future__ import annotations

import asyncio
import gc
import sys
import time

import pytest

from codeact.executors import RestrictedExecutor

pytestmark = pytest.mark.anyio

CYCLIC_GENERATOR = """
class Node:
    pass
def g2():
    try:
        yield 1
    finally:
        while True:
            pass
def make():
    n = Node()
    n.gen = g2()
    next(n.gen)
    n.self = n
make()
"""


async def test_generator_finally_run_by_the_host_collector_stops_at_once() -> None:
    async with RestrictedExecutor(isolation="inline", timeout=5) as ex:
        r = await ex.execute(CYCLIC_GENERATOR)
        assert r.error is None and not r.timed_out, r.to_observation()
        seen: list[BaseException | None] = []
        hook, sys.unraisablehook = sys.unraisablehook, lambda u: seen.append(u.exc_value)
        try:
            t0 = time.monotonic()
            gc.collect()  # the generator's finally runs here, in the host's thread, in no cell
            took = time.monotonic() - t0
        finally:
            sys.unraisablehook = hook
        assert took < 2
        assert [type(e).__name__ for e in seen] == ["CellTimeout"]


async def test_a_task_subclass_cannot_reach_the_host_registry() -> None:
    code = (
        "import asyncio\nclass T(asyncio.Task):\n    def get_loop(self):\n        while True:\n"
        "            pass"
    )
    async with RestrictedExecutor(isolation="inline", timeout=5) as ex:
        r = await ex.execute(code)
        assert r.error is not None and "cannot be subclassed" in r.error.message
        t0 = time.monotonic()
        asyncio.all_tasks()
        assert time.monotonic() - t0 < 2


async def test_queues_of_two_sessions_stay_apart() -> None:
    evil = (
        "import queue\nclass Evil(queue.Queue):\n    def __init__(self):\n        pass\n"
        "    def __hash__(self):\n        return {h}\n    def __eq__(self, other):\n"
        "        return True\ne = Evil()\ne.get_nowait()"
    )
    async with (
        RestrictedExecutor(isolation="inline", timeout=5) as a,
        RestrictedExecutor(isolation="inline", timeout=5) as b,
    ):
        ra = await a.execute("import queue\nq = queue.Queue()\nq.put('secret of a')\nhash(q)")
        assert ra.value is not None, ra.to_observation()
        rb = await b.execute(evil.format(h=ra.value))
        assert "secret of a" not in rb.to_observation()
        assert rb.error is not None
        assert (await a.execute("q.qsize()")).value == "1"


async def test_a_task_on_a_fake_loop_is_refused() -> None:
    code = (
        "import asyncio\nclass FakeLoop:\n    def get_debug(self):\n        return False\n"
        "    def call_soon(self, cb, *a, context=None):\n        print('CONTEXT', context)\n"
        "async def c():\n    return 1\nkeep = asyncio.Task(c(), loop=FakeLoop())"
    )
    async with RestrictedExecutor(isolation="inline", timeout=5) as ex:
        r = await ex.execute(code)
        assert "CONTEXT" not in r.stdout
        assert r.error is not None and "loop" in r.error.message, r.to_observation()
