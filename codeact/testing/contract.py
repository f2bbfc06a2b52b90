"""The executor contract: what every ``CodeExecutor`` promises, as a pytest suite to subclass.

A backend's author subclasses ``ExecutorContract`` in a test module and gives it an
``executor_factory`` fixture: a callable taking ``tools=`` (and any other keyword) and returning
a new, unstarted executor. Parametrise that fixture to run the whole contract over several
configurations, the way anyio parametrises its ``anyio_backend`` fixture::

    import pytest
    from codeact.testing.contract import ExecutorContract, ExecutorFactory

    class TestMyExecutor(ExecutorContract):
        supports_files = False  # upload()/download() raise NotImplementedError

        @pytest.fixture(params=["small", "large"])
        def executor_factory(self, request: pytest.FixtureRequest) -> ExecutorFactory:
            return lambda **kw: MyExecutor(size=request.param, **kw)

The tests are async and marked ``anyio`` (the anyio pytest plugin runs them; pin the backend
with an ``anyio_backend`` fixture). What they check: variables persist across cells, stdout and
stderr are captured and streamed, an exception in a cell is a result and not a crash, a timeout
or a cancellation interrupts the cell and the session stays usable, ``reset()`` forgets
variables, tools are importable (``from tools import x``) and their failures reach the cell,
files round-trip where supported, ``aclose()`` works twice, and misuse raises typed errors.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any, ClassVar

import anyio
import pytest

from codeact.context import Context
from codeact.errors import ExecutorError, UserError
from codeact.executors.base import CodeExecutor

#: Makes a new, unstarted executor; called with ``tools=[...]`` and nothing else by the suite.
ExecutorFactory = Callable[..., CodeExecutor]

#: Seconds any one contract step may take before it counts as a hang (never a speed check).
HANG_GUARD_S = 120.0


def lookup(city: str) -> dict[str, Any]:
    """Look a city up on the host."""
    return {"city": city, "host_only": True}


def broken(x: int) -> int:
    """Always fails."""
    raise RuntimeError(f"broken {x}")


def needs_context(ctx: Context, x: int) -> int:
    """Takes the agent's context, so it cannot run from a sandboxed cell."""
    return x


