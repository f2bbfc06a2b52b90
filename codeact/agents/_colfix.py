"""Re-running a cell whose only fault is a column name's spaces or case (or a text clean-up
of a column that already holds numbers).

A small model shown the real name (``' WINDSPEED'``) and the fix often resubmits the same
failing cell. So when a cell fails with a ``KeyError`` for a column name that matches exactly
one real column of the frame once surrounding whitespace and case are ignored (or, when none
does, spaces and punctuation too: ``'Mitglied-Nr'`` for ``'Mitglied-Nr.'``), the cell is run
again, once, with the string literals that name a column that way replaced by the real names
(only whole string literals, also those inside an f-string's expressions: identifiers and
substrings are left alone). The model
is told plainly what was changed, and the call records the code that actually ran, so the
events, the transcript and the notebook show it.

Likewise, once: a cell that read a file with the wrong separator is re-run with the read
call the files note gives (``_readfix``); a cell that failed on importing a library the
sandbox lacks is re-run without it (``_imports``); a cell whose ``final_answer(a, b)`` passed
several values is re-run with a print of them in the question's ``@name[...]`` format
(``_answerlines``); and a
cell whose failing line applies ``.str.replace(...)`` (or ``.str.strip()``) to a column that
already holds numbers (``Can only use .str accessor with string values``) is run again
without those calls on that line.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from codeact.agents._answerlines import answer_line_fix, final_answer_fix, print_placeholders
from codeact.agents._clockmins import clock_cell_fix
from codeact.agents._colnames import ColumnFix, apply_renames, renames_for
from codeact.agents._datetext import date_test_fix
from codeact.agents._durationfix import timedelta_round_fix
from codeact.agents._groupassign import group_assign_fix
from codeact.agents._imports import import_fix
from codeact.agents._joinfix import join_key_fix, mask_join_fix, number_key_fix, on_key_fix
from codeact.agents._joinmissing import join_missing_fix
from codeact.agents._keywordfix import date_objects_fix, keyword_fix, name_fix, regex_fix
from codeact.agents._mixedunits import units_cell_fix
from codeact.agents._monthfix import date_part_fix
from codeact.agents._numericfix import integer_fix, numeric_fix
from codeact.agents._placeholders import required_placeholders
from codeact.agents._precedence import precedence_fix
from codeact.agents._readfix import alias_fix, load_fix, separator_fix, unit_fix
from codeact.agents._recover import (
    CellCode,
    assigned_names,
    failure_hints,
    frame_columns,
    repeated_cell_note,
)
from codeact.agents._signs import sign_text_fix
from codeact.agents._sortlabel import position_fix
from codeact.agents._style_state import CodeActRunState
from codeact.agents._suggest import SUGGESTION_NOTE, repeat_outcome, resent, run_suggestion
from codeact.agents._textdates import reread_fix
from codeact.agents._textnumfix import conversion_fix, text_number_fix
from codeact.agents._unusedfix import (
    Fix,
    drop_unused_lines,
    failing_line,
    run_fix,
    safe_to_repeat,
)
from codeact.executors.base import CodeExecutor, ExecutionResult, OutputCallback

if TYPE_CHECKING:
    from codeact.agents._state import RunState

_NAME_BEFORE = re.compile(r"([A-Za-z_]\w*)\s*(?:\[|\.)")
MAX_FRAMES = 4
#: Fixes run one after another on one cell, each of another kind, while the cell still fails.
MAX_FIXES = 3


def _missing_names(result: ExecutionResult) -> list[str]:
    error = result.error
    if error is None or error.type != "KeyError":
        return []
    # (pandas' groupby says "Column not found: RAIN" or "Columns not found: 'A', 'B'")
    found = _NOT_FOUND.search(error.message)
    message = found.group(1) if found else error.message
    quoted = re.findall(r"'([^'\n]*)'|\"([^\"\n]*)\"", message)
    if found and not quoted:
        return [found.group(1)]
    return [a or b for a, b in quoted]


_NOT_FOUND = re.compile(r"Columns? not found: ([^\n]+?)['\"]?$")


async def column_fix(
    session: CodeExecutor, result: ExecutionResult, code: str, names: list[str]
) -> ColumnFix | None:
    """The corrected cell when ``result`` is a ``KeyError`` for a name that is a column of a
    frame of the failing line (or, failing that, of ``names``) up to spaces and case."""
    missing = _missing_names(result)
    if not missing or result.error is None:
        return None
    line = failing_line(result.error.traceback)
    # (frames indexed on the line first, then any other name on it: pd.merge(a, b, on=...))
    found = [*_NAME_BEFORE.findall(line), *re.findall(r"[A-Za-z_]\w*", line)]
    on_line = [n for n in dict.fromkeys(found) if n in names]
    frames = [*on_line, *(n for n in reversed(names) if n not in on_line)][:MAX_FRAMES]
    for name in frames:
        columns = await frame_columns(session, name)
        if not columns:
            continue
        renames = renames_for(code, [c for c, _ in columns], missing)
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
    rules: bool = False,
) -> tuple[ExecutionResult, str, str]:
    """A cell's result, observation and code after recovery: a failed cell is re-run once
    with its column names corrected when that is its fault, then gets hints for whatever
    still fails (``failure_hints``); a successful cell that repeats an earlier one gets a note
    (``repeated_cell_note``), or with ``rules`` the note of a rule its code breaks, running
    the code that note suggests. ``probe`` None means the session must not be probed or re-run."""
    regrouped = group_assign_fix(code, result) if probe is not None else None
    if regrouped is not None and probe is not None:  # (a group's value put on every row)
        rerun = await run_fix(probe, regrouped, timeout=timeout, on_output=on_output)
        result, code = (rerun, regrouped.code) if rerun.ok else (result, code)
        regrouped = regrouped if rerun.ok else None
    if result.ok and probe is not None and run is not None:  # ("@x[x_value]": its value)
        result, code = await print_placeholders(
            probe, run.user_msg, result, code, timeout, on_output
        )
    observation = result.to_observation(max_chars)
    if regrouped is not None:
        observation = f"{regrouped.note()}\n{observation}"
    if result.ok:
        outcome = await repeat_outcome(
            probe, run, result, code, repeated_cell_note(run, code), rules=rules,
            timeout=timeout, on_output=on_output, max_chars=max_chars,
        )  # fmt: skip
        if isinstance(outcome, str):
            return result, observation + outcome, code
        result, said, ran = outcome
        return result, f"{said}\n{result.to_observation(max_chars)}", ran
    if probe is not None and run is not None and resent(run, code):
        # the block the agent fixed once, sent again: the suggestion a note made runs instead
        tried = await run_suggestion(probe, run, code, timeout, on_output)
        if tried is not None:
            result, ran = tried
            return (
                result,
                f"{SUGGESTION_NOTE.format(code=ran)}\n{result.to_observation(max_chars)}",
                ran,
            )
    notes: list[str] = []
    again = ""
    if probe is not None:  # (a column's spaces, then numbers cleaned as text: each once)
        fixed = await rerun_with_columns(
            probe, run, result, code, timeout=timeout, on_output=on_output
        )
        if fixed is not None:
            fix, result = fixed
            code = fix.code
            notes.append(fix.note())
        dropped = await drop_unused_lines(probe, result, code, timeout=timeout, on_output=on_output)
        if dropped is not None:  # (a failed conversion of a column nothing uses: left out)
            result, code, dropped_notes = dropped
            notes += dropped_notes
        question = run.user_msg if run is not None else ""
        wanted = required_placeholders(question) if run is not None else []
        used: set[type] = {ColumnFix} if fixed is not None else set()
        for _ in range(MAX_FIXES):  # (one fix may uncover the next fault: a merge, then a sum)
            other = next(
                (f for f in _cell_fixes(question, result, code, wanted) if type(f) not in used),
                None,
            )
            if other is None:
                break
            error = result.error
            if used and (error is None or not safe_to_repeat(code, error.traceback)):
                break  # (what the last re-run ran before failing may not run a third time)
            if used and error is not None:
                notes.append(f"That re-run failed: {error.type}: {error.message[:200]}")
            used.add(type(other))
            result = await run_fix(probe, other, timeout=timeout, on_output=on_output)
            code = other.code
            notes.append(other.note())
            error = result.error
            if (
                error is not None
                and ColumnFix not in used
                and safe_to_repeat(code, error.traceback)
            ):
                # (the fixed merge then fails on a name's spaces: fresh16 ' Delivered On')
                renamed = await rerun_with_columns(
                    probe, run, result, code, timeout=timeout, on_output=on_output
                )
                if renamed is not None:
                    notes.append(f"That re-run failed: {error.type}: {error.message[:200]}")
                    (column, result), code = renamed, renamed[0].code
                    notes.append(column.note())
                    used.add(ColumnFix)
            if result.ok:
                break
    if notes and result.ok:  # (fixed into an earlier cell: as if the model had re-sent it)
        outcome = await repeat_outcome(
            probe, run, result, code, repeated_cell_note(run, code), rules=rules,
            timeout=timeout, on_output=on_output, max_chars=max_chars,
        )  # fmt: skip
        if not isinstance(outcome, str):
            first = result.to_observation(max_chars)
            result, said, code = outcome
            notes += [first, said]
        else:
            again = outcome
    if notes:
        observation = "\n".join([*notes, result.to_observation(max_chars)]) + again
    if not result.ok:
        observation += await failure_hints(probe, run, result, code)
    return result, observation, code


def _cell_fixes(
    question: str, result: ExecutionResult, code: str, wanted: list[str]
) -> Iterator[Fix]:
    """The fixes that apply to a cell's result, in the order they are tried (each computed
    only when the ones before it do not apply)."""
    makers: tuple[Callable[[], Fix | None], ...] = (
        lambda: separator_fix(question, result, code),
        lambda: unit_fix(question, result, code),
        lambda: load_fix(question, result, code),
        lambda: join_key_fix(question, result, code),
        lambda: on_key_fix(question, result, code),
        lambda: mask_join_fix(question, result, code),
        lambda: join_missing_fix(question, result, code),
        lambda: number_key_fix(question, result, code),
        lambda: alias_fix(result, code),
        lambda: units_cell_fix(question, result, code),
        lambda: clock_cell_fix(question, result, code),
        lambda: date_test_fix(result, code),
        lambda: sign_text_fix(result, code),
        lambda: conversion_fix(result, code),
        lambda: final_answer_fix(result, code, wanted),
        lambda: answer_line_fix(result, code, question),
        lambda: import_fix(result, code),
        lambda: precedence_fix(result, code),
        lambda: numeric_fix(result, code),
        lambda: position_fix(result, code),
        lambda: integer_fix(result, code),
        lambda: text_number_fix(question, result, code),
        lambda: keyword_fix(result, code),
        lambda: regex_fix(result, code),
        lambda: date_objects_fix(result, code),
        lambda: date_part_fix(result, code),
        lambda: name_fix(result, code),
        lambda: timedelta_round_fix(question, result, code),
        lambda: reread_fix(question, result, code),
    )
    for make in makers:
        fix = make()
        if fix is not None:
            yield fix
