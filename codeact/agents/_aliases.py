"""Values the question says are written other ways that no folding of case and spaces joins:
"'Canceled' and 'CANCELLED' are Cancelled", "Phone is also written 'Telephone'", "written both
'GB' and 'UK' (count them together as GB)", "typed by hand ...: Delivered (or 'Deliverd')".
The 1.5B model compares or groups the folded text and counts 'Canceled' (13 bookings) and
'Telephone' as values of their own (fresh15: 50 cancellations for 63). The rule sends such a
cell back; as code, each other spelling made the question's value right after the file is
read (``alias_problem``)."""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from codeact.agents._cellforms import squeeze
from codeact.agents._isinfold import SQUEEZE_FOLD, with_alias
from codeact.agents._notecols import (
    column_of_value,
    column_read,
    column_ref,
    insert_after,
    note_columns,
    task_text,
    uses_column,
)
from codeact.agents._problem import Problem, problem_of

_QUOTE = r"'([^'\n]{1,30})'"
#: A value as the question writes it: a word or two ("Cancelled", "Checked out", "No-show").
_VALUE = (  # (fresh18: "3D '3-D' or 'RealD 3D'": a value may start with its digits)
    r"((?!The\b)(?:[A-Z]|\d+[A-Z])[\w+-]*(?:\.\w+)*"
    r"(?:[ -](?!and\b|or\b|but\b|the\b|is\b|are\b)[A-Za-z][\w-]*)?)"
)
#: "'A' and 'B' are (all|both) C", "'A' is C".
_ARE = re.compile(
    rf"((?:{_QUOTE},?\s+)*?{_QUOTE}(?:,?\s+(?:and|or)\s+{_QUOTE})?)\s+(?:is|are)\s+(?:all\s+|both\s+)?{_VALUE}"
)
#: Words of a sentence saying how values are written ("spelt several ways: ...").
_SPELLING = re.compile(r"\b(?:spelt|spelled|spellings?|written|typed|entered|also)\b", re.I)
#: "C is also written 'W'".
_ALSO = re.compile(
    rf"{_VALUE}\s+is\s+(?:also|sometimes)\s+(?:written|spelt|spelled|typed)\s+(?:as\s+)?{_QUOTE}"
    rf"((?:,?\s+(?:or|and)\s+{_QUOTE})*)"  # (fresh18: "Online is also written 'Web' or 'Website'")
)
#: "... are C and D": the quoted spellings are C and D in turn.
_RESPECTIVE = re.compile(rf"\s+and\s+{_VALUE}(?=\s*(?:[).;,]|$))")
#: ", D 'W' or 'X'": the next value of a list after "C is also written 'V'".
_ALSO_THEN = re.compile(rf",?\s*(?:and\s+)?{_VALUE}\s+{_QUOTE}(?:,?\s+(?:or|and)\s+{_QUOTE})*")
#: "both 'A' and 'B' (count them together as C)".
_TOGETHER = re.compile(
    rf"{_QUOTE}\s+and\s+{_QUOTE}\s*\((?:count|treat|take)\w* them (?:together )?as {_VALUE}\)"
)

#: "Delivered (or 'Deliverd')", "EV (electric, also written 'Electric')" (fresh21).
_PAREN = re.compile(
    rf"(?<![\w.+-]){_VALUE}\s+\((?:[^()'\n]{{0,30}},\s*)?(?:or|also\s+(?:written|spelt|spelled|typed)"
    rf"(?:\s+as)?)\s+{_QUOTE}((?:,?\s+(?:or|and)\s+{_QUOTE})*)\)"
)

#: "'Reisling' is a misspelling of Riesling", "'Rieslng' and 'Reisling' are typos for Riesling"
#: (fresh22).
_MISSPELT = re.compile(
    rf"{_QUOTE}((?:,?\s+(?:and|or)\s+{_QUOTE})*)\s+(?:is|are)\s+(?:an?\s+)?(?:misspell(?:ing|ed)s?"
    rf"|misspelt|typos?|wrong spellings?|misprints?)(?:\s+(?:of|for))?\s+{_VALUE}"
)


