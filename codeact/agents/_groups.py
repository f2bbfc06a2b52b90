"""Rules on grouping (see ``_rules``): the asked period, the asked groups, and aggregates of
separate columns multiplied where the question asks for the aggregate of a per-row product."""

from __future__ import annotations

import re

from codeact.agents._notecols import (
    named_number_columns,
    note_column_kinds,
    note_columns,
    task_text,
)
from codeact.agents._problem import problem_of

_ASKING = r"\b(?:per|each|by|every|which|what)\s+(?:\w+\s+)?"
_UNITS = {
    "month": (
        _ASKING + r"month\b|\bmonthly\b",
        r"month|to_period\(\s*['\"]M|resample\(\s*['\"]M|%m|freq=['\"]M|str\[:7\]|\[5:7\]",
    ),
    "year": (
        _ASKING + r"year\b|\byearly\b",
        r"year|to_period\(\s*['\"]Y|resample\(\s*['\"][YA]|%Y|str\[:4\]|\[:4\]",
    ),
    "week": (
        _ASKING + r"week\b|\bweekly\b",
        r"week|isocalendar|resample\(\s*['\"]W|to_period\(\s*['\"]W",
    ),
}
_GROUPING = re.compile(r"groupby|resample|pivot|value_counts|Grouper")


def period_problem(question: str, code: str) -> str | None:
    """The asked period when the code groups but never by it: no grouping line computes on
    the unit (``dt.month``, ``resample('M')``) or on a name made from it (``df['month'] =
    ...dt.month``; a variable merely named ``monthly_rain`` does not count)."""
    task = task_text(question)
    if not _GROUPING.search(code):
        return None
    for unit, (asked, used) in _UNITS.items():
        said = [m for m in re.finditer(asked, task, re.I) if not _LAYOUT.search(task, 0, m.start())]
        if said and not _groups_on(code, used):  # ("one column per month" is a layout)
            accessor = "isocalendar().week" if unit == "week" else unit
            example = _period_code(question, code, accessor)
            how = f"for example: {example}" if example else "then"
            return problem_of(
                f"The question asks per {unit}, but your code never groups by {unit} (for "
                f"dates, e.g. pd.to_datetime(df['date']).dt.{accessor}). Group by {unit}, "
                f"{how}; print the result, then answer.",
                f"import pandas as pd\n{example}" if example else None,
            )
    return None


_DAY_ASKED = re.compile(_ASKING + r"day\b(?!\s+of\s+(?:the\s+)?week)|\bdaily\b", re.I)
_WITH_TIME = re.compile(r"'[\d/.-]{8,10}[ T]\d{1,2}:\d{2}")


def day_problem(question: str, code: str) -> str | None:
    """The question asks per day, and the code groups by a column the files note shows with
    times of day (``'2024-03-04 01:00'``): one group per reading, not per day."""
    if not _DAY_ASKED.search(task_text(question)):
        return None
    m = _BY_COLUMN.search(code)
    if m is None:
        return None
    key = m.group(2)[1:-1]
    kind = dict(note_column_kinds(question)).get(key, "")
    if "dates as text" not in kind or not _WITH_TIME.search(kind):
        return None
    example = _period_code(question, code, "date")
    return problem_of(
        f"The question asks per day, but your code groups by {key!r}, which holds a date and "
        f"a time (one group per reading, not per day). Group by the day, for example: "
        f"{example}; print the result, then answer.",
        f"import pandas as pd\n{example}",
    )


_BY_COLUMN = re.compile(
    r"(\w+)\.groupby\(\s*(['\"][^'\"\n]+['\"])\s*\)\s*\[\s*(['\"][^'\"\n]+['\"])\s*\]"
    r"\s*\.\s*(sum|mean|median|max|min|count|size)\(\)"
)


