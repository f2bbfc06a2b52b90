"""When CodeActAgent accepts a final answer: code first, validators, lenient code blocks.

Small models often answer a data question with a plausible number without looking at the data,
restate a computed answer in prose that drops the requested format, or write code in a Markdown
fence instead of ``<execute>`` tags. The options here (all off by default in the library, on in
``codeact run`` with files) make the agent compute instead of guess:

- ``require_execution``: a final answer counts only after a cell of this turn ran without an
  error; before that the model is sent back (at most ``execution_nudges`` times) with a short
  note naming the files it has.
- ``answer_validators``: callables that check (and may normalise) the answer; a ``ModelRetry``
  sends the model back with its message, at most ``max_answer_retries`` times.
- ``lenient_code_blocks``: a reply without ``<execute>`` whose fenced Python blocks are code runs
  them — unless a cell of this turn already succeeded (then the fence is a quote in the answer).

Each time the model is sent back, an ``AnswerRetry`` event says why.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from codeact._messages import ChatMessage, ToolCallRequest
from codeact.agents._atlimit import is_last_step, limit_cell, traced_fallback
from codeact.agents._candidate import cell_run
from codeact.agents._render import EXECUTE
from codeact.agents._selfcheck import RECHECK_NOTE, SelfCheck
from codeact.agents._state import RunState, StepContext
from codeact.agents._style_state import CodeActRunState
from codeact.agents._suggest import TAKEOVER_NOTE, bound_suggestion
from codeact.agents.validators import (
    AnswerCandidate,
    AnswerValidator,
    ModelRetry,
    apply_validators,
)
from codeact.events import AgentOutput, AnswerRetry, ToolCallResult
from codeact.llms.base import LLM

_FENCED = re.compile(r"```[ \t]*(?:python3?|py)?[ \t]*\n(.*?)```", re.DOTALL | re.IGNORECASE)
_FILE_LINE = re.compile(r"^- ('[^'\n]*'|\"[^\"\n]*\"|\S+) \(", re.MULTILINE)

NO_CODE_NUDGE = (
    "You answered without running any code. Do not guess: compute the answer. Write Python "
    "between <execute> and </execute> that {source} and prints the result; then give the final "
    "answer in the format the question asks for."
)


@dataclass(frozen=True)
class AnswerPolicy:
    """The answer options of one CodeActAgent."""

    require_execution: bool = False
    execution_nudges: int = 2
    validators: Sequence[AnswerValidator] = ()
    max_answer_retries: int = 2
    lenient_code_blocks: bool = False
    self_check: SelfCheck | None = None

    def fenced_code(self, run: RunState, text: str) -> list[str]:
        """Fenced Python blocks of a reply that has no ``<execute>`` block, when they are code
        to run: lenient mode on and no cell of this turn succeeded yet."""
        cells = run.state_of(CodeActRunState).cells
        if not self.lenient_code_blocks or any(c.error is None for c in cells):
            return []
        return [b.strip("\n") for b in _FENCED.findall(text) if b.strip()]

    def final_or_retry(self, step: StepContext, reply: ChatMessage, answer: str) -> AgentOutput:
        """The final answer, or a retry (with an ``AnswerRetry`` event) when it is not
        acceptable yet."""
        run = step.run
        mine = run.state_of(CodeActRunState)
        computed = any(c.error is None for c in mine.cells)
        if (
            self.require_execution
            and not computed
            and mine.execution_nudges < self.execution_nudges
            and not is_last_step(run)
        ):
            mine.execution_nudges += 1
            note = NO_CODE_NUDGE.format(source=_source_hint(run.user_msg))
            return _retry(step, reply, note, "no_code", mine.execution_nudges)
        candidate = AnswerCandidate(text=answer, question=run.user_msg, cells=tuple(mine.cells))
        try:
            candidate = apply_validators(self.validators, candidate)
        except ModelRetry as exc:
            taken = _take_over(step, reply, exc)
            if taken is not None:
                return taken
            if mine.answer_retries < self.max_answer_retries and not is_last_step(run):
                mine.answer_retries += 1
                _remember(mine, exc)
                return _retry(step, reply, str(exc), "validator", mine.answer_retries)
            if exc.answer is not None:  # (what the validator knows to answer instead)
                candidate = candidate.replace(text=exc.answer)
            if any(getattr(v, "traces_values", False) for v in self.validators):
                candidate = traced_fallback(candidate)
            kept = _output(candidate)
            return limit_cell(step, reply, exc, kept) or kept
        return _output(candidate)

    async def final(
        self, step: StepContext, reply: ChatMessage, answer: str, llm: LLM
    ) -> AgentOutput:
        """``final_or_retry``, then, once per run and not on its last step, the self-check
        of an accepted answer (``SelfCheck``): a low rating sends the model back once."""
        output = self.final_or_retry(step, reply, answer)
        mine = step.run.state_of(CodeActRunState)
        check = self.self_check
        if check is None or output.retry_messages or mine.self_checked or is_last_step(step.run):
            return output
        mine.self_checked = True
        candidate = AnswerCandidate(
            text=output.response.text or "", question=step.run.user_msg, cells=tuple(mine.cells)
        )
        score = await check.score(llm, candidate)
        if score is None or score >= check.threshold:
            return output
        return _retry(step, reply, RECHECK_NOTE.format(score=score), "self_check", 1)

    def check_direct(self, step: StepContext, output: AgentOutput) -> AgentOutput:
        """``final_answer(value)`` from code goes through the validators too; a refusal turns
        into a retry (the round's results are already in the run's scratchpad)."""
        if not self.validators:
            return output
        run = step.run
        mine = run.state_of(CodeActRunState)
        candidate = AnswerCandidate(
            text=output.response.text or "",
            value=output.value,
            question=run.user_msg,
            cells=tuple(mine.cells),
        )
        try:
            candidate = apply_validators(self.validators, candidate)
        except ModelRetry as exc:
            if mine.answer_retries >= self.max_answer_retries or is_last_step(run):
                return output  # no step left to retry in: the value came from code
            mine.answer_retries += 1
            _remember(mine, exc)
            step.handler.emit(
                AnswerRetry(reason="validator", message=str(exc), attempt=mine.answer_retries)
            )
            return AgentOutput(
                response=output.response,
                retry_messages=[ChatMessage.user(f"final_answer was not accepted: {exc}")],
            )
        return output.model_copy(
            update={
                "response": ChatMessage.assistant(candidate.text),
                "value": candidate.value,
                "structured_response": candidate.value
                if isinstance(candidate.value, dict)
                else None,
            }
        )


def command_line_options(
    llm: Any,
    *,
    require_execution: bool,
    lenient_code: bool | None = None,
    self_check: bool = False,
) -> dict[str, Any]:
    """CodeActAgent's answer options as ``codeact run`` and ``codeact batch`` use them: code
    first as asked, the ``@name[...]`` format check always (a no-op for questions without
    one), and lenient code blocks for the embedded model unless ``lenient_code`` says
    otherwise. The default system prompt stays: the small-model prompt measured worse on the
    demo question (it counted rows instead of summing units). ``self_check`` adds the
    model's rating of the answer's code (``SelfCheck``)."""
    from codeact.agents.validators import (
        placeholder_validator,
        rules_validator,
        traced_validator,
    )
    from codeact.llms.local import LocalLLM

    return {
        "require_execution": require_execution,
        # the computation first: a format retry is moot while the code misses what is asked;
        # the rules again on the answer the others completed (values carried in from cells)
        "answer_validators": [
            rules_validator(),
            placeholder_validator(),
            traced_validator(),
            rules_validator(),
        ],
        "lenient_code_blocks": isinstance(llm, LocalLLM) if lenient_code is None else lenient_code,
        "self_check": SelfCheck() if self_check else None,
    }


def record_cells(run: RunState, output: AgentOutput, results: Sequence[ToolCallResult]) -> None:
    """Remember this round's cells (code, stdout, error, final answer) for the answer checks."""
    code_of = {c.id: str(c.arguments.get("code", "")) for c in output.tool_calls}
    cells = run.state_of(CodeActRunState).cells
    for result in results:
        if result.tool_name == "execute":  # (the code that ran: a re-run's or suggestion's)
            ran = result.tool_kwargs.get("code")
            cells.append(cell_run(result, str(ran) if ran else code_of.get(result.tool_id)))