def stated_aliases(task: str) -> list[tuple[str, str, int]]:
    """(other spelling, the value, where it is said) for each spelling the question says is
    another value, when no folding of case, spaces and hyphens makes them one."""
    found: list[tuple[str, str, int]] = []
    for m in _ARE.finditer(task):
        start = max(task.rfind(". ", 0, m.start()), task.rfind("\n", 0, m.start())) + 1
        if not _SPELLING.search(task[start : m.start()]):
            continue  # (no sentence about how values are written: "... 'Cancelled' are Expedia")
        quotes = re.findall(_QUOTE, m.group(1))
        more = _RESPECTIVE.match(task, m.end())  # ("'service' and ' REPAIR' are Service and
        if more is not None:  # Repair": each its own value, in order, or none if unclear)
            values = [m.group(m.lastindex or 0), more.group(1)]
            found += list(zip(quotes, values, [m.start()] * 2, strict=False)) * (len(quotes) == 2)
            continue
        found += [(a, m.group(m.lastindex or 0), m.start()) for a in quotes]
    for m in _ALSO.finditer(task):
        ends = re.match(r"\s*(?:[.;,)]|$)", task[m.end() :]) is not None  # (a list to its
        said = [m.group(2), *re.findall(_QUOTE, m.group(3) or "")] if ends else [m.group(2)]
        # clause's end: "'Web' and 'Mobile' means App" names one spelling of Online)
        found += [(a, m.group(1), m.start()) for a in said]
        end = task.find(".", m.end())  # (the rest of the sentence: "Service is also
        rest = task[m.end() : end if end >= 0 else None]  # written 'Servicing', Repair ...")
        at, listed = 0, []
        for then in _ALSO_THEN.finditer(rest):
            if then.start() != at:  # (only the list right after it)
                break
            at = then.end()
            listed += [(a, then.group(1), m.start()) for a in re.findall(_QUOTE, then.group(0))]
        if re.fullmatch(r"[\s)]*", rest[at:]):  # (a list to the sentence's end, not "Status
            found += listed  # 'Done' marks a finished job")
    for m in _PAREN.finditer(task):  # (a spelling said so, or one close to the value: not
        told = "also" in m.group(0)  # "M or F (or 'Other')", another value of a list)
        said = [m.group(2), *re.findall(_QUOTE, m.group(3) or "")]
        close = [
            a for a in said if SequenceMatcher(None, a.lower(), m.group(1).lower()).ratio() >= 0.75
        ]
        found += [(a, m.group(1), m.start()) for a in (said if told else close)]
    for m in _MISSPELT.finditer(task):
        said = [m.group(1), *re.findall(_QUOTE, m.group(2) or "")]
        found += [(a, m.group(m.lastindex or 0), m.start()) for a in said]
    for m in _TOGETHER.finditer(task):
        found += [(m.group(1), m.group(3), m.start()), (m.group(2), m.group(3), m.start())]
    also = {at for m in _ALSO.finditer(task) for at in (m.start(),)}  # (said to be the value:
    return [  # a code with digits too, '2D' for Standard; else "'Rm 204' ... are room 204")
        (a, v, at)
        for a, v, at in found
        if squeeze(a) != squeeze(v)
        and (at in also or not re.search(r"\d", a))
        and not re.fullmatch(r"[\d\s:/.,$€£%-]+", a)  # (a time, date or amount: '1:28')
    ]


def _column_said(task: str, at: int, columns: list[str]) -> str | None:
    """The first column of the files note named in the sentence around ``at``."""
    start = max(task.rfind(". ", 0, at), task.rfind("\n", 0, at)) + 1
    sentence = task[start:at]
    named = [(sentence.find(c.strip()), c) for c in columns if c.strip() and c.strip() in sentence]
    return min(named)[1] if named else None


def _asks_for(code: str, name: str, value: str) -> bool:
    """Whether ``code`` compares column ``name`` with ``value`` (in any case or spacing) or
    counts or groups that column (every value counts there; fresh16: a grouping by Category
    of the Retail rows is not one of Customer Type, whose 'Wholesale' is Trade)."""
    quoted = rf"(['\"])\s*{re.escape(name.strip())}\s*\1"
    grouped = rf"(?:groupby|pivot_table|pivot|crosstab|value_counts)\(\s*[^()]*?{quoted}"
    calls = r"(?:\s*\.\s*(?:str\s*\.\s*)?\w+\([^()\n]*\))*"  # (.str.lower().str.strip())
    counted = rf"{quoted}\s*\]{calls}\s*\.\s*(?:value_counts|mode|unique|nunique)\("
    if re.search(grouped, code) or re.search(counted, code):
        return True
    # (through a name: fresh17 "types = df['Job  Type'].str.lower()", "types.value_counts()")
    again = quoted.replace("\\1", "\\2")  # (its quote is the second group here)
    named = re.findall(rf"^\s*([A-Za-z_]\w*)\s*=\s*\w+\s*\[\s*{again}\s*\]{calls}\s*$", code, re.M)
    for held, _quote in named:
        use = rf"\b{held}\s*\.\s*(?:value_counts|mode|unique|nunique)\(|groupby\(\s*{held}\b"
        if re.search(use, code):
            return True
    return squeeze(value) in re.sub(r"[\s_-]+", "", code.lower())


