"""Multi-cell sessions compared with what plain CPython does with the same cells."""

from __future__ import annotations

import ast
import contextlib
import io
from typing import Any

import pytest

from codeact.executors import RestrictedExecutor

pytestmark = pytest.mark.anyio


def cpython(cells: list[str]) -> list[tuple[str, str | None, str | None]]:
    """(stdout, repr of trailing value, 'Type: message' of the error) per cell, with plain exec."""
    ns: dict[str, Any] = {"__name__": "__main__"}
    out = []
    for cell in cells:
        tree = ast.parse(cell)
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        buf = io.StringIO()
        value = error = None
        with contextlib.redirect_stdout(buf):
            try:
                exec(compile(tree, "<cell>", "exec"), ns)
                if last is not None:
                    v = eval(compile(ast.Expression(last.value), "<cell>", "eval"), ns)
                    value = None if v is None else repr(v)
            except Exception as exc:
                error = f"{type(exc).__name__}: {exc}"
        out.append((buf.getvalue(), value, error))
    return out


SESSIONS: dict[str, list[str]] = {
    "persistence": [
        "import math\nx = 3\ndef sq(n):\n    return n * n\nclass Box:\n    def __init__(self, v):\n        self.v = v",
        "print(sq(x), Box(x).v, math.floor(2.5))\nx",
    ],
    "trailing_values": ["1 + 1", "x = 5", "None", "'text'", "[1, (2, 3), {'a': 4}]"],
    "print_capture": ["print('a', 'b', sep='-', end='!\\n')\nprint(1, 2)\nprint()"],
    "exceptions": ["x = 1\nraise ValueError('bad value')", "x", "{}['missing']", "int('z')"],
    "comprehensions": [
        "sq = [i * i for i in range(6) if i % 2]\nd = {k: v for k, v in zip('abc', range(3))}\n"
        "s = {c for c in 'hello'}\ng = sum(i for i in range(10))\nsq, d, sorted(s), g"
    ],
    "closures_nonlocal": [
        "def counter():\n    n = 0\n    def inc():\n        nonlocal n\n        n += 1\n        return n\n    return inc\nc = counter()\nc(); c(); c()"
    ],
    "generators": [
        "def gen(n):\n    for i in range(n):\n        yield i * 2\n    return 'done'\nlist(gen(4))",
        "def deleg():\n    r = yield from gen(2)\n    yield r\nlist(deleg())",
        "it = iter(gen(2))\nnext(it), next(it)",
    ],
    "decorators": [
        "import functools\ndef twice(f):\n    @functools.wraps(f)\n    def w(*a, **k):\n        return f(*a, **k) * 2\n    return w\n@twice\ndef add(a, b=1):\n    return a + b\nadd(2), add(2, b=3), add.__name__"
    ],
    "dataclasses_and_dunders": [
        "from dataclasses import dataclass, field\n@dataclass(order=True)\nclass P:\n    x: int\n    y: int = 0\n    tags: list = field(default_factory=list)\n    def __post_init__(self):\n        self.norm = abs(self.x) + abs(self.y)\n",
        "a, b = P(1, 2), P(1, 3)\nprint(a, a < b, a == P(1, 2), a.norm)",
        "class V:\n    def __init__(self, *xs):\n        self._xs = list(xs)\n    def __len__(self):\n        return len(self._xs)\n    def __iter__(self):\n        return iter(self._xs)\n    def __repr__(self):\n        return f'V{tuple(self._xs)}'\n    def __eq__(self, o):\n        return list(self) == list(o)\n    def __getitem__(self, i):\n        return self._xs[i]\nv = V(1, 2, 3)\nlen(v), list(v), v, v == V(1, 2, 3), v[1:], 2 in v",
    ],
    "context_managers": [
        "class CM:\n    def __enter__(self):\n        print('enter')\n        return self\n    def __exit__(self, et, e, tb):\n        print('exit', et.__name__ if et else None)\n        return et is KeyError\nwith CM() as c:\n    print('body')\nwith CM():\n    raise KeyError('k')\nprint('after')"
    ],
    "try_except_finally_else": [
        "def f(x):\n    try:\n        r = 10 / x\n    except ZeroDivisionError as e:\n        print('caught', e)\n        r = None\n    else:\n        print('no error')\n    finally:\n        print('finally')\n    return r\nf(2), f(0)"
    ],
    "loop_else": [
        "for i in range(3):\n    if i == 5:\n        break\nelse:\n    print('for-else ran')\nn = 0\nwhile n < 3:\n    n += 1\n    if n == 2:\n        break\nelse:\n    print('not printed')\nn"
    ],
    "star_unpacking_slicing": [
        "first, *mid, last = range(6)\na, (b, c) = 1, (2, 3)\ns = 'abcdefgh'\nfirst, mid, last, a, b, c, s[::2], s[-3:], s[1:6:2]"
    ],
    "fstrings_walrus_match": [
        "v = 3.14159\nf'{v:.2f}|{v!r}|{\"x\":>4}|{v * 2 = :.1f}'",
        "data = [1, 5, 9]\nif (n := len(data)) > 2:\n    print('long', n)",
        "def describe(x):\n    match x:\n        case {'kind': 'pt', 'x': px, 'y': py}:\n            return f'point {px},{py}'\n        case [first, *rest]:\n            return f'list {first} +{len(rest)}'\n        case int() | float() as num if num > 10:\n            return 'big'\n        case _:\n            return 'other'\n[describe(v) for v in ({'kind': 'pt', 'x': 1, 'y': 2}, [1, 2, 3], 42, 'z')]",
    ],
    "global_lambda_sorted_recursion": [
        "total = 0\ndef add(n):\n    global total\n    total += n\nadd(3); add(4)\ntotal",
        "people = [('bo', 30), ('al', 25), ('cy', 35)]\nsorted(people, key=lambda p: p[1]), max(people, key=lambda p: p[1])[0]",
        "def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\nfib(20)",
    ],
    "big_but_legal_loops": [
        "t = 0\nfor i in range(300000):\n    t += i % 7\nt",
        "words = ['alpha', 'beta'] * 5000\nsum(w.upper().count('A') for w in words)",
    ],
    "classes_inheritance_super": [
        "class Base:\n    def __init__(self, n):\n        self.n = n\n    def describe(self):\n        return f'{type(self).__name__}({self.n})'\nclass Child(Base):\n    def __init__(self, n, m):\n        super().__init__(n)\n        self.m = m\n    @property\n    def total(self):\n        return self.n + self.m\n    @classmethod\n    def make(cls):\n        return cls(1, 2)\n    @staticmethod\n    def helper():\n        return 'h'\nc = Child.make()\nc.describe(), c.total, Child.helper(), isinstance(c, Base)"
    ],
    "stdlib_use": [
        "import json, re, statistics, collections, itertools, datetime, decimal, fractions, heapq, bisect, textwrap, string, random, enum, typing, copy\n"
        "random.seed(7)\nc = collections.Counter('abracadabra')\n"
        "print(json.dumps({'a': [1, 2]}), re.sub(r'\\d', '#', 'a1b2'), statistics.mean([1, 2, 4]))\n"
        "print(c.most_common(2), list(itertools.accumulate([1, 2, 3])), datetime.date(2024, 3, 1).strftime('%d/%m/%Y'))\n"
        "print(decimal.Decimal('1.10') + decimal.Decimal('2.2'), fractions.Fraction(1, 3) * 3, heapq.nsmallest(2, [5, 1, 3]), bisect.bisect([1, 3, 5], 4))\n"
        "print(textwrap.shorten('hello world foo', 11), string.ascii_lowercase[:3], random.randint(1, 100))\n"
        "class Color(enum.Enum):\n    RED = 1\n    GREEN = 2\nPt = collections.namedtuple('Pt', 'x y')\n"
        "p = Pt(1, 2)\nColor.RED.name, Color(2), p._asdict(), copy.deepcopy({'k': [1]}), typing.cast(int, 3)"
    ],
    "format_styles": [
        "'{:,}'.format(1234567), '{0}-{1}'.format('a', 'b'), '%05.1f' % 3.14159, '{name}!'.format_map({'name': 'x'})"
    ],
}


