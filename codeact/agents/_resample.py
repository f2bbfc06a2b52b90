"""Asking again instead of re-running: a reply whose code repeats the cell that just failed,
or a reply that loops on the same lines.

A small model at temperature 0 that gets the same conversation writes the same reply, so a
failed cell sent again fails again (seen on new data: seven identical cells until the step
limit, the hint changing each time and the code not at all). Such a block is not run: the
model is told the cell already failed and is asked for a different one, and that request is
sampled at ``RESAMPLE_TEMPERATURE`` (``codeact.llms.sampling``) so the same input can give
another reply. At most ``MAX_RESAMPLES`` times a turn; past that the block runs as written
(the repeated-error hints and the step limit take over).

A reply that writes the same few lines over and over (a small model's degenerate loop: seen
repeating four lines until the token limit, eight steps and 29 minutes on one question) is
cut as soon as the loop shows (``looping``), kept in the conversation up to its first lap,
and asked again the same way."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

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
    seen = {_norm(last.code), *(_norm(w) for w in state.written.get(last.code, [])[-1:])}
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


#: A block of at most this many lines repeated at the end of a reply is a loop: four times in a
#: row for a block of one or two lines, three for up to ``SHORT_LOOP`` lines, twice for a longer
#: block with ``LONG_LOOP_LINES`` lines of code (a model cycling through the same nine filters
#: repeats 27 lines; nobody writes such a block twice on purpose).
LOOP_LINES = 40
SHORT_LOOP = 5
LONG_LOOP_LINES = 4


def _laps(block: list[str]) -> int:
    """How many times in a row ``block`` must repeat to be a loop."""
    if len(block) <= 2:
        return 4
    if len(block) <= SHORT_LOOP:
        return 3
    code = [ln for ln in block if ln.strip() and not ln.lstrip().startswith("#")]
    return 2 if len(code) >= LONG_LOOP_LINES else 3


#: A line that replaces a text by itself (``.str.replace('children', 'children')``): it does
#: nothing. The 1.5B model writes one per value it has seen, to its token limit (fresh14:
#: every genre, then every weekday, twice over), a degenerate mode like a loop.
_SELF_REPLACE = re.compile(r"\.replace\(\s*(['\"])([^'\"\n]*)\1\s*,\s*['\"]\2['\"]\s*[,)]")
SELF_REPLACES = 3


#: A line setting a column from itself the same way (``df['P'] = df['P'].replace('cash', 'card')``,
#: ``df['C'] = df['C'] / df['Adults']``): the 1.5B model writes one per value or column it has
#: seen, each undoing the last (fresh15, fresh16: twelve and eighteen in a row).
_SELF_UPDATE = re.compile(r"^\s*(\w+\s*\[\s*(['\"])[^'\"\n]+\2\s*\])\s*=\s*(.+)$")
SAME_TARGET = 7


def _self_update(line: str) -> tuple[str, str] | None:
    """The column a line sets from itself and the shape of how (its texts and numbers
    masked: ``.replace(_,_)``), or None (a table filtered in steps, ``df = df[...]`` nine
    times, can be right: fresh12; so can a column cleaned in seven different steps)."""
    m = _SELF_UPDATE.match(line)
    if m is None:
        return None
    target = re.sub(r"\s+", "", m.group(1)).replace('"', "'")
    value = re.sub(r"\s+", "", m.group(3)).replace('"', "'")
    rest = value[len(target) :] if value.startswith(target) else ""
    if not rest or rest[0].isalnum() or rest[0] == "_":
        return None
    shape = re.sub(r"\d+(?:\.\d+)?", "0", re.sub(r"'[^']*'", "_", rest))
    return target, shape


def _run_from_end(lines: list[str], same: Callable[[str], object]) -> int:
    """How many of the last lines in a row give the same (not None) ``same``."""
    run, first = 0, same(lines[-1]) if lines else None
    while first is not None and run < len(lines) and same(lines[len(lines) - 1 - run]) == first:
        run += 1
    return run


def loop_start(text: str) -> int | None:
    """Where the loop a reply ends in starts (the end of its first lap), or None: the last
    complete lines (not blank) are one block of 1 to ``LOOP_LINES`` lines repeated (see
    ``_laps`` for how many times), or ``SELF_REPLACES`` lines in a row that replace a text by
    itself, or ``SAME_TARGET`` lines in a row setting one column from itself the same way (kept
    up to the first of them)."""
    lines = text.split("\n")[:-1]  # (complete lines)
    run = 0
    while run < len(lines) and _SELF_REPLACE.search(lines[len(lines) - 1 - run]):
        run += 1
    if run >= SELF_REPLACES:
        written = lines[: len(lines) - run]
        return len("\n".join(written)) + 1 if written else 0
    for period in range(1, LOOP_LINES + 1):
        if len(lines) < period * 2:
            break
        block = lines[-period:]
        if not any(line.strip() for line in block):
            continue
        laps = _laps(block)
        span = period * laps
        if len(lines) < span:
            continue
        tail = lines[-span:]
        if all(tail[k * period : (k + 1) * period] == block for k in range(laps - 1)):
            kept = len(lines) - span + period  # (the lines before the loop, and one lap)
            return len("\n".join(lines[:kept])) + 1
    run = _run_from_end(lines, _self_update)
    if run >= SAME_TARGET:
        written = lines[: len(lines) - run]
        return len("\n".join(written)) + 1 if written else 0
    return None


def looping(text: str) -> bool:
    """Whether the reply ends in a loop (``stop`` for ``stream_text``)."""
    return loop_start(text) is not None


LOOP_NOTE = (
    "Your reply repeated the same lines over and over, so it was cut. Write each step once: "
    "a short cell that computes what the question asks and prints the result."
)
