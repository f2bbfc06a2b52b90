"""The category rule (see ``_rules``): a value of a text column the question names and the
code never selects by, unless the question only describes the column there (a legend, a
list of what it holds, a quoted example explained in parentheses) or the value is a plain
word used as a word ("no visit goes past midnight")."""

from __future__ import annotations

import re

from codeact.agents._aliases import stated_aliases
from codeact.agents._checks import asked_text
from codeact.agents._colvalues import all_values
from codeact.agents._filters import (
    QUOTED,
    described_values,
    every_value_positions,
    explained_positions,
    listed_values,
)
from codeact.agents._notecols import (
    category_values,
    column_of_value,
    compute_on,
    in_column_name,
    masked_into,
    name_pattern,
    note_column_kinds,
    note_columns,
    task_text,
    uses_column,
    without_comments,
)
from codeact.agents._problem import problem_of

#: Values that are also plain English words: a filter only when quoted.
_PLAIN_WORDS = {"no", "yes", "none", "other", "all", "any", "true", "false"}


def _plain_named(question: str, task: str, start: int, value: str) -> bool:
    """Whether a value that is also a plain word names the value at ``task[start]``: quoted,
    right after its column's name ("Escalated No"), or capitalised mid-sentence ("Other")."""
    before = task[:start].rstrip()
    if task[start - 1 : start] in ("'", '"'):
        return True
    column = column_of_value(question, value)
    if column and before.lower().endswith(column.strip().lower()):
        return True
    return value[0].isupper() and not re.search(r"(?:^|[.?!:;(]\s*)$", task[:start])


def _legend_positions(question: str, task: str) -> set[int]:
    """Positions (just before) of every word inside brackets right after a column's name
    (``Age Band (Under 18, 18-34, 35-59 or 60+)``): what the column holds, not a filter."""
    out: set[int] = set()
    for name in note_columns(question):
        for m in re.finditer(rf"\b{re.escape(name.strip())}\s*\(([^()\n]*)\)", task):
            out |= set(range(m.start(1) - 1, m.end(1)))
    return out


def _code_legend_positions(question: str, task: str) -> set[int]:
    """Positions of a code column's legend ("Material is a code, in upper or lower case: MSW
    is general waste, CD construction and demolition waste, ..."; fresh19): every code it
    explains is what the column holds, not a filter."""
    out: set[int] = set()
    for name in note_columns(question):
        legend = rf"\b{re.escape(name.strip())}\b[^.:\n]{{0,40}}?\bis an? code\b[^:.\n]*:([^.;\n]*)"
        for m in re.finditer(legend, task, re.I):
            out |= set(range(m.start(1) - 1, m.end(1)))
    return out


#: A value defined by what it means: "OK if the batch passed, FAIL if it failed" (fresh20).
_DEFINED = re.compile(r"(?<![\w'-])[A-Za-z][\w/-]*(?=\s+(?:if|when|means|stands\s+for)\b)")


def _alias_positions(task: str) -> set[int]:
    """Positions (just before) of each value the question gives other spellings of, where it
    gives them ("Service is also written 'Servicing', Inspection 'Safety check'"): a list of
    how values are written, not a filter (fresh17: tyre jobs sent to select 'Inspection')."""
    out: set[int] = set()
    for value in {v for _a, v, _at in stated_aliases(task)}:
        spelt = (
            rf"(?<![\w-]){re.escape(value)}(?=\s+(?:is\s+(?:also|sometimes)\s+\w+\s+(?:as\s+)?)?')"
        )
        out |= {m.start() - 1 for m in re.finditer(spelt, task)}
    return out


def category_problem(question: str, code: str) -> str | None:
    """A value of a text column (from the files note) named in the question, never used; the
    note shows the rows to select and, when the question names a number column and an
    aggregate, what to compute on them."""
    task = task_text(question)
    low = code.lower()
    described = described_values(task, low)  # (quoted as how values are written: not asked)
    described |= listed_values(question, task, low)  # ("Status is A, B or C": what it holds)
    described |= every_value_positions(question, task, low)  # (quoted, every value: fresh23)
    described |= explained_positions(task)  # ("('RIV-0042' is member 42 of RIV)")
    described |= _legend_positions(question, task)  # ("Age Band (Under 18, 18-34 or 60+)")
    described |= _alias_positions(task)  # ("Inspection 'Safety check'": how it is written)
    described |= _code_legend_positions(question, task)  # ("Status is a code: C is ...")
    described |= {m.start() - 1 for m in _DEFINED.finditer(task)}  # ("OK if it passed")
    described |= {m.end() - 1 for m in re.finditer(r"\(\s*not\s+", task)}  # ("SUV (not Compact")
    quotes = [(q.start(), q.end(), q.group(1) or q.group(2)) for q in QUOTED.finditer(task)]
    for value in category_values(question):
        word = value.lower() in _PLAIN_WORDS  # ("no visit goes past midnight": not 'no')
        named = any(  # (the character before it, or its quote: "' YOGA'")
            not {m.start() - 1, len(task[: m.start()].rstrip(" ")) - 1} & described
            and (not word or _plain_named(question, task, m.start(), value))
            and not in_column_name(question, task, m.start(), m.end())  # ('Sold Price')
            and not _inside_other(quotes, m.start(), value)  # ('RealD 3D': fresh18)
            for m in re.finditer(rf"(?<![\w-]){re.escape(value)}(?!\w|-\w)", task)
        )
        if named and (value.lower() not in low or _only_masked(code, question, value)):
            column = column_of_value(question, value)
            measure = compute_on(question, "sub", exclude=column) if column else None
            if column is None:
                example = "Select those rows, compute on them, print the one value"
            else:
                example = (
                    f"Select those rows first, for example: sub = df[df[{column!r}] == "
                    f"{value!r}]; then compute on sub, not df: "
                    + (f"print({measure})" if measure else "print the one value it asks for")
                )
            rows = f"sub = df[df[{column!r}] == {value!r}]"
            return problem_of(
                f"The question is about {value!r} (a value in the data), but your code never "
                f"filters on it. {example}, then answer.",
                f"{rows}; print({measure})" if measure else None,
            )
    return None


