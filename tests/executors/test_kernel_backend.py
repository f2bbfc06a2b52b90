"""A backend written only against public names (``examples/kernel_backend.py``: the shipped
kernel under bubblewrap on ``KernelBackedExecutor``) passes the executor contract."""

from __future__ import annotations

import ast
import os
import shutil
from pathlib import Path

import pytest

from codeact.testing.contract import ExecutorContract, ExecutorFactory
from examples.kernel_backend import BubblewrapExecutor

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "kernel_backend.py"


def _need_bwrap() -> None:
    if shutil.which("bwrap") is None:
        if os.environ.get("CI") == "true" or os.environ.get("CODEACT_REQUIRE_DOCKER") == "1":
            pytest.fail("bubblewrap is needed for the kernel-kit backend test")
        pytest.skip("bubblewrap is not installed")


class TestKernelKitBackend(ExecutorContract):
    @pytest.fixture
    def executor_factory(self) -> ExecutorFactory:
        _need_bwrap()
        return lambda **kw: BubblewrapExecutor(**kw)


def test_the_example_uses_public_names_only() -> None:
    tree = ast.parse(EXAMPLE.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("codeact"):
            assert not any(p.startswith("_") for p in (node.module or "").split(".")), node.module
            assert not any(a.name.startswith("_") for a in node.names), ast.unparse(node)
    assert len(EXAMPLE.read_text().splitlines()) <= 160
