"""Guarded operations after the hot-path work: numbers run natively, every single-operation
blow-up is still refused (``*``, ``**``, ``<<``, ``%``, format widths, padding), results match
CPython, sessions share no write policy, and the new fidelity items (make_dataclass, tool payload
caps inline) behave."""

from __future__ import annotations

import time
import warnings
from typing import Any

import pytest

from codeact.executors import RestrictedExecutor

pytestmark = pytest.mark.anyio
MODES = ["inline", "process"]

#: Each cell would build hundreds of MB or more in one operation.
BLOWUPS = {
    "str * name": "s = 'a'\nn = 10**12\nz = s * n",
    "name * str": "s = 'ab'\nn = 10**11\nz = n * s",
    "list * name": "l = [0]\nn = 10**12\nz = l * n",
    "tuple * attr": "class C:\n    n = 10**12\nz = (1, 2) * C.n",
    "pow tower": "z = 10 ** 10 ** 10",
    "pow builtin": "z = pow(7, 10**10)",
    "shift": "n = 10**10\nz = 1 << n",
    "int product of huge ints": "x = 1 << 3_000_000\ny = x\nz = (x + 0) * (y + 0)\nw = z * z",
    "%-template in a name": "t = '%300000000d'\nz = t % 1",
    "%-star width": "t = '%*d'\nz = t % (300_000_000, 1)",
    "bytes %-template": "t = b'%300000000d'\nz = t % 1",
    "literal %-template": "z = '%300000000s' % 'a'",
    "f-string constant width": "z = f'{1:>300000000}'",
    "f-string nested width": "w = 300000000\nz = f'{1:>{w}}'",
    "f-string precision": "z = f'{1.5:.300000000f}'",
    "str.format literal": "z = '{:300000000}'.format(1)",
    "str.format in a name": "t = '{:>300000000}'\nz = t.format(1)",
    "str.format nested spec": "z = '{0:{1}}'.format(1, 300000000)",
    "format_map": "t = '{x:300000000}'\nz = t.format_map({'x': 1})",
    "center": "z = 'x'.center(300000000)",
    "ljust via name": "s = 'x'\nz = s.ljust(300000000)",
    "zfill": "z = '1'.zfill(300000000)",
    "expandtabs": "z = ('\\t' * 10).expandtabs(30000000)",
}


@pytest.mark.parametrize("isolation", MODES)
@pytest.mark.parametrize("name", list(BLOWUPS))
async def test_single_operation_blowups_are_refused(isolation: str, name: str) -> None:
    async with RestrictedExecutor(isolation=isolation, timeout=20) as ex:  # type: ignore[arg-type]
        r = await ex.execute(BLOWUPS[name])
        assert r.error is not None and r.error.type == "MemoryError", r
        assert "refusing" in r.error.message, r.error.message
        assert (await ex.execute("1 + 1")).value == "2"


#: (cell, the value CPython gives for the trailing expression)
SAME_AS_PYTHON = [
    "x, y = 7, 6\n(x * y, x % 4, -x % 4, x * -y)",
    "a, b = 2.5, 4\n(a * b, b * a, a % 2, 7.5 % a)",
    "s, n = 'ab', 3\n(s * n, n * s, [1] * n, n * (1,), s * 0, s * -1)",
    "big = 1 << 70\n(big * big) % 1000",
    "t = 'x%sy%d'\nt % ('a', 5)",
    "b = b'%d-%s'\nb % (1, b'z')",
    "'%d%%' % 50",
    "'%(a)s=%(b)05.1f' % {'a': 'k', 'b': 2.25}",
    "t = '{} {x} {}'\n'{}:{}'.format(1, 2), t.format(1, 3, x=2)",
    "'{0.real} {1[0]}'.format(3, [9])",
    "w = 6\nf'{3.14159:>{w}.2f}|{42:<{w}}|'",
    "'ab'.center(6, '*'), 'ab'.ljust(4, '.'), 'ab'.rjust(4), '7'.zfill(3), 'a\\tb'.expandtabs(4)",
    "from decimal import Decimal\nd, e = Decimal('1.5'), Decimal('2')\n(d * e, e % d)",
    "from fractions import Fraction\nf, g = Fraction(1, 3), 3\n(f * g, g * f, g % f)",
    (
        "class V:\n    def __init__(self, v):\n        self.v = v\n"
        "    def __mul__(self, o):\n        return V(self.v * o)\n"
        "    def __rmul__(self, o):\n        return V(o * self.v + 1)\n"
        "    def __mod__(self, o):\n        return self.v % o\n"
        "a, k = V(3), 2\n((a * k).v, (k * a).v, a % k)"
    ),
    "def f(a, b):\n    return a * b, a % b\n[f(6, 4), f(2.0, 0.5), f(3, 1.5)]",
    "def g(t, v):\n    return t % v\n[g('%s!', 'x'), g(b'%d', 4), g(9, 4)]",
    "[[i * j % 5 for j in range(4)] for i in range(3)]",
    # operands that are not plain names, inside a def (evaluated once each, left first)
    "class P:\n    def __init__(s, x, y):\n        s.x, s.y = x, y\n    def n(s):\n"
    "        return s.x * s.x + s.y * s.y, s.x % s.y, s.x * 1.5\nP(3, 4).n()",
    "calls = []\ndef g(v):\n    calls.append(v)\n    return v\ndef f():\n"
    "    return g(2) * g(3), g(7) % g(4), g('ab') * g(2), g('%s') % g(5)\n(f(), calls)",
    "def f(l, d):\n    return l[0] * l[1], d['a'] % d['b'], (l[0] + 1) * (l[1] - 1)\nf([7, 3], {'a': 9, 'b': 4})",
    "def f(o, n=len('abc') * len('de')):\n    return o.real * n\nf(2)",
    "class C:\n    k = 3\n    v = k * len('ab')\nC.v",
    "import numpy as np\nx = np.arange(4)\nk = 2\n((x * k).tolist(), (x % k).tolist())",
]


