"""Ordinary Python prints what plain CPython prints, in both isolation modes of the restricted
executor and in the Docker kernel (issue 26): the everyday standard library, ``__slots__`` and
``match`` class patterns."""

from __future__ import annotations

import ast
import asyncio
import concurrent.futures
import contextlib
import contextvars
import functools
import io
import os
import tempfile
import time
from collections.abc import AsyncIterator

import anyio
import pytest

from codeact.executors import CodeExecutor, RestrictedExecutor
from tests.executors.modes import MODES, make_executor
from tests.executors.parity_cells import ASYNC, SLOTS_AND_MATCH, STDLIB

pytestmark = pytest.mark.anyio


def cpython(code: str) -> str:
    """What plain ``exec`` prints for ``code`` (run in a scratch directory)."""
    out = io.StringIO()
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as scratch, contextlib.redirect_stdout(out):
        os.chdir(scratch)
        try:
            code_object = compile(code, "<cell>", "exec", dont_inherit=True)
            # in a copy of the context: a cell's decimal context stays out of the test's
            contextvars.copy_context().run(exec, code_object, {"__name__": "__main__"})
        finally:
            os.chdir(here)
    return out.getvalue()


@pytest.fixture(params=MODES)
async def executor(request: pytest.FixtureRequest) -> AsyncIterator[CodeExecutor]:
    """A started executor of each kind: inline, process, Docker (real engine and image)."""
    async with make_executor(request, request.param, timeout=30) as ex:
        yield ex


@pytest.mark.parametrize("name", sorted(STDLIB))
async def test_everyday_stdlib_prints_as_in_cpython(executor: CodeExecutor, name: str) -> None:
    cell = STDLIB[name]
    r = await executor.execute(cell)
    assert r.error is None and not r.timed_out, r.to_observation()
    assert r.stdout == cpython(cell)


@pytest.mark.parametrize("name", sorted(SLOTS_AND_MATCH))
async def test_slots_and_match_class_patterns_print_as_in_cpython(
    executor: CodeExecutor, name: str
) -> None:
    cell = SLOTS_AND_MATCH[name]
    r = await executor.execute(cell)
    assert r.error is None, r.to_observation()
    assert r.stdout == cpython(cell)


async def test_match_inside_a_function_binds_locals(executor: CodeExecutor) -> None:
    cell = (
        "class Box:\n    def __init__(self, v):\n        self.format = v\n"
        "def f(b):\n    match b:\n        case Box(format=v):\n            return v\n"
        "    return None\nprint(f(Box(3)), f(4))"
    )
    r = await executor.execute(cell)
    assert r.error is None and r.stdout == cpython(cell) == "3 None\n", r.to_observation()


@pytest.mark.parametrize("isolation", ["inline", "process"])
async def test_a_refused_name_says_which_module(isolation: str) -> None:
    async with RestrictedExecutor(isolation=isolation) as ex:  # type: ignore[arg-type]
        r = await ex.execute("from decimal import BasicContext")
        assert r.error is not None and r.error.type == "ImportError"
        assert "'BasicContext' from 'decimal'" in r.error.message
        assert "unknown module name" not in r.error.message
        r = await ex.execute("import subprocess")
        assert r.error is not None and "'subprocess'" in r.error.message
        assert "give the agent a tool" in r.error.message
        r = await ex.execute("from contextlib import redirect_stdout")
        assert r.error is not None and "'redirect_stdout' from 'contextlib'" in r.error.message


@pytest.mark.parametrize("isolation", ["inline", "process"])
async def test_warnings_go_to_the_cells_stderr_and_stay_in_the_session(isolation: str) -> None:
    import warnings

    before = list(warnings.filters)
    async with RestrictedExecutor(isolation=isolation) as ex:  # type: ignore[arg-type]
        r = await ex.execute("import warnings\nwarnings.warn('careful')\nx = 1")
        assert r.error is None and ": UserWarning: careful\n" in r.stderr, r
        r = await ex.execute(
            "warnings.simplefilter('error')\nwarnings.resetwarnings()\n"
            "warnings.simplefilter('error')"
        )
        assert r.error is None
        r = await ex.execute("warnings.warn('now fatal')")
        assert r.error is not None and r.error.type == "UserWarning"
    assert warnings.filters == before  # the host's own filters were never touched


@pytest.mark.parametrize("isolation", ["inline", "process"])
async def test_decimal_context_is_the_sessions_own(isolation: str) -> None:
    import decimal

    host = decimal.getcontext()
    prec = host.prec
    async with (
        RestrictedExecutor(isolation=isolation) as a,  # type: ignore[arg-type]
        RestrictedExecutor(isolation=isolation) as b,  # type: ignore[arg-type]
    ):
        await a.execute("from decimal import getcontext, Decimal\ngetcontext().prec = 3")
        assert (await a.execute("Decimal(1) / 7")).value == "Decimal('0.143')"
        r = await b.execute("from decimal import Decimal\nDecimal(1) / 7")
        assert r.value == "Decimal('0.1428571428571428571428571429')"
    assert decimal.getcontext() is host and host.prec == prec


