"""The playground in a real Chromium against a real ``codeact serve --ui`` process: streamed
answers, code cells with output, figures, folded errors, tables, stop, reload from history,
upload and download, and keyboard-only use."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

from tests.playground.conftest import ROOT, SHOTS, Served, playwright_expect

expect = playwright_expect()

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


def test_error_is_folded(page: Any, server: Served) -> None:
    """A failing cell shows ``Type: message`` with its traceback folded until opened."""
    open_ui(page, server)
    send(page, "show an error")
    cell = page.locator(".cell.failed")
    summary = cell.locator("details.error summary")
    expect(summary).to_have_text("ZeroDivisionError: division by zero", timeout=TIMEOUT)
    traceback = cell.locator("details.error .traceback")
    expect(traceback).to_be_hidden()
    expect(cell.locator(".cell-meta")).to_contain_text("failed")
    summary.focus()
    page.keyboard.press("Enter")  # unfolded from the keyboard
    expect(traceback).to_be_visible()
    expect(traceback).to_contain_text("ratio")
    expect(page.locator("#run-state")).to_have_text("done")


def test_table_renders(page: Any, server: Served) -> None:
    """A trailing DataFrame renders as a table with its columns, index and cells."""
    open_ui(page, server)
    send(page, "a table please")
    table = page.locator("table.frame")
    expect(table).to_have_count(1, timeout=TIMEOUT)
    expect(table.locator("thead th")).to_have_text(["", "city", "units"])
    expect(table.locator("tbody tr")).to_have_count(3)
    expect(table.locator("tbody tr").first.locator("td")).to_have_text(["Paris", "33"])
    expect(table.locator("caption")).to_have_text("3 rows \u00d7 2 columns")


def test_stop_cancels_a_long_run(page: Any, server: Served) -> None:
    """Stop cancels a cell that would run for 30 s; the thread then takes the next message."""
    open_ui(page, server)
    send(page, "run the slow cell")
    expect(page.locator(".output.live")).to_contain_text("tick 2", timeout=TIMEOUT)
    expect(page.locator("#run-state")).to_have_text("running")
    page.click("#stop")
    expect(page.locator("#run-state")).to_have_text("cancelled", timeout=15_000)
    expect(page.locator(".cell .cell-meta")).to_have_text("stopped")
    expect(page.locator(".banner")).to_have_text("The run was stopped.")
    expect(page.locator("#send")).to_be_enabled()
    send(page, "hello again")
    expect(page.locator(".msg.assistant .body").last).to_have_text(
        "Hello from the scripted agent.", timeout=TIMEOUT
    )


def test_reload_shows_thread_from_history(page: Any, server: Served) -> None:
    """After a reload the thread comes back from /history with the same cells and figure."""
    open_ui(page, server)
    send(page, "plot the squares")
    expect(page.locator("#run-state")).to_have_text("done", timeout=TIMEOUT)
    live_code = page.locator(".cell .code").inner_text()
    page.reload()
    expect(page.locator("#run-state")).to_have_text("idle", timeout=TIMEOUT)
    cell = page.locator(".cell")
    expect(cell).to_have_count(1)
    assert cell.locator(".code").inner_text() == live_code
    expect(cell.locator(".output.stdout")).to_have_text("drawing squares\n")
    expect(cell.locator("img.figure")).to_have_count(1)
    expect(page.locator(".msg.user .body")).to_have_text("plot the squares")
    expect(page.locator(".msg.assistant").last).to_contain_text("squares of 1 to 4")
    page.click("#new-thread")
    expect(page.locator(".cell")).to_have_count(0)
    page.locator("#thread-list button").first.click()  # and from the thread list
    expect(page.locator(".cell img.figure")).to_have_count(1, timeout=TIMEOUT)


def test_upload_csv_ask_download(page: Any, server: Served, tmp_path: Path) -> None:
    """A CSV uploaded into the thread's sandbox is read by a cell, whose output file downloads."""
    open_ui(page, server)
    page.set_input_files("#file", str(ROOT / "examples" / "data" / "sales.csv"))
    expect(page.locator(".attachments .chip")).to_contain_text("sales.csv", timeout=TIMEOUT)
    send(page, "csv totals per city")
    expect(page.locator(".output.stdout")).to_contain_text("Paris", timeout=TIMEOUT)
    expect(page.locator(".msg.user .body")).to_contain_text("Uploaded files")
    button = page.get_by_role("button", name="Download totals.csv")
    with page.expect_download() as info:
        button.click()
    target = tmp_path / "totals.csv"
    info.value.save_as(target)
    assert info.value.suggested_filename == "totals.csv"
    lines = target.read_text().splitlines()
    assert lines[0] == "city,units" and lines[1].startswith("Paris,"), lines