def _cpython(cell: str) -> str:
    ns: dict[str, Any] = {}
    *body, last = cell.split("\n")
    exec("\n".join(body), ns)
    return repr(eval(last, ns))


@pytest.mark.parametrize("isolation", MODES)
@pytest.mark.parametrize("cell", SAME_AS_PYTHON)
async def test_guarded_operators_give_what_cpython_gives(isolation: str, cell: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ex = RestrictedExecutor(isolation=isolation, allowed_modules=["numpy"])  # type: ignore[arg-type]
    async with ex:
        r = await ex.execute(cell)
        assert r.error is None, r.error
        assert r.value == _cpython(cell)


async def test_guards_refuse_the_same_operations_inside_functions() -> None:
    """Function scope (comprehensions, defs) takes the inline fast path: still guarded."""
    async with RestrictedExecutor(timeout=20) as ex:
        r = await ex.execute("def f(s, n):\n    return s * n\nf('a', 10**12)")
        assert r.error is not None and r.error.type == "MemoryError"
        r = await ex.execute("n = 10**12\nz = [s * n for s in ['a']]")
        assert r.error is not None and r.error.type == "MemoryError"
        r = await ex.execute("t = '%300000000d'\nz = [t % i for i in [1]]")
        assert r.error is not None and r.error.type == "MemoryError"
        r = await ex.execute("def f(l):\n    return l[0] * l[1]\nf(['a', 10**12])")
        assert r.error is not None and r.error.type == "MemoryError"
        r = await ex.execute(
            "class O:\n    s = 'a'\n    n = 10**12\n"
            "    def m(self):\n        return self.s * self.n\nO().m()"
        )
        assert r.error is not None and r.error.type == "MemoryError"
        r = await ex.execute(
            "def f(d):\n    return d['t'] % d['v']\nf({'t': '%300000000d', 'v': 1})"
        )
        assert r.error is not None and r.error.type == "MemoryError"


@pytest.mark.parametrize("isolation", MODES)
async def test_a_chain_of_squarings_is_ended_by_the_deadline(isolation: str) -> None:
    """Integer products run natively; each squaring of a chain is slower than all before it, so
    the cell's deadline ends the chain within a small multiple of the timeout."""
    async with RestrictedExecutor(isolation=isolation, timeout=1) as ex:  # type: ignore[arg-type]
        t0 = time.monotonic()
        r = await ex.execute("x = (1 << 1_000_000) - 1\nwhile True:\n    x = x * x")
        elapsed = time.monotonic() - t0
        assert r.timed_out, r
        assert elapsed < 8, elapsed
        assert (await ex.execute("2 * 21")).value == "42"


async def test_opting_a_package_in_changes_nothing_for_another_session() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with_pandas = RestrictedExecutor(allowed_modules=["pandas"])
    async with with_pandas, RestrictedExecutor(allowed_modules=[]) as plain:
        r = await with_pandas.execute(
            "import pandas as pd\ndf = pd.DataFrame({'a': [1]})\n"
            "df.columns = ['b']\nlist(df.columns)"
        )
        assert r.error is None and r.value == "['b']", r
        # The other session is handed a pandas object through a tool-free route: a value the
        # host puts in its namespace is not possible, so check its write guard directly.
        session = plain._interpreter  # type: ignore[attr-defined]
        import pandas as pd

        frame = pd.DataFrame({"a": [1]})
        with pytest.raises(Exception, match="cannot set attributes"):
            session.globals["_write_"](frame)
        own = with_pandas._interpreter  # type: ignore[attr-defined]
        assert own.globals["_write_"](frame) is frame


async def test_module_proxies_cannot_be_reinitialised_or_written() -> None:
    async with RestrictedExecutor() as ex:
        r = await ex.execute("import math\nmath.__init__('math', {'sqrt': len})")
        assert r.error is not None and "read-only" in r.error.message
        r = await ex.execute("import math\nmath.sqrt(16), sorted(dir(math))[:2]")
        assert r.error is None and r.value == "(4.0, ['acos', 'acosh'])", r
        for cell in (
            "math.pi = 3",
            "del math.pi",
            "setattr(math, 'pi', 3)",
            "getattr(math, '_codeact_resolver')",
            "math._codeact_name",
        ):
            r = await ex.execute(cell)
            assert r.error is not None, cell
        r = await ex.execute("math.nosuch")
        assert r.error is not None and r.error.type == "AttributeError"


MAKE_DATACLASS_REFUSED = [
    "make_dataclass('Q', ['x'], namespace={'__reduce__': lambda s: 1})",
    "make_dataclass('Q', ['x'], namespace={'__getattribute__': lambda s, n: 1})",
    "make_dataclass('Q', ['x'], namespace={'_private': 1})",
    "make_dataclass('Q', ['__class__'])",
    "make_dataclass('_Q', ['x'])",
    "make_dataclass('Q', ['x'], bases=(int,))",
    "make_dataclass('Q', ['x'], bases=(type,))",
    "make_dataclass('Q', ['x'], module='os')",
]


@pytest.mark.parametrize("isolation", MODES)
async def test_make_dataclass_works_for_ordinary_fields(isolation: str) -> None:
    async with RestrictedExecutor(isolation=isolation) as ex:  # type: ignore[arg-type]
        r = await ex.execute(
            "from dataclasses import make_dataclass, field, asdict\n"
            "P = make_dataclass('P', ['x', ('y', int, field(default=3))],\n"
            "                   namespace={'total': lambda self: self.x + self.y})\n"
            "p = P(1)\np.x = 5\nQ = make_dataclass('Q', [('z', int, field(default=0))], bases=(P,))\n"
            "(repr(p), p.total(), asdict(Q(1, 2, 3)), isinstance(P, type), P.__name__)"
        )
        assert r.error is None, r.error
        assert r.value == "('P(x=5, y=3)', 8, {'x': 1, 'y': 2, 'z': 3}, True, 'P')"
        for cell in MAKE_DATACLASS_REFUSED:
            r = await ex.execute("from dataclasses import make_dataclass\n" + cell)
            assert r.error is not None and r.error.type in ("PolicyError", "TypeError"), cell


def big(n: int) -> str:
    """Return n characters."""
    return "x" * n


def echo(text: str) -> int:
    """Return the length of text."""
    return len(text)


async def test_inline_tool_payloads_are_capped_like_process_mode() -> None:
    async with RestrictedExecutor(tools=[big, echo], timeout=20) as ex:
        r = await ex.execute("from tools import big\nbig(20_000_000)")
        assert r.error is not None and "too large" in r.error.message, r
        r = await ex.execute("from tools import echo\necho('y' * 20_000_000)")
        assert r.error is not None and "too large" in r.error.message, r
        r = await ex.execute("echo(big(1000))")
        assert r.error is None and r.value == "1000"


CHAINS = [
    # explicit cause, implicit context, suppressed context, chained sandbox exceptions
    "try:\n    try:\n        int('x')\n    except ValueError as e:\n"
    "        raise RuntimeError('bad') from e\nexcept RuntimeError as err:\n    r = err\n"
    "(type(r.__cause__).__name__, str(r.__cause__), r.__suppress_context__)",
    "try:\n    try:\n        {}['k']\n    except KeyError:\n        1 / 0\n"
    "except ZeroDivisionError as err:\n    r = err\n(repr(r.__context__), r.__cause__)",
    "try:\n    try:\n        1 / 0\n    except ZeroDivisionError:\n        raise ValueError('v') from None\n"
    "except ValueError as err:\n    r = err\n(r.__cause__, r.__suppress_context__)",
    "class Mine(Exception):\n    pass\ntry:\n    try:\n        raise Mine(object)\n"
    "    except Mine as m:\n        raise TypeError('t')\nexcept TypeError as err:\n    r = err\n"
    "(type(r.__context__).__name__, r.__context__.args[0] is object)",
]


@pytest.mark.parametrize("isolation", MODES)
@pytest.mark.parametrize("cell", CHAINS)
async def test_exception_chains_read_as_in_cpython(isolation: str, cell: str) -> None:
    async with RestrictedExecutor(isolation=isolation) as ex:  # type: ignore[arg-type]
        r = await ex.execute(cell)
        assert r.error is None, r.error
        assert r.value == _cpython(cell)


async def test_a_chained_host_exception_holding_objects_is_withheld() -> None:
    from codeact.executors.restricted._guards import chained_exception

    class HostState:
        pass

    held = KeyError(HostState())
    withheld = chained_exception(held)
    assert isinstance(withheld, RuntimeError) and "withheld" in str(withheld)
    assert chained_exception(ValueError("plain", 3)) is not None
    from codeact.executors.restricted._deadline import CellTimeout

    assert chained_exception(CellTimeout()) is None
