"""Ordinary Python that must behave as in CPython inside the restricted executor (issue 16,
first items): ``type`` in isinstance/issubclass, ``final_answer(answer=...)``, bare tool names."""

from __future__ import annotations

import contextlib
import io

import pytest

from codeact.executors import RestrictedExecutor
from tests.executors.modes import MODES, make_executor

pytestmark = pytest.mark.anyio
BOTH = pytest.mark.parametrize("isolation", ["inline", "process"])
ALL = pytest.mark.parametrize("mode", MODES)  # the Docker kernel too (issue 26)

TYPE_CELL = """
import enum
class C:
    pass
class Color(enum.Enum):
    RED = 1
print(isinstance(C, type), issubclass(C, type), isinstance(3, type), isinstance(C(), type))
print(isinstance(Color, type), issubclass(type(Color), type), type(type) is type)
print(type(C) is type, type([]) is list, type(3) is int, isinstance(int, (str, type)))
"""


def cpython(code: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        # dont_inherit: this module's ``from __future__ import annotations`` must not apply
        exec(compile(code, "<cell>", "exec", dont_inherit=True), {"__name__": "__main__"})
    return out.getvalue()


@ALL
async def test_type_answers_isinstance_and_issubclass_like_cpython(
    request: pytest.FixtureRequest, mode: str
) -> None:
    async with make_executor(request, mode) as ex:
        r = await ex.execute(TYPE_CELL)
        assert r.error is None, r.error
        assert r.stdout == cpython(TYPE_CELL)


@BOTH
@pytest.mark.parametrize(
    "cell",
    [
        "type('X', (), {})",
        "type(int)('X', (), {})",  # the real type is never handed out
        "class C: pass\ntype(C)('X', (), {})",
        "class M(type):\n    pass\nclass X(metaclass=M):\n    pass",  # a metaclass makes none
    ],
)
async def test_classes_from_three_arguments_stay_refused(isolation: str, cell: str) -> None:
    async with RestrictedExecutor(isolation=isolation) as ex:  # type: ignore[arg-type]
        r = await ex.execute(cell)
        assert r.error is not None and "three arguments" in r.error.message, r


@ALL
async def test_final_answer_accepts_the_answer_keyword(
    request: pytest.FixtureRequest, mode: str
) -> None:
    async with make_executor(request, mode) as ex:
        r = await ex.execute("final_answer(answer={'total': 3})")
        assert r.is_final_answer and r.final_answer == {"total": 3}
        r = await ex.execute("final_answer(4)")
        assert r.is_final_answer and r.final_answer == 4
        r = await ex.execute("final_answer(value=4)")
        assert r.error is not None and r.error.type == "TypeError" and not r.is_final_answer


def lookup(city: str) -> float:
    """Population of a city, in millions."""
    return {"Oslo": 0.7}[city]


@ALL
async def test_tools_are_callable_as_bare_names_and_after_import(
    request: pytest.FixtureRequest, mode: str
) -> None:
    async with make_executor(request, mode, tools=[lookup]) as ex:
        r = await ex.execute("print(lookup('Oslo'))")
        assert r.error is None and r.stdout == "0.7\n", r
        r = await ex.execute("from tools import lookup as l2\nprint(l2(city='Oslo'))")
        assert r.stdout == "0.7\n", r
        await ex.reset()
        assert (await ex.execute("print(lookup('Oslo'))")).stdout == "0.7\n"


OBJECTS_CELL = """
def f(x: int, y: "str" = "a") -> float:
    "Add things."
    return 1.0
class Point:
    "A point."
    x: int = 0
try:
    raise ValueError("bad")
except ValueError as e:
    e.note = "seen"
    print(e.note, e.args)
print(f.__name__, f.__doc__, f.__annotations__)
print(Point.__name__, Point.__doc__, Point.__annotations__)
"""


@ALL
async def test_annotations_docs_and_exception_attributes_read_as_in_cpython(
    request: pytest.FixtureRequest, mode: str
) -> None:
    async with make_executor(request, mode) as ex:
        r = await ex.execute(OBJECTS_CELL)
        assert r.error is None, r.error
        assert r.stdout == cpython(OBJECTS_CELL)
        if mode == "docker":
            return  # plain Python in the container: no guards to check
        r = await ex.execute("import json\njson.loads.__annotations__")
        assert r.error is not None  # host functions' annotations stay closed
