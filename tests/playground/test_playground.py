"""The playground in a real Chromium against a real ``codeact serve --ui`` process: streamed
answers, code cells with output, figures, folded errors, tables, stop, reload from history,
upload and download, and keyboard-only use."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from tests.playground.conftest import Served

expect = pytest.importorskip("playwright.sync_api").expect

TIMEOUT = 30_000


def send(page: Any, text: str) -> None:
    page.fill("#prompt", text)
    page.click("#send")


def open_ui(page: Any, server: Served) -> None:
    page.goto(server.url + "/ui/")
    expect(page.locator("#run-state")).to_have_text("idle")


def test_streamed_answer_appears(page: Any, server: Served) -> None:
    """A plain answer streams into an assistant bubble, and the run ends as done."""
    open_ui(page, server)
    seen: list[str] = []
    page.expose_function("record", lambda text: seen.append(text))
    page.evaluate(
        """() => new MutationObserver(() => {
            const b = document.querySelector('.msg.assistant:not([hidden]) .body');
            if (b) window.record(b.textContent);
        }).observe(document.querySelector('#log'), {subtree: true, childList: true,
                                                    characterData: true})"""
    )
    send(page, "hello there")
    answer = page.locator(".msg.assistant .body")
    expect(answer).to_have_text("Hello from the scripted agent.", timeout=TIMEOUT)
    expect(page.locator("#run-state")).to_have_text("done")
    assert any(0 < len(t) < len("Hello from the scripted agent.") for t in seen), seen
    expect(page.locator(".msg.user .body")).to_have_text("hello there")
    expect(page.locator("#thread-list button")).to_have_count(1)


def test_cell_code_output_and_png(page: Any, server: Served) -> None:
    """A cell shows its highlighted code, its stdout, its timing and the matplotlib PNG."""
    open_ui(page, server)
    send(page, "plot the squares")
    cell = page.locator(".cell").first
    expect(cell.locator(".code")).to_contain_text("plt.plot", timeout=TIMEOUT)
    expect(cell.locator(".code .tok-kw").first).to_have_text("import")
    expect(cell.locator(".output.stdout")).to_have_text("drawing squares\n", timeout=TIMEOUT)
    expect(cell.locator(".cell-meta")).to_contain_text("ok ·")
    figure = cell.locator("img.figure")
    expect(figure).to_have_count(1)
    src = figure.get_attribute("src")
    assert src is not None and src.startswith("data:image/png;base64,")
    assert base64.b64decode(src.split(",", 1)[1])[:8] == b"\x89PNG\r\n\x1a\n"
    width = figure.evaluate("img => img.naturalWidth")
    assert width > 100
    expect(page.locator(".msg.assistant").last).to_contain_text("squares of 1 to 4")
    expect(page.locator("#run-state")).to_have_text("done")
