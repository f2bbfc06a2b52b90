"""Rules on the answer's sense (see ``_rules``): a share outside 0 to 100 %, a share asked for
and only counted, "more than k standard deviations from the mean" counted on one side only,
and a value given for a text column that is none of the column's values (a date as the
city)."""

from __future__ import annotations

import re

from codeact.agents._groups import asked_groups, group_code
from codeact.agents._monthfix import month_sum_code
from codeact.agents._notecols import (
    named_number_columns,
    note_column_kinds,
    note_columns,
    task_text,
)
from codeact.agents._placeholders import TOKEN
from codeact.agents._problem import Problem, problem_of
from codeact.agents._trace import as_decimal, garbled

_SHARE = re.compile(r"\b(?:share|percent(?:age)?|proportion|fraction)\b|%", re.I)
_DEVIATIONS = re.compile(
    r"(\d+(?:\.\d+)?)\s+(?:standard deviations?|std|sigmas?)\s+(?:away\s+)?from\s+the\s+mean",
    re.I,
)
_ONE_SIDE = re.compile(r"\b(?:above|below|higher|lower|greater|less|over|under)\b", re.I)
_BOTH_SIDES = re.compile(r"\babs\b|\.abs\(|\||\bnot\b.*between|~\s*\w+.*between", re.S)


def asked_text(question: str) -> str:
    """What the question asks, without its constraints when it labels them (``Question: ...
    Constraints: ...``): "discount is a fraction (15% off)" there says how to compute, it
    does not ask for a share."""
    task = task_text(question)
    head, said, _ = task.partition("Constraints:")
    return head if said and "Question:" in head else task


def share_problem(question: str, answer: str, code: str = "") -> Problem | None:
    """The question asks for a share (a percentage, a proportion) and a value of the answer
    is above 100 or below 0: the numerator is not a part of the denominator (a total of
    another quantity, say units, divides a revenue). When the code computes the part on rows
    selected from a table (``west = orders[orders[...] == 'West']``), the example computes
    the total the same way on the whole table."""
    if not _SHARE.search(asked_text(question)):
        return None
    for name, value in TOKEN.findall(answer):
        number = as_decimal(value.strip().rstrip("%"))
        if number is not None and (number > 100 or number < 0):
            example = _share_code(code)
            how = (
                f"for example: {example}"
                if example
                else "for example part = (sub['a'] * sub['b']).sum() and total = "
                "(df['a'] * df['b']).sum(), then part / total * 100"
            )
            return problem_of(
                f"@{name}[{value.strip()}] cannot be a share: a share is between 0 and 100 % "
                "(or 0 and 1). The part and the total must be the same quantity computed the "
                f"same way, {how}. Print the result, then answer.",
                example,
            )
    return None


_SUBSET = re.compile(r"^\s*(\w+)\s*=\s*(\w+)\s*\[\s*\2\s*[\[.]", re.M)


def _share_code(code: str) -> str | None:
    """``part = <the aggregate the code computed on the selected rows>; total = <the same
    on the whole table>; print(part / total * 100)``, or None."""
    for m in _SUBSET.finditer(code):
        sub, base = m.group(1), m.group(2)
        for line in reversed(code.splitlines()):  # (the latest: a later cell fixed it)
            a = re.match(rf"^\s*\w+\s*=\s*(.*\b{sub}\b.*\.(?:sum|count|size)\(\).*)$", line)
            if a is None or "==" in a.group(1):
                continue
            part = a.group(1).strip()
            total = re.sub(rf"\b{sub}\b", base, part)
            return f"part = {part}; total = {total}; print(part / total * 100)"
    return None


def _compared_columns(question: str, code: str) -> list[str]:
    """The files note's number columns the code compares with ``<`` or ``>`` (named as the
    note does, spaces and case aside: ``df['WINDSPEED'] > t`` for ``' WINDSPEED'``)."""
    compared = {
        q.strip().lower()
        for line in code.splitlines()
        if re.search(r"[<>]", line)
        for q in re.findall(r"\[\s*['\"]([^'\"\n]+)['\"]\s*\]", line)
    }
    return [n for n in note_columns(question, numeric=True) if n.strip().lower() in compared]


_DISTINCT = re.compile(
    r"text, (?:\d+ missing(?: \((?:[^()]|\(\))*\))?, )?(\d+) distinct values, e\.g\. (.*)"
)


