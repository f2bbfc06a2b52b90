"""Answer validators: check a final answer and send the model back with a reason.

A validator is a plain callable that receives the candidate answer (the reply text, the
``final_answer`` value, the turn's question and the code cells that ran) and returns the answer
to keep — the same candidate, a normalised one, or just a replacement text — or raises
``ModelRetry`` with a message for the model (pydantic-ai's output validators are the model).
The agent applies its validators in order and retries a bounded number of times
(``max_answer_retries``); each retry shows as an ``AnswerRetry`` event.

Two validators ship here:

- ``placeholder_validator()``: the answer must contain every ``@name[...]`` placeholder the
  question asks for. When the model's prose drops values that the turn's code printed in that
  format, they are carried into the answer instead of being lost.
- ``format_validator(pattern_or_model)``: the answer must match a regex, or its value (or the
  JSON in its text) must validate against a pydantic model.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ValidationError

from codeact.errors import CodeActError


class ModelRetry(CodeActError):
    """Raised by a validator: the answer is not acceptable; the message goes to the model."""


@dataclass(frozen=True)
class CellRun:
    """One code cell of the turn: its source and what it printed, or its error."""

    code: str
    stdout: str = ""
    error: str | None = None
    final_answer: Any = None


@dataclass(frozen=True)
class AnswerCandidate:
    """A final answer under validation."""

    text: str
    value: Any = None
    question: str = ""
    cells: Sequence[CellRun] = field(default_factory=tuple)

    def replace(self, **changes: Any) -> AnswerCandidate:
        """A copy with some fields changed."""
        return dataclasses.replace(self, **changes)

    @property
    def ok_cells(self) -> list[CellRun]:
        """Cells that ran without an error, in order."""
        return [c for c in self.cells if c.error is None]


#: What a validator returns: the answer to keep (``None`` keeps the candidate as it is; a
#: ``str`` replaces its text); raising ``ModelRetry`` sends the model back.
AnswerValidator = Callable[[AnswerCandidate], "AnswerCandidate | str | None"]

_PLACEHOLDER = re.compile(r"@([A-Za-z_]\w*)\[")
_TOKEN = re.compile(r"@([A-Za-z_]\w*)\[([^\]\n]*)\]")


def placeholders(text: str) -> list[str]:
    """The ``@name[...]`` placeholder names a question asks for, in order, without repeats."""
    return list(dict.fromkeys(_PLACEHOLDER.findall(text or "")))


def _answer_text(candidate: AnswerCandidate) -> str:
    value = candidate.value
    extra = (
        ""
        if value is None
        else (value if isinstance(value, str) else json.dumps(value, default=str))
    )
    return f"{candidate.text}\n{extra}"


def _filled(text: str, templates: dict[str, str] | None = None) -> dict[str, str]:
    """``@name[value]`` tokens with a value: not empty, not ``value``, and not the question's
    own placeholder text (``@city[name]``, ``@date[YYYY-MM-DD]``)."""
    unfilled = {"value"}
    out = {}
    for name, value in _TOKEN.findall(text):
        v = value.strip()
        template = (templates or {}).get(name, "").strip().lower()
        if v and v.lower() not in unfilled and v.lower() != template:
            out[name] = v
    return out


def placeholder_validator(question: str | None = None, *, carry: bool = True) -> AnswerValidator:
    """A validator requiring every ``@name[...]`` of the question in the answer.

    ``question`` fixes the placeholders; by default they are read from each turn's question, so
    one validator serves any task. With ``carry`` (the default), values that the turn's
    successful cells printed as ``@name[value]`` fill in what the prose left out, so a computed
    answer is not lost to a paraphrase. Otherwise it raises ``ModelRetry`` naming the missing
    placeholders and the exact format.
    """

    def validate(candidate: AnswerCandidate) -> AnswerCandidate | None:
        asked = question if question is not None else candidate.question
        wanted = placeholders(asked)
        if not wanted:
            return None
        templates = dict(_TOKEN.findall(asked or ""))
        given = _filled(_answer_text(candidate), templates)
        missing = [n for n in wanted if n not in given]
        if not missing:
            return None
        if carry:
            printed: dict[str, str] = {}
            for cell in candidate.ok_cells:
                printed.update(_filled(cell.stdout, templates))
            if all(n in printed for n in missing):
                tokens = " ".join(f"@{n}[{printed[n]}]" for n in missing)
                return candidate.replace(text=f"{candidate.text.rstrip()}\n{tokens}".strip())
        fmt = " ".join(f"@{n}[value]" for n in wanted)
        raise ModelRetry(
            "Your final answer must contain "
            + ", ".join(f"@{n}[...]" for n in missing)
            + f". Reply with the final answer in exactly this format: {fmt} (replace value "
            "with the computed result; compute it with code first if you have not)."
        )

    return validate


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
    "apply_validators",
    "format_validator",
    "placeholder_validator",
    "placeholders",
]
