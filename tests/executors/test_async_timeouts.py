"""An async cell stopped by its deadline: the interrupt repeats until the cell ends, so it can
land anywhere in the host code that winds the session's event loop down. No loop may be left
half-closed for the garbage collector (an ``unclosed event loop`` warning, or a ``ValueError``
from a loop whose self-pipe is already gone)."""

from __future__ import annotations

import asyncio
import gc
import sys
from typing import Any

import pytest

from codeact.executors import RestrictedExecutor
from codeact.executors.restricted import _interrupt

pytestmark = pytest.mark.anyio

SPIN = (
    "import asyncio\nasync def forever():\n    while True:\n        await asyncio.sleep(0)\n"
    "await asyncio.shield(asyncio.create_task(forever()))"
)


def _open_loops(mine: asyncio.AbstractEventLoop) -> list[asyncio.AbstractEventLoop]:
    gc.collect()
    return [
        o
        for o in gc.get_objects()
        if isinstance(o, asyncio.BaseEventLoop) and o is not mine and not o.is_closed()
    ]


async def test_repeated_interrupts_never_leave_a_loop_half_closed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Interrupts every half millisecond after the deadline: one lands in the loop's shutdown
    # within a few cells if that shutdown can be interrupted at all.
    monkeypatch.setattr(_interrupt, "REPEAT_S", 0.0001)
    unraisable: list[Any] = []
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)
    mine = asyncio.get_running_loop()
    before = {id(o) for o in _open_loops(mine)}
    async with RestrictedExecutor(isolation="inline", timeout=0.15) as ex:
        for _ in range(60):
            r = await ex.execute(SPIN)
            assert r.timed_out, r.to_observation()
        after = await ex.execute("import asyncio\nawait asyncio.sleep(0)\n1 + 1")
        assert after.value == "2", after.to_observation()
    left = [o for o in _open_loops(mine) if id(o) not in before]
    assert not left, f"{len(left)} event loops were left open"
    assert not [u for u in unraisable if "loop" in repr(u.object).lower()], [
        (u.exc_value, u.object) for u in unraisable
    ]


def open_fds() -> int:
    """How many file descriptors the host process has open."""
    import os

    return len(os.listdir("/proc/self/fd"))


async def test_a_cell_that_catches_its_own_errors_cannot_pile_up_open_loops() -> None:
    # each failed asyncio.run abandons a loop (3 descriptors); a cell that is not late closes
    # it at once, so looping on it cannot fill the host's descriptor table
    cell = (
        "import asyncio\nfrom tools import open_fds\nasync def f():\n    raise SystemExit\n"
        "before = open_fds()\nfor i in range(200):\n    try:\n        asyncio.run(f())\n"
        "    except SystemExit:\n        pass\nopen_fds() - before"
    )
    async with RestrictedExecutor(isolation="inline", tools=[open_fds], timeout=60) as ex:
        r = await ex.execute(cell)
    assert r.error is None, r.to_observation()
    assert r.value is not None and int(r.value) < 20, r.value
