"""The README's playground line with the embedded model: ``codeact serve --ui`` (default agent:
the local model, the process-isolated restricted executor) answers the bundled CSV question in
the page with its code and a chart. Slow (minutes on a small machine), so it runs only with
``CODEACT_EMBEDDED_UI=1``; with ``CODEACT_UPDATE_README_SHOT=1`` it also refreshes the README's
screenshot (docs/playground.png)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.playground.conftest import ROOT, SHOTS, _free_port, copy_screenshot, playwright_expect

expect = playwright_expect()
QUESTION = (
    "Which city sold the most units, and how many units did it sell? "
    "Draw a bar chart of the units per city."
)

pytestmark = pytest.mark.skipif(
    os.environ.get("CODEACT_EMBEDDED_UI") != "1", reason="set CODEACT_EMBEDDED_UI=1 (slow)"
)


def test_embedded_model_answers_in_the_playground(browser: Any, tmp_path: Path) -> None:
    """Upload the bundled CSV, ask, and see the model's code and chart in the page."""
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    cmd = [sys.executable, "-m", "codeact.cli", "serve", "--ui", "--port", str(port)]
    log = (tmp_path / "serve.log").open("wb")
    proc = subprocess.Popen(
        [*cmd, "--db", str(tmp_path / "s.db")],
        cwd=tmp_path,
        stdout=log,
        stderr=log,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
    )
    context = browser.new_context(viewport={"width": 1200, "height": 1500})
    try:
        for _ in range(300):
            try:
                httpx.get(url + "/healthz", timeout=2)
                break
            except httpx.HTTPError:
                assert proc.poll() is None, (tmp_path / "serve.log").read_text()
                time.sleep(0.2)
        page = context.new_page()
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.goto(url + "/ui/")
        page.set_input_files("#file", str(ROOT / "examples" / "data" / "sales.csv"))
        expect(page.locator(".attachments .chip")).to_have_count(1, timeout=30_000)
        page.fill("#prompt", QUESTION)
        page.click("#send")
        state = page.locator("#run-state")
        expect(state).not_to_have_text("running", timeout=900_000)
        expect(state).to_have_text("done")
        expect(page.locator(".cell img.figure").first).to_be_visible()
        expect(page.locator(".cell .code").first).to_contain_text("sales.csv")
        SHOTS.mkdir(parents=True, exist_ok=True)
        shot = SHOTS / "readme-playground.png"
        page.screenshot(path=str(shot))
        assert not errors, errors
        if os.environ.get("CODEACT_UPDATE_README_SHOT") == "1":
            copy_screenshot(shot, ROOT / "docs" / "playground.png")
    finally:
        context.close()
        proc.terminate()
        proc.wait(30)
        log.close()
