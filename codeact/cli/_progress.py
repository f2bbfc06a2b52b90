"""What ``codeact run`` shows while it works: the model's text as it streams (dimmed, wrapped,
the last lines only), replaced by the code of a step when its block is complete, the step's
output, and a spinner with the seconds spent so far. Everything wraps at the terminal's width;
nothing is cropped. On a terminal the streamed text lives in a transient region; elsewhere (a
pipe, a log) only the lasting lines are written.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from typing import Any

from codeact.events import (
    AgentInput,
    AgentOutput,
    AgentStream,
    AnswerRetry,
    CodeOutputStream,
    Event,
    ToolCall,
    ToolCallResult,
)

#: Lines of the model's streamed text kept on screen (the newest ones).
TAIL_LINES = 6


class StreamTail:
    """A rich renderable: the last ``lines`` lines of ``text`` wrapped at the width given, dim,
    above a spinner line."""

    def __init__(self, text: str, status: str, started: float, lines: int = TAIL_LINES) -> None:
        self.text, self.status, self.started, self.lines = text, status, started, lines

    def __rich_console__(self, console: Any, options: Any) -> Any:
        from rich.spinner import Spinner
        from rich.text import Text

        if self.text.strip():
            wrapped = Text(self.text.strip("\n"), style="dim").wrap(
                console, options.max_width, overflow="fold"
            )
            yield from wrapped[-self.lines :]
        took = time.perf_counter() - self.started
        yield Spinner("dots", text=Text(f"{self.status} {took:.0f} s", style="cyan"))


class RunProgress:
    """Turns events into terminal output and collects the steps for ``--json``."""

    def __init__(self, console: Any) -> None:
        self.console = console
        self.steps: list[dict[str, Any]] = []
        self.llm_s = 0.0
        self.code_s = 0.0
        self._llm_start = 0.0
        self._code_start = 0.0
        self._text = ""
        self._status = "Thinking..."
        self._started = time.perf_counter()
        self._live: Any = None
        self._live_wanted = False
        #: A code step ran without an error (the answer was computed, not guessed).
        self.computed = False

    def __enter__(self) -> RunProgress:
        self._live_wanted = self.console.is_terminal and not self.console.quiet
        if self._live_wanted:
            self._start_live()
        return self

    def _start_live(self) -> None:
        from rich.live import Live

        self._live = Live(
            self._render(),
            console=self.console,
            transient=True,
            refresh_per_second=8,
            get_renderable=self._render,
        )
        self._live.start()

    @contextlib.contextmanager
    def _printing(self, resume: bool = True) -> Iterator[None]:
        """Lines printed for good go out with the live region taken down (its refresh thread
        and a print that changes the region's height otherwise interleave, and the region's
        erase then wipes lines above it); it comes back afterwards unless ``resume`` is False
        (output that ended mid-line: the region would start, and later be erased, on it)."""
        if self._live is not None:
            self._live.stop()
            self._live = None
        try:
            yield
        finally:
            if resume and self._live_wanted:
                self._start_live()

    def __exit__(self, *exc: object) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None

    def _render(self) -> StreamTail:
        return StreamTail(self._text, self._status, self._started)

    def _set(self, status: str, text: str | None = None) -> None:
        if status != self._status:
            self._started = time.perf_counter()
        self._status = status
        if text is not None:
            self._text = text

    def show(self, ev: Event) -> None:
        """Show one event."""
        if isinstance(ev, AgentInput):
            self._llm_start = time.perf_counter()
            self._set("Thinking...", "")
            if self._live is None and self._live_wanted:  # held back after a partial line
                self.console.print()
                self._start_live()
        elif isinstance(ev, AgentStream):
            self._text += ev.delta
        elif isinstance(ev, AgentOutput):
            self.llm_s += time.perf_counter() - self._llm_start
            self._text = ""
        elif isinstance(ev, ToolCall) and ev.tool_name == "execute":
            self._code_start = time.perf_counter()
            self._set("Running code...", "")
            with self._printing():
                self._show_code(str(ev.tool_kwargs.get("code", "")))
        elif isinstance(ev, CodeOutputStream):
            style = "red" if ev.stream == "stderr" else None
            with self._printing(resume=ev.text.endswith("\n")):
                self.console.print(ev.text, end="", markup=False, highlight=False, style=style)
        elif isinstance(ev, AnswerRetry):
            why = "no code had run yet" if ev.reason == "no_code" else "the answer's format"
            with self._printing():
                self.console.print(f"[yellow]Asked the model again ({why}).[/yellow]")
        elif isinstance(ev, ToolCallResult) and ev.tool_name == "execute":
            self._set("Thinking...", "")
            with self._printing():
                self._show_result(ev)

    def _show_code(self, code: str) -> None:
        from rich.syntax import Syntax

        self.console.rule(f"Step {len(self.steps) + 1}", style="cyan")
        self.console.print(
            Syntax(code, "python", theme="ansi_dark", line_numbers=False, word_wrap=True)
        )

    def _show_result(self, ev: ToolCallResult) -> None:
        took = time.perf_counter() - self._code_start
        self.code_s += took
        execution = ev.execution or {}
        error = execution.get("error")
        if error:
            self.console.print(
                error.get("traceback", ""), style="red", markup=False, highlight=False
            )
        elif execution.get("value") is not None:
            self.console.print(f"Out: {execution['value']}", markup=False, highlight=False)
        if execution.get("timed_out"):
            self.console.print("[red]timed out[/red]")
        self.console.print(f"[dim]({took:.2f} s)[/dim]")
        self.computed = self.computed or not ev.tool_output.is_error
        self.steps.append(
            {
                "code": ev.tool_kwargs.get("code", ""),
                "output": ev.tool_output.content,
                "error": bool(ev.tool_output.is_error),
                "duration_s": round(took, 3),
            }
        )
