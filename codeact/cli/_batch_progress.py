"""The live progress of ``codeact batch``: a rich bar with done/failed/running, rate and ETA.

On a terminal it redraws in place; otherwise (a log file, CI) it prints one line per finished
task instead.
"""

from __future__ import annotations

import time
from types import TracebackType
from typing import Any

from codeact.batch import TaskResult


class BatchProgress:
    """Shows how far the batch is. ``finished(result)`` after each task, ``running(n)`` often."""

    def __init__(self, total: int, *, console: Any, quiet: bool = False) -> None:
        self.total = total
        self.console = console
        self.quiet = quiet
        self.live = console.is_terminal and not quiet
        self.done = self.failed = self.timeout = 0
        self.t0 = time.perf_counter()
        self._progress: Any = None
        self._task: Any = None

    def __enter__(self) -> BatchProgress:
        if self.live:
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                SpinnerColumn,
                TextColumn,
                TimeElapsedColumn,
            )

            self._progress = Progress(
                SpinnerColumn(),
                TextColumn("[bold]batch"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn(
                    "[green]{task.fields[ok]} ok[/] [red]{task.fields[failed]} failed[/]"
                    " [yellow]{task.fields[timeout]} timed out[/]"
                    " [cyan]{task.fields[running]} running[/]"
                ),
                TextColumn("{task.fields[rate]}"),
                TimeElapsedColumn(),
                TextColumn("ETA {task.fields[eta]}"),
                console=self.console,
            )
            self._progress.start()
            self._task = self._progress.add_task(
                "batch", total=self.total, ok=0, failed=0, timeout=0, running=0, rate="-", eta="-"
            )
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._progress is not None:
            self._progress.stop()

    def _rate(self) -> str:
        took = time.perf_counter() - self.t0
        return f"{self.done / took:.2f}/s" if took > 0 and self.done else "-"

    def eta(self) -> str:
        """Time left at the pace so far: unknown ("-") until a task has finished, since tasks
        that just started say nothing about how long tasks take."""
        if not self.done:
            return "-"
        took = time.perf_counter() - self.t0
        left = round(took / self.done * (self.total - self.done))
        return f"{left // 3600}:{left // 60 % 60:02d}:{left % 60:02d}"

    def running(self, count: int) -> None:
        """How many tasks are running now."""
        if self._progress is not None:
            self._progress.update(self._task, running=count, rate=self._rate(), eta=self.eta())

    def finished(self, result: TaskResult, running: int) -> None:
        """One more task finished."""
        self.done += 1
        self.timeout += result.status == "timeout"
        self.failed += result.status not in ("ok", "timeout")
        if self._progress is not None:
            self._progress.update(
                self._task,
                advance=1,
                ok=self.done - self.failed - self.timeout,
                failed=self.failed,
                timeout=self.timeout,
                running=running,
                rate=self._rate(),
                eta=self.eta(),
            )
        if self.quiet:
            return
        if not result.ok and result.error is not None:
            self.console.print(
                f"[red]{result.id}: {result.status} ({result.error.kind}): "
                f"{result.error.message[:200]}[/red]",
                markup=True,
                highlight=False,
            )
        elif not self.live:
            self.console.print(
                f"[{self.done}/{self.total}] {result.id}: {result.status} "
                f"({result.timings.total_s:.2f} s)",
                markup=False,
                highlight=False,
            )