def _output(candidate: AnswerCandidate) -> AgentOutput:
    return AgentOutput(
        response=ChatMessage.assistant(candidate.text),
        value=candidate.value,
        structured_response=candidate.value if isinstance(candidate.value, dict) else None,
    )


def _source_hint(question: str) -> str:
    files = _FILE_LINE.findall(question or "")
    if files:
        return "reads " + ", ".join(f if f[0] in "'\"" else repr(f) for f in files)
    return "works the answer out"


def _take_over(step: StepContext, reply: ChatMessage, exc: ModelRetry) -> AgentOutput | None:
    """The code a rule's note suggests (this one's, else the earlier note's), run as this
    reply's cell when the model, sent back with a note whose code it never ran, answered in
    words again (no cell since) and a rule still finds the answer wanting; once per run, not
    on the last step (the model answers from its output next). The cell's output starts
    with ``TAKEOVER_NOTE``."""
    run = step.run
    mine = run.state_of(CodeActRunState)
    if not mine.suggested or mine.taken_over or is_last_step(run):
        return None
    if mine.suggested_at != len(mine.cells):
        return None  # (a cell ran since the note with code: the model tried something)
    suggested = exc.code or mine.suggested  # (the rule's own code, else the earlier note's)
    code = bound_suggestion(mine, suggested)
    if code is None:
        return None
    mine.taken_over = True
    note = TAKEOVER_NOTE.format(problem=str(exc), code=code)
    mine.suggested, mine.took_over, mine.suggestion_ran = None, (code, note), code
    step.handler.emit(
        AnswerRetry(reason="validator", message=str(exc), attempt=mine.answer_retries + 1)
    )
    call = ToolCallRequest(id=f"{step.message_id}-exec0", name=EXECUTE, arguments={"code": code})
    return AgentOutput(response=reply, tool_calls=[call])


def _remember(mine: CodeActRunState, exc: ModelRetry) -> None:
    """A note's code waits to run (and when it was given: how many cells had run)."""
    if exc.code:
        mine.suggested, mine.suggested_at = exc.code, len(mine.cells)


def _retry(
    step: StepContext, reply: ChatMessage, note: str, reason: Any, attempt: int
) -> AgentOutput:
    step.handler.emit(AnswerRetry(reason=reason, message=note, attempt=attempt))
    return AgentOutput(response=reply, retry_messages=[reply, ChatMessage.user(note)])