def _period_code(question: str, code: str, accessor: str) -> str | None:
    """The code's own ``t.groupby('date')[v].agg()`` grouped by the asked unit of that date
    column instead, then the extreme the question asks for; None without such a line."""
    m = _BY_COLUMN.search(code)
    if m is None:
        return None
    frame, key, value, agg = m.groups()
    extreme = _EXTREME.search(task_text(question))
    low = extreme is not None and extreme.group(2) is not None
    pick = "min" if low else "max"
    return (
        f"s = {frame}.groupby(pd.to_datetime({frame}[{key}]).dt.{accessor})[{value}].{agg}(); "
        f"print(s.idx{pick}(), s.{pick}())"
    )


_ASSIGNED = re.compile(r"^\s*(?:(\w+)|\w+\s*\[\s*['\"]([^'\"\n]+)['\"]\s*\])\s*=(?!=)\s*(.*)$")


def _rhs(line: str) -> str:
    m = _ASSIGNED.match(line)
    return m.group(3) if m else line


def _groups_on(code: str, used: str) -> bool:
    """Whether a grouping line of ``code`` (with up to two more lines while its parentheses
    are open) computes on ``used`` or on a name assigned from it."""
    lines = code.splitlines()
    made: set[str] = set()
    for line in lines:
        m = _ASSIGNED.match(line)
        if m and re.search(used, m.group(3), re.I):
            made.add(m.group(1) or m.group(2))
    for i, line in enumerate(lines):
        if not _GROUPING.search(line):
            continue
        rhs = _rhs(line)
        for more in lines[i + 1 : i + 3]:  # (a call split over lines: while parens are open)
            if rhs.count("(") <= rhs.count(")"):
                break
            rhs += "\n" + more
        if re.search(used, rhs, re.I):
            return True
        if any(re.search(rf"(?<!\w){re.escape(n)}(?!\w)", rhs) for n in made):
            return True
    return False


def groups_by(code: str, column: str) -> bool:
    """Whether ``code`` groups by ``column`` (a grouping call on it, its unique values, or a
    loop over them) — leniently: any grouping line naming it counts."""
    word = re.escape(column.strip())
    made_at = rf"{_MADE_AT}\s*{word}\s*\3\s*\]\s*\.\s*(?:str|map|replace)"  # (df['ship'] =
    made = [re.escape(d[2]) for d in re.finditer(made_at, code, re.M)]  # df[' Vessel'].str...)
    by_made = rf"groupby\(\s*\[?\s*(['\"])(?:{'|'.join(made)})\1" if made else "(?!)"
    # (its values counted, perhaps folded first: .str.strip().str.lower())
    counted = rf"(?<![A-Za-z]){word}['\"]?\s*\]?{_CHAIN}\s*\.\s*(?:unique|nunique|value_counts)\("
    for line in code.splitlines():
        m = _GROUPS.search(line)
        if m and re.search(rf"(?<![A-Za-z]){word}", line[m.start() :], re.I):
            return True
        if re.search(by_made, line) or re.search(counted, line, re.I):
            return True
    return False


_MADE_AT = r"^\s*\w+\[\s*(['\"])([^'\"\n]+)\1\s*\]\s*=[^=\n]*\[\s*(['\"])"  # (a new column)
_GROUPS = re.compile(r"groupby|pivot|value_counts|crosstab|Grouper|resample", re.I)
#: Folding calls chained on a column before its values are counted (``.str.strip().str.lower()``;
#: not ``.str.contains('x')``, whose counts are of True and False).
_CHAIN = r"(?:\s*\.\s*str\s*\.\s*(?:strip|lower|upper|casefold|title|replace)\([^()\n]*\))*"
#: A column that names rows rather than measures them (``Visit ID``, ``Member No``).
_IDENTIFIER = re.compile(r"(?:^|[\s_])(?:id|no|nr|number|code|key)$", re.I)
#: Words of a question comparing groups by an aggregate ("which city has the most ...");
#: without one, "which city" asks for one row's value (the best-paid employee's department).
_AGGREGATE = re.compile(
    r"\b(?:average|mean|total|sum|median|most|fewest|how many|how often|count|number of"
    r"|range|difference)\b",
    re.I,
)


