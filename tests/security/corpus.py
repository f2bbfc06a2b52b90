"""Escape and denial-of-service attempts against the restricted executor, with what must happen.

``expect``: "error" — the attempt fails with an error (``match`` must appear in the error's type
or message); "timeout" — the cell is stopped by its deadline; "value" — the cell runs and its
value equals ``value`` (proof that nothing was leaked); "ok" — ordinary code that must keep
working (the policy must not over-block).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Case:
    id: str
    code: str
    expect: str
    match: str = ""
    value: str | None = None
    only: str | None = None  # "inline" or "process"
    timeout: float = 0.6


E = "error"
T = "timeout"
V = "value"

CASES = [
    # -- imports -------------------------------------------------------------------------------
    Case("import_os", "import os", E, "not allowed"),
    Case("import_subprocess", "import subprocess", E, "not allowed"),
    Case("import_ctypes", "import ctypes", E, "not allowed"),
    Case("import_importlib", "import importlib", E, "not allowed"),
    Case("import_builtins", "import builtins", E, "builtins"),
    Case("import_pickle", "import pickle", E, "not allowed"),
    Case("import_timeit", "import timeit", E, "not allowed"),
    Case("import_socket", "import socket", E, "not allowed"),
    Case("import_urllib", "import urllib.request", E, "not allowed"),
    Case("from_os_import", "from os import path", E, "not allowed"),
    Case("dunder_import", "__import__('os')", E, "PolicyError"),
    Case("relative_import", "from . import x", E, "relative"),
    Case("submodule_not_allowed", "import json.decoder", E, "not allowed"),
    Case("sys_modules", "import sys\nsys.modules", E, "no attribute"),
    Case("sys_environ_absent", "import sys\nsys.environ", E, "no attribute"),
    Case("private_import", "from random import _os", E, "private"),
    # -- public re-exports of dangerous modules ---------------------------------------------------
    Case("datetime_sys", "import datetime\ndatetime.sys", E, "no attribute"),
    Case("statistics_sys", "import statistics\nstatistics.sys", E, "no attribute"),
    Case("dataclasses_builtins", "import dataclasses\ndataclasses.builtins", E, "no attribute"),
    Case("dataclasses_sys", "import dataclasses\ndataclasses.sys", E, "no attribute"),
    Case("enum_bltns", "import enum\nenum.bltns", E, "no attribute"),
    Case("json_codecs", "import json\njson.codecs", E, "no attribute"),
    Case("from_json_import_codecs", "from json import codecs", E, "cannot import"),
    Case("io_open", "import io\nio.open", E, "no attribute"),
    Case("io_fileio", "import io\nio.FileIO", E, "no attribute"),
    Case("typing_sys", "import typing\ntyping.sys", E, "no attribute"),
    Case("random_private_os", "import random\nrandom._os", E, "not allowed"),
    Case("getattr_random_os", "import random\ngetattr(random, '_os')", E, "not allowed"),
    # -- stdlib functions that evaluate strings or use the real getattr ---------------------------
    Case("typing_get_type_hints", "import typing\ntyping.get_type_hints", E, "no attribute"),
    Case("typing_forwardref", "import typing\ntyping.ForwardRef", E, "no attribute"),
    Case(
        "singledispatch_evals_no_strings",
        "import functools\n@functools.singledispatch\ndef f(x): pass\n"
        "@f.register\ndef _(x: '().__class__'): pass",
        E,
        "does not evaluate strings",
    ),
    Case(
        "operator_attrgetter",
        "import operator\noperator.attrgetter('__class__')",
        E,
        "no attribute",
    ),
    Case("operator_methodcaller", "import operator\noperator.methodcaller", E, "no attribute"),
    Case("string_formatter", "import string\nstring.Formatter", E, "no attribute"),
    # make_dataclass is there for ordinary fields, under the class rules of the policy:
    Case(
        "make_dataclass_metaclass",
        "import dataclasses\ndataclasses.make_dataclass('M', ['a'], bases=(type,))",
        E,
        "bases must be classes defined in the sandbox",
    ),
    Case(
        "make_dataclass_reduce_hook",
        "import dataclasses\ndataclasses.make_dataclass('R', ['a'], namespace={'__reduce__': len})",
        E,
        "cannot be set through make_dataclass",
    ),
    Case(
        "make_dataclass_dunder_field",
        "import dataclasses\ndataclasses.make_dataclass('D', [('__globals__', int)])",
        E,
        "may not start with an underscore",
    ),
    # -- dunder walks ----------------------------------------------------------------------------
    Case("class_walk", "().__class__.__bases__[0].__subclasses__()", E, "PolicyError"),
    Case("getattr_class", "getattr((), '__class__')", E, "not allowed"),
    Case("getattr_chain", "getattr(getattr, '__self__')", E, "not allowed"),
    Case("mro_walk", "[].__class__.__mro__", E, "PolicyError"),
    Case("type_mro_subclasses", "getattr(type(()).mro()[-1], '__subclasses__')", E, "not allowed"),
    Case("func_globals", "f = lambda: 0\nf.__globals__", E, "PolicyError"),
    Case("getattr_func_globals", "def f(): pass\ngetattr(f, '__globals__')", E, "not allowed"),
    Case("getattr_func_code", "def f(): pass\ngetattr(f, '__code__')", E, "not allowed"),
    Case("closure_cells", "(lambda: 0).__closure__", E, "PolicyError"),
    Case(
        "getattr_str_subclass_name",
        "class S(str):\n    def startswith(self, *a):\n        return False\ngetattr(1, S('__class__'))",
        E,
        "must be a string",
    ),
    Case(
        "hasattr_dunder_is_false",
        "hasattr(1, '__class__'), hasattr(1, 'real')",
        V,
        value="(False, True)",
    ),
    Case("vars_refused", "vars(1)", E, "not available"),
    Case("globals_refused", "globals()", E, "not available"),
    Case("locals_refused", "locals()", E, "not available"),
    Case("dir_noarg_refused", "dir()", E, "not available"),
    Case("print_self", "print.__self__", E, "PolicyError"),
    Case("type_three_args", "type('X', (), {'__del__': lambda s: 0})", E, "three arguments"),
    Case("eval_call", "eval('1')", E, "PolicyError"),
    Case("exec_call", "exec('x = 1')", E, "PolicyError"),
    Case("eval_alias", "e = eval\ne('1')", E, "not available"),
    Case("compile_refused", "compile('1', 'f', 'eval')", E, "not available"),
    Case("builtins_name", "__builtins__", E, "PolicyError"),
    Case(
        "getattr_builtins_via_func", "def f(): pass\ngetattr(f, '__builtins__')", E, "not allowed"
    ),
    # -- format-string walks ----------------------------------------------------------------------
    Case("format_class_walk", "'{0.__class__.__mro__}'.format(1)", E, "not allowed"),
    Case("format_globals", "def f(): pass\n'{0.__globals__}'.format(f)", E, "not allowed"),
    Case("format_map_walk", "'{a.__class__}'.format_map({'a': 1})", E, "not allowed"),
    Case("str_format_unbound", "str.format('{0.__class__}', 1)", E, "not allowed"),
    Case("fstring_dunder", "f'{(1).__class__}'", E, "PolicyError"),
    Case("format_item_ok", "'{0[a]}-{1.real}'.format({'a': 7}, 3)", V, value="'7-3'"),
    # -- frames, generators, tracebacks -------------------------------------------------------------
    Case("gen_gi_frame", "g = (i for i in [1])\ng.gi_frame", E, "PolicyError"),
    Case("getattr_gi_frame", "g = (i for i in [1])\ngetattr(g, 'gi_frame')", E, "not allowed"),
    Case("gen_gi_code", "def g():\n    yield 1\ng().gi_code", E, "PolicyError"),
    Case(
        "traceback_attr",
        "try:\n    1/0\nexcept Exception as e:\n    e.__traceback__",
        E,
        "PolicyError",
    ),
    Case(
        "getattr_traceback",
        "try:\n    1/0\nexcept Exception as e:\n    t = getattr(e, '__traceback__')",
        E,
        "not allowed",
    ),
    Case("tb_frame", "x.tb_frame.f_back.f_globals", E, "PolicyError"),
    Case(
        "attributeerror_obj_none",
        "try:\n    (1).nope\nexcept AttributeError as e:\n    r = e.obj\nr",
        V,
        value=None,
    ),
    Case(
        "proxy_attributeerror_obj",
        "import json\ntry:\n    json.nope\nexcept AttributeError as e:\n    r = getattr(e, 'obj')\nr",
        V,
        value=None,
    ),
    Case(
        "exception_traceback",
        "try:\n    1/0\nexcept Exception as e:\n    e.__traceback__",
        E,
        "PolicyError",
    ),
    # -- builtins tampering and guard-hook shadowing -----------------------------------------------
    Case("posonly_write_shadow", "def f(x, _write_=lambda o: o, /):\n    x.y = 1", E, "reserved"),
    Case("lambda_getattr_shadow", "g = lambda _getattr_=None: 0", E, "reserved"),
    Case("assign_hook", "_getattr_ = getattr", E, "reserved"),
    Case("import_as_hook", "import json as _write_", E, "reserved"),
    Case("set_module_attr", "import json\njson.loads = None", E, "read-only"),
    Case("setattr_module", "import json\nsetattr(json, 'loads', None)", E, "read-only"),
    Case("set_builtin_type_attr", "list.append = 1", E, "cannot set"),
    Case("set_int_attr", "int.real = 1", E, "cannot set"),
    Case("set_function_attr_of_tool", "from tools import lookup\nlookup.x = 1", E, "cannot set"),
    Case("del_dunder_def", "class A:\n    def __del__(self):\n        pass", E, "PolicyError"),
    Case("reduce_def", "class A:\n    def __reduce__(self):\n        pass", E, "PolicyError"),
    Case("try_star", "try:\n    pass\nexcept* Exception:\n    pass", E, "PolicyError"),
    Case("exception_group_absent", "ExceptionGroup", E, "NameError"),
    Case("ok_async_def", "async def f():\n    return 1\nawait f()", V, value="1"),
    Case(
        "match_class_dunder_kw",
        "match 1:\n    case int(__class__=c):\n        pass",
        E,
        "PolicyError",
    ),
    Case("proxy_private_slot", "import json\njson._attrs", E, "not allowed"),
    Case("guarded_type_private", "list._type", E, "not allowed"),
    # -- tool-object abuse ----------------------------------------------------------------------------
    Case(
        "tool_path_is_plain_str",
        "from tools import where\np = where()\ntype(p).__name__, hasattr(p, 'read_text')",
        V,
        value="('str', False)",
    ),
    Case("tool_globals", "from tools import lookup\nlookup.__globals__", E, "PolicyError"),
    Case(
        "tool_getattr_closure",
        "from tools import lookup\ngetattr(lookup, '__closure__')",
        E,
        "not allowed",
    ),
    Case(
        "tool_wrapped", "from tools import lookup\ngetattr(lookup, '__wrapped__')", E, "not allowed"
    ),
    Case(
        "tool_sandbox_object_arg",
        "from tools import lookup\nclass K:\n    def __eq__(self, o):\n        return True\nlookup(K())",
        E,
        "cannot cross",
    ),
    Case(
        "tool_returns_function",
        "from tools import leak_fn\nr = leak_fn()\ntype(r).__name__",
        V,
        value="'str'",
    ),
    Case(
        "tool_error_is_readable",
        "from tools import lookup\ntry:\n    lookup(123)\nexcept ToolError as e:\n    r = 'Invalid arguments' in str(e)\nr",
        V,
        value="True",
    ),
    # -- files, environment, network -----------------------------------------------------------------
    Case("open_absolute", "open('/etc/passwd')", E, "absolute paths"),
    Case("open_parent", "open('../../../etc/passwd')", E, "leaves the working directory"),
    Case("open_nul", "open('a\\x00b')", E, "non-empty strings"),
    Case("open_non_str", "open(3)", E, "non-empty strings"),
    Case("env_via_time", "import time\ntime.environ", E, "no attribute"),
    # -- denial of service ----------------------------------------------------------------------------
    Case("while_true", "while True:\n    pass", T),
    Case(
        "swallow_timeout",
        "while True:\n    try:\n        while True:\n            pass\n    except BaseException:\n        pass",
        T,
    ),
    Case(
        "bare_except_loop",
        "while True:\n    try:\n        while True:\n            pass\n    except:\n        pass",
        T,
    ),
    Case(
        "finally_loop",
        "try:\n    while True:\n        pass\nfinally:\n    while True:\n        pass",
        T,
    ),
    Case(
        "exit_suppresses",
        "class S:\n    def __enter__(self):\n        return self\n    def __exit__(self, *a):\n        return True\nwhile True:\n    with S():\n        while True:\n            pass",
        T,
    ),
    Case(
        "recursion_in_except",
        "def f():\n    try:\n        while True:\n            pass\n    except BaseException:\n        f()\nf()",
        T,
    ),
    Case("sleep_forever", "import time\ntime.sleep(10**6)", T),
    Case("tool_call_loop", "from tools import lookup\nwhile True:\n    lookup('x')", T),
    Case("pow_tower", "10**10**10", E, "MemoryError"),
    Case("pow_builtin", "pow(10, 10**10)", E, "MemoryError"),
    Case("bigint_shift", "1 << 10**11", E, "MemoryError"),
    Case("str_mul", "'a' * 10**12", E, "MemoryError"),
    Case("list_mul", "[None] * 10**10", E, "MemoryError"),
    Case("range_list", "list(range(10**12))", E, "MemoryError"),
    Case("range_tuple", "tuple(range(10**12))", E, "MemoryError"),
    Case("bytes_alloc", "bytes(10**12)", E, "MemoryError"),
    Case("sorted_range", "sorted(range(10**12))", E, "MemoryError"),
    Case("repeat_list", "import itertools\nlist(itertools.repeat(0, 10**12))", E, "MemoryError"),
    Case("recursion", "def f():\n    return f()\nf()", E, "RecursionError"),
    Case("int_str_digits", "str(10**100000)", E, "ValueError"),
    Case("print_flood", "while True:\n    print('x' * 1000)", T),
    Case("regex_backtrack", "import re\nre.match(r'(a+)+$', 'a' * 40 + 'b')", T, only="process"),
    Case("c_loop_sum", "sum(range(10**13))", T, only="process"),
    Case(
        "memory_growth",
        "l = []\nwhile True:\n    l.append(' ' * 10**6)",
        E,
        "MemoryError",
        only="process",
        timeout=20,
    ),
    # -- must still work -------------------------------------------------------------------------------
    Case(
        "ok_private_attrs_on_own_objects",
        "class C:\n    def __init__(self):\n        self._n = 1\n    def bump(self):\n        self._n += 1\n        return self._n\nC().bump()",
        V,
        value="2",
    ),
    Case(
        "ok_super_init",
        "class A:\n    def __init__(self, x):\n        self.x = x\nclass B(A):\n    def __init__(self):\n        super().__init__(5)\nB().x",
        V,
        value="5",
    ),
    Case(
        "ok_enum_intenum",
        "import enum\nclass P(enum.IntEnum):\n    LOW = 1\n    HIGH = 2\nP.HIGH + 1, P(1).name",
        V,
        value="(3, 'LOW')",
    ),
    Case(
        "ok_namedtuple_api",
        "import collections\nP = collections.namedtuple('P', 'a b')\np = P(1, 2)\np._asdict(), p._replace(a=5)",
        V,
        value="({'a': 1, 'b': 2}, P(a=5, b=2))",
    ),
    Case(
        "ok_typing_namedtuple",
        "import typing\nclass Q(typing.NamedTuple):\n    a: int\n    b: str = 'x'\nQ(1)",
        V,
        value="Q(a=1, b='x')",
    ),
    Case(
        "ok_isinstance_list",
        "isinstance([], list), type([]) is list, issubclass(bool, int), list[int]",
        V,
        value="(True, True, True, list[int])",
    ),
    Case(
        "ok_subclass_builtin",
        "class L(list):\n    def total(self):\n        return sum(self)\nL([1, 2]).total(), isinstance(L(), list)",
        V,
        value="(3, True)",
    ),
    Case(
        "ok_file_roundtrip",
        "with open('notes.txt', 'w') as f:\n    f.write('hello')\nopen('notes.txt').read()",
        V,
        value="'hello'",
    ),
    Case(
        "ok_stderr",
        "import sys\nprint('warn', file=sys.stderr)\nsys.stdout.write('out\\n')",
        V,
        value="4",
    ),
    Case(
        "ok_date_strftime",
        "import datetime\ndatetime.datetime(2024, 5, 6, 7, 8).strftime('%Y-%m-%d %H:%M')",
        V,
        value="'2024-05-06 07:08'",
    ),
    Case(
        "ok_decimal_context",
        "import decimal\nwith decimal.localcontext() as c:\n    c.prec = 3\n    r = decimal.Decimal(1) / 7\nr",
        V,
        value="Decimal('0.143')",
    ),
    Case(
        "ok_getattr_default",
        "getattr(1, 'nope', 'dflt'), getattr('a', 'upper')()",
        V,
        value="('dflt', 'A')",
    ),
    Case("ok_name_main", "__name__", V, value="'__main__'"),
    Case("ok_big_pow", "len(str(2**10000))", V, value="3011"),
    Case("ok_type_name", "type(3).__name__, type('x') is str", V, value="('int', True)"),
    Case(
        "ok_tool_call",
        "from tools import lookup\nlookup('Oslo'), lookup(key='Rome')",
        V,
        value="({'key': 'Oslo', 'n': 4}, {'key': 'Rome', 'n': 4})",
    ),
]
