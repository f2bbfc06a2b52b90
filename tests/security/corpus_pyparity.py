"""Attempts through the surface issue 26 opened: the newly reviewed standard-library modules,
``__slots__``, ``match`` class patterns on checked attributes and async code (run by
``test_escapes`` against both isolation modes)."""

from __future__ import annotations

from tests.security.corpus import Case

E = "error"
T = "timeout"
V = "value"

SWALLOW = "while True:\n    with {cm}:\n        while True:\n            pass"

CASES = [
    # -- match class patterns: keywords on checked names go through the guards ---------------------
    Case(
        "match_format_walk",
        "match '{0.__class__}':\n    case str(format=f):\n        f(1)",
        E,
        "not allowed",
    ),
    Case(
        "match_padding_bomb",
        "match 'x':\n    case str(center=c):\n        c(10**10)",
        E,
        "refusing to build",
    ),
    Case(
        "match_private_on_host_object",
        "import json\nmatch json.JSONDecoder():\n    case json.JSONDecoder(_scan_once=s):\n"
        "        s",
        E,
        "not allowed",
    ),
    Case(
        "match_attributeerror_obj",
        "try:\n    (1).nope\nexcept AttributeError as e:\n    match e:\n"
        "        case AttributeError(obj=o):\n            r = repr(o)\nr",
        V,
        value="'None'",
    ),
    Case("match_dunder", "match 1:\n    case int(__class__=c):\n        c", E, "cannot be matched"),
    Case(
        "match_nested_capture_of_checked_name",
        "class B:\n    pass\nb = B()\nb.s = 'x'\nmatch b:\n"
        "    case B(s=str(center=c)):\n        c(10**10)",
        E,
        "refusing to build",
    ),
    Case(
        "match_checked_name_in_class_body",
        "class K:\n    match 'x':\n        case str(format=f):\n            pass",
        E,
        "class body",
    ),
    # -- __slots__ -------------------------------------------------------------------------------
    Case("slots_class_name", "class A:\n    __slots__ = ('__class__',)", E, "special attribute"),
    Case(
        "slots_spent_iterator",
        "class A:\n    __slots__ = iter(('__class__',))",
        E,
        "special attribute",
    ),
    Case(
        "slots_descriptor_set",
        "class A:\n    __slots__ = ('x',)\nA.x.__set__",
        E,
        "PolicyError",
    ),
    Case(
        "slots_descriptor_getattr",
        "class A:\n    __slots__ = ('x',)\ngetattr(A.x, '__set__')",
        E,
        "not allowed",
    ),
    Case(
        "slots_of_host_class",
        "import queue\ngetattr(queue.Queue, '__slots__')",
        E,
        "not allowed",
    ),
    Case("slots_outside_a_class", "__slots__ = ('a',)", E, "reserved"),
    # -- contextlib: nothing swallows the deadline ------------------------------------------------
    Case(
        "suppress_swallows_timeout",
        "import contextlib\n" + SWALLOW.format(cm="contextlib.suppress(BaseException)"),
        T,
    ),
    Case(
        "exitstack_callback_swallows_timeout",
        "import contextlib\nwhile True:\n    with contextlib.ExitStack() as s:\n"
        "        s.push(lambda *a: True)\n        while True:\n            pass",
        T,
    ),
    Case(
        "contextmanager_swallows_timeout",
        "import contextlib\n@contextlib.contextmanager\ndef eat():\n    try:\n        yield\n"
        "    except BaseException:\n        pass\n" + SWALLOW.format(cm="eat()"),
        T,
    ),
    Case(
        "exitstack_private_callbacks",
        "import contextlib\ncontextlib.ExitStack()._exit_callbacks",
        E,
        "not allowed",
    ),
    Case(
        "exitstack_traceback_frame",
        "import contextlib\nwith contextlib.ExitStack() as s:\n"
        "    s.push(lambda t, e, tb: print(tb.tb_frame))\n    1 / 0",
        E,
        "PolicyError",
    ),
    Case(
        "contextlib_redirect_stdout",
        "import contextlib\ncontextlib.redirect_stdout",
        E,
        "no attribute",
    ),
    Case("contextlib_chdir", "from contextlib import chdir", E, "cannot import"),
    # -- queue: no locks to block on, blocking waits keep the deadline ------------------------------
    Case("queue_mutex", "import queue\nqueue.Queue().mutex", E, "has no attribute"),
    Case(
        "queue_subclass_reaches_no_real_queue",
        "import queue\nclass Q(queue.Queue):\n    pass\nq = Q()\n[n for n in dir(q) if 'mutex' in n "
        "or 'not_' in n or n == 'queue']",
        V,
        value="[]",
    ),
    Case("queue_blocking_get", "import queue\nqueue.Queue().get()", T),
    Case("queue_join_unfinished", "import queue\nq = queue.Queue()\nq.put(1)\nq.join()", T),
    Case(
        "queue_launders_nothing",
        "import queue, math\nq = queue.Queue()\nq.put(math)\nq.get().__dict__",
        E,
        "PolicyError",
    ),
    Case(
        "queue_host_tool_result_is_plain",
        "import queue\nfrom tools import where\nq = queue.Queue()\nq.put(where())\ntype(q.get()).__name__",
        V,
        value="'str'",
    ),
    # -- warnings: the session's own module, read-only ---------------------------------------------
    Case(
        "warnings_showwarning_hook", "import warnings\nwarnings.showwarning = print", E, "read-only"
    ),
    Case("warnings_filters_list", "import warnings\nwarnings.filters", E, "no attribute"),
    Case(
        "warnings_category_not_a_warning",
        "import warnings\nwarnings.warn('x', category=type)",
        E,
        "Warning subclass",
    ),
    Case(
        "warnings_record_holds_no_frames",
        "import warnings\nwith warnings.catch_warnings(record=True) as w:\n    warnings.warn('x')\n"
        "sorted(n for n in dir(w[0]) if not n.startswith('_'))",
        V,
        value="['category', 'file', 'filename', 'line', 'lineno', 'message', 'source']",
    ),
    # -- other reviewed modules: only the listed names ----------------------------------------------
    Case("decimal_default_context", "import decimal\ndecimal.DefaultContext", E, "no attribute"),
    Case("types_function_type", "import types\ntypes.FunctionType", E, "no attribute"),
    Case("abc_metaclass", "from abc import ABCMeta", E, "cannot import"),
    Case("pprint_indent_bomb", "import pprint\npprint.pformat([1], indent=10**9)", E, "larger"),
    Case(
        "singledispatch_string_annotation",
        "from functools import singledispatch\n@singledispatch\ndef f(x):\n    pass\n"
        "@f.register\ndef _(x: 'int'):\n    pass",
        E,
        "does not evaluate strings",
    ),
    # -- async code: coroutine and generator frames, the loop, deadlines ---------------------------
    Case("coroutine_frame", "async def f():\n    pass\nc = f()\nc.cr_frame", E, "PolicyError"),
    Case(
        "coroutine_frame_getattr",
        "async def f():\n    pass\nc = f()\nc.close()\ngetattr(c, 'cr_frame')",
        E,
        "not allowed",
    ),
    Case(
        "coroutine_await_chain",
        "async def f():\n    pass\ngetattr(f(), 'cr_await')",
        E,
        "not allowed",
    ),
    Case("asyncgen_frame", "async def g():\n    yield 1\ng().ag_frame", E, "PolicyError"),
    Case(
        "asyncgen_frame_getattr",
        "async def g():\n    yield 1\ngetattr(g(), 'ag_frame')",
        E,
        "not allowed",
    ),
    Case(
        "generator_frame_getattr",
        "def g():\n    yield 1\ngetattr(g(), 'gi_frame')",
        E,
        "not allowed",
    ),
    Case(
        "task_get_loop",
        "import asyncio\nasync def m():\n    return asyncio.current_task().get_loop()\nawait m()",
        E,
        "not available",
    ),
    Case(
        "task_get_stack_frames",
        "import asyncio\nasync def m():\n    return asyncio.current_task().get_stack()\nawait m()",
        E,
        "not available",
    ),
    Case(
        "future_subclass_get_loop",
        "import asyncio\nclass F(asyncio.Future):\n    pass\nasync def m():\n"
        "    return F().get_loop()\nawait m()",
        E,
        "cannot be subclassed",
    ),
    Case("task_class_get_loop", "import asyncio\nasyncio.Task.get_loop", E, "not available"),
    Case("asyncio_get_event_loop", "import asyncio\nasyncio.get_event_loop", E, "no attribute"),
    Case("asyncio_subprocess", "import asyncio\nasyncio.create_subprocess_exec", E, "no attribute"),
    Case("asyncio_open_connection", "from asyncio import open_connection", E, "cannot import"),
    Case(
        "to_thread_is_no_thread",
        "import asyncio\nawait asyncio.to_thread(lambda: 'same thread')",
        V,
        value="'same thread'",
    ),
    Case(
        "async_swallows_timeout",
        "import asyncio\nasync def eat():\n    while True:\n        try:\n"
        "            await asyncio.sleep(10)\n        except BaseException:\n            pass\n"
        "await eat()",
        T,
    ),
    Case(
        "asyncio_run_swallows_timeout",
        "import asyncio\nasync def eat():\n    while True:\n        try:\n"
        "            await asyncio.sleep(0)\n        except BaseException:\n            pass\n"
        "asyncio.run(eat())",
        T,
    ),
    Case(
        "shielded_task_outlives_nothing",
        "import asyncio\nasync def forever():\n    while True:\n        await asyncio.sleep(0)\n"
        "await asyncio.shield(asyncio.create_task(forever()))",
        T,
    ),
    Case(
        "aexit_swallows_timeout",
        "import asyncio\nclass Eat:\n    async def __aenter__(self):\n        return self\n"
        "    async def __aexit__(self, *exc):\n        return True\nwhile True:\n"
        "    async with Eat():\n        while True:\n            pass",
        T,
    ),
    Case(
        "async_exitstack_swallows_timeout",
        "import contextlib\nwhile True:\n    async with contextlib.AsyncExitStack() as s:\n"
        "        s.push(lambda *a: True)\n        while True:\n            pass",
        T,
    ),
    # -- the hot paths' fast paths keep the guards ------------------------------------------------
    Case(
        "write_cache_rebound_to_host_object",
        "class A:\n    pass\np = A()\nfor i in range(3):\n    p.x = i\nimport json\n"
        "p = json.JSONDecoder()\np.parse_object = print",
        E,
        "cannot set attributes",
    ),
    Case(
        "write_cache_rebound_in_a_def",
        "class A:\n    pass\nimport json\ndef f(objs):\n    for p in objs:\n        p.x = 1\n"
        "f([A(), A(), json.JSONDecoder()])",
        E,
        "cannot set attributes",
    ),
    Case("write_cache_name_reserved", "class A:\n    pass\np = A()\np.x = 1\n_w_p_", E, "reserved"),
    Case("float_times_list", "n = 2.0\n[0] * n", E, "can't multiply sequence"),
    Case("float_on_the_right_of_text_mod", "t = '%0999999999d'\nn = 1.5\nt % n", E, "MemoryError"),
    Case(
        "float_operand_in_a_def",
        "def f(a, b):\n    return a.v * b.v\nclass V:\n    pass\nx, y = V(), V()\n"
        "x.v, y.v = 2.5, 'ab' * 3\nf(x, y)",
        E,
        "can't multiply sequence",
    ),
    Case("literal_format_wide", "'{:>999999999999}'.format(1)", E, "MemoryError"),
    Case("literal_format_nested_width", "w = 10**10\n'{:>{}}'.format(1, w)", E, "MemoryError"),
]