#: How a file is laid out, right before "per X" ("one row per tariff", "a column per
#: month"): a description of the data, not a question comparing groups.
_LAYOUT = re.compile(  # (and where rows stand: "a subtotal row after each month")
    r"\b(?:one|a|an|single)\s+(?:rows?|lines?|records?|columns?|entr(?:y|ies)|files?)\s+$"
    r"|\b(?:rows?|lines?)\s+(?:after|before|following|below|above|at the (?:end|start) of)\s+$",
    re.I,
)


_RANGE_BEFORE = re.compile(r"(\w+)\s*(?:\bto\b|\bthrough\b|-|\u2013)\s*$")
_RANGE_AFTER = re.compile(r"\s*(?:\bto\b|\bthrough\b|-|\u2013)\s*(\w+)")


def in_column_range(task: str, start: int, end: int, columns: list[str]) -> bool:
    """``task[start:end]`` names a column as an end of a range of columns (``Jan to Dec``,
    ``Q1-Q4``) in a sentence about columns: the question describes the columns there, it
    does not ask for that one."""
    ends = [m.end() for m in re.finditer(r"[.?!:;](?:\s|$)|\n", task)]
    sentence = task[
        max((e for e in ends if e <= start), default=0) : min(
            (e for e in ends if e >= end), default=len(task)
        )
    ]
    if not re.search(r"\bcolumns?\b", sentence, re.I):
        return False  # ("the change from Jan to Dec" asks for both)
    names = {c.strip().lower() for c in columns}
    before = _RANGE_BEFORE.search(task, max(0, start - 40), start)
    after = _RANGE_AFTER.match(task, end)
    return any(m is not None and m.group(1).lower() in names for m in (before, after))


#: A question asking a count ("how many tariffs" over a file with one row per tariff).
_COUNT = re.compile(r"\b(?:how many|count|number of)\b", re.I)


_BREAKS = (". ", "? ", "! ", "; ", ": ", "\n")


def describes_other(task: str, start: int, name: str, columns: list[str]) -> bool:
    """``task[start:]`` lies in a sentence describing another column ("Fine is in euros
    and empty for books not yet returned", "The 'Loan Date ' column (...) is the day it was
    lent and RETURN DATE the day it came back" do not ask for the others), or is the subject
    of one ("started_at and ended_at are Unix timestamps")."""
    left = max((i + len(b) for b in _BREAKS if (i := task.rfind(b, 0, start)) >= 0), default=0)
    head = task[left:start]
    names = "|".join(re.escape(c.strip()) for c in sorted(columns, key=len, reverse=True))
    subject = re.match(
        rf"(?:(?:the )?(?:{names})(?:\s*,\s*|\s+and\s+)?)+\s+(?:is|are|holds?|has|have)\b",
        task[left:],
        re.I,
    )
    if names and subject:  # ("started_at and ended_at are Unix timestamps", "Club is the
        return True  # club the visit was at": the clause describes, it does not ask)
    return any(
        c.strip() != name.strip()
        and re.match(
            rf"(?:the )?'?{re.escape(c.strip())}\s*'?(?: column)?(?: \([^)]*\))?\s+(?:is|are|holds"
            r"|has|contains)\b",
            head,
            re.I,
        )
        for c in columns
    )


def row_key(task: str, name: str) -> bool:
    """The question asks a count and says the file has one row per value of column ``name``
    ("one row per tariff" for ``Tariff``): counting its rows counts those values."""
    word = re.escape(name.strip())
    return _COUNT.search(task) is not None and any(
        _LAYOUT.search(task, 0, m.start())
        for m in re.finditer(rf"\b(?:each|per|every|for each)\s+(?:\w+\s+)?{word}\b", task, re.I)
    )