def garbled_problem(answer: str) -> str | None:
    """An answer value no number or label looks like (see ``garbled``): text digits joined by
    ``.sum()``, a piece of a printed Series."""
    for name, value in TOKEN.findall(answer):
        why = garbled(value)
        if why is not None:
            shown = value.strip() if len(value.strip()) <= 40 else value.strip()[:37] + "..."
            return f"@{name}[{shown}] {why}; print the result, then answer."
    return None


def value_problem(question: str, answer: str, code: str = "") -> Problem | None:
    """A placeholder named after a text column whose values the files note lists in full
    (``'city': text, 3 distinct values, e.g. 'Lyon', 'Porto', 'Graz'``) holds none of them
    (``@city[2023-01-01]``); the example compares the groups when the question does. ``code``:
    the cells that computed the answer (the month note's runnable code comes from them)."""
    given = TOKEN.findall(answer)
    asks = re.search(r"\b(?:which|what)\s+(?:\w+\s+)?month\b", task_text(question), re.I)
    if asks and (month := _no_month(given, code)):
        return month  # ("In which month ...": @month[710] is a row's label)
    for column, kind in note_column_kinds(question):
        m = _DISTINCT.match(kind)
        if m is None:
            continue
        values = re.findall(r"'([^'\n]*)'", m.group(2))
        if len(values) != int(m.group(1)):
            continue  # (only some values listed: another may be right)
        word = column.strip().lower()
        known = {v.lower() for v in values}
        for name, value in given:
            last = name.lower().split("_")[-1]  # (``best_city``, not ``city_sales``)
            if last not in (word, f"{word}s") and last.rstrip("s") != word:
                continue
            said = [p.strip().strip("'\"").lower() for p in value.split(",")]
            if all(p in known for p in said if p):
                continue
            group = asked_groups(question)
            example = group_code(question, group) if group == column else None
            listed = ", ".join(repr(v) for v in values)
            then = f" Compute it, for example: {example}." if example else ""
            return problem_of(
                f"@{name}[{value.strip()}] is not a {column.strip()}: the column {column!r} "
                f"holds {listed}.{then} Print the result, then answer.",
                example,
            )
    return None


def _no_month(given: list[tuple[str, str]], code: str) -> Problem | None:
    """A placeholder named a month (``@month[...]``, ``@best_month[...]``) holding a whole
    number that is no month (ord_best_month: ``@month[710]``, the label of the row with the
    largest revenue, ``idxmax`` of per-row values never grouped by month); the example adds
    up the code's own Series by its own month when the code shows both."""
    for name, value in given:
        number = value.strip()
        if name.lower().split("_")[-1] != "month" or not re.fullmatch(r"\d{1,4}", number):
            continue
        if not 1 <= int(number) <= 12:
            own = month_sum_code(code)
            example = (
                own.replace("\n", "; ")
                if own
                else "s = df.groupby(df['<date column>'].dt.month)['<value>'].sum(); "
                "print(s.idxmax(), s.max())"
            )
            return problem_of(
                f"@{name}[{number}] is no month (1 to 12, or its name): it looks like the label "
                "of one row, as idxmax of values per row gives. Add the values up per month "
                f"first ({example}); print the result, then answer.",
                own,
            )
    return None


def deviation_problem(question: str, code: str) -> Problem | None:
    """ "More than k standard deviations from the mean" counts both sides of the mean; code
    comparing one side only (no ``abs``) undercounts."""
    task = task_text(question)
    m = _DEVIATIONS.search(task)
    if m is None or _ONE_SIDE.search(task[max(0, m.start() - 40) : m.end()]):
        return None
    if "std" not in code or _BOTH_SIDES.search(code):
        return None
    if not re.search(r"[<>]", code):
        return None
    k = m.group(1)
    columns = named_number_columns(question) or _compared_columns(question, code)
    column = columns[0] if columns else None
    example = (
        f"s = df[{column!r}]; print(((s - s.mean()).abs() > {k} * s.std()).sum())"
        if column
        else None
    )
    return problem_of(
        f"More than {k} standard deviations from the mean counts both sides of the mean: "
        f"compare the distance, for example ((s - s.mean()).abs() > {k} * s.std()).sum(), "
        "not only values above it. Print the result, then answer.",
        example,
    )


