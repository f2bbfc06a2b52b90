"""``match`` class patterns on guarded attribute names (``case Circle(center=c)``,
``case Row(format=f)``, ``case Node(_parent=p)``).

A class pattern's keyword reads the attribute with the interpreter's own ``getattr``, past the
run-time guard that ``obj.center`` goes through (``str.center`` is a padding method whose width
is checked; ``format`` walks attributes; ``_x`` is private on objects the cell did not make).
So such keywords are taken out of the pattern and read in the case's guard through
``_match_attr_`` — the guarded ``getattr``, where a missing attribute means "no match" as in
CPython — before the case's own guard::

    case Circle(center=c, r=0) if c.x > 0:
    # becomes
    case Circle(r=0) as _t1 if (c := _match_attr_(_t1, 'center')) is not _nomatch_ and c.x > 0:

A sub-pattern other than a capture or ``_`` (``center=Point(x=0)``) is matched by a helper
function defined just before the ``match``, whose own ``match`` is rewritten the same way and
which returns the names it captured; the guard binds them.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable
from typing import Any

from RestrictedPython.transformer import INSPECT_ATTRIBUTES

NameSource = Callable[[], str]


def _load(name: str) -> ast.Name:
    return ast.Name(name, ast.Load())


def _call(name: str, *args: ast.expr) -> ast.Call:
    return ast.Call(func=_load(name), args=list(args), keywords=[])


def _captured(pattern: ast.AST) -> list[str]:
    """Names a pattern binds, in a fixed order (an or-pattern's first alternative)."""
    names: list[str] = []
    for node in ast.walk(pattern if not isinstance(pattern, ast.MatchOr) else pattern.patterns[0]):
        name = (
            getattr(node, "name", None) if isinstance(node, (ast.MatchAs, ast.MatchStar)) else None
        )
        if isinstance(node, ast.MatchMapping):
            name = node.rest
        if name and name not in names:
            names.append(name)
    return names


def _in_or(pattern: ast.AST, guarded: Callable[[str], bool]) -> bool:
    for node in ast.walk(pattern):
        if isinstance(node, ast.MatchOr):
            for alt in node.patterns:
                if any(_rewritten(sub, guarded) for sub in ast.walk(alt)):
                    return True
    return False


class _Rewriter(ast.NodeTransformer):
    """Takes the guarded keywords out of one case's pattern; collects guard terms and helpers."""

    def __init__(self, guarded: Callable[[str], bool], fresh: NameSource) -> None:
        self.guarded = guarded
        self.fresh = fresh
        self.terms: list[ast.expr] = []
        self.helpers: list[ast.stmt] = []

    def visit_MatchClass(self, node: ast.MatchClass) -> Any:
        node = self.generic_visit(node)  # type: ignore[assignment]
        moved = [
            (a, p)
            for a, p in zip(node.kwd_attrs, node.kwd_patterns, strict=True)
            if self.guarded(a)
        ]
        if not moved and not node.patterns:
            return node
        kept = [
            (a, p)
            for a, p in zip(node.kwd_attrs, node.kwd_patterns, strict=True)
            if not self.guarded(a)
        ]
        node.kwd_attrs = [a for a, _ in kept]
        node.kwd_patterns = [p for _, p in kept]
        subject = self.fresh()
        count = len(node.patterns)
        for i, sub in enumerate(node.patterns):  # ``_match_pos_(t, Cls, i, count)``
            cls = copy.deepcopy(node.cls)
            args = [_load(subject), cls, ast.Constant(i), ast.Constant(count)]
            self.terms.extend(self._terms(_call("_match_pos_", *args), sub))
        node.patterns = []
        for attr, sub in moved:
            value = _call("_match_attr_", _load(subject), ast.Constant(attr))
            self.terms.extend(self._terms(value, sub))
        return ast.MatchAs(pattern=node, name=subject)

    def _terms(self, value: ast.expr, sub: ast.pattern) -> list[ast.expr]:
        if isinstance(sub, ast.MatchAs) and sub.pattern is None:
            if sub.name is not None:
                value = ast.NamedExpr(target=ast.Name(sub.name, ast.Store()), value=value)
            return [ast.Compare(left=value, ops=[ast.IsNot()], comparators=[_load("_nomatch_")])]
        helper, names = self._helper(sub)
        found = self.fresh()
        got = ast.NamedExpr(target=ast.Name(found, ast.Store()), value=_call(helper, value))
        terms: list[ast.expr] = [
            ast.Compare(left=got, ops=[ast.IsNot()], comparators=[ast.Constant(None)])
        ]
        for i, name in enumerate(names):  # ``(name := found[i]) or True``
            item = ast.Subscript(value=_load(found), slice=ast.Constant(i), ctx=ast.Load())
            bind = ast.NamedExpr(target=ast.Name(name, ast.Store()), value=item)
            terms.append(ast.BoolOp(op=ast.Or(), values=[bind, ast.Constant(True)]))
        return terms

    def _helper(self, sub: ast.pattern) -> tuple[str, list[str]]:
        """``def helper(v): match v: case SUB: return (names...)`` (rewritten in turn)."""
        names = _captured(sub)
        name, arg = self.fresh(), self.fresh()
        ret = ast.Return(ast.Tuple([_load(n) for n in names], ast.Load()))
        case = ast.match_case(pattern=sub, guard=None, body=[ret])
        test = ast.Compare(left=_load(arg), ops=[ast.Is()], comparators=[_load("_nomatch_")])
        body: list[ast.stmt] = [ast.If(test=test, body=[ast.Return(ast.Constant(None))], orelse=[])]
        body += rewrite_match(ast.Match(subject=_load(arg), cases=[case]), self.guarded, self.fresh)
        body.append(ast.Return(ast.Constant(None)))
        args = ast.arguments(
            posonlyargs=[], args=[ast.arg(arg)], kwonlyargs=[], kw_defaults=[], defaults=[]
        )
        self.helpers.append(
            ast.FunctionDef(name=name, args=args, body=body, decorator_list=[], returns=None)
        )
        return name, names


def _rewritten(node: ast.AST, guarded: Callable[[str], bool]) -> bool:
    """A class pattern with positional sub-patterns or a keyword on a guarded name."""
    return isinstance(node, ast.MatchClass) and (
        bool(node.patterns) or any(map(guarded, node.kwd_attrs))
    )


def needs_rewrite(node: ast.Match, guarded: Callable[[str], bool]) -> bool:
    """True when some class pattern of ``node`` is read through the guards (positional
    sub-patterns, keywords on guarded names)."""
    return any(_rewritten(n, guarded) for n in ast.walk(node))


def or_pattern_problem(node: ast.Match, guarded: Callable[[str], bool]) -> bool:
    """True when a guarded keyword sits in an or-pattern (its alternatives would bind
    different names once rewritten)."""
    return any(_in_or(case.pattern, guarded) for case in node.cases)


def rewrite_match(
    node: ast.Match, guarded: Callable[[str], bool], fresh: NameSource
) -> list[ast.stmt]:
    """The helpers and the rewritten ``match`` statement (see the module docstring)."""
    helpers: list[ast.stmt] = []
    for case in node.cases:
        rw = _Rewriter(guarded, fresh)
        case.pattern = rw.visit(case.pattern)
        helpers += rw.helpers
        if rw.terms:
            terms = rw.terms + ([case.guard] if case.guard is not None else [])
            case.guard = terms[0] if len(terms) == 1 else ast.BoolOp(op=ast.And(), values=terms)
    out = [*helpers, node]
    for stmt in out:
        ast.copy_location(stmt, node)
        for child in ast.walk(stmt):
            if "lineno" in child._attributes and not hasattr(child, "lineno"):
                ast.copy_location(child, node)
    ast.fix_missing_locations(ast.Module(body=out, type_ignores=[]))
    return out


class MatchRules:
    """The policy's visitors for ``match`` statements (a mixin of ``CellPolicy``, which
    provides ``match_guarded``, ``error``, ``check_name`` and the scope stack)."""

    _scopes: list[str]
    node_contents_visit: Any
    error: Any
    check_name: Any
    gen_tmp_name: Any
    match_guarded: Any

    def visit_Match(self, node: ast.Match) -> Any:
        node = self.node_contents_visit(node)
        if not needs_rewrite(node, self.match_guarded):
            return node
        if self._scopes[-1] == "class" or or_pattern_problem(node, self.match_guarded):
            where = "a class body" if self._scopes[-1] == "class" else "an or-pattern (|)"
            self.error(node, f"a class pattern on a checked attribute cannot be used in {where}.")
            return node
        return rewrite_match(node, self.match_guarded, self.gen_tmp_name)

    def visit_match_case(self, node: ast.AST) -> Any:
        return self.node_contents_visit(node)

    def visit_MatchValue(self, node: ast.AST) -> Any:
        return self.node_contents_visit(node)

    def visit_MatchSingleton(self, node: ast.AST) -> Any:
        return self.node_contents_visit(node)

    def visit_MatchSequence(self, node: ast.AST) -> Any:
        return self.node_contents_visit(node)

    def visit_MatchStar(self, node: ast.MatchStar) -> Any:
        self.check_name(node, node.name)
        return self.node_contents_visit(node)

    def visit_MatchMapping(self, node: ast.MatchMapping) -> Any:
        self.check_name(node, node.rest)
        return self.node_contents_visit(node)

    def visit_MatchClass(self, node: ast.MatchClass) -> Any:
        # Keyword patterns read attributes with the real getattr: names checked at run time
        # are read in the case's guard instead (visit_Match, _matchrw); the rest as for x.attr.
        for attr in node.kwd_attrs:
            if attr.startswith("__") or attr in INSPECT_ATTRIBUTES:
                self.error(node, f'"{attr}" cannot be matched as an attribute in the sandbox.')
        return self.node_contents_visit(node)

    def visit_MatchAs(self, node: ast.MatchAs) -> Any:
        self.check_name(node, node.name)
        return self.node_contents_visit(node)

    def visit_MatchOr(self, node: ast.AST) -> Any:
        return self.node_contents_visit(node)
