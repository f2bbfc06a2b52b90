"""``codeact batch --executor docker``: each task in its own container; Ctrl-C mid-batch
removes the running containers. Needs a Docker engine (skips without one, fails in CI)."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.batch.test_cli import ROOT, argv, env, make_tasks, results

pytestmark = pytest.mark.docker


def containers(pid: int) -> list[str]:
    """Sandbox containers made by process ``pid``."""
    out = subprocess.run(
        [
            "docker",
            "ps",
            "-aq",
            "--filter",
            "label=org.codeact.session",
            "--filter",
            f"label=org.codeact.host-pid={pid}",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return out.split()


def test_ctrl_c_leaves_no_container(tmp_path: Path, sandbox_image: str) -> None:
    tasks, replies = make_tasks(tmp_path, 6, sleep=3)
    out = tmp_path / "results.jsonl"
    args = argv(tasks, out, replies, "-j", "2", "--executor", "docker")
    proc = subprocess.Popen(
        args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env(), cwd=ROOT
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not (out.exists() and out.read_text()):
            time.sleep(0.2)
        assert out.exists() and results(out), "no task finished"
        time.sleep(1.0)
        assert containers(proc.pid), "the next tasks' containers should be running"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=90)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert containers(proc.pid) == []
    assert all(r["status"] == "ok" for r in results(out))
