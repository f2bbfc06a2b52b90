"""A bounded self-check of the code against the question, before an answer is accepted.

The cheap rules (``_rules``) catch what a pattern can see: a period, a named filter, a
rounding. What they cannot see (a join through the wrong key, a ratio of the wrong totals)
is left to the model itself, asked once per run to review the code that printed the answer
against the question. A small model asked for a written verdict answers what the prompt's
framing suggests ("OK" under a neutral prompt, "WRONG" under a strict one, whatever the code
does), so the verdict is read from the probabilities of its first token instead: one forward
pass, no reply generated, P(OK) / (P(OK) + P(WRONG)). Below ``SelfCheck.threshold`` the
model is sent back once to re-check its code; an adapter that cannot give token
probabilities (``LLM.next_token_probabilities`` returns None), a rating that fails or runs
over its time (``SelfCheck.timeout``, and at most half of what is left of the run's own
time limit), and a run whose cells printed nothing skip the check: it never blocks an
answer. Answers stated in text are checked; a value a cell returned with ``final_answer()``
comes from code as it ran and is not.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass

import anyio

from codeact._messages import ChatMessage
from codeact.agents._candidate import AnswerCandidate, CellRun
from codeact.agents._notecols import question_without_note
from codeact.agents._placeholders import templates
from codeact.agents._trace import computed_texts, given_values, traces
from codeact.llms.base import LLM

_log = logging.getLogger(__name__)

REVIEW_PROMPT = """You review a data analysis before its answer is given.

Question:
{question}

Code:
```python
{code}
```
Output:
{output}

Check the code against the question, point by point: the rows it keeps (every filter the \
question states, duplicates, missing values), the column and the grouping (and the period: \
day, month, year), the calculation, the rounding. Then reply on one line: OK if the code \
does exactly what the question asks, or WRONG: <the one thing the code does differently \
from the question>."""

RECHECK_NOTE = (
    "Before this answer is accepted: a review of your code against the question rates it "
    "unlikely to compute exactly what is asked (P(right) = {score:.2f}). Re-read the question "
    "and check each step of your code against it: the rows kept (every filter it states, "
    "duplicates, missing values), the column and the grouping (and the period), the "
    "calculation, the rounding. If a step differs, fix the code, run it, print the result and "
    "answer. If every step is right, give the same final answer again."
)


@dataclass(frozen=True)
class SelfCheck:
    """Once per run, before a final answer is accepted, the model rates the code that printed
    it against the question (see the module docstring); a rating below ``threshold`` sends it
    back once to re-check (0.7: with the embedded 1.5B model, 3 % of right answers and 19 %
    of wrong ones rate below it, ``benchmarks/self_check_audit.py``; the rating barely tells
    them apart, AUC 0.59, so ``codeact run`` leaves the check off unless asked).
    ``timeout`` bounds the check (seconds; over it, the answer stands);
    ``max_code_chars``/``max_output_chars`` bound what is shown (the tail is kept)."""

    threshold: float = 0.7
    timeout: float = 60.0
    max_code_chars: int = 3000
    max_output_chars: int = 1500

    def prompt(self, candidate: AnswerCandidate) -> str | None:
        """The review prompt for the cell the answer came from, or None when no successful
        cell printed anything."""
        cell = answer_cell(candidate)
        if cell is None:
            return None
        return REVIEW_PROMPT.format(
            question=question_without_note(candidate.question).strip(),
            code=cell.code.strip()[-self.max_code_chars :],
            output=cell.stdout.strip()[-self.max_output_chars :],
        )

    async def score(self, llm: LLM, candidate: AnswerCandidate) -> float | None:
        """P(OK) / (P(OK) + P(WRONG)) of the review's first token, or None (no cell printed,
        no probabilities, or over ``timeout``)."""
        prompt = self.prompt(candidate)
        budget = self.timeout
        deadline = anyio.current_effective_deadline()  # (the run's own time limit)
        if deadline != math.inf:
            budget = min(budget, (deadline - anyio.current_time()) / 2)
        if prompt is None or budget <= 0:
            return None
        probabilities = None
        try:
            with anyio.move_on_after(budget):
                probabilities = await llm.next_token_probabilities([ChatMessage.user(prompt)])
        except Exception as exc:  # (a rating that failed leaves the accepted answer as it was)
            _log.warning("self-check skipped, the answer stands: the rating failed (%r)", exc)
            return None
        return verdict(probabilities) if probabilities else None


def verdict(probabilities: dict[str, float]) -> float | None:
    """P(OK) / (P(OK) + P(WRONG)) from first-token probabilities, in any case and spacing
    (OK: "OK", " Ok", "Okay"; WRONG: a start of the word, "W", "WR", "Wrong", not "We" or
    "What"), or None when neither is among them."""
    ok = wrong = 0.0
    for token, p in probabilities.items():
        word = token.strip().upper().rstrip(":")
        if word.startswith("OK"):
            ok += p
        elif word and ("WRONG".startswith(word) or word.startswith("WRONG")):
            wrong += p
    return ok / (ok + wrong) if ok + wrong > 0 else None


def answer_cell(candidate: AnswerCandidate) -> CellRun | None:
    """The latest successful cell whose output holds a value of the answer (else the latest
    successful cell that printed anything)."""
    printed = [c for c in candidate.ok_cells if c.stdout.strip()]
    values = given_values(candidate.text, templates(candidate.question)).values()
    for cell in reversed(printed):
        texts = computed_texts([cell])
        if any(traces(v, texts) for v in values):
            return cell
    return printed[-1] if printed else None
