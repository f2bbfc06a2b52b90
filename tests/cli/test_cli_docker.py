"""``codeact run --executor docker``: it says which sandbox is active, and Ctrl-C leaves no
container behind. Needs a Docker engine (skips without one, fails in CI)."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import pytest

from tests.batch.test_cli_docker import containers
from tests.cli.test_cli import codeact
from tests.cli.test_signals import SLOW_CELL, _start, assert_clean, wait_until

pytestmark = pytest.mark.docker


def test_docker_run_prints_its_sandbox(tmp_path: Path, sandbox_image: str) -> None:
    r = codeact(
        "run", "x", "--executor", "docker",
        replies=["<execute>\nprint(6 * 7)\n</execute>", "42"], tmp=tmp_path,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "sandbox: Docker container from codeact-sandbox" in " ".join(r.stderr.split())


def test_ctrl_c_removes_the_container(tmp_path: Path, sandbox_image: str) -> None:
    replies = tmp_path / "r.json"
    replies.write_text(json.dumps([SLOW_CELL]))
    proc = _start("-m", "codeact.cli", "run", "x", "--executor", "docker",
                  "--model", f"scripted:{replies}")  # fmt: skip
    wait_until(lambda: containers(proc.pid), "the sandbox container")
    proc.send_signal(signal.SIGINT)
    _out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert_clean(err)
    assert containers(proc.pid) == [], "the container outlived the run"