class ExecutorContract:
    """The contract suite; subclass it and provide the ``executor_factory`` fixture."""

    pytestmark: ClassVar[list[pytest.MarkDecorator]] = [pytest.mark.anyio]

    #: ``upload``/``download`` work (else they must raise ``NotImplementedError``).
    supports_files: ClassVar[bool] = True
    #: ``final_answer(value)`` is available to cells.
    supports_final_answer: ClassVar[bool] = True
    #: The per-cell timeout the timeout test gives ``execute(..., timeout=)``.
    cell_timeout_s: ClassVar[float] = 1.0

    @pytest.fixture
    def executor_factory(self) -> ExecutorFactory:
        """Override: return a callable making a new, unstarted executor (``tools=`` keyword)."""
        raise NotImplementedError(f"{type(self).__name__} must define an executor_factory fixture")

    @pytest.fixture
    async def executor(self, executor_factory: ExecutorFactory) -> AsyncIterator[CodeExecutor]:
        """A started executor with the ``lookup`` and ``broken`` tools, closed after the test."""
        ex = executor_factory(tools=[lookup, broken])
        with anyio.fail_after(HANG_GUARD_S):
            await ex.start()
        try:
            yield ex
        finally:
            with anyio.fail_after(HANG_GUARD_S):
                await ex.aclose()

    # -- state -------------------------------------------------------------------------------
    async def test_variables_persist_across_cells(self, executor: CodeExecutor) -> None:
        assert (await executor.execute("x = 40\ndef double(n):\n    return n * 2")).ok
        r = await executor.execute("double(x + 1)")
        assert r.ok and r.value == "82", r
        assert (await executor.execute("None")).value is None
        assert (await executor.execute("'text'")).value == "'text'"

    async def test_reset_forgets_variables(self, executor: CodeExecutor) -> None:
        await executor.execute("forgotten = 1")
        await executor.reset()
        r = await executor.execute("forgotten")
        assert r.error is not None and r.error.type == "NameError", r
        assert (await executor.execute("1 + 1")).value == "2"

    # -- output ------------------------------------------------------------------------------
    async def test_stdout_and_stderr_are_captured_and_streamed(
        self, executor: CodeExecutor
    ) -> None:
        chunks: list[tuple[str, str]] = []
        r = await executor.execute(
            "import sys\nprint('out', 1)\nprint('err', 2, file=sys.stderr)",
            on_output=lambda name, text: chunks.append((name, text)),
        )
        assert r.ok and r.stdout == "out 1\n" and r.stderr == "err 2\n", r
        assert "".join(t for n, t in chunks if n == "stdout") == "out 1\n", chunks
        assert "".join(t for n, t in chunks if n == "stderr") == "err 2\n", chunks

    # -- failures ----------------------------------------------------------------------------
    async def test_an_exception_is_a_result_not_a_crash(self, executor: CodeExecutor) -> None:
        r = await executor.execute("before = 'kept'\nraise ValueError('bad value')")
        assert not r.ok and not r.restarted and not r.timed_out, r
        assert r.error is not None and r.error.type == "ValueError", r
        assert r.error.message == "bad value" and "ValueError" in r.error.traceback, r
        assert (await executor.execute("before")).value == "'kept'"
        r = await executor.execute("x = (")
        assert r.error is not None and r.error.type == "SyntaxError", r
        assert (await executor.execute("1 + 1")).value == "2"

    async def test_a_timeout_interrupts_and_the_session_stays_usable(
        self, executor: CodeExecutor
    ) -> None:
        await executor.execute("kept = 'yes'")
        with anyio.fail_after(HANG_GUARD_S):
            r = await executor.execute(
                "n = 0\nwhile True:\n    n += 1", timeout=self.cell_timeout_s
            )
        assert r.timed_out and not r.ok, r
        after = await executor.execute("kept")
        assert after.value == ("'yes'" if not r.restarted else None), (r, after)
        assert (await executor.execute("2 * 21")).value == "42"

    async def test_cancelling_a_cell_keeps_the_session_usable(self, executor: CodeExecutor) -> None:
        await executor.execute("kept = 7")
        with anyio.fail_after(HANG_GUARD_S), anyio.move_on_after(0.5) as scope:
            await executor.execute("while True:\n    pass", timeout=HANG_GUARD_S)
        assert scope.cancelled_caught
        r = await executor.execute("kept")
        assert r.value == "7" or r.restarted, r
        assert (await executor.execute("3 * 3")).value == "9"

    # -- tools -------------------------------------------------------------------------------
    async def test_tools_are_importable_and_run_on_the_host(self, executor: CodeExecutor) -> None:
        r = await executor.execute("from tools import lookup\nlookup('Oslo')")
        assert r.ok and r.value == "{'city': 'Oslo', 'host_only': True}", r
        r = await executor.execute("import tools\ntools.lookup(city='Rome')['city']")
        assert r.value == "'Rome'", r
        r = await executor.execute(
            "from tools import broken, ToolError\ntry:\n    broken(3)\n"
            "except ToolError as e:\n    msg = str(e)\nmsg"
        )
        assert r.ok and "broken 3" in (r.value or ""), r

    async def test_tools_taking_a_context_are_refused(
        self, executor_factory: ExecutorFactory
    ) -> None:
        ex = executor_factory(tools=[needs_context])
        try:
            with pytest.raises(UserError, match="Context"):
                await ex.start()
        finally:
            await ex.aclose()

    async def test_final_answer_is_recorded(self, executor: CodeExecutor) -> None:
        if not self.supports_final_answer:
            pytest.skip(f"{type(executor).__name__} has no final_answer()")
        r = await executor.execute("final_answer({'n': (1, 2)})\nprint('not reached')")
        assert r.is_final_answer and r.final_answer == {"n": [1, 2]} and r.stdout == "", r

    # -- files -------------------------------------------------------------------------------
    async def test_files_round_trip_and_survive_reset(self, executor: CodeExecutor) -> None:
        if not self.supports_files:
            with pytest.raises(NotImplementedError):
                await executor.upload("a.txt", b"x")
            with pytest.raises(NotImplementedError):
                await executor.download("a.txt")
            return
        await executor.upload("data/in.txt", b"hello")
        r = await executor.execute(
            "text = open('data/in.txt').read()\n"
            "with open('out.txt', 'w') as f:\n    f.write(text.upper())\ntext"
        )
        assert r.value == "'hello'", r
        assert await executor.download("out.txt") == b"HELLO"
        await executor.reset()
        assert (await executor.execute("open('out.txt').read()")).value == "'HELLO'"

    async def test_bad_paths_and_missing_files_are_user_errors(
        self, executor: CodeExecutor
    ) -> None:
        if not self.supports_files:
            pytest.skip(f"{type(executor).__name__} moves no files")
        for bad in ("/etc/passwd", "../x", "a/../../x"):
            with pytest.raises(UserError):
                await executor.upload(bad, b"x")
        with pytest.raises(UserError):
            await executor.download("missing.txt")

    # -- lifecycle ---------------------------------------------------------------------------
    async def test_aclose_works_twice_and_a_closed_executor_refuses_work(
        self, executor_factory: ExecutorFactory
    ) -> None:
        never_started = executor_factory(tools=[])
        await never_started.aclose()
        await never_started.aclose()
        ex = executor_factory(tools=[])
        async with ex:
            assert (await ex.execute("1")).value == "1"
        await ex.aclose()
        with pytest.raises(ExecutorError):
            await ex.execute("1")

    async def test_start_is_idempotent(self, executor: CodeExecutor) -> None:
        await executor.execute("kept = 5")
        await executor.start()
        assert (await executor.execute("kept")).value == "5"


__all__ = ["HANG_GUARD_S", "ExecutorContract", "ExecutorFactory"]