def asked_groups(question: str) -> str | None:
    """The category column whose groups the question compares (``per station``, ``each
    department``, ``which city`` with an aggregate such as "average" or "most"), if any."""
    task = task_text(question)
    for name in note_columns(question, categories=True):
        word = re.escape(name.strip())
        per = any(
            not _LAYOUT.search(task, 0, m.start())
            for m in re.finditer(rf"\b(?:each|per|every)\s+{word}\b", task, re.I)
        )
        which = re.search(rf"\bwhich\s+{word}\b", task, re.I) and _AGGREGATE.search(task)
        if per or which:
            return name
    return None


_AGG_WORDS = (
    (r"range|difference", "agg(lambda x: x.max() - x.min())"),
    (r"average|mean", "mean()"),
    (r"median", "median()"),
    (r"how often|most often|how many times", "size() "),  # counting rows, even with a value
    (r"how many|count|number of", "size()"),
    (r"total|sum|most|fewest", "sum()"),
)
_EXTREME = re.compile(
    r"\b(?:(highest|largest|most|best|max\w*|greatest|biggest|top|oldest)"
    r"|(lowest|smallest|fewest|(?<!at )least|min\w*|youngest))\b",
    re.I,
)


def group_code(question: str, group: str, value: str | None = None) -> str:
    """Concrete code for the asked comparison: ``df.groupby(group)[value].agg()`` with the
    aggregate the question's words name, then the extreme group it asks for."""
    task = task_text(question)
    if value is None:
        named = [
            n
            for n in note_columns(question, numeric=True)
            if n != group
            and not _IDENTIFIER.search(n.strip())
            and re.search(rf"(?<!\w){re.escape(n.strip())}(?!\w)", task, re.I)
        ]
        value = named[0] if named else _abbreviated(question, task, group)
    agg = next((a for w, a in _AGG_WORDS if re.search(rf"\b(?:{w})\b", task, re.I)), "mean()")
    if agg == "size()" and value is not None:  # "the most units, and how many?"
        agg = "sum()"
    key = _folded_key(question, group)
    if agg.startswith("size()"):
        series = f"df.groupby({key}).size()"
    else:
        series = f"df.groupby({key})[{value if value else 'COLUMN'!r}].{agg}"
    m = _EXTREME.search(task)
    low = m is not None and m.group(2) is not None
    return f"s = {series}; print(s.idx{'min' if low else 'max'}(), s.{'min' if low else 'max'}())"


def _folded_key(question: str, group: str) -> str:
    """What to group ``group`` by: the folded text when the files note says its values are
    written several ways (``df['Activity'].str.strip().str.lower()``), else its name."""
    kind = dict(note_column_kinds(question)).get(group, "")
    m = re.search(rf"compare (df\[{re.escape(repr(group))}\](?:\.str\.\w+\([^()]*\))+) ==", kind)
    return m.group(1) if m else repr(group)


def _abbreviated(question: str, task: str, group: str) -> str | None:
    """The one number column whose name starts a word of the question (``temp_c`` for
    "temperature"), if exactly one does."""
    found = []
    for name in note_columns(question, numeric=True):
        head = re.split(r"[_\s]+", name.strip().lower())[0]
        if _IDENTIFIER.search(name.strip()) or name == group or len(head) < 3:
            continue
        if re.search(rf"\b{re.escape(head)}", task, re.I):
            found.append(name)
    return found[0] if len(found) == 1 else None


def group_problem(question: str, code: str) -> str | None:
    """The question compares the groups of a column and no code groups by it (one overall
    mean, a mode, one group picked by hand and grouped by date). Only text columns of a few
    distinct values are groups."""
    group = asked_groups(question)
    if group is None or groups_by(code, group):
        return None
    example = group_code(question, group)
    other = " (it groups by something else)" if _GROUPS.search(code) else ""
    return problem_of(
        f"The question compares the {group.strip()} groups, but your code never groups by "
        f"{group!r}{other}. Group by it, for example: {example} (with the column and "
        "aggregate the question asks for), then answer.",
        example,
    )


