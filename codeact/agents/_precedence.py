"""Comparisons joined with ``&``/``|`` and no parentheses: a failed cell re-run with them.

``df[df.a != 'x' & df.b != 'y']`` is the commonest pandas slip there is. In Python ``&`` and
``|`` bind tighter than comparisons, so it means ``df.a != ('x' & df.b) != 'y'`` and fails
(``unsupported operand type(s) for &``, ``The truth value of a Series is ambiguous``); a small
model sent that error back tends to send the same line again. A cell that failed with such a
chain is re-run with each comparison in parentheses (``(df.a != 'x') & (df.b != 'y')``), which
is what the line meant: nobody writes ``a != ('x' & b)`` unparenthesised on purpose.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from codeact._parse import parse_source
from codeact.agents._imports import apply_edits, node_span, source_offset
from codeact.agents._problem import Problem, problem_of
from codeact.agents._unusedfix import failing_line
from codeact.executors.base import ExecutionResult

_BIT = {ast.BitAnd: "&", ast.BitOr: "|"}
#: The errors the slip raises (pandas and numpy wording).
_SLIP = re.compile(
    r"unsupported operand type\(s\) for [&|]|truth value of a (?:Series|DataFrame) is "
    r"ambiguous|Cannot perform 'r?(?:and|or)_'|ufunc 'bitwise_(?:and|or)'"
)
#: The ordered comparisons a chain may be split at, as written.
_CMP = {
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
}


@dataclass(frozen=True)
class PrecedenceFix:
    """A failed cell with its comparison chains split at ``&``/``|`` and parenthesised."""

    code: str
    #: Each rewritten expression: (as written, as re-run).
    rewritten: tuple[tuple[str, str], ...]

    def note(self) -> str:
        """What the model (and the transcript) is told about the re-run."""
        before, after = self.rewritten[0]
        return (
            "Your cell failed: in Python & and | bind tighter than ==, != and <, so "
            f"{before} compares the wrong things. I re-ran your cell with each comparison in "
            f"parentheses: {after}. Output of the re-run:"
        )


def _bit(node: ast.expr) -> str | None:
    """``&`` or ``|`` when ``node`` is such an operation, else None."""
    return _BIT.get(type(node.op)) if isinstance(node, ast.BinOp) else None


def _bounds(lines: list[str], node: ast.expr) -> tuple[int, int]:
    """Where ``node``'s source starts and ends in the cell."""
    end_line, end_col = node.end_lineno or node.lineno, node.end_col_offset or 0
    return source_offset(lines, node.lineno, node.col_offset), source_offset(
        lines, end_line, end_col
    )


def _bare(code: str, lines: list[str], node: ast.expr) -> bool:
    """``node`` is not written inside its own parentheses (``a != ('x' & b)`` is meant)."""
    start, end = _bounds(lines, node)
    return not (code[:start].rstrip().endswith("(") and code[end:].lstrip().startswith(")"))


def _split(code: str, lines: list[str], node: ast.Compare) -> str | None:
    """The chain ``node`` as the comparisons its author meant, joined by its ``&``/``|``, or
    None when it is not such a chain (or is one too tangled to split safely)."""

    def text(n: ast.expr) -> str | None:
        return ast.get_source_segment(code, n)

    if any(type(op) not in _CMP for op in node.ops):
        return None  # ("a" in s1 | s2: a set union, as written)
    operands = [node.left, *node.comparators]
    bits = [i for i, n in enumerate(operands) if _bit(n) and _bare(code, lines, n)]
    texts = all(isinstance(c, ast.Constant) and isinstance(c.value, str) for c in operands[1:])
    if not bits or (0 in bits and not texts):
        return None  # (n & 1 == 0 first: a bit test, as written; a & b == 'x' is no bit test)
    parts: list[str] = []
    joins: list[str] = []
    current: list[str] = []
    for i, operand in enumerate(operands):
        if i:
            current.append(_CMP[type(node.ops[i - 1])])
        if i not in bits:
            current.append(text(operand) or "")
            continue
        assert isinstance(operand, ast.BinOp)
        left, right = text(operand.left), text(operand.right)
        if left is None or right is None or _bit(operand.left) or _bit(operand.right):
            return None  # (a & b & c inside one link: not guessed)
        current.append(left)
        parts.append(" ".join(current))
        joins.append(_bit(operand) or "")
        current = [right]
    parts.append(" ".join(current))
    out = f"({parts[0]})"
    for join, part in zip(joins, parts[1:], strict=True):
        out += f" {join} ({part})"
    return out


def precedence_fix(result: ExecutionResult, code: str) -> PrecedenceFix | None:
    """The failed cell with the comparison chains of its failing line that have a bare
    ``&``/``|`` inside them rewritten as parenthesised comparisons, when it failed with the
    error that slip raises; None otherwise (``n & 1 == 0`` and ``x in a | b`` are left as
    written: there the operators mean what Python says)."""
    error = result.error
    if error is None or not _SLIP.search(error.message):
        return None
    try:
        tree = parse_source(code)
    except SyntaxError:
        return None
    lines = code.splitlines(keepends=True)
    failing = failing_line(error.traceback)
    edits = []
    taken: list[tuple[int, int]] = []
    rewritten = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare):
            continue
        span = lines[node.lineno - 1 : (node.end_lineno or node.lineno)]
        if failing and not any(failing in ln for ln in span):
            continue  # (only the chain on the line that failed)
        split = _split(code, lines, node)
        if split is None:
            continue
        start, end = _bounds(lines, node)
        if any(start < e and s < end for s, e in taken):
            return None  # (chains inside chains: not guessed)
        taken.append((start, end))
        edits.append(node_span(node, split))
        rewritten.append((ast.get_source_segment(code, node) or "", split))
    if not edits:
        return None
    return PrecedenceFix(code=apply_edits(code, edits), rewritten=tuple(rewritten))


def precedence_problem(question: str, code: str) -> Problem | None:
    """A cell that ran with ``a & b == 'Animation'`` (fresh18): no error, since it means
    ``(a & b) == 'Animation'``, which is never true, so the selection is empty and the
    answer nan or 0. The runnable code puts each comparison in parentheses."""
    del question  # (the code alone tells)
    try:
        tree = parse_source(code)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    lines = code.splitlines(keepends=True)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare) or not _bit(node.left):
            continue
        split = _split(code, lines, node)
        if split is None:
            continue
        written = ast.get_source_segment(code, node) or ""
        side = ast.get_source_segment(code, node.left) or ""
        return problem_of(
            f"In Python & and | bind tighter than ==, so {written} compares ({side}) with the "
            f"text: never true, no rows are selected. Put each comparison in "
            f"parentheses: {split}; run your code again, print the result, then answer.",
            apply_edits(code, [node_span(node, split)]),
        )
    return None
