"""Every Python block of the README runs as pasted, against a scripted OpenAI-compatible server
on 127.0.0.1 where it needs a model; a name it uses without defining fails (ruff's F821 before
running, NameError while running); its links point somewhere."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from codeact.testing import FakeOpenAIServer

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
FENCE = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
#: What the scripted model says to any CodeAct agent: run a cell, then answer.
REPLIES = ["<execute>\nprint(6 * 7)\n</execute>", "The answer is 42."] * 200


def python_blocks() -> list[tuple[int, str]]:
    """(line number, code) of each ```python block."""
    text = README.read_text()
    return [(text[: m.start()].count("\n") + 1, m.group(1)) for m in FENCE.finditer(text)]


BLOCKS = python_blocks()


def test_the_readme_has_python_blocks() -> None:
    assert len(BLOCKS) >= 5


@pytest.mark.parametrize(("line", "code"), BLOCKS, ids=[f"line{line}" for line, _ in BLOCKS])
def test_block_runs_as_pasted(tmp_path: Path, line: int, code: str) -> None:
    is_test = re.search(r"^class Test\w*\(", code, re.M) is not None
    file = tmp_path / (f"test_readme_{line}.py" if is_test else f"readme_{line}.py")
    file.write_text(code)
    lint = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--isolated", "--select", "F821,F401,F811",
         "--output-format", "concise", str(file)],
        capture_output=True, text=True,
    )  # fmt: skip
    assert lint.returncode == 0, f"README line {line}:\n{lint.stdout}{lint.stderr}"
    with FakeOpenAIServer(list(REPLIES)) as server:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "CODEACT_"))}
        env.update(
            OPENAI_BASE_URL=server.base_url,
            OPENAI_API_KEY="scripted",
            CODEACT_MODEL="openai:gpt-4o-mini",
            PYTHONPATH=str(ROOT),
        )
        cmd = [sys.executable, str(file)]
        if is_test:
            cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(file)]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env, cwd=ROOT)
    assert r.returncode == 0, f"README line {line}:\n{r.stdout}\n{r.stderr}"
    assert "Traceback" not in r.stderr, r.stderr


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def test_links_and_images_point_somewhere() -> None:
    text = README.read_text()
    anchors = {_slug(h) for h in re.findall(r"^#+ (.+)$", text, re.M)}
    for target in re.findall(r"\]\(#([^)]+)\)", text):
        assert target in anchors, f"(#{target}) names no heading"
    for target in re.findall(r"\]\((?!#|https?://)([^)\s]+)\)", text):
        assert (ROOT / target).exists(), f"({target}) does not exist"
    assert "](docs/playground.png)" in text, "the playground screenshot is not shown"
