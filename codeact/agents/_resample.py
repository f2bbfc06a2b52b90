"""Asking again instead of re-running: a reply whose code repeats a cell that already failed.

A small model at temperature 0 that gets the same conversation writes the same reply, so a
failed cell sent again fails again (seen on new data: seven identical cells until the step
limit, the hint changing each time and the code not at all). Such a block is not run: the
model is told the cell already failed and is asked for a different one, and that request is
sampled at ``RESAMPLE_TEMPERATURE`` (``codeact.llms.sampling``) so the same input can give
another reply. At most ``MAX_RESAMPLES`` times a turn; past that the block runs as written
(the repeated-error hints and the step limit take over)."""

from __future__ import annotations

from collections.abc import Sequence

from codeact.agents._style_state import CodeActRunState
from codeact.agents.validators import CellRun

RESAMPLE_TEMPERATURE = 0.7
MAX_RESAMPLES = 3


def _norm(code: str) -> str:
    return " ".join(code.split())


def repeated_failure(state: CodeActRunState, blocks: Sequence[str]) -> CellRun | None:
    """The cell that just failed, when every block of the reply repeats it (whitespace aside;
    what the model wrote for a cell the agent changed counts too) and the turn may still ask
    again. Only the last cell counts (any cell run since may have made an older one work:
    ``print(df)`` failing before ``df`` was read), and only a cell that raised: one that
    timed out or failed without an exception may not fail again."""
    if state.resamples >= MAX_RESAMPLES or not state.cells or not blocks:
        return None
    last = state.cells[-1]
    if last.error is None or last.error_type is None:
        return None
    seen = {_norm(last.code), _norm(state.written.get(last.code, last.code))}
    return last if all(_norm(b) in seen for b in blocks) else None


def repeat_note(cell: CellRun) -> str:
    """What the model is told instead of the repeated cell's output."""
    lines = [line for line in (cell.error or "").strip().splitlines() if line.strip()]
    error = lines[-1].strip()[:300] if lines else "an error"
    if cell.error_type and not error.startswith(cell.error_type):
        error = f"{cell.error_type}: {error}"
    return (
        f"That code already ran and failed with: {error}\n"
        "It was not run again: the same code fails the same way. Write a different cell that "
        "avoids the error (if you are not sure why it fails, first print what you need to "
        "check, e.g. df.dtypes or a few values of the column), then answer."
    )