_GROUP_TABLE = re.compile(
    r"^[ \t]*(\w+)\s*=\s*(\w+)\.groupby\(([^()\n]+)\)\s*\[\s*(['\"][^'\"\n]+['\"])\s*\]"
    r"\s*\.\s*(mean|median|max|min|sum|first)\(\)",
    re.M,
)


def fill_problem(question: str, code: str) -> Problem | None:
    """Missing values filled from a per-group table (``m = df.groupby('dept')['rating']
    .median()`` then ``df['rating'].fillna(m)``): its index is the groups, not the rows, so
    the values do not line up; ``transform`` gives one value per row."""
    for m in _GROUP_TABLE.finditer(code):
        name, frame, key, column, agg = m.groups()
        use = re.search(rf"^([ \t]*).*\.fillna\(\s*{re.escape(name)}\b.*$", code, re.M)
        if use is None:
            continue
        target = f"{frame}[{column}]"
        fixed = f"{target} = {target}.fillna({frame}.groupby({key})[{column}].transform('{agg}'))"
        return problem_of(
            f"{use.group(0).strip()} fills with {name}, a table with one row per group: its "
            "index is the groups, not the rows, so the values do not line up (they stay "
            f"missing or land on the wrong rows). Fill each row with its group's value: "
            f"{fixed}; print the result, then answer.",
            code.replace(use.group(0), use.group(1) + fixed, 1),
        )
    return None


_SHARE_OF = re.compile(
    r"\b(?:share|percent(?:age)?|proportion|fraction)\s+of\b|\bwhat\s+percent|\b(\w+)\s+rate\b",
    re.I,
)
_DIVIDES = re.compile(r"/|\.mean\(|normalize|\.div\(|divide|truediv|average|pct_change|\.rank\(")
_EQUALS = re.compile(
    r"\b(\w+)\s*\[\s*(['\"])([^'\"\n]+)\2\s*\]\s*==\s*(['\"][^'\"\n]*['\"]|-?\d+(?:\.\d+)?)"
)
_PERCENT = re.compile(r"\bpercent(?:age)?\b|%", re.I)


def rate_problem(question: str, answer: str, code: str) -> Problem | None:
    """The question asks for a share or a rate (``share of employees working remotely``,
    ``cancellation rate``) and no successful cell divided anything (no ``/``, ``mean()``,
    ``normalize=True``) and a value of the answer is a whole number: what was computed is a
    count, not a share. The example divides the
    code's own condition by its rows (``(df['remote'] == 'Yes').mean() * 100``), per group
    when the question compares groups."""
    task = task_text(question)
    m = _SHARE_OF.search(asked_text(question))
    if m is None or _DIVIDES.search(code):
        return None
    if not any(re.fullmatch(r"\s*-?\d+\s*", value) for _, value in TOKEN.findall(answer)):
        return None  # (a count is a whole number: a share computed elsewhere is not)
    word = m.group(1)
    if word and any(word.lower() in c.lower() for c in note_columns(question)):
        return None  # ("heart rate", "exchange rate": a column's name, not a share)
    scale = " * 100" if _PERCENT.search(task) else ""
    cond = _EQUALS.search(code)
    example = None
    if cond is not None:
        frame, _, column, value = cond.groups()
        share = f"({frame}[{column!r}] == {value})"
        group = next(
            (
                n
                for n in note_columns(question, categories=True)
                if re.search(rf"\b(?:which|each|per|every)\s+{re.escape(n.strip())}\b", task, re.I)
            ),
            None,
        )  # (a share is an aggregate: "which department has the highest share")
        if group is None:
            example = f"print({share}.mean(){scale})"
        else:
            low = re.search(r"\b(?:lowest|smallest|least|fewest|min\w*)\b", task, re.I)
            pick = "min" if low else "max"
            example = (
                f"s = {share}.groupby({frame}[{group!r}]).mean(){scale}; "
                f"print(s.idx{pick}(), s.{pick}())"
            )
    how = example or "the number of matching rows divided by the number of all rows"
    percent = " (times 100 for a percentage)" if scale else ""
    return problem_of(
        "The question asks for a share (a rate), but no cell divided anything: a count is not "
        f"a share. Divide the matching rows by all the rows they are a share of{percent}, for "
        f"example {how}; print the result, then answer.",
        example,
    )


