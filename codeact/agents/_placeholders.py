"""Which ``@name[...]`` placeholders a question really asks for, and how each is to be rounded.

Benchmark-style questions end with boilerplate such as *Your final answer should contain all the
"@answer_name[answer]" in the order mentioned ... For example: @mean_fare[34.65]*. Only the
names the question itself asks for are required: generic names (``answer_name``), names that
appear only in an example (after "for example", "e.g.", or with a concrete value such as
``[34.65]``) and the names of the template sentence are boilerplate.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

TOKEN = re.compile(r"@([A-Za-z_]\w*)\[([^\]\n]*)\]")
#: Bounds for hostile questions: placeholders read, characters looked back for a sentence.
MAX_TOKENS = 200
LOOK_BACK = 2000

#: Names that stand for "a name" in instructions, never for a value to compute.
GENERIC_NAMES = frozenset(
    {
        "answer_name",
        "answer",
        "answers",
        "answer_value",
        "name",
        "value",
        "placeholder",
        "your_answer",
        "var",
        "variable",
        "xxx",
        "key",
        "field",
    }
)
_GENERIC = re.compile(r"^(?:answer|name|value|placeholder)_?\d+$")
_EXAMPLE = re.compile(
    r"\b(?:for example|for instance|e\.g\.|example answers?|examples?:|such as|sample answer"
    r"|here(?:'re| are) (?:some )?examples?)",
    re.IGNORECASE,
)
#: Where an example ends: a line break, or a sentence end outside brackets.
_SEGMENT_END = re.compile(r"\n|[.!?](?=\s|$)")
#: A concrete value: a token carrying one is an example, not a request.
_LITERAL = re.compile(
    r"^\s*(?:[-+]?\d[\d,_]*(?:\.\d+)?(?:[eE][-+]?\d+)?%?|none|nan|true|false|null)\s*$",
    re.IGNORECASE,
)
_WORD_NUMBERS = {
    "zero": 0,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
}
_DECIMALS = re.compile(
    r"\b(\d|zero|one|two|three|four|five|six|seven|eight)\s+(?:decimal(?:\s+places?|s)?|"
    r"digits? after the decimal point)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Placeholder:
    """One ``@name[...]`` occurrence in a question."""

    name: str
    template: str
    start: int
    end: int


def occurrences(text: str) -> list[Placeholder]:
    """The ``@name[...]`` of ``text`` with their positions (at most ``MAX_TOKENS``)."""
    out = []
    for m in TOKEN.finditer(text or ""):
        out.append(Placeholder(m.group(1), m.group(2).strip(), m.start(), m.end()))
        if len(out) >= MAX_TOKENS:
            break
    return out


def is_generic(name: str) -> bool:
    """True for names that mean "some answer name" (``answer_name``, ``value``, ...)."""
    low = name.lower()
    return low in GENERIC_NAMES or _GENERIC.match(low) is not None


def _example_spans(text: str) -> list[tuple[int, int]]:
    spans = []
    for m in _EXAMPLE.finditer(text):
        end = _SEGMENT_END.search(text, m.end())
        spans.append((m.start(), end.end() if end else len(text)))
    return spans


def _boilerplate_spans(text: str) -> list[tuple[int, int]]:
    """The sentences that carry a generic placeholder (the template sentence)."""
    spans = []
    for p in occurrences(text):
        if not is_generic(p.name):
            continue
        start = max(text.rfind("\n", 0, p.start), _last_sentence_end(text, p.start)) + 1
        end = _SEGMENT_END.search(text, p.end)
        spans.append((start, end.end() if end else len(text)))
    return spans


def _last_sentence_end(text: str, before: int) -> int:
    start = max(0, before - LOOK_BACK)
    ends = [m.start() for m in re.finditer(r"[.!?](?=\s)", text[start:before])]
    return start + ends[-1] if ends else start - 1


def required_placeholders(question: str) -> list[str]:
    """The placeholder names the question asks for, in order, without repeats: a name counts
    when at least one of its occurrences is not generic, not inside an example or the template
    sentence, and not filled with a concrete value (when every such occurrence is inside an
    example or template sentence, those count)."""
    text = question or ""
    skip = _example_spans(text) + _boilerplate_spans(text)
    candidates = [
        p for p in occurrences(text) if not is_generic(p.name) and not _LITERAL.match(p.template)
    ]
    out = [p.name for p in candidates if not any(a <= p.start < b for a, b in skip)]
    # Every template inside an example sentence ("e.g. of age, as @mean_age[value]"): those.
    return list(dict.fromkeys(out or [p.name for p in candidates]))


def templates(question: str) -> dict[str, str]:
    """The question's own text inside each required placeholder (``@city[name]`` → ``name``)."""
    wanted = set(required_placeholders(question))
    out: dict[str, str] = {}
    for p in occurrences(question):
        if p.name in wanted and not _LITERAL.match(p.template):
            out.setdefault(p.name, p.template)
    return out


def integer_names(question: str) -> set[str]:
    """The required placeholders whose format says the value is an integer (``where
    "total_value" is an integer``): ``179174.0`` printed by pandas is written ``179174``."""
    return {
        name
        for name, template in templates(question).items()
        if template
        and re.search(rf'"{re.escape(template)}" is an? (?:integer|whole number)\b', question)
    }


def asked_decimals(question: str, name: str) -> int | None:
    """How many decimals the question asks for ``name``: each rounding phrase belongs to the
    placeholder (or its quoted template word) mentioned last before it, else to the first one
    after it."""
    return rounding(question).get(name)


def rounding(question: str) -> dict[str, int]:
    """Asked decimals by required placeholder name (names without a rounding phrase are left
    out)."""
    text = question or ""
    wanted = required_placeholders(text)
    anchors: list[tuple[int, str]] = [
        (p.start, p.name) for p in occurrences(text) if p.name in wanted
    ]
    for name, template in templates(text).items():
        if template and not is_generic(template):
            anchors += [(m.start(), name) for m in re.finditer(re.escape(f'"{template}"'), text)]
    anchors.sort()
    out: dict[str, int] = {}
    for m in _DECIMALS.finditer(text):
        before = [name for at, name in anchors if at < m.start()]
        after = [name for at, name in anchors if at > m.start()]
        owner = before[-1] if before else (after[0] if after else None)
        if owner is not None:
            out.setdefault(owner, _number(m.group(1)))
    return out


def _number(word: str) -> int:
    return int(word) if word.isdigit() else _WORD_NUMBERS[word.lower()]
