"""Answer validators: check a final answer and send the model back with a reason.

A validator is a plain callable that receives the candidate answer (the reply text, the
``final_answer`` value, the turn's question and the code cells that ran) and returns the answer
to keep — the same candidate, a normalised one, or just a replacement text — or raises
``ModelRetry`` with a message for the model (pydantic-ai's output validators are the model).
The agent applies its validators in order and retries a bounded number of times
(``max_answer_retries``); each retry shows as an ``AnswerRetry`` event.

Validators that ship here:

- ``placeholder_validator()``: the answer must contain every ``@name[...]`` placeholder the
  question asks for (``required_placeholders``: boilerplate and examples do not count). When
  the model's prose drops values that the turn's code printed in that format, they are carried
  into the answer instead of being lost.
- ``traced_validator()``: every placeholder value must come from what a successful cell printed
  (``trace_answer``), written with the asked decimals.
- ``rules_validator()``: cheap checks of the computation against the question (period,
  filters, missing values).
- ``format_validator(pattern_or_model)``: the answer must match a regex, or its value (or the
  JSON in its text) must validate against a pydantic model.

``SelfCheck`` (``CodeActAgent(self_check=...)``, not a validator: it asks the model) rates the
code that printed an answer against the question once per run.

``best_traced_answer(question, cells)`` builds an answer from printed values only.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence

from pydantic import BaseModel, ValidationError

from codeact.agents._candidate import AnswerCandidate as AnswerCandidate
from codeact.agents._candidate import CellRun as CellRun
from codeact.agents._candidate import cell_run as cell_run
from codeact.agents._labelcount import label_value_hint
from codeact.agents._placeholders import (
    TOKEN,
    asked_decimals,
    required_placeholders,
    templates,
)
from codeact.agents._selfcheck import SelfCheck as SelfCheck
from codeact.agents._trace import (
    NUMBER,
    TracedValue,
    bare_values,
    best_traced_answer,
    computed_texts,
    drop_untraced_extras,
    given_values,
    jsonable,
    renamed_values,
    round_asked,
    trace_answer,
    traces,
)
from codeact.errors import CodeActError


class ModelRetry(CodeActError):
    """Raised by a validator: the answer is not acceptable; the message goes to the model.
    ``code``: runnable code the message suggests (``df`` standing for the table), which the
    CodeAct agent runs itself if the model re-runs an old cell instead of trying it;
    ``answer``: the answer to give instead when no retry is left."""

    def __init__(
        self, message: str = "", *, code: str | None = None, answer: str | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        #: The answer to give instead when the model cannot be sent back any more, if the
        #: validator knows one (made of values a cell printed).
        self.answer = answer


#: What a validator returns: the answer to keep (``None`` keeps the candidate as it is; a
#: ``str`` replaces its text); raising ``ModelRetry`` sends the model back.
AnswerValidator = Callable[[AnswerCandidate], "AnswerCandidate | str | None"]

_PLACEHOLDER = re.compile(r"@([A-Za-z_]\w*)\[")


def placeholders(text: str) -> list[str]:
    """Every ``@name[...]`` placeholder name of ``text``, in order, without repeats (see
    ``required_placeholders`` for the ones a question really asks for)."""
    return list(dict.fromkeys(_PLACEHOLDER.findall(text or "")))


def _answer_text(candidate: AnswerCandidate) -> str:
    value = candidate.value
    extra = (
        ""
        if value is None
        else (value if isinstance(value, str) else json.dumps(value, default=str))
    )
    return f"{candidate.text}\n{extra}"


def placeholder_validator(question: str | None = None, *, carry: bool = True) -> AnswerValidator:
    """A validator requiring every ``@name[...]`` the question asks for in the answer.

    ``question`` fixes the placeholders; by default they are read from each turn's question, so
    one validator serves any task. Only the names the question asks for count
    (``required_placeholders``): instruction boilerplate such as ``@answer_name[answer]`` and
    examples such as "For example: @mean_fare[34.65]" do not. A placeholder holding no value
    (``None``, ``N/A``, the question's own template word) is missing. With ``carry`` (the
    default), values that the turn's successful cells printed as ``@name[value]`` fill in what
    the prose left out, and so does the one number of a prose answer to a one-value question
    when a cell printed it; an answer that is nothing but one value per asked name, each
    printed by a cell (``@Graz @503.4``), is read in the asked order (``bare_values``), and so
    is an answer whose placeholders all have other names, one per asked name, each value
    printed by a cell (``renamed_values``); nothing else is ever filled in. Otherwise it
    raises ``ModelRetry`` naming the missing placeholders.
    """

    def validate(candidate: AnswerCandidate) -> AnswerCandidate | None:
        asked = question if question is not None else candidate.question
        wanted = required_placeholders(asked)
        if not wanted:
            return None
        template = templates(asked)
        given = given_values(_answer_text(candidate), template)
        missing = [n for n in wanted if n not in given]
        if not missing:
            return None
        printed: dict[str, str] = {}
        if carry:
            for cell in candidate.ok_cells:
                printed.update(given_values(cell.stdout, template))
            if len(wanted) == 1 and not printed:
                printed.update(_prose_value(candidate, wanted[0]))
            texts = computed_texts(candidate.ok_cells)
            bare = bare_values(candidate.text, wanted, texts) or renamed_values(
                candidate.text, wanted, texts
            )
            if bare:  # the values alone, or under other names: in the asked order
                tokens = " ".join(f"@{n}[{printed.get(n, bare[n])}]" for n in wanted)
                return candidate.replace(text=tokens)
            if all(n in printed for n in missing):
                tokens = " ".join(f"@{n}[{printed[n]}]" for n in missing)
                return candidate.replace(text=f"{candidate.text.rstrip()}\n{tokens}".strip())
        fmt = " ".join(f"@{n}[value]" for n in wanted)
        note, code = label_value_hint(
            asked, candidate.cells, [n for n in missing if n not in printed]
        )
        raise ModelRetry(
            "Your final answer must contain "
            + ", ".join(f"@{n}[...]" for n in missing)
            + f". Reply with the final answer in exactly this format: {fmt}, each value "
            "exactly as your code printed it (nan is a value too). If no cell printed a value "
            "yet, compute and print it with code first: never write a value no cell printed."
            + note,
            code=code,
        )

    return validate


def _prose_value(candidate: AnswerCandidate, name: str) -> dict[str, str]:
    """``{name: number}`` when the answer's prose holds exactly one number and a successful
    cell printed it (the one value asked for, stated without its placeholder)."""
    numbers = set(NUMBER.findall(TOKEN.sub("", candidate.text)))
    if len(numbers) != 1:
        return {}
    (number,) = numbers
    return {name: number} if traces(number, computed_texts(candidate.ok_cells)) else {}


def traced_validator(question: str | None = None) -> AnswerValidator:
    """A validator requiring every value of the answer's ``@name[...]`` placeholders to come
    from a cell: printed (or returned) by a cell of the turn that ran without an error, the
    same number or a more precise one that rounds to it (see ``trace_answer``).

    An untraceable value sends the model back to compute it; when it cannot be sent back any
    more, the agent puts in the value a cell printed for that name, or leaves it out with a
    note (never a value no cell printed). Values are written with the
    decimals the question asks for (re-rounded from the printed number), and placeholders the
    question does not ask for (``@answer_name[...]``, copied examples) are dropped from the
    answer unless a cell printed their value.
    """

    def validate(candidate: AnswerCandidate) -> AnswerCandidate | None:
        asked = question if question is not None else candidate.question
        wanted = required_placeholders(asked)
        if not wanted:
            return None
        texts = computed_texts(candidate.ok_cells)
        given = given_values(candidate.text, templates(asked))
        untraced = {n: v for n, v in given.items() if n in wanted and not traces(v, texts)}
        if untraced:
            listed = ", ".join(f"@{n}[{v}]" for n, v in untraced.items())
            note, code = label_value_hint(asked, candidate.cells, list(untraced))
            raise ModelRetry(
                f"No cell printed the value of {listed}. Every value must come from your code's "
                "output: compute it with code, print it, then answer with the printed value."
                + note,
                code=code,
            )
        text = _keep_asked(candidate.text, wanted, texts, asked)
        return None if text == candidate.text else candidate.replace(text=text)

    validate.traces_values = True  # type: ignore[attr-defined]  # the agent's fallback applies
    return validate


def rules_validator() -> AnswerValidator:
    """A validator checking the computation against the question with cheap rules, no model
    call: the asked period (month, year, week) when the code groups by another, filters the
    question names (quoted values, thresholds such as "more than 90000") that the code never
    uses, missing values the question asks to fill, a ``nan`` answer where it asks to skip
    them. A broken rule sends the model back with a precise note, at most once per rule and
    run (a model whose code is right answers again); an answer that still takes its values
    from a cell breaking a rule, while a cell breaking none printed others, gets those."""
    from codeact.agents._rules import check_rules, settled

    def validate(candidate: AnswerCandidate) -> AnswerCandidate | None:
        problem = check_rules(candidate)
        if problem is not None:
            code, answer = getattr(problem, "code", None), getattr(problem, "answer", None)
            raise ModelRetry(str(problem), code=code, answer=answer)
        # told once and still answering from a cell that does not compute what is asked
        text = settled(candidate)
        return None if text is None else candidate.replace(text=text)

    validate.checks_rules = True  # type: ignore[attr-defined]  # (also on re-run cells)

    return validate


def _keep_asked(text: str, wanted: list[str], texts: list[str], question: str) -> str:
    out = round_asked(drop_untraced_extras(text, wanted, texts), question, texts)
    return re.sub(r"[ \t]+\n", "\n", out).strip() if out != text else text


def format_validator(
    spec: str | re.Pattern[str] | type[BaseModel], *, hint: str | None = None
) -> AnswerValidator:
    """A validator for a configurable format.

    ``spec`` is a regex (the answer text must contain a match) or a pydantic model (the
    ``final_answer`` value, or else the first JSON object in the text, must validate; the
    validated model, dumped to plain data, becomes the answer's value). ``hint`` is added to
    the retry message (e.g. an example of the expected answer).
    """
    if isinstance(spec, type) and issubclass(spec, BaseModel):
        return _model_validator(spec, hint)
    pattern = re.compile(spec) if isinstance(spec, str) else spec

    def validate(candidate: AnswerCandidate) -> None:
        if pattern.search(_answer_text(candidate)) is None:
            raise ModelRetry(
                f"Your final answer does not have the required format (it must match "
                f"{pattern.pattern!r})." + (f" {hint}" if hint else "")
            )

    return validate


_JSON_OBJECT = re.compile(r"\{.*\}", re.DOTALL)


def _model_validator(model: type[BaseModel], hint: str | None) -> AnswerValidator:
    def validate(candidate: AnswerCandidate) -> AnswerCandidate:
        data = candidate.value
        if data is None:
            found = _JSON_OBJECT.search(candidate.text)
            try:
                data = json.loads(found.group(0)) if found else None
            except json.JSONDecodeError:
                data = None
        if data is None:
            raise ModelRetry(
                f"Give the final answer as data matching {model.__name__}: call "
                f"final_answer({{...}}) with the fields {sorted(model.model_fields)}."
                + (f" {hint}" if hint else "")
            )
        try:
            parsed = model.model_validate(data)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or 'value'}: {e['msg']}" for e in exc.errors()
            )
            raise ModelRetry(
                f"The answer does not match {model.__name__}: {problems}."
                + (f" {hint}" if hint else "")
            ) from None
        return candidate.replace(value=parsed.model_dump(mode="json"))

    return validate


def apply_validators(
    validators: Sequence[AnswerValidator], candidate: AnswerCandidate
) -> AnswerCandidate:
    """Run ``validators`` in order; each one's result feeds the next. ``ModelRetry`` passes
    through to the caller."""
    for validator in validators:
        result = validator(candidate)
        if isinstance(result, str):
            candidate = candidate.replace(text=result)
        elif isinstance(result, AnswerCandidate):
            candidate = result
        elif result is not None:
            raise TypeError(
                f"answer validator {getattr(validator, '__name__', validator)!r} returned "
                f"{type(result).__name__}; return an AnswerCandidate, a str, or None"
            )
    return candidate


__all__ = [
    "AnswerCandidate",
    "AnswerValidator",
    "CellRun",
    "ModelRetry",
    "SelfCheck",
    "TracedValue",
    "apply_validators",
    "asked_decimals",
    "best_traced_answer",
    "cell_run",
    "format_validator",
    "jsonable",
    "placeholder_validator",
    "placeholders",
    "required_placeholders",
    "rules_validator",
    "trace_answer",
    "traced_validator",
]