_AGG_OF = (
    r"\w+(?:\[[^\]\n]*\])?\.groupby\(([^()\n]*(?:\([^()\n]*\))?[^()\n]*)\)"
    r"\s*\[\s*(['\"][^'\"\n]+['\"])\s*\]\s*\.\s*(?:sum|mean|median)\(\)"
)
_PRODUCT = re.compile(rf"{_AGG_OF}[^\n]*?[*/][^\n]*?{_AGG_OF}")


def product_problem(question: str, code: str) -> str | None:
    """Aggregates of separate columns multiplied (``g['units'].sum() * g['price'].mean()``):
    not the aggregate of the per-row product the question means (revenue per month). The
    example computes the per-row value first, then aggregates it per group."""
    for line in code.splitlines():
        m = _PRODUCT.search(line)
        if m is None:
            continue
        per_row = re.sub(_AGG_OF, lambda a: f"df[{a.group(2)}]", _rhs(line)).strip()
        key = m.group(1).strip()
        simple = re.fullmatch(r"['\"]([^'\"]+)['\"]", key)
        grouped = (
            group_code(question, simple.group(1), "value")
            if simple
            else f"s = df.groupby({key})['value'].sum(); print(s.idxmax(), s.max())"
        )
        if not re.search(r"\b(?:average|mean)\b", task_text(question), re.I):
            grouped = grouped.replace("['value'].mean()", "['value'].sum()")  # (a total)
        example = f"df['value'] = {per_row}; {grouped}"
        return problem_of(
            "Your code multiplies aggregates of separate columns, which is not the total of "
            "the per-row values. Compute the per-row value first, then aggregate it per "
            f"group, for example: {example}. Print the result, then answer.",
            example if "df[" in per_row else None,
        )
    return None


def label_extreme_problem(question: str, code: str) -> str | None:
    """The question asks which row has the lowest or highest value, and the code takes the
    min or max of a text column (``df['Tariff'].min()``: the first name in alphabetical
    order): the label of the row where the number column is extreme is wanted."""
    m = _EXTREME.search(task_text(question))
    if m is None:
        return None
    low = m.group(2) is not None
    for name, kind in note_column_kinds(question):
        if not kind.startswith("text") or re.search(r"date|time|number", kind):
            continue
        quoted = re.escape(name)
        took = re.search(
            rf"(\w+)(?:\[(?:[^\[\]\n]|\[[^\[\]\n]*\])*\])*\s*\[\s*(['\"]){quoted}\2\s*\]"
            r"\s*\.\s*(min|max)\(\s*\)",
            code,
        )
        picked = took.group(0)[: took.start(3) - took.start()] if took else ""
        if took is None or re.search(r"\.\s*(?:idx)?(?:min|max)\(|nsmallest|nlargest", picked):
            continue  # (rows picked at the extreme first: the label of a tie, as meant)
        numbers = _asked_numbers(question)
        frame = took.group(1)
        value = numbers[0] if len(numbers) == 1 else "COLUMN"
        example = f"print({frame}.loc[{frame}[{value!r}].idx{'min' if low else 'max'}(), {name!r}])"
        return problem_of(
            f"Your code takes .{took.group(3)}() of {name!r}, which holds text: that is the first "
            f"or last name in alphabetical order, not the one whose value is "
            f"{'lowest' if low else 'highest'}. Take the label of the row where the number is "
            f"extreme, for example: {example}; then answer.",
            example if value != "COLUMN" else None,
        )
    return None


def _asked_numbers(question: str) -> list[str]:
    """The number columns the question names other than as the ends of a range of columns
    ("Jan to Dec"); those it calls a column ("the Jul column") when there are several."""
    task = task_text(question)
    columns = note_columns(question)
    named = []
    for name in named_number_columns(question):
        spots = list(re.finditer(rf"(?<![\w'\"]){re.escape(name.strip())}(?![\w'\"])", task))
        if not spots or any(not in_column_range(task, m.start(), m.end(), columns) for m in spots):
            named.append(name)
    called = [n for n in named if re.search(rf"\b{re.escape(n.strip())}\s+column\b", task)]
    return called if len(named) > 1 and called else named
