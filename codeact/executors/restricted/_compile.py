"""Compiling a cell under the policy (``_policy.CellPolicy``): syntax and policy errors as one
``CellSyntaxError``, the trailing expression kept in ``VALUE_NAME`` for its ``repr``, top-level
``await`` allowed, and the source of recent cells kept for their tracebacks (``CELL_SOURCES``).
"""

from __future__ import annotations

import ast
import hashlib
import inspect
import itertools
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from RestrictedPython.transformer import copy_locations

from codeact.executors.restricted._nodes import declare_caches
from codeact.executors.restricted._policy import VALUE_NAME, CellPolicy


class CellSyntaxError(Exception):
    """The cell is not valid Python (``kind="SyntaxError"``) or breaks the sandbox policy
    (``kind="PolicyError"``); ``lines`` holds one message per problem."""

    def __init__(self, kind: str, lines: list[str]) -> None:
        self.kind = kind
        self.lines = lines
        super().__init__("\n".join(lines))


@dataclass(frozen=True)
class CompiledCell:
    """A cell compiled under the policy: code object, its pseudo-filename and source."""

    code: Any
    filename: str
    source: str
    has_value: bool
    is_async: bool = False  # top-level await: the code object makes a coroutine


_counter = itertools.count(1)
#: Source text of recently compiled cells by pseudo-filename (for tracebacks).
CELL_SOURCES: dict[str, str] = {}
_MAX_SOURCES = 2048


@lru_cache(maxsize=512)
def compile_cell(source: str) -> CompiledCell:
    """Compile ``source`` under the policy (cached by source text).

    The trailing expression statement, if any, is stored in ``_codeact_value_`` so the caller can
    show its ``repr`` as a notebook would. Raises ``CellSyntaxError``.
    """
    digest = hashlib.sha1(source.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    filename = f"<cell-{next(_counter)}-{digest}>"
    try:
        tree = ast.parse(source, filename, "exec")
    except SyntaxError as exc:
        text = (exc.text or "").rstrip("\n")
        pointer = f"\n    {text}\n    {' ' * max((exc.offset or 1) - 1, 0)}^" if text else ""
        raise CellSyntaxError("SyntaxError", [f"Line {exc.lineno}: {exc.msg}{pointer}"]) from None
    errors: list[str] = []
    policy = CellPolicy(errors, [], {})
    policy.visit(tree)
    if errors:
        raise CellSyntaxError("PolicyError", errors)
    declare_caches(tree.body, policy.write_caches[0])
    has_value = bool(tree.body) and isinstance(tree.body[-1], ast.Expr)
    if has_value:
        last = tree.body[-1]
        assert isinstance(last, ast.Expr)
        assign = ast.Assign(targets=[ast.Name(VALUE_NAME, ast.Store())], value=last.value)
        copy_locations(assign, last)
        tree.body[-1] = assign
    ast.fix_missing_locations(tree)
    code = compile(tree, filename, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, dont_inherit=True)
    CELL_SOURCES[filename] = source
    if len(CELL_SOURCES) > _MAX_SOURCES:
        CELL_SOURCES.pop(next(iter(CELL_SOURCES)))
    is_async = bool(code.co_flags & inspect.CO_COROUTINE)
    return CompiledCell(code, filename, source, has_value, is_async)