def test_keyboard_only_send(page: Any, server: Served) -> None:
    """Type, Shift+Enter for a new line, Enter sends; Tab reaches the send button."""
    open_ui(page, server)
    # (the page focuses the prompt once its start-up fetch is done: waited for, not assumed;
    # CI on a loaded machine checked before it and found nothing focused)
    expect(page.locator("#prompt")).to_be_focused(timeout=TIMEOUT)
    page.keyboard.type("hello")
    page.keyboard.press("Shift+Enter")
    page.keyboard.type("keyboard")
    assert page.input_value("#prompt") == "hello\nkeyboard"
    page.keyboard.press("Enter")
    expect(page.locator(".msg.user .body")).to_have_text("hello\nkeyboard")
    expect(page.locator(".msg.assistant .body")).to_have_text(
        "Hello from the scripted agent.", timeout=TIMEOUT
    )
    page.keyboard.type("second")
    for _ in range(6):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.id") == "send":
            break
    assert page.evaluate("document.activeElement.id") == "send"
    page.keyboard.press("Enter")
    expect(page.locator(".msg.user .body").last).to_have_text("second", timeout=TIMEOUT)


def test_narrow_screen_and_colour_schemes(browser: Any, server: Served) -> None:
    """On a phone-sized screen nothing scrolls sideways; dark and light schemes both apply."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, color_scheme="dark")
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    try:
        open_ui(page, server)
        send(page, "a table please")
        expect(page.locator("table.frame")).to_have_count(1, timeout=TIMEOUT)
        width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        assert width[0] <= width[1], width
        expect(page.locator("#send")).to_be_in_viewport()
        dark = page.evaluate("getComputedStyle(document.body).backgroundColor")
        page.click("#theme")  # auto → light
        light = page.evaluate("getComputedStyle(document.body).backgroundColor")
        assert dark == "rgb(21, 23, 27)" and light == "rgb(247, 247, 245)", (dark, light)
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "narrow-light.png"))
        page.click("#theme")  # light → dark
        page.screenshot(path=str(SHOTS / "narrow-dark.png"))
    finally:
        context.close()
    assert not errors


def test_handoff_shows_the_new_agent(page: Any, tmp_path: Path) -> None:
    """A workflow handing the question over: the new agent's name is shown where it speaks."""
    served = Served(tmp_path, "handoff")
    try:
        open_ui(page, served)
        send(page, "are the numbers fine?")
        expect(page.locator(".handoff")).to_have_text("Handed off to Analyst", timeout=TIMEOUT)
        expect(page.locator("#agent-name")).to_have_text("Analyst")
        answer = page.locator(".msg.assistant").last
        expect(answer.locator(".body")).to_have_text("Analyst here: the numbers look fine.")
        expect(answer.locator(".who")).to_have_text("Analyst")
        expect(page.locator(".cell .cell-kind").first).to_have_text("Tool: handoff")
        expect(page.locator("#run-state")).to_have_text("done")
    finally:
        served.stop()


def test_token_is_asked_for_and_sent(page: Any, tmp_path: Path) -> None:
    """Against a server with a bearer token the page asks for it first (config.json says so:
    no 401 is ever seen), then runs; a ``#token=`` link works without the dialog and leaves no
    token in the address."""
    token = tmp_path / "token"
    token.write_text("s3cret-token\n")
    served = Served(tmp_path, "codeact", "--token-file", str(token))
    try:
        page.goto(served.url + "/ui/")
        expect(page.locator("#token-dialog")).to_be_visible(timeout=TIMEOUT)
        page.fill("#token", "s3cret-token")
        page.keyboard.press("Enter")
        expect(page.locator("#token-dialog")).to_be_hidden()
        send(page, "hello with a token")
        expect(page.locator(".msg.assistant .body")).to_have_text(
            "Hello from the scripted agent.", timeout=TIMEOUT
        )
        fresh = page.context.new_page()
        fresh.goto(served.url + "/ui/#token=s3cret-token")
        assert "token" not in fresh.url
        expect(fresh.locator("#run-state")).to_have_text("idle")
        fresh.fill("#prompt", "hello again")
        fresh.click("#send")
        expect(fresh.locator(".msg.assistant .body")).to_have_text(
            "Hello from the scripted agent.", timeout=TIMEOUT
        )
        expect(fresh.locator("#token-dialog")).to_be_hidden()
    finally:
        served.stop()


def test_code_shows_while_the_model_writes_it(page: Any, server: Served) -> None:
    """The code of a block still being written shows (dimmed) before its cell appears; the
    cell then takes its place."""
    open_ui(page, server)
    send(page, "draft a sum")
    draft = page.locator(".msg.assistant .draft")
    expect(draft).to_contain_text("total = 0", timeout=TIMEOUT)
    assert page.locator(".cell").count() == 0, "the cell appeared before the draft"
    expect(page.locator(".cell .code")).to_contain_text("print(total)", timeout=TIMEOUT)
    # every assistant message has a (hidden) draft; none may still show once the cell is there
    expect(page.locator(".msg.assistant .draft:visible")).to_have_count(0, timeout=TIMEOUT)
    expect(page.locator(".msg.assistant").last).to_contain_text("The total is 66.")
