"""The `codeact` command, run as a user would (subprocess), with a scripted model."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "examples" / "data" / "sales.csv"


def codeact(
    *args: str, replies: list[str] | None = None, tmp: Path | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "codeact.cli", *args]
    if replies is not None:
        assert tmp is not None
        script = tmp / "replies.json"
        script.write_text(json.dumps(replies))
        argv += ["--model", f"scripted:{script}"]
    env = {k: v for k, v in os.environ.items() if k not in ("CODEACT_MODEL", "OPENAI_BASE_URL")}
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env, cwd=ROOT)


def test_run_answers_and_shows_progress(tmp_path: Path) -> None:
    code = "<execute>\nimport pandas as pd\ndf = pd.read_csv('sales.csv')\nprint(df['units'].sum())\n</execute>"
    r = codeact(
        "run", "How many units?", "--file", str(DATA), replies=[code, "85 units."], tmp=tmp_path
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "85 units."
    assert "Step 1" in r.stderr and "read_csv" in r.stderr and "85" in r.stderr


def test_json_output(tmp_path: Path) -> None:
    code = "<execute>\nfinal_answer({'units': 85})\n</execute>"
    r = codeact("run", "How many units?", "-f", str(DATA), "--json", replies=[code], tmp=tmp_path)
    assert r.returncode == 0, r.stderr
    payload = json.loads(r.stdout)
    assert payload["ok"] is True and payload["value"] == {"units": 85}
    assert payload["steps"][0]["code"] == "final_answer({'units': 85})"
    assert set(payload["timings"]) == {"total_s", "llm_s", "code_s"}


def test_the_model_sees_the_first_lines_of_the_files(tmp_path: Path) -> None:
    r = codeact(
        "run",
        "x",
        "-f",
        str(DATA),
        "--json",
        replies=["<execute>\nprint(open('sales.csv').readline())\n</execute>", "done"],
        tmp=tmp_path,
    )
    payload = json.loads(r.stdout)
    assert payload["steps"][0]["output"].startswith("date,city,product,units,price")


def test_exit_codes(tmp_path: Path) -> None:
    missing = codeact(
        "run", "x", "-f", str(tmp_path / "nope.csv"), "--json", replies=["a"], tmp=tmp_path
    )
    assert missing.returncode == 2 and json.loads(missing.stdout)["error"] == "usage"
    zero = codeact("run", "x", "--json", "--cell-timeout", "0", replies=["a"], tmp=tmp_path)
    assert zero.returncode == 2 and "cell_timeout" in json.loads(zero.stdout)["message"]
    failed = codeact(
        "run",
        "x",
        "--json",
        "--max-steps",
        "2",
        replies=["<execute>\nprint(1)\n</execute>"] * 2,
        tmp=tmp_path,
    )
    assert failed.returncode == 1 and "--max-steps" in json.loads(failed.stdout)["message"]
    slow = codeact(
        "run",
        "x",
        "--json",
        "--timeout",
        "1",
        "--cell-timeout",
        "30",
        replies=["<execute>\nimport time\ntime.sleep(20)\n</execute>"],
        tmp=tmp_path,
    )
    assert slow.returncode == 3 and json.loads(slow.stdout)["error"] == "timeout"
    bad_model = codeact("run", "x", "--model", "scripted:/nonexistent.json")
    assert bad_model.returncode == 2 and "Cannot read scripted replies" in bad_model.stderr
    assert codeact().returncode == 2


# Ctrl-C and SIGTERM: tests/cli/test_signals.py


def test_doctor_reports_each_part() -> None:
    r = codeact("doctor")
    assert "restricted executor (process)" in r.stdout and "runs cells" in r.stdout
    assert "local model" in r.stdout and "docker executor" in r.stdout
    assert "gVisor (runsc)" in r.stdout
    assert r.returncode == 0, r.stdout


def test_serve_derives_its_session_budget_from_the_machine() -> None:
    import argparse

    from codeact.cli._sizing import machine_memory_mb, session_budget

    said: list[str] = []
    args = argparse.Namespace(
        max_sessions=None, memory_budget=None, session_memory=2048, session_disk=1024
    )
    n = session_budget(args, said.append)
    assert n == max(1, machine_memory_mb() * 3 // 4 // 3072)
    assert f"at most {n} sandboxes live at once" in said[0] and "3072 MB each" in said[0]
    args.memory_budget = 7000  # two sessions of 3072 MB fit, not three
    assert session_budget(args, said.append) == 2
    args.max_sessions = 5  # an explicit number wins, silently
    assert session_budget(args, said.append) == 5 and len(said) == 2
