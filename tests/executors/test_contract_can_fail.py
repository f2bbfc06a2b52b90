"""The contract suite can fail: run over an executor that keeps none of its promises, every one
of its tests fails (in a separate pytest process, the way a plug-in author would run it)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import codeact
from codeact.testing.contract import ExecutorContract

HOLLOW = '''
import pytest

from codeact.executors import CodeExecutor, ExecutionResult
from codeact.testing.contract import ExecutorContract


class Hollow(CodeExecutor):
    """Runs nothing, checks nothing, captures nothing."""

    async def start(self):
        pass

    async def execute(self, code, *, timeout=None, on_output=None):
        return ExecutionResult()

    async def reset(self):
        pass

    async def aclose(self):
        pass


@pytest.fixture
def anyio_backend():
    return "asyncio"


class TestHollow(ExecutorContract):
    @pytest.fixture
    def executor_factory(self):
        return lambda **kw: Hollow(**kw)
'''


def test_every_contract_test_fails_for_an_executor_that_keeps_no_promise(tmp_path: Path) -> None:
    (tmp_path / "test_hollow.py").write_text(HOLLOW)
    root = str(Path(codeact.__file__).resolve().parent.parent)
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_hollow.py"],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": root},
        capture_output=True,
        text=True,
        timeout=300,
    )
    contract = sorted(n for n in dir(ExecutorContract) if n.startswith("test_"))
    failed = sorted(set(re.findall(r"FAILED test_hollow.py::TestHollow::(test_\w+)", proc.stdout)))
    assert failed == contract, proc.stdout[-3000:]
    assert f"{len(contract)} failed" in proc.stdout, proc.stdout[-3000:]
