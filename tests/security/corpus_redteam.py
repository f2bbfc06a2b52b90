"""The red team's findings against the issue-26 surface (async, standard library, ``match``,
``__slots__``), each as the attempt that worked before its fix (run by ``test_escapes``
against both isolation modes)."""

from __future__ import annotations

from tests.security.corpus import Case

E = "error"
T = "timeout"
V = "value"

_HOOK = "    @classmethod\n    def __subclasshook__(cls, C):\n        return True\n"

CASES = [
    # 1. a subclass of a host class does not make the host's private state the cell's
    Case(
        "future_subclass_private_loop",
        "import asyncio\nawait asyncio.sleep(0)\nclass F(asyncio.Future):\n    pass\nF()._loop",
        E,
        "cannot be subclassed",
    ),
    Case(
        "queue_subclass_private_loop",
        "import asyncio\nclass Q(asyncio.Queue):\n    pass\nQ()._loop",
        E,
        "cannot be subclassed",
    ),
    Case(
        "fraction_subclass_host_private",
        "from fractions import Fraction\nclass F(Fraction):\n    pass\nF(1, 2)._numerator",
        E,
        "not allowed",
    ),
    Case(
        "own_private_on_plain_subclass",
        "import abc\nclass A(abc.ABC, Exception):\n    def __init__(self):\n        self._x = 1\n"
        "    def _m(self):\n        return self._x + 1\nA()._m()",
        V,
        value="2",
    ),
    Case(
        "queue_wrapper_real_queue_hidden",
        "import queue\nclass Q(queue.Queue):\n    pass\nq = Q()\nq.put(1)\nq._real",
        E,
        "not allowed",
    ),
    # 2. positional class sub-patterns read through the guards too
    Case(
        "match_positional_gi_frame",
        "import abc, dataclasses\n@dataclasses.dataclass\nclass GI(abc.ABC):\n"
        "    gi_frame: object = None\n" + _HOOK + "def g():\n    yield 1\n"
        "match g():\n    case GI(f):\n        f",
        E,
        "not allowed",
    ),
    Case(
        "match_positional_private_on_task",
        "import abc, asyncio, dataclasses\n@dataclasses.dataclass\nclass L(abc.ABC):\n    _loop: object = None\n"
        + _HOOK
        + "async def m():\n    match asyncio.current_task():\n"
        "        case L(lp):\n            return lp\nawait m()",
        E,
        "not allowed",
    ),
    Case(
        "match_positional_still_matches",
        "import dataclasses\n@dataclasses.dataclass\nclass P:\n    x: int\n    y: int\n"
        "match P(1, 2):\n    case P(1, y):\n        r = y\n"
        "match 5:\n    case int(n):\n        r = r + n\nr",
        V,
        value="7",
    ),
    # 6. a cell's asyncio.Task subclass in the process-wide task registry
    Case(
        "task_subclass_get_loop_spin",
        "import asyncio\nclass T(asyncio.Task):\n    def get_loop(self):\n        while True:\n"
        "            pass",
        E,
        "cannot be subclassed",
    ),
    # 3. a timeout stops every task, not one per interrupt
    Case(
        "many_spinning_tasks",
        "import asyncio\nasync def spin():\n    while True:\n        pass\n"
        "ts = [asyncio.create_task(spin()) for i in range(40)]\nawait asyncio.sleep(0)\n"
        "print('still running')",
        T,
    ),
    # 4. return in finally does not swallow the timeout for good
    Case(
        "finally_return_swallows_timeout",
        "def f():\n    try:\n        while True:\n            pass\n    finally:\n        return\n"
        "while True:\n    f()",
        T,
    ),
    Case(
        "finally_continue_swallows_timeout",
        "while True:\n    try:\n        while True:\n            pass\n    finally:\n        continue",
        T,
    ),
    # 8. struct formats are size-checked before packing
    Case("struct_pack_huge", "import struct\nstruct.pack('300000000x')", E, "MemoryError"),
    Case(
        "struct_class_huge",
        "import struct\nstruct.Struct('300000000s').pack(b'')",
        E,
        "MemoryError",
    ),
    Case(
        "struct_small_ok", "import struct\nlen(struct.Struct('<4sI').pack(b'ab', 7))", V, value="8"
    ),
    # 8. decimal: the time of one uninterruptible C call stays bounded
    Case(
        "decimal_huge_emax",
        "import decimal\ndecimal.getcontext().Emax = decimal.MAX_EMAX",
        E,
        "Emax",
    ),
    Case(
        "decimal_huge_prec",
        "from decimal import getcontext\ngetcontext().prec = 300000",
        E,
        "precision",
    ),
    Case(
        "decimal_huge_literal_to_int",
        "from decimal import Decimal\nint(Decimal('1e999999'))",
        E,
        "exponent",
    ),
    Case(
        "decimal_grow_past_emax",
        "from decimal import Decimal\nDecimal('1e99999') ** 10",
        E,
        "Overflow",
    ),
    Case(
        "decimal_subclass",
        "from decimal import Decimal\nclass D(Decimal):\n    pass",
        E,
        "subclassed",
    ),
    Case(
        "decimal_type_of_value",
        "from decimal import Decimal\ntype(Decimal(1))('1e999999')",
        E,
        "exponent",
    ),
    Case(
        "decimal_context_kwargs",
        "from decimal import Context, localcontext\nwith localcontext(Context(prec=10**6)):\n    pass",
        E,
        "precision",
    ),
    Case(
        "decimal_ordinary_use_still_works",
        "from decimal import Decimal, Context, localcontext, setcontext, getcontext\n"
        "setcontext(Context(prec=12))\nwith localcontext() as c:\n    c.prec = 5\n"
        "    x = Decimal(2).sqrt()\n(str(x), getcontext().prec, str(Decimal('1.10') + Decimal('2.20')))",
        V,
        value="('1.4142', 12, '3.30')",
    ),
    # 10. warnings.warn(stacklevel=N) names only cells' places, never a file of the host
    Case(
        "warn_stacklevel_host_paths",
        "import warnings\nwith warnings.catch_warnings(record=True) as w:\n"
        "    warnings.simplefilter('always')\n    for n in range(1, 9):\n"
        "        warnings.warn('x', stacklevel=n)\n"
        "    sorted([2, 1], key=lambda x: (warnings.warn('y', stacklevel=4), x)[1])\n"
        "sorted({m.filename for m in w if not m.filename.startswith('<cell-')})",
        V,
        value="['sys']",
    ),
    Case(
        "warn_stacklevel_names_the_callers_line",
        "import warnings\ndef f():\n    warnings.warn('old', DeprecationWarning, stacklevel=2)\n"
        "with warnings.catch_warnings(record=True) as w:\n    warnings.simplefilter('always')\n"
        "    f()\n[(m.lineno, str(m.message)) for m in w]",
        V,
        value="[(6, 'old')]",
    ),
]
