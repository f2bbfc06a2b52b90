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


@pytest.mark.anyio
async def test_closing_during_a_cell_starts_no_new_sandbox() -> None:
    import anyio

    from codeact.errors import ExecutorError
    from examples.kernel_backend import BubblewrapKernel

    _need_bwrap()
    ex = BubblewrapExecutor()
    await ex.start()
    peer = ex.peer
    assert isinstance(peer, BubblewrapKernel)
    running = anyio.Event()
    outcome: list[object] = []

    async def cell() -> None:
        try:
            outcome.append(
                await ex.execute(
                    "print('running', flush=True)\nwhile True:\n    pass",
                    timeout=60,
                    on_output=lambda _name, _text: running.set(),
                )
            )
        except ExecutorError as exc:
            outcome.append(exc)

    with anyio.fail_after(60):
        async with anyio.create_task_group() as tg:
            tg.start_soon(cell)
            await running.wait()
            await ex.aclose()
    assert isinstance(outcome[0], ExecutorError) and "closed" in str(outcome[0]), outcome
    assert peer.proc is None and peer.client is None and ex.peer is None
