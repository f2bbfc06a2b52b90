"""Ordinary Python prints what plain CPython prints, in both isolation modes of the restricted
executor and in the Docker kernel (issue 26): the everyday standard library, ``__slots__`` and
``match`` class patterns."""

from __future__ import annotations

import contextlib
import contextvars
import io
import os
import tempfile
from collections.abc import AsyncIterator

import pytest

from codeact.executors import CodeExecutor, RestrictedExecutor
from tests.executors.parity_cells import SLOTS_AND_MATCH, STDLIB

pytestmark = pytest.mark.anyio
MODES = ["inline", "process", pytest.param("docker", marks=pytest.mark.docker)]


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
    ex: CodeExecutor
    if request.param == "docker":
        request.getfixturevalue("sandbox_image")
        from codeact.executors.docker import DockerExecutor

        ex = DockerExecutor(timeout=60, start_timeout=120)
    else:
        ex = RestrictedExecutor(isolation=request.param, timeout=30)
    async with ex:
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
