"""Code a rule's note suggested, run by the agent when the model re-sends an earlier cell
unchanged instead of trying it (``run_suggestion``), or answers again in words without
running any cell (``TAKEOVER_NOTE``)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from codeact.agents._candidate import CellRun
from codeact.agents._notecols import frame_names
from codeact.agents._placeholders import required_placeholders
from codeact.agents._recover import CellCode, assigned_names
from codeact.agents._rules import passes_rules, repeat_problem
from codeact.agents._style_state import CodeActRunState
from codeact.agents._trace import best_traced_answer
from codeact.executors.base import CodeExecutor, ExecutionResult, OutputCallback

if TYPE_CHECKING:
    from codeact.agents._state import RunState


#: ...and when it ran what a rule found on a re-run cell suggests (the model re-ran a cell).
RULE_NOTE = (
    "Note: you re-ran an earlier cell unchanged. {problem}\nSo I ran this instead:\n{code}\n"
    "Check that it computes what the question asks; output:"
)
#: What the model is told when the agent ran the code a validator's note suggested.
SUGGESTION_NOTE = (
    "Note: you re-ran an earlier cell unchanged, so I ran the code the earlier note suggested "
    "instead:\n{code}\nCheck that it computes what the question asks; output:"
)

#: ...and when the model answered again in words after a note whose code it never ran, and a
#: rule still finds the answer wanting (held-out wea_temp_range: "Lyon ... 0.0" three times).
TAKEOVER_NOTE = (
    "Note: {problem}\nYou answered again without running any code, so I ran the code the "
    "note suggests:\n{code}\nCheck that it computes what the question asks; output:"
)


def bound_suggestion(mine: CodeActRunState, suggestion: str, code: str = "") -> str | None:
    """``suggestion`` with ``df`` bound to the model's table when the cells (and ``code``, a
    cell about to run) named it otherwise; None when no cell made a table to bind."""
    sources = [c.code for c in mine.cells if c.error is None] + ([code] if code else [])
    uses_df = re.search(r"\bdf\b", suggestion) is not None
    if uses_df and "df" not in assigned_names([CellCode(c) for c in [*sources, suggestion]]):
        tables = [n for c in sources for n in frame_names(c)]
        if not tables:
            return None
        suggestion = f"df = {tables[0]}\n{suggestion}"
    return suggestion


async def run_suggestion(
    session: CodeExecutor,
    run: RunState,
    code: str,
    timeout: float | None,
    on_output: OutputCallback | None,
) -> tuple[ExecutionResult, str] | None:
    """Run the code a validator's note suggested (once per suggestion), with ``df`` bound to
    the model's table when it named it otherwise; the result and the code that ran, or None
    when there is nothing to run."""
    mine = run.state_of(CodeActRunState)
    suggested, mine.suggested = mine.suggested, None
    suggestion = bound_suggestion(mine, suggested, code) if suggested else None
    if not suggestion:
        return None
    mine.suggestion_ran = suggestion
    if on_output is not None:
        on_output("stderr", "\n[" + SUGGESTION_NOTE.format(code=suggestion) + "]\n")
    return await session.execute(suggestion, timeout=timeout, on_output=on_output), suggestion


def resent(run: RunState, code: str) -> bool:
    """Whether ``code`` is a block the model sent before whose fixed version ran (the agent
    changed it: a column name), while a note's suggestion waits to run."""
    mine = run.state_of(CodeActRunState)
    return bool(mine.suggested) and " ".join(code.split()) in mine.ok_codes()


async def repeat_outcome(
    probe: CodeExecutor | None,
    run: RunState | None,
    result: ExecutionResult,
    code: str,
    note: str,
    *,
    rules: bool,
    timeout: float | None,
    on_output: OutputCallback | None,
    max_chars: int,
) -> tuple[ExecutionResult, str, str] | str:
    """What follows a successful cell whose code repeats an earlier one (``note`` says so;
    empty when it does not): with ``rules``, the rule the cell breaks now (each rule once per
    run) comes before an older note's suggestion, and the code either suggests runs instead.
    The suggestion's result, what the model is told before its output, and the code that
    ran; or, when nothing ran, the note to add to the cell's own output."""
    found: str | None = None  # (a rule's note, when its code is what runs)
    if note and rules and run is not None:
        mine = run.state_of(CodeActRunState)
        if mine.suggested and " ".join(mine.suggested.split()) == " ".join(code.split()):
            mine.suggested = None  # (the cell is the suggestion: nothing new to run)
        problem = repeat_problem(run.user_msg, mine.cells, code, result.stdout)
        if problem is not None and problem.code:  # (what it suggests runs below)
            mine.suggested, found = problem.code, str(problem)
        elif problem is not None:
            note = f"\nNote: this cell repeats an earlier one. {problem}"
            mine.suggested = None
        elif not mine.suggested and passes_rules(run.user_msg, code):
            note = _answer_now(run.user_msg, code, result.stdout) or note
    if note and probe is not None and run is not None:
        tried = await run_suggestion(probe, run, code, timeout, on_output)
        if tried is not None:
            result, ran = tried
            if found:
                return result, RULE_NOTE.format(problem=found, code=ran), ran
            return result, SUGGESTION_NOTE.format(code=ran), ran
    if found:  # (its code could not run here: the model is told the rule at least)
        note = f"\nNote: this cell repeats an earlier one. {found}"
    return note


#: What the model is told when it re-runs a cell that breaks no rule and printed every asked
#: value (fresh17: the right count re-run twice, then the model drifted to another make).
ANSWER_NOW = (
    "\nNote: this cell repeats an earlier one and printed the same again. If it computes "
    "what the question asks, do not run it again: answer now with the printed values, "
    "{answer}. If not, write the code that computes what the question asks."
)


def _answer_now(question: str, code: str, stdout: str) -> str:
    """``ANSWER_NOW`` with the asked values the cell printed, when it printed all of them."""
    wanted = required_placeholders(question)
    found = best_traced_answer(question, [CellRun(code=code, stdout=stdout)])
    if not wanted or found is None or found.count("@") < len(wanted):
        return ""
    return ANSWER_NOW.format(answer=found)


def taken_over_note(run: RunState | None, code: str) -> str:
    """What the model is told before the output of ``code`` when it is the cell the agent
    runs for a model that answered in words instead of running a note's code
    (``TAKEOVER_NOTE``, ``_answers._take_over``) or at the last step (``_atlimit.LIMIT_NOTE``);
    clears it, else empty."""
    mine = run.state_of(CodeActRunState) if run is not None else None
    if mine is None or mine.took_over is None or mine.took_over[0] != code:
        return ""
    (_, note), mine.took_over = mine.took_over, None
    return note