def cpython_async(code: str) -> str:
    """What CPython prints for a cell with top-level ``await`` run as IPython does (compiled
    with ``PyCF_ALLOW_TOP_LEVEL_AWAIT``, the coroutine run by ``asyncio.run``), in a thread of
    its own: the test's event loop is running in this one."""

    def run() -> str:
        out = io.StringIO()
        flags = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
        code_object = compile(code, "<cell>", "exec", flags=flags, dont_inherit=True)
        with contextlib.redirect_stdout(out):
            result = eval(code_object, {"__name__": "__main__"})
            if asyncio.iscoroutine(result):
                asyncio.run(result)
        return out.getvalue()

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(run).result()


@pytest.mark.parametrize("name", sorted(ASYNC))
async def test_async_cells_print_as_in_cpython(executor: CodeExecutor, name: str) -> None:
    cell = ASYNC[name]
    r = await executor.execute(cell)
    assert r.error is None and not r.timed_out, r.to_observation()
    assert r.stdout == cpython_async(cell)


async def test_tasks_live_on_the_sessions_loop_across_cells(executor: CodeExecutor) -> None:
    r = await executor.execute(
        "import asyncio\nt = asyncio.create_task(asyncio.sleep(0.01, 'later'))\n"
        "await asyncio.sleep(0)\nt.done()"
    )
    assert r.error is None and r.value == "False", r.to_observation()
    r = await executor.execute("await t")
    assert r.error is None and r.value == "'later'", r.to_observation()
    r = await executor.execute("asyncio.run(asyncio.sleep(0, 'fresh'))")
    assert r.error is None and r.value == "'fresh'", r.to_observation()
    r = await executor.execute("await asyncio.sleep(0)\nasyncio.run(asyncio.sleep(0))")
    assert r.error is not None and "running event loop" in r.error.message


def lookup(city: str) -> float:
    """Population of a city, in millions."""
    return {"Oslo": 0.7, "Bergen": 0.3}[city]


@pytest.mark.parametrize("mode", MODES)
async def test_host_tools_are_awaitable(request: pytest.FixtureRequest, mode: str) -> None:
    async with make_executor(request, mode, tools=[lookup]) as ex:
        r = await ex.execute(
            "import asyncio\nfrom tools import lookup\n"
            "async def both():\n    a = await lookup('Oslo')\n    b = lookup(city='Bergen')\n"
            "    c = await asyncio.to_thread(lookup, 'Oslo')\n    return a, b, c\n"
            "print(asyncio.run(both()))"
        )
        assert r.error is None and r.stdout == "(0.7, 0.3, 0.7)\n", r.to_observation()
        r = await ex.execute("print(await both())\nawait lookup('Bergen')")
        assert r.error is None and r.stdout == "(0.7, 0.3, 0.7)\n", r.to_observation()
        assert r.value == "0.3"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "cell",
    [
        "import asyncio\nawait asyncio.sleep(100)",
        "import asyncio\nasyncio.run(asyncio.sleep(100))",
        "async def spin():\n    while True:\n        pass\nawait spin()",
        "import asyncio\nasync def eat():\n    while True:\n        try:\n"
        "            await asyncio.sleep(10)\n        except BaseException:\n            pass\n"
        "await eat()",
    ],
    ids=["sleep", "asyncio.run", "busy", "swallows"],
)
async def test_a_deadline_stops_async_cells(
    request: pytest.FixtureRequest, mode: str, cell: str
) -> None:
    async with make_executor(request, mode) as ex:
        await ex.execute("x = 41")
        started = time.monotonic()
        r = await ex.execute(cell, timeout=1.5)
        assert r.timed_out, r.to_observation()
        assert time.monotonic() - started < 15
        r = await ex.execute("import asyncio\nawait asyncio.sleep(0)\nx + 1")
        assert r.error is None and r.value == "42", r.to_observation()


@pytest.mark.parametrize("mode", MODES)
async def test_cancelling_an_async_cell_keeps_the_session(
    request: pytest.FixtureRequest, mode: str
) -> None:
    async with make_executor(request, mode) as ex:
        await ex.execute("x = 1")
        started = anyio.Event()

        def seen(_stream: str, text: str) -> None:
            if "started" in text:
                started.set()

        cell = "import asyncio\nprint('started', flush=True)\nawait asyncio.sleep(100)"
        async with anyio.create_task_group() as tg:
            tg.start_soon(functools.partial(ex.execute, cell, on_output=seen))
            with anyio.fail_after(60):
                await started.wait()
            tg.cancel_scope.cancel()
        r = await ex.execute("await asyncio.sleep(0)\nx")
        assert r.error is None and r.value == "1", r.to_observation()
