"""AST builders of the compile-time policy: guard calls, the inline fast paths and the static
checks that let bounded operations compile to plain bytecode."""

from __future__ import annotations

import ast
from typing import Any

from RestrictedPython.transformer import copy_locations

from codeact.executors.restricted._sizes import percent_template_ok


def small_number(node: ast.expr, limit: int) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    if not isinstance(node, ast.Constant):
        return False
    value = node.value
    return isinstance(value, (int, float)) and not isinstance(value, bool) and abs(value) <= limit


def bounded(node: ast.BinOp) -> bool:
    """True when the operation cannot blow up: ``x * 3``, ``x ** 2``, ``x << 4``, ``7 % x``,
    ``'%d-%s' % args``...

    A product with a small literal is at most that many times an object that already exists;
    a power or shift by a small literal grows an integer by a bounded factor; a %-format with a
    literal template is bounded when none of its widths is huge.
    """
    if isinstance(node.op, ast.Mod):
        left = node.left
        if isinstance(left, ast.Constant):
            value = left.value
            if isinstance(value, (str, bytes)):
                return percent_template_ok(value)
            return isinstance(value, (int, float)) and not isinstance(value, bool)
        return False
    if isinstance(node.op, ast.Mult):
        return small_number(node.left, 1000) or small_number(node.right, 1000)
    return small_number(node.right, 64)


def simple(node: ast.expr) -> bool:
    """A name or a literal: evaluating it twice is the same as once."""
    return isinstance(node, (ast.Name, ast.Constant))


def int_fast_path(node: ast.BinOp, call: ast.Call) -> ast.expr:
    """``(a * b if _type_(a) is _int_ is _type_(b) else _mul_(a, b))`` (``%``: the left operand
    only): the operation on plain ints runs as native bytecode (a membership test that also
    admits floats measured slower for ints); anything else goes through the guard.

    A product of two integers can only be huge if its operands were built by a chain
    of products, each slower than all before it, so the cell's deadline ends such a chain."""

    def fresh(operand: ast.expr) -> ast.expr:
        if not isinstance(operand, ast.Name):
            return operand  # a literal: the same node may appear twice
        copy = ast.Name(operand.id, ast.Load())
        copy_locations(copy, operand)
        return copy

    def type_of(operand: ast.expr) -> ast.expr:
        return hook_call("_type_", [fresh(operand)], operand)

    comparators: list[ast.expr] = [ast.Name("_int_", ast.Load())]
    ops: list[ast.cmpop] = [ast.Is()]
    if isinstance(node.op, ast.Mult):
        comparators.append(type_of(node.right))
        ops.append(ast.Is())
    test = ast.Compare(left=type_of(node.left), ops=ops, comparators=comparators)
    floats = float_test(node, type_of(node.left), type_of(node.right))
    result = ast.IfExp(
        test=test,
        body=ast.BinOp(left=fresh(node.left), op=node.op, right=fresh(node.right)),
        orelse=ast.IfExp(
            test=floats,
            body=ast.BinOp(left=fresh(node.left), op=node.op, right=fresh(node.right)),
            orelse=call,
        ),
    )
    copy_locations(result, node)
    ast.fix_missing_locations(result)
    return result


def float_test(node: ast.BinOp, left_type: ast.expr, right_type: ast.expr) -> ast.expr:
    """The second fast path: a float operand makes the operation safe. A product with a float
    is a number, an elementwise product or a TypeError (no sequence repeats by a float); a
    float on the left of ``%`` is arithmetic, never text formatting."""

    def is_float(type_call: ast.expr) -> ast.expr:
        return ast.Compare(
            left=type_call, ops=[ast.Is()], comparators=[ast.Name("_float_", ast.Load())]
        )

    if isinstance(node.op, ast.Mult):
        return ast.BoolOp(op=ast.Or(), values=[is_float(left_type), is_float(right_type)])
    return is_float(left_type)


