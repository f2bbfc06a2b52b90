"""Ctrl-C and SIGTERM on every long-running command, as a user sends them (subprocess): the
right exit code (130 / 143), nothing left running, and no traceback on stderr."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from tests.batch.procs import descendants, sandboxes, wait_gone
from tests.helpers import wait_until

ROOT = Path(__file__).resolve().parents[2]
SLOW_CELL = "<execute>\nimport time\ntime.sleep(120)\n</execute>"
SIGNALS = [(signal.SIGINT, 130), (signal.SIGTERM, 143)]
IDS = ["SIGINT", "SIGTERM"]

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CODEACT_MODEL", "OPENAI_BASE_URL")}
    env["PYTHONPATH"] = str(ROOT)
    return env


def _start(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, *args],
        cwd=ROOT,
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def assert_clean(err: str) -> None:
    """No traceback and no asyncio complaint about an exception nobody retrieved."""
    for bad in ("Traceback", "never retrieved", "was destroyed but it is pending"):
        assert bad not in err, err


def _stop(proc: subprocess.Popen[str], sig: int, timeout: float = 90) -> tuple[str, str]:
    proc.send_signal(sig)
    return proc.communicate(timeout=timeout)


def _running_sandboxes(proc: subprocess.Popen[str]) -> set[int]:
    """The sandbox workers running for ``proc`` (not the brief bubblewrap probe at start-up)."""
    workers = set()
    for pid in sandboxes(descendants(proc.pid)):
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if b"codeact.executors.restricted._worker" in cmd:
            workers.add(pid)
    return workers


@pytest.mark.parametrize(("sig", "code"), SIGNALS, ids=IDS)
def test_run_stops_cleanly(tmp_path: Path, sig: int, code: int) -> None:
    replies = tmp_path / "r.json"
    replies.write_text(json.dumps([SLOW_CELL]))
    proc = _start("-m", "codeact.cli", "run", "x", "--model", f"scripted:{replies}")
    workers = wait_until(lambda: _running_sandboxes(proc), "the sandbox worker")
    _out, err = _stop(proc, sig)
    assert proc.returncode == code, err
    assert "the run was cancelled and the sandbox removed" in err
    assert_clean(err)
    assert not wait_gone(set(workers)), "a sandbox process outlived the run"  # type: ignore[arg-type]


@pytest.mark.parametrize(("sig", "code"), SIGNALS, ids=IDS)
def test_batch_stops_cleanly(tmp_path: Path, sig: int, code: int) -> None:
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text("".join(json.dumps({"id": f"t{i}", "prompt": "p"}) + "\n" for i in range(4)))
    replies = tmp_path / "r.json"
    replies.write_text(json.dumps([SLOW_CELL]))
    out = tmp_path / "out.jsonl"
    proc = _start(
        "-m", "codeact.cli", "batch", str(tasks), "--out", str(out), "-j", "2",
        "--model", f"scripted:{replies}",
    )  # fmt: skip
    workers = wait_until(lambda: len(_running_sandboxes(proc)) >= 2 and _running_sandboxes(proc),
                         "two running tasks")  # fmt: skip
    _out, err = _stop(proc, sig)
    assert proc.returncode == code, err
    assert "run again to resume" in err
    assert_clean(err)
    assert not wait_gone(set(workers)), "a sandbox process outlived the batch"  # type: ignore[arg-type]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _healthy(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as r:
            return bool(r.status == 200)
    except OSError:
        return False


@pytest.mark.parametrize(("sig", "code"), SIGNALS, ids=IDS)
def test_serve_stops_cleanly(tmp_path: Path, sig: int, code: int) -> None:
    port = _free_port()
    replies = tmp_path / "r.json"
    replies.write_text(json.dumps([{"text": "slow", "delay": 120}]))
    proc = _start(
        "-m", "codeact.cli", "serve", "--port", str(port), "--db", str(tmp_path / "s.db"),
        "--model", f"scripted:{replies}", "--drain-timeout", "1",
    )  # fmt: skip
    wait_until(lambda: _healthy(port) or proc.poll() is not None, "the server")
    body = json.dumps(
        {"threadId": "t", "runId": "r", "messages": [{"role": "user", "content": "hi"}]}
    )
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/",
        data=body.encode(),
        headers={"content-type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=60) as stream:  # a live run while stopping
        assert b"RUN_STARTED" in stream.readline() + stream.readline()
        _out, err = _stop(proc, sig)
    assert proc.returncode == code, err
    assert_clean(err)
    assert not (tmp_path / "s.db.lock").exists() or _lock_free(tmp_path / "s.db")


def _lock_free(db: Path) -> bool:
    """Another server can take the database (the stopped one let go of its lock)."""
    import fcntl

    with open(f"{db}.lock", "a") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False
        return True


@pytest.mark.skipif(shutil.which("initdb") is None and not Path("/usr/lib/postgresql").exists(),
                    reason="PostgreSQL binaries not installed")  # fmt: skip
@pytest.mark.parametrize(("sig", "code"), SIGNALS, ids=IDS)
def test_replicas_helper_prints_when_listening_and_stops_cleanly(sig: int, code: int) -> None:
    first = _free_port()
    proc = _start("-m", "codeact.testing.postgres", "--replicas", "2", "--port", str(first))
    assert proc.stdout is not None
    lines = []
    for line in proc.stdout:
        lines.append(line)
        if "Ctrl-C stops them all" in line:
            break
    assert any(f"replica 2: http://127.0.0.1:{first + 1}/" in line for line in lines), lines
    for port in (first, first + 1):  # printed only once every replica answers
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
    children = descendants(proc.pid)
    _out, err = _stop(proc, sig, timeout=120)
    assert proc.returncode == code, err
    assert_clean(err)
    assert not wait_gone(children), "a replica or PostgreSQL outlived the helper"
