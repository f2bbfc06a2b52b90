"""Answers when no model step is left: the last step's note, the best traced answer at a
limit or for a model re-running the same code, the fallback when the model cannot be sent
back any more, and the rule's code the agent runs itself on the last step (``limit_cell``,
``answer_from_fix``)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from codeact._messages import ChatMessage, ToolCallRequest
from codeact.agents._placeholders import (
    TOKEN,
    required_placeholders,
    templates,
)
from codeact.agents._render import EXECUTE
from codeact.agents._state import ANSWER_FROM_CALLS, RunState, StepContext
from codeact.agents._style_state import CodeActRunState
from codeact.agents._suggest import bound_suggestion
from codeact.agents._trace import (
    bare_values,
    best_traced_answer,
    best_traced_values,
    computed_texts,
    drop_untraced_extras,
    given_values,
    round_asked,
    traces,
)
from codeact.agents.validators import AnswerCandidate, ModelRetry
from codeact.events import AgentOutput, AnswerRetry


def is_last_step(run: RunState) -> bool:
    """True on the run's last LLM step: a retry or a code block would end it at the limit."""
    return 0 < run.max_iterations <= run.iterations


def traced_fallback(candidate: AnswerCandidate) -> AnswerCandidate:
    """When the model cannot be sent back any more: each asked placeholder that is missing or
    holds a value no cell printed takes the value a successful cell printed for it, if any
    (``best_traced_values``); an asked value with nothing printed for it is left out, with a
    note, rather than returned as if computed; placeholders not asked for whose value no cell
    printed are dropped; numbers are written with the decimals the question asks for."""
    best = best_traced_values(candidate.question, candidate.cells)
    texts = computed_texts(candidate.ok_cells)
    given = given_values(candidate.text, templates(candidate.question))
    wanted = required_placeholders(candidate.question)
    text = drop_untraced_extras(candidate.text, wanted, texts)
    unnamed = [n for n in wanted if n not in given]
    if unnamed:  # ("@payment[Card] 311": the second value written without its name)
        best = {**best, **bare_values(TOKEN.sub(" ", candidate.text), unnamed, texts)}
    dropped = []
    for name in wanted:
        if name in given and traces(given[name], texts):
            continue
        pattern = re.compile(rf"@{re.escape(name)}\[[^\]\n]*\]")
        if name in best:
            token = f"@{name}[{best[name]}]"
            text = pattern.sub(token, text) if pattern.search(text) else f"{text.rstrip()}\n{token}"
        else:
            text = pattern.sub("", text)
            dropped.append(f"@{name}")
    if dropped:
        text = f"{text.rstrip()}\n{UNTRACED_NOTE.format(names=', '.join(dropped))}"
    # (the asked decimals: '34.0' asked to 2 is '34.00')
    return candidate.replace(text=round_asked(text, candidate.question, texts).strip())


#: Said in an answer instead of a value no cell printed.
UNTRACED_NOTE = "(No cell printed a value for {names}: left out rather than guessed.)"


LAST_STEP_NOTE = (
    "This is your last reply: code will not run any more. Do not write code. Give the final "
    "answer now, in the format the question asks for, using only values your code printed "
    "above{found}."
)


def last_step_note(run: RunState) -> str:
    """What the model is told before its last step (with the values the cells printed for
    the asked placeholders, when there are any)."""
    found = best_traced_answer(run.user_msg, run.state_of(CodeActRunState).cells)
    hint = f" (they include: {found})" if found and "@" in found else ""
    return LAST_STEP_NOTE.format(found=hint)


def answer_at_limit(run: RunState, limit: str = "steps") -> AgentOutput | None:
    """The best traced answer when the last step wrote code that can no longer run (or, with
    ``limit="repeats"``, when the model keeps re-running the same code): the values
    successful cells printed, marked as such (``raw["at_limit"]``), or None."""
    if not required_placeholders(run.user_msg):
        return None  # a prose answer is the model's to write
    mine = run.state_of(CodeActRunState)
    # the code the agent ran for a rule's note answers first (the model's own cells are the
    # ones the rule found wanting), then the latest cells
    fixed = [c for c in mine.cells if c.error is None and c.code == mine.suggestion_ran]
    found = best_traced_answer(run.user_msg, fixed) if fixed else None
    if found is None or found.count("@") < len(required_placeholders(run.user_msg)):
        # then the latest cells that break no rule (a model re-running a cell a rule sent
        # back, after one that computed what is asked), then any
        clean = [c for c in mine.cells if c.error is None and _passes(run.user_msg, c.code)]
        found = best_traced_answer(run.user_msg, clean) if clean else None
    if found is None or found.count("@") < len(required_placeholders(run.user_msg)):
        found = best_traced_answer(run.user_msg, mine.cells)
    if found is None:
        return None
    prefix = REPEATS_PREFIX if limit == "repeats" else AT_LIMIT_PREFIX.format(limit="step")
    return AgentOutput(
        response=ChatMessage.assistant(f"{prefix}\n{found}"),
        raw={"at_limit": limit, "answer": found},
    )


