"""Re-running a cell whose only fault is a column name's spaces or case.

A small model shown the real name (``' WINDSPEED'``) and the fix often resubmits the same
failing cell. So when a cell fails with a ``KeyError`` for a column name that matches exactly
one real column of the frame once surrounding whitespace and case are ignored, the cell is run
again, once, with the string literals that name a column that way replaced by the real names
(only whole string literals: identifiers, f-strings and substrings are left alone). The model
is told plainly what was changed, and the call records the code that actually ran, so the
events, the transcript and the notebook show it.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass
from typing import TYPE_CHECKING

from codeact.agents._recover import (
    CellCode,
    assigned_names,
    failing_line,
    failure_hints,
    frame_columns,
    repeated_cell_note,
)
from codeact.agents._style_state import CodeActRunState
from codeact.executors.base import CodeExecutor, ExecutionResult, OutputCallback

if TYPE_CHECKING:
    from codeact.agents._state import RunState

_NAME_BEFORE = re.compile(r"([A-Za-z_]\w*)\s*(?:\[|\.)")
MAX_FRAMES = 4


@dataclass(frozen=True)
class ColumnFix:
    """A failed cell's code with column names corrected, and what was changed."""

    code: str
    #: Each string literal's value as written → the real column name.
    renames: dict[str, str]

    def note(self) -> str:
        """What the model (and the transcript) is told about the re-run."""
        parts = [
            f"column {real!r} {_difference(wrong, real)}" for wrong, real in self.renames.items()
        ]
        names = ", ".join(repr(real) for real in self.renames.values())
        return (
            f"Your cell failed with a KeyError: {'; '.join(parts)}. I re-ran your cell with "
            f"{'that name' if len(self.renames) == 1 else 'those names'} ({names}) in place of "
            f"{', '.join(repr(w) for w in self.renames)}; use the exact names from now on. "
            "Output of the re-run:"
        )


def _difference(wrong: str, real: str) -> str:
    """How ``real`` differs from ``wrong``: spaces around it, case."""
    ends = [
        side
        for side, real_end, wrong_end in (
            (
                "a leading",
                real[: len(real) - len(real.lstrip())],
                wrong[: len(wrong) - len(wrong.lstrip())],
            ),
            ("a trailing", real[len(real.rstrip()) :], wrong[len(wrong.rstrip()) :]),
        )
        if real_end != wrong_end
    ]
    spaces = f"{' and '.join(ends)} space" if ends else ""
    case = "a different case" if real.strip() != wrong.strip() else ""
    return "has " + " and ".join(p for p in (spaces, case) if p)


def string_literals(code: str) -> list[tuple[int, int, str]]:
    """Each plain ``str`` literal of ``code``: its start and end offsets and its value."""
    starts = [0]
    for line in code.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    out = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(code).readline):
            if tok.type != tokenize.STRING:
                continue
            try:
                value = ast.literal_eval(tok.string)
            except (ValueError, SyntaxError):
                continue  # an f-string
            if isinstance(value, str):
                start = starts[tok.start[0] - 1] + tok.start[1]
                end = starts[tok.end[0] - 1] + tok.end[1]
                out.append((start, end, value))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return []
    return out


def renames_for(code: str, columns: list[str]) -> dict[str, str]:
    """The literals of ``code`` that are not a column but match exactly one column when
    surrounding whitespace and case are ignored, each with that column."""
    real = set(columns)
    out: dict[str, str] = {}
    for _, _, value in string_literals(code):
        if value in real or not value.strip():
            continue
        same = [c for c in columns if c.strip().casefold() == value.strip().casefold()]
        if len(same) == 1:
            out[value] = same[0]
    return out


def apply_renames(code: str, renames: dict[str, str]) -> str:
    """``code`` with every string literal whose value is renamed replaced by the real name."""
    pieces, last = [], 0
    for start, end, value in string_literals(code):
        if value in renames:
            pieces += [code[last:start], repr(renames[value])]
            last = end
    return "".join([*pieces, code[last:]])


def _missing_names(result: ExecutionResult) -> list[str]:
    error = result.error
    if error is None or error.type != "KeyError":
        return []
    quoted = re.findall(r"'([^'\n]*)'|\"([^\"\n]*)\"", error.message)
    return [a or b for a, b in quoted]


async def column_fix(
    session: CodeExecutor, result: ExecutionResult, code: str, names: list[str]
) -> ColumnFix | None:
    """The corrected cell when ``result`` is a ``KeyError`` for a name that is a column of a
    frame of the failing line (or, failing that, of ``names``) up to spaces and case."""
    missing = _missing_names(result)
    if not missing or result.error is None:
        return None
    line = failing_line(result.error.traceback)
    on_line = [n for n in dict.fromkeys(_NAME_BEFORE.findall(line)) if n in names]
    frames = [*on_line, *(n for n in reversed(names) if n not in on_line)][:MAX_FRAMES]
    for name in frames:
        columns = await frame_columns(session, name)
        if not columns:
            continue
        renames = renames_for(code, [c for c, _ in columns])
        if any(m in renames for m in missing):
            return ColumnFix(code=apply_renames(code, renames), renames=renames)
    return None


async def rerun_with_columns(
    session: CodeExecutor,
    run: RunState | None,
    result: ExecutionResult,
    code: str,
    *,
    timeout: float | None = None,
    on_output: OutputCallback | None = None,
) -> tuple[ColumnFix, ExecutionResult] | None:
    """Run the failed cell again, once, with its column names corrected (``column_fix``);
    the fix and the re-run's result, or None when the error is not of that kind. The note
    goes to the cell's output stream first, so a watcher sees the re-run announced."""
    cells = run.state_of(CodeActRunState).cells if run is not None else []
    ok_cells = [c for c in cells if c.error is None]
    fix = await column_fix(session, result, code, assigned_names([*ok_cells, CellCode(code)]))
    if fix is None:
        return None
    if on_output is not None:
        on_output("stderr", f"\n[{fix.note()}]\n")
    return fix, await session.execute(fix.code, timeout=timeout, on_output=on_output)


async def recover_cell(
    probe: CodeExecutor | None,
    run: RunState | None,
    result: ExecutionResult,
    code: str,
    timeout: float | None,
    on_output: OutputCallback | None,
    max_chars: int,
) -> tuple[ExecutionResult, str, str]:
    """A cell's result, observation and code after recovery: a failed cell is re-run once
    with its column names corrected when that is its fault, then gets hints for whatever
    still fails (``failure_hints``); a successful cell that repeats an earlier one gets a note
    (``repeated_cell_note``). ``probe`` None means the session must not be probed or re-run."""
    observation = result.to_observation(max_chars)
    if result.ok:
        return result, observation + repeated_cell_note(run, code), code
    fixed = None
    if probe is not None:
        fixed = await rerun_with_columns(
            probe, run, result, code, timeout=timeout, on_output=on_output
        )
    if fixed is not None:
        fix, result = fixed
        code = fix.code
        observation = f"{fix.note()}\n{result.to_observation(max_chars)}"
    if not result.ok:
        observation += await failure_hints(probe, run, result, code)
    return result, observation, code