PROCESS_SUBSET = (
    "persistence",
    "exceptions",
    "dataclasses_and_dunders",
    "stdlib_use",
    "big_but_legal_loops",
)
CASES = [(n, "inline") for n in sorted(SESSIONS)] + [(n, "process") for n in PROCESS_SUBSET]


@pytest.mark.parametrize(("name", "isolation"), CASES)
async def test_session_matches_cpython(name: str, isolation: str) -> None:
    cells = SESSIONS[name]
    expected = cpython(cells)
    async with RestrictedExecutor(isolation=isolation) as ex:  # type: ignore[arg-type]
        for cell, (stdout, value, error) in zip(cells, expected, strict=True):
            r = await ex.execute(cell)
            assert r.stdout == stdout, cell
            assert r.value == value, cell
            got_error = f"{r.error.type}: {r.error.message}" if r.error else None
            assert got_error == error, cell


async def test_statements_before_a_failing_one_keep_their_effect() -> None:
    async with RestrictedExecutor() as ex:
        r = await ex.execute("a = 1\nb = 2\nraise RuntimeError('stop')\nc = 3")
        assert r.error is not None and r.error.type == "RuntimeError"
        assert "line 3" in r.error.traceback and "raise RuntimeError('stop')" in r.error.traceback
        assert (await ex.execute("a + b")).value == "3"
        assert (await ex.execute("c")).error.type == "NameError"  # type: ignore[union-attr]


async def test_traceback_shows_cell_lines_and_hides_executor_frames() -> None:
    async with RestrictedExecutor() as ex:
        await ex.execute("def f(x):\n    return g(x)\ndef g(x):\n    return 1 / x")
        r = await ex.execute("y = 2\nf(0)")
        tb = r.error.traceback  # type: ignore[union-attr]
        assert tb.count('File "<cell-') == 3
        assert "line 2, in <module>" in tb and "in f" in tb and "return 1 / x" in tb
        assert "codeact" not in tb and ".py" not in tb
        assert tb.endswith("ZeroDivisionError: division by zero")


async def test_syntax_errors_are_reported_with_the_line() -> None:
    async with RestrictedExecutor() as ex:
        r = await ex.execute("x = 1\nif x\n    pass")
        assert r.error is not None and r.error.type == "SyntaxError"
        assert "Line 2" in r.error.message
