"""The compile-time policy: RestrictedPython's transformer, adjusted so ordinary Python works
(``_compile.compile_cell`` applies it to a cell).

Compared with the stock policy this one allows ``nonlocal``, annotations (so ``@dataclass``),
augmented assignment to attributes and items, ``match`` statements (class-pattern keywords on
names checked at run time are read through the guards: ``_matchrw``), ``__slots__`` in class
bodies (checked when the class is made), private ``_names`` (checked at run time: only objects
made by the sandbox expose them), defining dunder methods such as ``__str__``, ``__iter__`` or
``__enter__``, and async code (``async def``, ``await`` — also at top level, run on the session's
loop: ``_asyncrun`` —, ``async for``/``async with``). It still refuses reaching dunder attributes
(``x.__class__``), frame/generator/coroutine/traceback internals (``gi_frame``, ``cr_frame``,
``ag_frame``, ``tb_frame``), names that would shadow the guard hooks (``_getattr_``...),
``exec``/``eval`` calls and ``try/except*``.

For speed, attribute reads with public names, item access, iteration and unpacking compile to
plain bytecode: what they could reach is controlled by what the cell can hold (module proxies,
plain-data tool results), not by per-operation hooks. Only private names, ``format``/``format_map``
(attribute walks in format strings), ``obj`` (``AttributeError.obj``) and the other
``RUNTIME_ATTRS`` go through ``_getattr_``; attribute writes go through ``_write_`` (with an
inline fast path); ``**``, ``*``, ``%`` and ``<<`` go through size guards unless their operands
are plain numbers.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from RestrictedPython.transformer import (
    INSPECT_ATTRIBUTES,
    RestrictingNodeTransformer,
    copy_locations,
)

from codeact.executors.restricted._matchrw import MatchRules
from codeact.executors.restricted._nodes import (
    bounded,
    declare_caches,
    hook_call,
    hook_stmt,
    int_fast_path,
    int_fast_path_with_temps,
    literal_format_template,
    simple,
    write_guard,
)
from codeact.executors.restricted._sizes import MAX_WIDTH, plain_literal

VALUE_NAME = "_codeact_value_"
_DIGIT_RUNS = re.compile(r"\d+")
#: Dunder attributes that may be read on any object (bound protocol methods and names).
SAFE_DUNDERS = frozenset(
    """__init__ __str__ __repr__ __eq__ __ne__ __lt__ __le__ __gt__ __ge__ __hash__ __len__
    __iter__ __next__ __contains__ __getitem__ __setitem__ __delitem__ __enter__ __exit__
    __call__ __bool__ __add__ __sub__ __mul__ __truediv__ __floordiv__ __mod__ __neg__ __abs__
    __post_init__ __name__ __qualname__ __doc__ __missing__ __reversed__ __format__ __index__
    __int__ __float__ __round__ __and__ __or__ __xor__ __radd__ __rsub__ __rmul__
    __rtruediv__ __iadd__ __isub__ __imul__""".split()
)
#: Special attributes cells may read, checked at run time: annotations on what the cell itself
#: defined; exception chains, whose members are handed over only when they hold plain values
#: (host code that turns one exception into another must not hand its state to the cell).
READ_DUNDERS = frozenset(
    {"__annotations__", "__cause__", "__context__", "__suppress_context__", "__slots__"}
)
#: Dunder methods a sandbox class may not define: they run outside a cell's deadline, matter
#: to pickling (which the host never does with sandbox objects), or hand native code a raw
#: memory address or buffer (numpy's array interface: ``np.asarray`` trusts the pointer).
FORBIDDEN_DEFS = frozenset(
    {"__del__", "__reduce__", "__reduce_ex__", "__getstate__", "__setstate__"}
    | {"__array_interface__", "__array_struct__", "__cuda_array_interface__", "__buffer__"}
    | {"__dlpack__", "__dlpack_device__", "__arrow_c_array__", "__arrow_c_stream__"}
    | {"__arrow_c_schema__", "__arrow_c_device_array__", "__dataframe__"}
)
#: Public attribute names that are checked at run time.
RUNTIME_ATTRS = frozenset(
    {"format", "format_map", "obj"}
    | {"center", "ljust", "rjust", "zfill", "expandtabs"}  # widths are size-checked
    # data libraries: string evaluation and dispatch (_dataeval), backends loaded by name,
    # Styler's templates and the real classes behind array stand-ins (_datalibs)
    | {"eval", "query", "agg", "aggregate", "apply", "transform"}
    | {"savefig", "print_figure", "style", "mro", "baseclass", "plot", "hist", "boxplot"}
    | {"get_loop", "get_stack", "print_stack"}  # asyncio: the event loop, frames (_asyncrun)
)
RESERVED_NAMES = frozenset({"printed", "builtins", "breakpoint", "_print", "_print_"})
GUARDED_OPS: dict[type[ast.operator], str] = {
    ast.Pow: "_pow_",
    ast.Mult: "_mul_",
    ast.LShift: "_lshift_",
    ast.Mod: "_mod_",
}


def _is_hook_name(name: str) -> bool:
    return len(name) > 2 and name.startswith("_") and name.endswith("_")


class CellPolicy(MatchRules, RestrictingNodeTransformer):
    """The transformer applied to every cell."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._class_depth = 0
        #: Innermost scope kinds: "module", "function" (a def's body), "class", "lambda",
        #: "comprehension". Temporaries (``_tN_ := ...``) are only used in a def's body.
        self._scopes = ["module"]
        self._temps = 0
        #: Per module/def scope: the names of the write-guard caches used (see write_guard).
        self.write_caches: list[set[str]] = [set()]

    def match_guarded(self, attr: str) -> bool:
        """A class pattern keyword read through the guards (``_matchrw``)."""
        return attr.startswith("_") or attr in RUNTIME_ATTRS

    def _write_cache(self, target: ast.expr) -> str | None:
        """The cache name for writes through the plain name ``target`` (module and def
        scopes; a class body would make it a class attribute)."""
        if not isinstance(target, ast.Name) or self._scopes[-1] not in ("module", "function"):
            return None
        name = f"_w_{target.id}_"
        self.write_caches[-1].add(name)
        return name

    def _temp(self) -> str | None:
        """A fresh local name for a walrus temporary, or None outside a def's own body."""
        if self._scopes[-1] != "function":
            return None
        self._temps += 1
        return f"_t{self._temps}_"

    def _in_scope(self, kind: str, visit: Any, node: Any) -> Any:
        self._scopes.append(kind)
        try:
            return visit(node)
        finally:
            self._scopes.pop()

    def _visit_children(self, node: ast.AST) -> Any:
        return ast.NodeTransformer.generic_visit(self, node)

    def visit_Lambda(self, node: ast.Lambda) -> Any:
        return self._in_scope("lambda", super().visit_Lambda, node)

    def visit_ListComp(self, node: ast.ListComp) -> Any:
        return self._in_scope("comprehension", super().visit_ListComp, node)

    def visit_SetComp(self, node: ast.SetComp) -> Any:
        return self._in_scope("comprehension", super().visit_SetComp, node)

    def visit_DictComp(self, node: ast.DictComp) -> Any:
        return self._in_scope("comprehension", super().visit_DictComp, node)

    def visit_GeneratorExp(self, node: ast.GeneratorExp) -> Any:
        return self._in_scope("comprehension", super().visit_GeneratorExp, node)

    # -- names ---------------------------------------------------------------------------------
    def gen_tmp_name(self) -> str:
        name = f"_codeact_tmp{self._tmp_idx}_"
        self._tmp_idx += 1
        return name

    def check_name(self, node: Any, name: str | None, allow_magic_methods: bool = False) -> None:
        if name is None or name == "_":
            return
        if name.startswith("__"):
            if allow_magic_methods and name.endswith("__") and name not in FORBIDDEN_DEFS:
                return
            self.error(node, f'"{name}" is an invalid name: names starting with "__" are reserved.')
        elif _is_hook_name(name) or name in RESERVED_NAMES:
            self.error(node, f'"{name}" is a reserved name.')
        elif name.endswith("__roles__"):
            self.error(node, f'"{name}" is an invalid name.')

    def check_import_names(self, node: ast.ImportFrom | ast.Import) -> Any:
        for alias in node.names:
            if alias.name.startswith("_") or "._" in alias.name:
                self.error(node, f'cannot import "{alias.name}": private names are not importable.')
        return super().check_import_names(node)

    def inject_print_collector(self, node: Any, position: int = 0) -> None:
        """``print`` is an ordinary (captured) builtin here: nothing to inject."""

    def visit_Name(self, node: ast.Name) -> Any:
        if isinstance(node.ctx, ast.Load) and node.id == "__name__":
            return node
        if node.id == "__slots__" and self._scopes[-1] == "class":
            return node  # names checked when the class is made (_guards.sandbox_class)
        self.check_name(node, node.id)
        return node

    # -- attributes ----------------------------------------------------------------------------
    def _check_attr(self, node: ast.Attribute, *, store: bool) -> None:
        attr = node.attr
        if attr in INSPECT_ATTRIBUTES:
            self.error(node, f'"{attr}" is a restricted name that the sandbox does not expose.')
        elif attr.startswith("__"):
            if store or attr not in SAFE_DUNDERS | READ_DUNDERS:
                self.error(
                    node, f'"{attr}" is an invalid attribute name because it starts with "__".'
                )
        elif attr.endswith("__roles__"):
            self.error(node, f'"{attr}" is an invalid attribute name.')

    def visit_Attribute(self, node: ast.Attribute) -> Any:
        store = not isinstance(node.ctx, ast.Load)
        self._check_attr(node, store=store)
        node = self.node_contents_visit(node)
        if store:
            node.value = write_guard(node.value, self._write_cache(node.value))
            return node
        if node.attr.startswith("_") or node.attr in RUNTIME_ATTRS:
            return hook_call("_getattr_", [node.value, ast.Constant(node.attr)], node)
        return node

    def visit_Subscript(self, node: ast.Subscript) -> Any:
        return self.node_contents_visit(node)

    # -- statements made native ------------------------------------------------------------------
    def visit_For(self, node: ast.For) -> Any:
        return self.node_contents_visit(node)

    def visit_comprehension(self, node: ast.comprehension) -> Any:
        return self.node_contents_visit(node)

    def visit_Assign(self, node: ast.Assign) -> Any:
        return self.node_contents_visit(node)

    def visit_With(self, node: ast.With) -> Any:
        return self.node_contents_visit(node)

    def visit_Call(self, node: ast.Call) -> Any:
        if isinstance(node.func, ast.Name) and node.func.id in ("exec", "eval"):
            self.error(node, f"{node.func.id}() calls are not allowed.")
        template = literal_format_template(node)
        func = node.func
        node = self.node_contents_visit(node)
        if template is not None and plain_literal(template):
            node.func = func  # no attribute walks, widths checked now: the native method
        elif template is not None:  # walks or a huge width: checked when it runs
            node.func = ast.Name("_format_", ast.Load())
            node.args.insert(0, ast.Constant(template))
            copy_locations(node.func, node)
            ast.fix_missing_locations(node)
        return node

    def visit_FormattedValue(self, node: ast.FormattedValue) -> Any:
        node = self.node_contents_visit(node)
        spec = node.format_spec
        if not isinstance(spec, ast.JoinedStr):
            return node
        if all(isinstance(v, ast.Constant) for v in spec.values):
            text = "".join(str(v.value) for v in spec.values if isinstance(v, ast.Constant))
            if any(len(d) > 9 or int(d) > MAX_WIDTH for d in _DIGIT_RUNS.findall(text)):
                node.value = hook_call("_refuse_width_", [node.value], node)
            return node
        for part in spec.values:  # f'{x:{width}}': the nested values are checked at run time
            if isinstance(part, ast.FormattedValue):
                part.value = hook_call("_spec_", [part.value], part)
        return node

    def visit_AugAssign(self, node: ast.AugAssign) -> Any:
        if isinstance(node.target, ast.Attribute):
            self._check_attr(node.target, store=True)
            node.target.value = self.visit(node.target.value)
            node.target.value = write_guard(node.target.value, self._write_cache(node.target.value))
        else:
            node.target = self.visit(node.target)
        node.value = self.visit(node.value)
        return node

    def visit_BinOp(self, node: ast.BinOp) -> Any:
        node = self.node_contents_visit(node)
        hook = GUARDED_OPS.get(type(node.op))
        if hook is None or bounded(node):
            return node
        call = hook_call(hook, [node.left, node.right], node)
        if not isinstance(node.op, (ast.Mult, ast.Mod)):
            return call
        if simple(node.left) and simple(node.right):
            return int_fast_path(node, call)
        temps = (self._temp(), self._temp())
        if temps[0] is not None and temps[1] is not None:
            return int_fast_path_with_temps(node, hook, temps[0], temps[1])
        return call

    def visit_AnnAssign(self, node: ast.AnnAssign) -> Any:
        return self.node_contents_visit(node)

    def visit_Nonlocal(self, node: ast.Nonlocal) -> Any:
        for name in node.names:
            self.check_name(node, name)
        return node

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> Any:
        node = self.node_contents_visit(node)
        self.check_name(node, node.name)
        # A timed-out cell cannot be kept alive by catching the timeout.
        node.body.insert(0, hook_stmt("_check_timeout_", node))
        return node

    def visit_Try(self, node: ast.Try) -> Any:
        node = self.node_contents_visit(node)
        if node.finalbody:  # ``finally: return`` (or break) cannot swallow a timeout either
            node.finalbody.insert(0, hook_stmt("_check_timeout_", node.finalbody[0]))
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> Any:
        in_class = self._class_depth > 0
        self.check_name(node, node.name, allow_magic_methods=in_class)
        self.check_function_argument_names(node)
        depth, self._class_depth = self._class_depth, 0
        body, node.body = node.body, []
        try:
            node = self.node_contents_visit(node)  # decorators, defaults: the enclosing scope
            holder = ast.Module(body=body, type_ignores=[])
            self.write_caches.append(set())
            node.body = self._in_scope("function", self._visit_children, holder).body
            declare_caches(node.body, self.write_caches.pop())
        finally:
            self._class_depth = depth
        if in_class and node.name in ("__exit__", "__aexit__"):
            node.body.insert(0, hook_stmt("_check_timeout_", node))
        return node

    # -- async code: the same rules; ``await f(...)`` lets host tools be awaited ------------------
    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> Any:
        return self.visit_FunctionDef(node)  # type: ignore[arg-type]  # the same fields

    def visit_Await(self, node: ast.Await) -> Any:
        node = self.node_contents_visit(node)
        call = node.value
        if isinstance(call, ast.Call):  # ``await f(x)`` → ``await _await_call_(f, x)``
            call.args.insert(0, call.func)
            call.func = ast.Name("_await_call_", ast.Load())
            copy_locations(call.func, call)
        return node

    def visit_AsyncFor(self, node: ast.AsyncFor) -> Any:
        return self.node_contents_visit(node)

    def visit_AsyncWith(self, node: ast.AsyncWith) -> Any:
        return self.node_contents_visit(node)

    def visit_ClassDef(self, node: ast.ClassDef) -> Any:
        self.check_name(node, node.name)
        self._class_depth += 1
        try:
            node = self._in_scope("class", self.node_contents_visit, node)
        finally:
            self._class_depth -= 1
        # Outermost decorator: marks the class (after e.g. @dataclass) as made by the sandbox.
        marker = ast.Name("_sandbox_class_", ast.Load())
        copy_locations(marker, node)
        node.decorator_list.insert(0, marker)
        return node
