"""The playground's "Download notebook" button in a real Chromium against ``codeact serve
--ui``: the thread's notebook is downloaded, valid, and holds the cell with its figure."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.playground.conftest import Served, playwright_expect
from tests.playground.test_playground import TIMEOUT, open_ui, send

expect = playwright_expect()
nbformat = pytest.importorskip("nbformat")


def test_download_notebook(page: Any, server: Served, tmp_path: Path) -> None:
    open_ui(page, server)
    send(page, "plot the squares")
    expect(page.locator("#run-state")).to_have_text("done", timeout=TIMEOUT)
    button = page.get_by_role("button", name="Download notebook")
    with page.expect_download(timeout=TIMEOUT) as info:
        button.click()
    download = info.value
    thread = page.evaluate("() => new URL(location.href).searchParams.get('thread')")
    assert download.suggested_filename == f"{thread}.ipynb"
    path = tmp_path / "thread.ipynb"
    download.save_as(path)
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    (cell,) = [c for c in nb.cells if c.cell_type == "code" and "codeact" in c.metadata]
    assert "plt.plot([1, 2, 3, 4]" in cell.source
    assert [o.output_type for o in cell.outputs] == ["stream", "display_data"]
    assert cell.outputs[0].text == "drawing squares\n" and "image/png" in cell.outputs[1].data
    assert nb.metadata.codeact["thread_id"] == thread
    expect(button).to_be_enabled()


def test_download_notebook_of_an_unknown_thread_says_so(page: Any, server: Served) -> None:
    """A thread with no messages yet: the server's 404 shows as an error banner."""
    open_ui(page, server)
    page.get_by_role("button", name="Download notebook").click()
    expect(page.locator(".banner")).to_contain_text("no thread", timeout=TIMEOUT)
    page.errors.clear()  # the failed request is logged by the browser, as intended
