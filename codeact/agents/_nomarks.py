"""Values written for "none" that pandas keeps as text (fresh16: ' Delivered On' is empty,
'n/a' or '-' when nothing was delivered; pandas reads the first two as missing but not '-').
The 1.5B model counts ``df[' Delivered On'].notna()`` and gets the '-' rows as deliveries (210
for 138). When the files note says a column has such values ("72 values '-' standing for no
date") and the code tests that column for missing values without ever converting it or
naming the sign, the cell is sent back with the signs made missing right after the read
(``marked_missing_problem``)."""

from __future__ import annotations

import re

from codeact.agents._notecols import (
    column_read,
    column_ref,
    insert_after,
    note_column_kinds,
    task_text,
    uses_column,
)
from codeact.agents._problem import Problem, problem_of

#: The files note's count of signs standing for no value ("51 values '-' standing for no
#: number", "72 values '-' and 'pending' standing for no date").
_MARKED = re.compile(r"\d+ values ((?:'[^'\n]*'(?: and )?)+) standing for no (date|number)")
#: A test for missing values of a column, or a count of its present ones.
_MISSING_TEST = r"\s*\.\s*(?:notna|isna|notnull|isnull|count|dropna)\(\s*\)"


#: Words saying there is nothing ("when nothing was delivered", "(no delivery)").
_NONE_WORDS = re.compile(r"\b(?:no|not|none|nothing|never|missing|unknown|without)\b", re.I)


def _said_none(task: str, sign: str) -> bool:
    """Whether every sentence of the question quoting ``sign`` says, after it, that there is
    nothing there (true when the question never quotes it)."""
    for m in re.finditer(re.escape(repr(sign)), task):
        end = min(
            (i for i in (task.find(". ", m.end()), task.find("\n", m.end())) if i >= 0),
            default=len(task),
        )
        if not _NONE_WORDS.search(task[m.end() : end]):
            return False
    return True


def noted_sign(question: str, task: str, sign: str) -> bool:
    """Whether the files note calls ``sign`` a sign for no date or number in some column and
    the question says so too (the filter rule leaves such a quoted value to this one)."""
    other = r"'[^'\n]*'"
    noted = rf"values (?:{other} and )*{re.escape(repr(sign))}(?: and {other})* standing for no"
    return re.search(rf"{noted} (?:date|number)\b", question) is not None and _said_none(task, sign)


def marked_missing_problem(question: str, code: str) -> Problem | None:
    """A column with signs standing for no value whose missing values the code tests
    (``.notna()``, ``.isna()``, ``.count()``, ``dropna(subset=...)``) with the signs still
    text: each sign counts as a value."""
    if re.search(r"\bna_values\b", code):
        return None
    lines, task = code.splitlines(), task_text(question)
    for name, kind in note_column_kinds(question):
        m = _MARKED.search(kind)
        if m is None or not uses_column(code, name):
            continue
        signs = re.findall(r"'([^'\n]*)'", m.group(1))
        ref = column_ref(name)
        tested = re.search(rf"{ref}{_MISSING_TEST}", code) or re.search(
            rf"dropna\([^()\n]*subset\s*=\s*\[?[^()\n]*(['\"]){re.escape(name)}\1", code
        )
        if tested is None or any(repr(s) in code or f'"{s}"' in code for s in signs):
            continue
        if any(not _said_none(task, s) for s in signs):
            continue  # (the question gives the sign another meaning: a value to filter on)
        converted = re.compile(r"to_datetime\(|to_numeric\(|errors\s*=")
        if any(converted.search(ln) and re.search(ref, ln) for ln in lines):
            continue  # (read as dates or numbers: the signs are NaN/NaT there)
        found = column_read(question, lines, name)
        made = (
            f"df[{name!r}] = df[{name!r}].mask(df[{name!r}].astype(str).str.strip()"
            f".isin({signs!r}))"
        )
        fixed = None
        if found is not None:
            at, frame = found
            fixed = insert_after(code, at, made.replace("df[", f"{frame}["))
        shown = " and ".join(repr(s) for s in signs)
        return problem_of(
            f"The files note says {shown} in {name!r} stands for no {m.group(2)}, but pandas "
            f"reads {shown} as text, not as missing: your test for missing values counts those "
            f"rows as having a {m.group(2)}. Make them missing first, e.g. {made}; run your "
            "code again, print the result, then answer.",
            fixed,
        )
    return None
