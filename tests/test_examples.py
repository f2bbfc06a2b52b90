"""Every example runs (with scripted models) and prints what it promises."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

EXPECTED = {
    "batch_eval.py": "accuracy: 100.0% over 8 scored task(s)",
    "data_task.py": "value: {'Lyon': 24, 'Nice': 28, 'Paris': 33}",
    "docker_sandbox.py": "answer: The best-selling product is coffee.",
    "notebook_export.py": "notebook: sales_analysis.ipynb",
    "custom_executor.py": "cells seen by the custom executor: ['a = 1\\nb = 2']",
    "kernel_backend.py": "answer: Oslo has 709000 inhabitants.",
    "test_in_containers.py": "2 passed",
    "multi_agent.py": "answer: The median is 3.5. | active agent now: analyst",
}
DOCKER = {"docker_sandbox.py", "test_in_containers.py"}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_example(name: str) -> None:
    if name in DOCKER:
        from codeact.testing.sandbox import _engine_problem

        problem = _engine_problem()
        if problem is not None:
            if os.environ.get("CODEACT_REQUIRE_DOCKER") == "1":
                pytest.fail(problem)
            pytest.skip(f"needs a Docker engine: {problem}")
    env = dict(os.environ, CODEACT_EXAMPLE_SCRIPTED="1")
    path = str(ROOT / "examples" / name)
    cmd = [sys.executable, path]
    if name.startswith("test_"):
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", path]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env, cwd=ROOT)
    assert r.returncode == 0, r.stdout + r.stderr
    assert EXPECTED[name] in r.stdout


def test_every_example_is_tested() -> None:
    assert {p.name for p in (ROOT / "examples").glob("*.py")} == set(EXPECTED)
