"""Tool payloads past the frame limit fail at once with a clear error, and the session lives on;
a cell raising KeyboardInterrupt is an error result, not a timeout."""

from __future__ import annotations

import time

import pytest

from codeact.executors import RestrictedExecutor

pytestmark = pytest.mark.anyio


def big(n: int) -> str:
    """Return n characters."""
    return "x" * n


def echo(text: str) -> int:
    """Return the length of text."""
    return len(text)


async def test_oversized_tool_result_fails_fast_and_the_session_survives() -> None:
    async with RestrictedExecutor(isolation="process", tools=[big], timeout=20) as ex:
        await ex.execute("kept = 41")
        t0 = time.monotonic()
        r = await ex.execute("from tools import big\nbig(20_000_000)")
        assert time.monotonic() - t0 < 10  # not the 20 s deadline
        assert r.error is not None and "too large" in r.error.message, r
        assert not r.timed_out and not r.restarted
        r = await ex.execute("kept + 1")
        assert r.value == "42"


async def test_oversized_tool_arguments_fail_fast_and_the_session_survives() -> None:
    async with RestrictedExecutor(isolation="process", tools=[echo], timeout=20) as ex:
        r = await ex.execute("from tools import echo\necho('y' * 20_000_000)")
        assert r.error is not None and "too large" in r.error.message, r
        assert not r.timed_out and not r.restarted
        r = await ex.execute("echo('small')")
        assert r.value == "5"


@pytest.mark.parametrize("isolation", ["inline", "process"])
async def test_keyboard_interrupt_raised_by_a_cell_is_an_error_result(isolation: str) -> None:
    async with RestrictedExecutor(isolation=isolation, timeout=20) as ex:  # type: ignore[arg-type]
        r = await ex.execute("raise KeyboardInterrupt('stop')")
        assert r.error is not None and r.error.type == "KeyboardInterrupt", r
        assert not r.timed_out and not r.restarted
        assert (await ex.execute("1 + 1")).value == "2"


async def test_a_cell_too_large_for_one_frame_is_an_error_result() -> None:
    async with RestrictedExecutor(isolation="process", timeout=20) as ex:
        await ex.execute("kept = 1")
        r = await ex.execute("x = '" + "a" * 17_000_000 + "'")
        assert r.error is not None and r.error.type == "FrameTooLarge", r
        assert (await ex.execute("kept")).value == "1"
