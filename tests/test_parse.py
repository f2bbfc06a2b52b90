"""``parse_source`` rides out CPython 3.11's spurious AST recursion-depth ``SystemError``
(python/cpython#106905), which no test can provoke on demand: ``ast.parse`` is made to raise
it the way the interpreter does, a given number of times."""

from __future__ import annotations

import ast

import pytest

from codeact import _parse
from codeact._parse import TRIES, parse_source


def _flaky(monkeypatch: pytest.MonkeyPatch, failures: int) -> list[str]:
    real, calls = ast.parse, []

    def parse(source: str) -> ast.Module:
        calls.append(source)
        if len(calls) <= failures:
            raise SystemError("AST constructor recursion depth mismatch (before=129, after=36)")
        return real(source)

    monkeypatch.setattr(_parse.ast, "parse", parse)
    return calls


def test_a_spurious_depth_mismatch_is_parsed_again(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _flaky(monkeypatch, TRIES - 1)
    tree = parse_source("x = 1")
    assert isinstance(tree.body[0], ast.Assign) and len(calls) == TRIES


def test_a_lasting_error_and_a_syntax_error_are_raised(monkeypatch: pytest.MonkeyPatch) -> None:
    _flaky(monkeypatch, TRIES)
    with pytest.raises(SystemError, match="recursion depth mismatch"):
        parse_source("x = 1")
    monkeypatch.undo()
    with pytest.raises(SyntaxError):
        parse_source("x = (")
