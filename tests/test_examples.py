"""Every example runs (with scripted models) and prints what it promises."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

EXPECTED = {
    "data_task.py": "value: {'Lyon': 81.2, 'Nice': 95.9, 'Paris': 116.2}",
    "custom_executor.py": "cells seen by the custom executor: ['a = 1\\nb = 2']",
    "multi_agent.py": "answer: The median is 3.5. | active agent now: analyst",
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_example(name: str) -> None:
    env = dict(os.environ, CODEACT_EXAMPLE_SCRIPTED="1")
    r = subprocess.run(
        [sys.executable, str(ROOT / "examples" / name)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=ROOT,
    )
    assert r.returncode == 0, r.stderr
    assert EXPECTED[name] in r.stdout


def test_every_example_is_tested() -> None:
    assert {p.name for p in (ROOT / "examples").glob("*.py")} == set(EXPECTED)