def _only_masked(code: str, question: str, value: str) -> bool:
    """Whether ``value`` is named in ``code`` only where other spellings are made it
    (``df['Job  Type'] = df['Job  Type'].mask(..., 'Repair')``) and the column is neither
    compared nor grouped after: fresh17, the mask written in place of the filter, a
    correlation over every job for the repair jobs'."""
    column = column_of_value(question, value, fold=True)
    spans = masked_into(code, column) if column else []
    if column is None or not spans:
        return False
    starts, ends = [0, *(e for _s, e, _v in spans)], [*(s for s, _e, _v in spans), len(code)]
    rest = "".join(code[a:b] for a, b in zip(starts, ends, strict=True))  # (the masks taken out)
    grouped = re.search(r"groupby|value_counts|pivot|crosstab|\.unique\(|\.mode\(", rest)
    tested = re.search(  # (any test of the column: != 'Service' keeps the repairs too)
        rf"\[\s*['\"](?:{name_pattern(column)})['\"]\s*\][^\n]*?(?:[=!]=|\.(?:isin|eq|ne)\()",
        rest,
    )
    return value.lower() not in rest.lower() and not grouped and not tested


def _inside_other(quotes: list[tuple[int, int, str]], at: int, value: str) -> bool:
    """Whether ``at`` lies inside a quoted text other than the value itself (a spelling of
    another value: '3D' in 'RealD 3D', 'Dolby' in 'Dolby Cinema')."""
    return any(a < at < b and text.strip().lower() != value.lower() for a, b, text in quotes)


def other_value_problem(question: str, code: str) -> str | None:
    """The question's own sentence names a value of a text column ("How many hand-picked
    Riesling deliveries ...?"), capitalised or quoted as a value is, that no text of the code
    is (folded), while the code selects that column's rows by another of its values (``==``
    or ``isin``; fresh22_late_riesling: ``df['Rebsorte'] == 'Müller-Thurgau'``, 0 for 6).
    Values that are plain words are left to the category rule."""
    said = asked_text(question)
    live = without_comments(code)
    found = re.findall(_TEXT, live)
    texts = {(a or b).strip().lower() for a, b in found}
    aliases = {a.strip().lower(): v.strip().lower() for a, v, _at in stated_aliases(question)}
    texts |= {aliases[t] for t in texts if t in aliases}
    selected = {(a or b).strip().lower() for a, b in re.findall(_SELECTS, live)}
    for listed in re.findall(r"\.isin\(\s*\[([^\]\n]*)\]", live):
        selected |= {(a or b).strip().lower() for a, b in re.findall(_TEXT, listed)}
    for name, kind in note_column_kinds(question):
        values = {v for v in all_values(kind) if len(v) > 2 and v not in _PLAIN_WORDS}
        named = sorted(v for v in values if _named(said, v) and v not in name.lower())
        others = sorted((values & selected) - set(named))
        if not named or set(named) & texts or not others or not uses_column(live, name):
            continue
        spelt = [re.search(re.escape(v), said, re.I) for v in named]
        shown = [m.group(0) if m else v for m, v in zip(spelt, named, strict=True)]
        return (
            f"The question asks about {' and '.join(shown)} (a value of {name!r}), but your "
            f"code compares {name!r} with {', '.join(map(repr, others))} and never with "
            f"{named[0]!r}. Select the rows the question names: compare "
            f"df[{name!r}].str.strip().str.lower() with {named[0]!r} (the values folded); run "
            "your code again, print the result, then answer."
        )
    return None


_TEXT = r"'([^'\n]*)'|\"([^\"\n]*)\""
#: A text the code selects rows by (``== 'Riesling'``; not ``!=``, which leaves it out).
_SELECTS = rf"==\s*(?:{_TEXT})"
#: Words before a value that leave it out ("could not be delivered", "other than Riesling").
_NOT = re.compile(
    r"(?:\b(?:not|never|no|without|except|excluding|besides)\b(?:\W+\w+){0,2}"
    r"|\b(?:apart from|instead of|other than)\b(?:\W+\w+){0,2})\W*$|n't\b",
    re.I,
)


def _named(said: str, value: str) -> bool:
    """Whether the question's sentence ``said`` names ``value`` (folded) as a value: quoted or
    capitalised there, and not as what is left out ("How many parcels could not be
    delivered?", "other than the Riesling ones")."""
    for m in re.finditer(rf"(?<![\w-]){re.escape(value)}(?![\w]|-\w)", said, re.I):
        quoted = said[m.start() - 1 : m.start()] in ("'", '"')
        if not (quoted or m.group(0)[0].isupper()) or m.start() == 0:
            continue  # ("delayed" as a word; the sentence's first word)
        if not _NOT.search(said[: m.start()][-30:]):
            return True
    return False
