"""``codeact sandbox exec`` and ``codeact sandbox shell``: the sandbox with no model, run as a
user runs it (subprocess)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.cli.test_cli import DATA, ROOT


def sandbox(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "codeact.cli", "sandbox", *args],
        input=stdin, capture_output=True, text=True, timeout=180, cwd=ROOT,
    )  # fmt: skip


def test_exec_runs_a_script_with_files_and_returns_its_outcome(tmp_path: Path) -> None:
    script = tmp_path / "s.py"
    script.write_text("import pandas as pd\nprint(pd.read_csv('sales.csv')['units'].sum())\n")
    ok = sandbox("exec", str(script), "--file", str(DATA))
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.strip() == "85"
    assert "sandbox:" in ok.stderr  # which sandbox is active, as codeact run says
    script.write_text("print('before')\nraise ValueError('boom')\n")
    failed = sandbox("exec", str(script))
    assert failed.returncode == 1 and failed.stdout.strip() == "before"
    assert "ValueError: boom" in failed.stderr
    script.write_text("import os\n")
    refused = sandbox("exec", str(script))  # the same guards as the agent's cells
    assert refused.returncode == 1 and "os" in refused.stderr
    assert sandbox("exec", str(tmp_path / "missing.py")).returncode == 2


def test_shell_keeps_variables_and_moves_files(tmp_path: Path) -> None:
    back = tmp_path / "back.csv"
    inputs = [
        "x = 40",
        "x + 2",
        "for i in range(2):",
        "    print('line', i)",
        "",
        f"%upload {DATA} d.csv",
        "open('d.csv').readline()",
        f"%download d.csv {back}",
    ]
    r = sandbox("shell", stdin="\n".join(inputs) + "\n")
    assert r.returncode == 0, r.stderr
    assert "42" in r.stdout and "line 0" in r.stdout and "line 1" in r.stdout
    assert "date,city,product" in r.stdout
    assert back.read_bytes() == DATA.read_bytes()
    assert "sandbox:" in r.stderr
