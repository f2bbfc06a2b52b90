"""Time and step limits on the command line: defaults stated in --help, `--timeout 0`/`none`
for no limit, messages that name flags (not Python arguments), honest model time on timeout."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from codeact._advice import EMBEDDED_TIMEOUT_S, parse_timeout, resolve_timeout
from tests.cli.test_cli import ROOT, codeact

PYTHON_ADVICE = ("timeout=", "max_iterations", "early_stopping_method", "None for no limit")


def test_help_states_the_defaults() -> None:
    for command in ("run", "batch"):
        r = codeact(command, "--help")
        text = " ".join(r.stdout.split())
        assert "0 or 'none' for no limit" in text, text
        assert "1800 with the embedded model, 600 with any other" in text, text


def test_timeout_values() -> None:
    assert parse_timeout("none") == parse_timeout("0") == parse_timeout("OFF") == 0
    assert parse_timeout("2.5") == 2.5
    for bad in ("-1", "nan", "inf", "soon"):
        with pytest.raises(Exception, match="seconds"):
            parse_timeout(bad)
    assert resolve_timeout(None, "local") == EMBEDDED_TIMEOUT_S
    assert resolve_timeout(None, "local:/models/m.gguf") == EMBEDDED_TIMEOUT_S
    assert resolve_timeout(None, "openai:gpt-4o-mini") == 600
    assert resolve_timeout(0.0, "local") is None
    assert resolve_timeout(5.0, "local") == 5.0


def test_a_bad_timeout_is_a_usage_error(tmp_path: Path) -> None:
    r = codeact("run", "x", "--timeout", "-3", replies=["a"], tmp=tmp_path)
    assert r.returncode == 2 and "0 / 'none' for no limit" in r.stderr


def test_no_limit_and_the_timeout_message(tmp_path: Path) -> None:
    slow = [{"text": "<execute>\nprint(1)\n</execute>", "delay": 2}, "done"]
    free = codeact("run", "x", "--json", "--timeout", "none", replies=slow, tmp=tmp_path)
    assert free.returncode == 0, free.stderr
    cut = codeact("run", "x", "--timeout", "0.5", replies=slow, tmp=tmp_path)
    assert cut.returncode == 3, cut.stderr
    text = " ".join(cut.stderr.split())
    assert "--timeout 0.5 s" in text and "--timeout 0" in text, text
    assert not any(word in text for word in PYTHON_ADVICE), text


def test_the_step_limit_names_flags_and_answer_at_limit_answers(tmp_path: Path) -> None:
    step = "<execute>\nprint(6 * 7)\n</execute>"
    stopped = codeact("run", "x", "--max-steps", "2", replies=[step, step], tmp=tmp_path)
    assert stopped.returncode == 1
    text = " ".join(stopped.stderr.split())
    assert "--max-steps 4" in text and "--answer-at-limit" in text, text
    assert not any(word in text for word in PYTHON_ADVICE), text
    answered = codeact(
        "run", "x", "--max-steps", "2", "--answer-at-limit",
        replies=[step, step, "It is 42."], tmp=tmp_path,
    )  # fmt: skip
    assert answered.returncode == 0, answered.stderr
    assert answered.stdout.strip() == "It is 42."


def _slow_batch(tmp_path: Path, timeout: str) -> tuple[list[str], Path]:
    """argv of a one-task batch whose model answers after 30 s, and its results file."""
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(json.dumps({"id": "slow", "prompt": "p"}) + "\n")
    replies = tmp_path / "r.json"
    replies.write_text(json.dumps([{"text": "late", "delay": 30}]))
    out = tmp_path / "out.jsonl"
    argv = [sys.executable, "-m", "codeact.cli", "batch", str(tasks), "--out", str(out)]
    return [*argv, "--model", f"scripted:{replies}", "--timeout", timeout], out


def test_batch_timeout_counts_the_model_time_and_names_the_flag(tmp_path: Path) -> None:
    argv, out = _slow_batch(tmp_path, "1.5")
    r = subprocess.run(argv, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert r.returncode == 1, r.stderr
    result = json.loads(out.read_text())
    assert result["status"] == "timeout"
    assert result["error"]["message"] == "timed out after 1.5 s"
    assert result["timings"]["llm_s"] >= 1.4, result["timings"]  # the model was thinking
    text = " ".join(r.stderr.split())
    assert "--timeout" in text and not any(word in text for word in PYTHON_ADVICE), text


def test_batch_exit_code_is_about_the_whole_results_file(tmp_path: Path) -> None:
    argv, _out = _slow_batch(tmp_path, "1")
    first = subprocess.run(argv, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert first.returncode == 1, first.stderr
    again = subprocess.run(argv, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert again.returncode == 1, "a rerun that resumed nothing hid the earlier timeout"
    assert "already has a result" in again.stderr
    assert "sandbox:" not in again.stderr, "a rerun with nothing to do probed the sandbox"
    assert "1 timed out" in again.stderr


def test_batch_eta_waits_for_a_finished_task() -> None:
    from rich.console import Console

    from codeact.batch import TaskResult
    from codeact.cli._batch_progress import BatchProgress

    view = BatchProgress(4, console=Console(quiet=True))
    assert view.eta() == "-"  # four tasks just started say nothing about the time left
    view.finished(TaskResult(id="a", status="timeout"), running=3)
    assert view.eta() != "-" and view.timeout == 1 and view.failed == 0