def _passes(question: str, code: str) -> bool:
    """Whether one cell's code breaks none of the rules that read code alone, nor keeps rows
    by a value the question never names."""
    from codeact.agents._extrafilters import extra_filter_problem
    from codeact.agents._notecols import note_columns
    from codeact.agents._rules import passes_rules

    return passes_rules(question, code) and (
        extra_filter_problem(question, code, note_columns(question)) is None
    )


def stuck_answer(run: RunState, blocks: Sequence[str]) -> AgentOutput | None:
    """The best traced answer when every block of the reply is code that successful cells of
    the run already ran twice (once, then again after the note that it repeats): the model
    is stuck, and a third run would print the same. None otherwise."""
    ran = run.state_of(CodeActRunState).ok_codes()  # (what the model wrote counts too)
    if not blocks or any(ran.count(" ".join(b.split())) < 2 for b in blocks):
        return None
    return answer_at_limit(run, limit="repeats")


#: The first line of an answer assembled from printed values when the model kept re-running
#: the same code.
REPEATS_PREFIX = (
    "(The model re-ran the same code again; the answer is made of values the code printed.)"
)


#: The first line of an answer assembled from printed values when a run hit a limit.
AT_LIMIT_PREFIX = (
    "(The run reached its {limit} limit; the answer is made of values the code printed.)"
)


#: What the cell the agent runs on the last step says before its output.
LIMIT_NOTE = (
    "Note: {problem}\nNo step is left to send the answer back, so I ran the code the note "
    "suggests and answered from its output:\n{code}\noutput:"
)
#: The first line of such an answer.
FIXED_PREFIX = (
    "(On the last step a check found the answer wanting; the values below are what the code "
    "its note suggests printed, run by the agent.)"
)


def limit_cell(
    step: StepContext, reply: ChatMessage, exc: ModelRetry, kept: AgentOutput
) -> AgentOutput | None:
    """On the run's last step, when a rule finds the answer wanting (and knows no answer
    itself) and its note, or an earlier note no cell has run since, has runnable code: that
    code, run as the agent's own cell with no model step after it (``ANSWER_FROM_CALLS``),
    for ``answer_from_fix`` to answer from; ``kept`` (the model's answer, traced) is the
    answer when it prints nothing asked. None when the question asks for no placeholder,
    there is no such code, or a cell ran it already."""
    run = step.run
    mine = run.state_of(CodeActRunState)
    if not is_last_step(run) or exc.answer is not None or not required_placeholders(run.user_msg):
        return None
    # (this note's code, else an earlier note's that no cell has run since it was given)
    earlier = mine.suggested if mine.suggested_at == len(mine.cells) else None
    suggested = exc.code or earlier
    code = bound_suggestion(mine, suggested) if suggested else None
    if code is None or " ".join(code.split()) in mine.ok_codes():
        return None
    mine.kept_at_limit = (kept, len(mine.cells))
    mine.took_over = (code, LIMIT_NOTE.format(problem=str(exc), code=code))
    mine.suggestion_ran = code
    step.handler.emit(
        AnswerRetry(reason="validator", message=str(exc), attempt=mine.answer_retries + 1)
    )
    call = ToolCallRequest(id=f"{step.message_id}-exec0", name=EXECUTE, arguments={"code": code})
    return AgentOutput(response=reply, tool_calls=[call], raw={ANSWER_FROM_CALLS: True})


def answer_from_fix(run: RunState) -> AgentOutput | None:
    """The answer once ``limit_cell``'s code ran: each asked value it printed (rounded as
    asked), the model's traced value for the others (an asked value neither has is left out,
    with a note); the model's own answer when the code printed none of them. None when no
    such cell was asked for."""
    mine = run.state_of(CodeActRunState)
    if mine.kept_at_limit is None:
        return None
    (kept, at), mine.kept_at_limit = mine.kept_at_limit, None
    found = best_traced_values(run.user_msg, mine.cells[at:])
    if not found:
        return kept
    given = given_values(kept.response.text or "", templates(run.user_msg))
    wanted = required_placeholders(run.user_msg)
    tokens = [f"@{n}[{found.get(n) or given[n]}]" for n in wanted if n in found or n in given]
    missing = [f"@{n}" for n in wanted if n not in found and n not in given]
    lines = [FIXED_PREFIX, " ".join(tokens)]
    if missing:
        lines.append(UNTRACED_NOTE.format(names=", ".join(missing)))
    return AgentOutput(response=ChatMessage.assistant("\n".join(lines)))
