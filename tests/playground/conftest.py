"""Fixtures for the playground tests: a real ``codeact serve --ui`` process on loopback with a
scripted agent, and a page in Debian's Chromium driven by Playwright (launched by its path; no
browser is downloaded). Each test saves a screenshot under ``CODEACT_SCREENSHOTS`` (default: a
``codeact-playground`` folder in the temp dir) and fails on any console error of the page, or
any request to somewhere other than the server.

Skipped when Chromium or Playwright is missing, unless ``CODEACT_REQUIRE_BROWSER=1``.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("CODEACT_CHROMIUM", "/usr/bin/chromium")
LOCAL = ("http://127.0.0.1:", "data:", "blob:")
SHOTS = Path(
    os.environ.get("CODEACT_SCREENSHOTS", Path(tempfile.gettempdir()) / "codeact-playground")
)


def _need_browser() -> None:
    missing = []
    if not Path(CHROMIUM).exists():
        missing.append(f"chromium ({CHROMIUM}; apt-get install chromium)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        missing.append("playwright (pip install playwright)")
    if missing:
        if os.environ.get("CODEACT_REQUIRE_BROWSER") == "1":
            pytest.fail("the browser tests need " + " and ".join(missing))
        pytest.skip("needs " + " and ".join(missing))


def playwright_expect() -> Any:
    """Playwright's ``expect`` (the module is skipped without Playwright, or fails when
    ``CODEACT_REQUIRE_BROWSER=1``)."""
    if os.environ.get("CODEACT_REQUIRE_BROWSER") == "1":
        from playwright.sync_api import expect

        return expect
    return pytest.importorskip("playwright.sync_api").expect


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


class Served:
    """``codeact serve --ui --agent tests.playground.agents:<factory>`` in its own process."""

    def __init__(self, workdir: Path, factory: str, *extra: str) -> None:
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        cmd = [sys.executable, "-m", "codeact.cli", "serve", "--ui", "--agent"]
        cmd += [f"tests.playground.agents:{factory}", "--port", str(self.port)]
        cmd += ["--db", str(workdir / f"{factory}.db"), *extra]
        self.log = workdir / f"{factory}.log"
        with self.log.open("wb") as log:
            self.proc = subprocess.Popen(cmd, cwd=ROOT, stdout=log, stderr=log)
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(self.url + "/healthz", timeout=2)
                return
            except httpx.HTTPError:
                assert self.proc.poll() is None, self.log.read_text()
                assert time.monotonic() < deadline, "codeact serve did not start"
                time.sleep(0.1)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """The CodeAct scenarios' server (one per module)."""
    _need_browser()
    served = Served(tmp_path_factory.mktemp("serve"), "codeact")
    yield served
    served.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    _need_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


class PageErrors(list[str]):
    """Console errors and uncaught exceptions of a page."""


@pytest.fixture
def page(browser: Any, request: pytest.FixtureRequest) -> Iterator[Any]:
    """A fresh page (its own storage); screenshot saved and console checked after the test."""
    context = browser.new_context(viewport={"width": 1200, "height": 860}, accept_downloads=True)
    pg = context.new_page()
    errors = PageErrors()
    pg.on(
        "console",
        lambda m: errors.append(f"console.{m.type}: {m.text}") if m.type == "error" else None,
    )
    pg.on("pageerror", lambda exc: errors.append(f"uncaught: {exc}"))
    outside: list[str] = []  # nothing may be fetched from anywhere but the server
    context.on(
        "request",
        lambda r: None if r.url.startswith(LOCAL) else outside.append(r.url),
    )
    pg.errors = errors
    yield pg
    SHOTS.mkdir(parents=True, exist_ok=True)
    shot = SHOTS / f"{request.node.name}.png"
    try:
        pg.screenshot(path=str(shot), full_page=True)
    finally:
        context.close()
    assert not errors, f"the page logged errors: {errors}"
    assert not outside, f"the page fetched from outside the server: {outside}"


def copy_screenshot(source: Path, target: Path) -> None:
    """Copy a test's screenshot (used to refresh the README image)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)
