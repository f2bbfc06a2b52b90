"""``parse_source``: ``ast.parse`` of Python source, tried again on CPython 3.11's spurious
``SystemError: AST constructor recursion depth mismatch`` (python/cpython#106905): the AST
state's depth counter is shared by the interpreter's threads, so a cell compiling in a worker
thread while the agent reads code can upset it. The error is not about the source: the next
parse of the same text succeeds."""

from __future__ import annotations

import ast

#: How many times the parse is tried before the error is raised.
TRIES = 3


def parses(source: str) -> bool:
    """Whether ``source`` parses as a whole (not cut off in the middle of a statement)."""
    try:
        parse_source(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return False
    return True


def parse_source(source: str) -> ast.Module:
    """The module ``source`` parses to (``SyntaxError`` as ``ast.parse`` raises it)."""
    for _ in range(TRIES - 1):
        try:
            return ast.parse(source)
        except SystemError:
            continue
    return ast.parse(source)
