"""CONTRIBUTING.md's "how to add" steps hold: each Python block (a toy agent style, model
adapter and executor built only from public names) runs as pasted and checks itself."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "CONTRIBUTING.md"
FENCE = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def blocks() -> list[tuple[int, str]]:
    text = GUIDE.read_text()
    return [(text[: m.start()].count("\n") + 1, m.group(1)) for m in FENCE.finditer(text)]


def test_the_guide_covers_the_three_extension_points() -> None:
    text = GUIDE.read_text()
    for heading in ("agent style", "model adapter", "executor"):
        assert f"## How to add an {heading}" in text or f"## How to add a {heading}" in text
    assert len(blocks()) == 3


@pytest.mark.parametrize(("line", "code"), blocks(), ids=[f"line{n}" for n, _ in blocks()])
def test_block_runs_and_uses_only_public_names(tmp_path: Path, line: int, code: str) -> None:
    private = re.findall(r"^\s*(?:from|import) (codeact\S*\._\w+)", code, re.M)
    assert not private, f"CONTRIBUTING.md line {line} imports private modules {private}"
    file = tmp_path / f"guide_{line}.py"
    file.write_text(code)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "CODEACT_"))}
    env["PYTHONPATH"] = str(ROOT)
    r = subprocess.run(
        [sys.executable, str(file)], capture_output=True, text=True, timeout=300, env=env, cwd=ROOT
    )
    assert r.returncode == 0, f"CONTRIBUTING.md line {line}:\n{r.stdout}\n{r.stderr}"
    assert r.stdout.strip().endswith(": ok"), r.stdout