def alias_problem(question: str, code: str) -> Problem | None:
    """A column whose values the question says are also written another way (no folding
    joins them), used by code that never names that spelling: its rows count apart. Every
    such spelling of that column is made its value in one go (fresh17: seven spellings of
    five job types, a grouping of them all)."""
    task = task_text(question)
    missed = [
        (a, v, n)
        for a, v, at in stated_aliases(task)
        if (n := _missed(question, task, code, a, v, at))
    ]
    if not missed:
        return _only_alias(question, task, code)
    alias, value, name = missed[0]
    found = column_read(question, code.splitlines(), name)
    at_line, frame = found if found is not None else (-1, "df")
    column = f"{frame}[{name!r}]"
    folded = f"{column}.str.strip().str.lower().str.replace(r'[\\s_-]+', '', regex=True)"
    values = dict.fromkeys(v for _a, v, n in missed if n == name)
    made = []
    for each in values:  # (its case and spacings too)
        spellings = [*dict.fromkeys(squeeze(a) for a, v, n in missed if (v, n) == (each, name))]
        made.append(
            f"{column} = {column}.mask({folded}.isin({[*spellings, squeeze(each)]!r}), {each!r})"
        )
    more = len(missed) - 1
    others = f" (and {more} more spelling{'s' * (more > 1)} the question names)" * bool(more)
    return problem_of(
        f"The question says {alias!r} is {value} too{others}, and your code never names "
        f"{alias!r}: its rows count apart from {value}. Make them one first (compare the "
        f"text with its case and spaces taken out), e.g. {'; '.join(made)}; run your code "
        "again, print the result, then answer.",
        insert_after(code, at_line, "\n".join(made)) if found is not None else None,
    )


def _alias_column(question: str, task: str, alias: str, value: str, at: int) -> str | None:
    """The column a spelling said at ``at`` belongs to: named in its sentence, else the one
    holding the spelling or the value (case and spaces aside), or None."""
    return (
        _column_said(task, at, note_columns(question))
        or column_of_value(question, alias, fold=True)
        or column_of_value(question, value, fold=True)
    )


def _missed(question: str, task: str, code: str, alias: str, value: str, at: int) -> str | None:
    """The column of a spelling ``alias`` of ``value`` the code uses without naming it
    (while it asks for that value, or for every value of the column), or None."""
    low = code.lower()
    name = _alias_column(question, task, alias, value, at)
    if name is None or not uses_column(code, name) or alias.strip().lower() in low:
        return None
    if squeeze(alias) in re.sub(r"[\s_-]+", "", low) and not _unsqueezed(alias, low):
        return None
    column = rf"{column_ref(name)}[^\n]*?\.str\.(?:startswith|endswith|contains|match)\("
    if re.search(column, code) or not _asks_for(code, name, value):
        return None  # (matched its own way, or the value is not what the code asks for)
    return name


def _unsqueezed(alias: str, low: str) -> bool:
    """Whether ``low`` (code, lower case) compares text with ``alias`` written without its
    spaces (``== 'creditcard'``) on lines that never take the spaces out: nothing matches
    (fresh16: ``.str.strip().str.lower() == 'creditcard'`` left 'Credit card' apart)."""
    squeezed = squeeze(alias)
    if squeezed == alias.strip().lower():
        return False  # (no inner spaces to take out)
    lines = [ln for ln in low.splitlines() if re.search(rf"['\"]{re.escape(squeezed)}['\"]", ln)]
    spaces = r"replace\(\s*r?(['\"])(?:\[\\s[^'\"\]]*\]\+?|\\s\+?| )\1"
    return bool(lines) and not any(re.search(spaces, ln) for ln in lines)


def _only_alias(question: str, task: str, code: str) -> Problem | None:
    """Code comparing a column with the other spelling alone (fresh17: ``== 'vw'`` for
    Volkswagen jobs, 34 of 132): the rows written as the value itself count apart. The code
    tests the squeezed text against both spellings instead."""
    quoted = {squeeze(a or b) for a, b in re.findall(r"'([^'\n]*)'|\"([^\"\n]*)\"", code)}
    for alias, value, at in stated_aliases(task):
        name = _alias_column(question, task, alias, value, at)
        if name is None or not uses_column(code, name) or squeeze(value) in quoted:
            continue
        test = rf"(?:==|!=|isin\(\[)\s*['\"]\s*{re.escape(alias.strip())}\s*['\"]"
        if re.search(rf"{column_ref(name)}[^\n]*?{test}", code, re.I):
            return problem_of(
                f"The question says {alias!r} is {value} too, and your code compares {name!r} "
                f"with {alias!r} alone: the rows written {value!r} count apart. Compare with "
                f"both on the folded text (case and spaces taken out), e.g. df[{name!r}]"
                f"{SQUEEZE_FOLD}.isin({[squeeze(alias), squeeze(value)]!r}); run your code "
                "again, print the result, then answer.",
                with_alias(code, name, alias, value),
            )
    return None