def int_fast_path_with_temps(node: ast.BinOp, hook: str, left: str, right: str) -> ast.expr:
    """The fast path for operands that must be evaluated once (``self.x * self.y`` in a def):
    ``(_t1_ * _t2_ if _type_(_t1_ := L) is _type_(_t2_ := R) is _int_ else _mul_(_t1_, _t2_))``.
    Both operands are evaluated exactly once, left first, before either branch runs (the
    chained ``is`` evaluates its first two terms before comparing); for ``%`` too, both must be
    ints for the native path."""

    def name(ident: str, ctx: ast.expr_context) -> ast.Name:
        n = ast.Name(ident, ctx)
        copy_locations(n, node)
        return n

    def stored(ident: str, value: ast.expr) -> ast.expr:
        walrus = ast.NamedExpr(target=name(ident, ast.Store()), value=value)
        copy_locations(walrus, value)
        return hook_call("_type_", [walrus], value)

    test = ast.Compare(
        left=stored(left, node.left),
        ops=[ast.Is(), ast.Is()],
        comparators=[stored(right, node.right), name("_int_", ast.Load())],
    )

    def native() -> ast.BinOp:
        return ast.BinOp(left=name(left, ast.Load()), op=node.op, right=name(right, ast.Load()))

    guarded = hook_call(hook, [name(left, ast.Load()), name(right, ast.Load())], node)
    floats = float_test(
        node,
        hook_call("_type_", [name(left, ast.Load())], node),
        hook_call("_type_", [name(right, ast.Load())], node),
    )
    result = ast.IfExp(
        test=test, body=native(), orelse=ast.IfExp(test=floats, body=native(), orelse=guarded)
    )
    copy_locations(result, node)
    ast.fix_missing_locations(result)
    return result


def literal_format_template(node: ast.Call) -> str | None:
    """The template of ``'literal {}'.format(...)`` (no ``*args``/``**kwargs`` needed)."""
    func = node.func
    if (
        isinstance(func, ast.Attribute)
        and func.attr == "format"
        and isinstance(func.value, ast.Constant)
        and isinstance(func.value.value, str)
    ):
        return func.value.value
    return None


def write_guard(target: ast.expr, cache: str | None = None) -> ast.expr:
    """``_write_(x)``; for a plain name, with an inline fast path for sandbox-made objects:
    ``(x if _type_(x) in _sandbox_classes_ else _write_(x))`` avoids a Python call per write.

    With ``cache`` (a name of the scope, set to None by ``declare_caches``), the object last
    found to be sandbox-made is remembered: ``(x if x is _w_x_ else (_w_x_ := x) if
    _type_(x) in _sandbox_classes_ else _write_(x))`` — a loop writing to one object's
    attributes pays one identity test per write. A sandbox-made object stays one (its class
    cannot be reassigned: ``__class__`` is never writable)."""
    call = hook_call("_write_", [target], target)
    if not isinstance(target, ast.Name):
        return call

    def load(name: str) -> ast.Name:
        return ast.Name(name, ast.Load())

    test = ast.Compare(
        left=hook_call("_type_", [load(target.id)], target),
        ops=[ast.In()],
        comparators=[load("_sandbox_classes_")],
    )
    checked: ast.expr = load(target.id)
    if cache is not None:
        checked = ast.NamedExpr(target=ast.Name(cache, ast.Store()), value=load(target.id))
    node: ast.expr = ast.IfExp(test=test, body=checked, orelse=call)
    if cache is not None:
        same = ast.Compare(left=load(target.id), ops=[ast.Is()], comparators=[load(cache)])
        node = ast.IfExp(test=same, body=load(target.id), orelse=node)
    copy_locations(node, target)
    ast.fix_missing_locations(node)
    return node


def declare_caches(body: list[ast.stmt], names: set[str]) -> None:
    """``_w_x_ = None`` for each write cache, at the top of a module or def body (after a
    docstring and ``from __future__`` imports)."""
    at = 0
    while at < len(body) and (
        (isinstance(body[at], ast.ImportFrom) and body[at].module == "__future__")  # type: ignore[attr-defined]
        or (at == 0 and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant))
    ):
        at += 1
    for name in sorted(names):
        stmt = ast.Assign(targets=[ast.Name(name, ast.Store())], value=ast.Constant(None))
        if body:
            copy_locations(stmt, body[min(at, len(body) - 1)])
        ast.fix_missing_locations(stmt)
        body.insert(at, stmt)


def hook_call(name: str, args: list[ast.expr], loc: Any) -> ast.Call:
    """``name(*args)`` at ``loc``'s position: a call of one of the cell's guard hooks."""
    node = ast.Call(func=ast.Name(name, ast.Load()), args=args, keywords=[])
    copy_locations(node, loc)
    ast.fix_missing_locations(node)
    return node


def hook_stmt(name: str, loc: Any) -> ast.Expr:
    """``name()`` as a statement at ``loc``'s position."""
    stmt = ast.Expr(hook_call(name, [], loc))
    copy_locations(stmt, loc)
    return stmt
