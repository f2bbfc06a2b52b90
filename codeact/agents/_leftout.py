"""Rows the question says to leave out (a summary line, a total) that the code leaves out
another way: the filter rule's exemption (``_filters``), and the sentence around a value."""

from __future__ import annotations

import re

#: A sentence saying to leave a quoted value's rows out (``a summary line ('TOTAL'), not a
#: loan: leave it out``).
_EXCLUDES = re.compile(
    r"\b(?:leave (?:[\w'-]+ ){1,6}?out\b|leave out|exclud\w*|ignor\w*|drop\w*|skip\w*"
    r"|not (?:a|an|counted|included)\b|except|other than|without)",
    re.I,
)
#: Code that selects rows some other way (a condition, dropped missing values, rows cut by
#: position): a row the question leaves out may already be gone.
_SELECTS_ROWS = re.compile(
    r"\[[^\n]*?(?:==|!=|<|>|\.isin\(|\.str\.|\.notna\(|\.notnull\(|\.isna\(|~)[^\n]*\]"
    r"|\.query\(|\.dropna\(|skipfooter|\.iloc\[\s*:\s*-|\[\s*:\s*-\d|\.head\(\s*-|nrows"
    r"|(?:==|!=|<|>|\.isin\()[^\n]*\)\s*\.sum\(\)"  # (a count of a test: (a == 'x').sum())
)


def sentence_of(task: str, start: int, end: int) -> str:
    """The sentence around ``task[start:end]``."""
    left = max(task.rfind(". ", 0, start), task.rfind("\n", 0, start))
    right = min((i for i in (task.find(". ", end), task.find("\n", end)) if i >= 0), default=None)
    return task[left + 1 : right]


#: Words naming a row that is not data (a summary line, a footer).
_NOT_DATA = re.compile(r"\b(?:summary|sub-?totals?|totals?|footer|header)\b", re.I)


def left_out(task: str, start: int, end: int, code: str) -> bool:
    """The question says to leave out a row that is not data and names its marker (or the
    marker's column) at ``task[start:end]`` next to the words that say so (``a summary line
    (Loan ID 'TOTAL'), not a loan: leave it out``), and the code selects its rows by another
    condition or position (a loan count by section never meets the summary row). A value
    quoted elsewhere in the sentence (``from 'Science', excluding the 'TOTAL' summary row``)
    is still a filter."""
    sentence_start = max(task.rfind(". ", 0, start), task.rfind("\n", 0, start)) + 1
    sentence = sentence_of(task, start, end)
    if not _EXCLUDES.search(sentence) or not _SELECTS_ROWS.search(code):
        return False
    for word in _NOT_DATA.finditer(sentence):
        at = sentence_start + word.start()
        between = task[min(at, end) : max(at, start)]
        if len(between) <= 40 and "'" not in between and '"' not in between:
            return True
    return False