#: A duration as pandas prints it (``15 days 06:11:36.774193``).
_PRINTED_DURATION = re.compile(r"(-?\d+) days?,? (\d{1,2}):(\d{2}):(\d{2}(?:\.\d+)?)")


def duration_problem_answer(answer: str, outputs: str) -> str | None:
    """An answer giving the whole days of a duration a cell printed with hours in it
    (``@mean_days[15.00]`` for ``15 days 06:11:36``, 15.26 days): the hours were dropped."""
    durations: list[tuple[str, float]] = []
    for m in _PRINTED_DURATION.finditer(outputs):
        whole = int(m.group(1))
        extra = (int(m.group(2)) * 3600 + int(m.group(3)) * 60 + float(m.group(4))) / 86400
        durations.append((m.group(0), whole + (extra if whole >= 0 else -extra)))
    for name, value in TOKEN.findall(answer):
        try:
            given = float(value.strip())
        except ValueError:
            continue
        for shown, days in durations:
            if abs(days - round(days)) >= 0.01 and given == int(days) and abs(given - days) > 0.005:
                return (
                    f"Your code printed the duration {shown}, which is {days:.4f} days, and "
                    f"@{name}[{value.strip()}] keeps only its whole days. Print it in days "
                    "(duration / pd.Timedelta(days=1), or .dt.total_seconds() / 86400 per row), "
                    "round as asked, then answer."
                )
    return None


_INPLACE = re.compile(
    r"(?P<target>\b[A-Za-z_]\w*\s*\[\s*(?P<q>['\"])[^'\"\n]+(?P=q)\s*\])\s*\.\s*"
    r"(?P<method>fillna|replace|interpolate|clip|ffill|bfill)\((?P<args>[^()\n]*"
    r"(?:\([^()\n]*\)[^()\n]*)*?),?\s*inplace\s*=\s*True\s*\)"
)


def _assigned(m: re.Match[str]) -> str:
    """The in-place call ``m`` as an assignment (``df['age'] = df['age'].fillna(v)``)."""
    target, method = m.group("target"), m.group("method")
    args = m.group("args").strip().rstrip(",").strip()
    return f"{target} = {target}.{method}({args})"


def without_inplace(code: str) -> str:
    """``code`` with every in-place call on a column made an assignment."""
    return _INPLACE.sub(_assigned, code)


def inplace_problem(cells_code: list[str]) -> str | None:
    """``df['age'].fillna(v, inplace=True)``: under pandas' copy-on-write (pandas 3) it
    changes a copy, so the table keeps its missing values; the example is the last such
    cell with ``df['age'] = df['age'].fillna(v)``."""
    for code in reversed(cells_code):
        m = _INPLACE.search(code)
        if m is None:
            continue
        fixed = _assigned(m)
        return problem_of(
            f"{m.group(0)} changes a copy in pandas 3 (copy-on-write), not the table: the "
            f"values are unchanged. Write {fixed} instead, print the result, then answer.",
            code.replace(m.group(0), fixed, 1),
        )
    return None


_SPREAD_TOKEN = re.compile(r"@(\w+)\[[^\]]*\n[^\]]*dtype: \w+\]?")


def series_problem(question: str, outputs: str) -> str | None:
    """A placeholder the code printed holding a whole Series (``@share[10  49.7\n21 ...
    Length: 180, dtype: float64]``): an aggregation applied to the wrong part, or one row
    per group where the question compares the groups (then the example picks the one)."""
    m = _SPREAD_TOKEN.search(outputs)
    if m is None:
        return None
    group = asked_groups(question)
    if group is not None:
        example = group_code(question, group)
        return problem_of(
            f"Your code printed a whole column of values as @{m.group(1)}[...], not one value: "
            f"one row per {group.strip()} group. Aggregate per group, then take the one group "
            f"the question asks for, for example: {example}. Print it, then answer.",
            example,
        )
    return (
        f"Your code printed a whole column of values as @{m.group(1)}[...], not one value: "
        "an aggregation such as .sum() or .mean() applies to only part of the expression. "
        "Put parentheses around the whole per-row expression before aggregating, e.g. "
        "(a * b * (1 - c)).sum(), print the one value, then answer."
    )
