"""A column overwritten with the result of a test, then compared with its old text (fresh18:
``df['sales channel'] = df['sales channel'].str.strip().str.lower() == 'online'``, then
``df[df['sales channel'] == 'online']``). The column holds True and False after the first
line, so the later test is never true: no row is selected, and a sum of nothing is 0. The
rule names both lines; its runnable code keeps the text (the first line without its test),
which the later comparison then reads as meant."""

from __future__ import annotations

import ast

from codeact._parse import parse_source
from codeact.agents._problem import Problem, problem_of

#: Methods whose result is True or False per row.
_TESTS = {"isin", "contains", "startswith", "endswith", "isna", "notna", "isnull", "notnull"}


def _column(node: ast.AST) -> bool:
    """Whether ``node`` is ``frame['name']``."""
    return (
        isinstance(node, ast.Subscript)
        and isinstance(node.slice, ast.Constant)
        and isinstance(node.slice.value, str)
    )


def _tested(value: ast.AST) -> ast.AST | None:
    """The text a per-row test in ``value`` reads (``x == 'a'``: ``x``; ``x.isin([...])``:
    ``x``), or None when ``value`` is no such test."""
    if isinstance(value, ast.Compare) and isinstance(value.ops[0], ast.Eq | ast.NotEq):
        return value.left if len(value.ops) == 1 else None
    func = value.func if isinstance(value, ast.Call) else None
    if isinstance(func, ast.Attribute) and func.attr in _TESTS:
        return func.value
    return None


def _with_text(node: ast.AST) -> bool:
    """Whether ``node`` compares with text: ``== 'online'`` or ``.isin(['web', ...])``."""
    if isinstance(node, ast.Compare):
        return any(
            isinstance(c, ast.Constant) and isinstance(c.value, str) for c in node.comparators
        )
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
        return False
    listed = node.args[0] if node.func.attr == "isin" and node.args else None
    items = listed.elts if isinstance(listed, ast.List | ast.Tuple) else []
    return bool(items) and all(
        isinstance(i, ast.Constant) and isinstance(i.value, str) for i in items
    )


def _left(node: ast.AST) -> ast.AST:
    if isinstance(node, ast.Compare):
        return node.left
    assert isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
    return node.func.value


def bool_column_problem(question: str, code: str) -> Problem | None:
    """A column set to a per-row test, then compared with text (see the module)."""
    del question  # (the code alone tells)
    try:
        tree = parse_source(code)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    made: dict[str, tuple[ast.Assign, ast.AST]] = {}  # column as written: (its line, the text)
    for stmt in tree.body:
        for node in ast.walk(stmt):
            if (_with_text(node) and _column(_left(node))) and ast.unparse(_left(node)) in made:
                line, text = made[ast.unparse(_left(node))]
                return _problem(code, line, text, node)
        if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) for t in stmt.targets):
            frames = {t.id for t in stmt.targets if isinstance(t, ast.Name)}  # (read again:
            made = {k: v for k, v in made.items() if k.split("[")[0] not in frames}  # its text)
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and _column(stmt.targets[0]):
            target = ast.unparse(stmt.targets[0])
            tested = _tested(stmt.value)
            if tested is not None:
                made[target] = (stmt, tested)
            else:
                made.pop(target, None)
    return None


def _problem(code: str, line: ast.Assign, text: ast.AST, later: ast.AST) -> Problem:
    target = ast.unparse(line.targets[0])
    written = ast.get_source_segment(code, line) or ast.unparse(line)
    source = ast.get_source_segment(code, text) or ast.unparse(text)
    kept = f"{target} = ({source})" if "\n" in source else f"{target} = {source}"
    test = ast.get_source_segment(code, later) or ast.unparse(later)
    fixed = code.replace(written, kept, 1) if written in code else None
    return problem_of(
        f"`{written}` makes {target} True or False, so `{test}` after it is never true: it "
        f"selects no rows (a sum of nothing is 0). Keep the text in the column ({kept}), then "
        "compare; run your code again, print the result, then answer.",
        fixed,
    )
