"""The extra-filter rule (see ``_rules``): the code selects rows by a value the question
never asks for (``df[df['Passed'] == 'Y']`` when nothing asks for the passed ones; ``==
1`` read from "one"), a filter of its own that changes the answer."""

from __future__ import annotations

import re

from codeact.agents._notecols import task_text

#: A row selection on a column compared with text: ``df[df['Passed'] == 'Y']``,
#: ``df[df.kind.str.upper() != 'TRUE']``, ``df[df['x'].isin(['a', 'b'])]``.
_TEXT_SELECTION = re.compile(
    r"\w+\[\s*~?\s*\(?\s*\w+(?:\[\s*(['\"])(?P<quoted>[^'\"\n]+)\1\s*\]|\.(?P<attr>\w+))"
    r"(?P<rest>(?:\.\w+(?:\([^()\n]*\))?)*)\s*(?:==|!=)\s*(['\"])(?P<value>[^'\"\n]*)\5"
)


_FLAGS = {"y", "n", "yes", "no", "true", "false", "t", "f", "0", "1"}
#: Values a ``!=`` leaves out to clean the table: a total or summary row, a sign for none
#: (fresh20's ``df['Package'] != 'BOTTLE'`` is a filter of its own).
_CLEANING = re.compile(
    r"^\s*(?:(?:sub-?\s?|grand\s+)?totals?\b|sum\b|summary|header|footer|n/?a$|none$|null$"
    r"|nan$|unknown$|missing$|-+$|\?$)",
    re.I,
)
#: Words a question uses for a coded value (``'F'`` for "women").
_MEANT_BY = {
    "f": ("female", "wom[ae]n", "girl"),
    "m": ("male", "m[ae]n\\b", "boy"),
    "w": ("wom[ae]n",),
}


#: A column compared with the number 1: ``df['Rating'] == 1``.
_ONE_SELECTION = re.compile(
    r"\b\w+(?:\[\s*(['\"])(?P<quoted>[^'\"\n]+)\1\s*\]|\.(?P<attr>\w+))\s*==\s*1(?:\.0)?(?![\w.])"
)
#: "one" as a pronoun ("the orders that have one", "customers without one."), not a number.
_PRONOUN_ONE = re.compile(
    r"\b(?:have|has|had|with|without|gave|give|got|left)\s+one\b(?=\s*(?:[.,;:)?]|$|and\b|or\b))",
    re.I | re.M,
)


_RANGE = re.compile(
    r"\b(?:from|between)\s+1\s+(?:to|and)\s+\d+|(?<![\d.])1\s*[-\u2013]\s*\d+", re.I
)


def _one_problem(task: str, code: str, columns: list[str]) -> str | None:
    """A selection of the rows where a column is 1 when the question's only "one" is a
    pronoun ("the mean rating of the orders that have one"): the number was never asked."""
    said = _PRONOUN_ONE.search(task)
    if said is None:
        return None
    ranges = _RANGE.sub("", task)  # ("a score from 1 to 5" gives no 1 to select by)
    if re.search(r"(?<![\d.])1(?![\d]|\.\d)", ranges):
        return None
    for m in _ONE_SELECTION.finditer(code):
        column = m.group("quoted") or m.group("attr")
        if column in columns:
            return (
                f"Your code keeps only the rows where {column!r} is 1, but the question never "
                f"gives the number 1: 'one' in {said.group(0)!r} stands for a value of any "
                "kind (the rows that have one are those where it is not missing). Leave that "
                "condition out, print the result, then answer."
            )
    return None


def extra_filter_problem(question: str, code: str, columns: list[str]) -> str | None:
    """The code keeps rows by a text value of a column the question never names, nor that
    value (``df[df['Passed'] == 'Y']`` for "the mean score of the records that have one"),
    or by the number 1 when the question's "one" is a pronoun: a condition nobody asked for
    changes the answer."""
    said = task_text(question)
    one = _one_problem(said, code, columns)
    if one is not None:
        return one
    task = said.lower()
    for m in _TEXT_SELECTION.finditer(code):
        column = m.group("quoted") or m.group("attr")
        value = m.group("value").strip()
        dropped = "!=" in m.group(0)
        if column not in columns or not value or (dropped and _CLEANING.match(value)):
            continue  # (rows left out such as a summary row or a sign for none are cleaning)
        if value.lower() in _FLAGS:
            continue  # (a yes/no flag may be what "have left" or "passed" means)
        words = {column.strip().lower(), column.strip().lower().replace("_", " ")}
        if any(re.search(rf"(?<!\w){re.escape(w)}", task) for w in words):
            continue
        if re.search(rf"(?<!\w){re.escape(value.lower())}(?!\w)", task):
            continue
        if any(re.search(rf"\b{w}", task) for w in _MEANT_BY.get(value.lower(), ())):
            continue  # ("women" for 'F')
        how = "leaves out the rows" if dropped else "keeps only the rows"
        return (
            f"Your code {how} where {column!r} is {value!r}, but the "
            f"question never mentions {column!r} or {value!r}. Leave that "
            "condition out unless the question asks for it, print the result, then answer."
        )
    return None
