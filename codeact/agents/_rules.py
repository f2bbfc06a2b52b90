"""Cheap checks of the computation against the question, before an answer is accepted.

No model call: each rule reads the question and the code of the turn's successful cells.

- **period**: the question asks per month (year, week) and the code groups or resamples, but
  never by that unit (grouping by day instead of month).
- **filters**: a value the question quotes (``'faulty'``), a threshold it names ("more than
  90000", "before 2000") or a value of a text column the files note lists ("in HR") appears
  nowhere in the code.
- **columns**: a column of the files note that the question names as a word appears nowhere
  in the code.
- **groups**: the question compares the groups of a column (``which city``, ``per station``)
  and no code groups.
- **one value**: a placeholder the code printed holds a whole Series (``.sum()`` applied to
  only part of a per-row expression).
- **missing values**: the question asks to fill missing values and no code fills them; or the
  answer is ``nan`` although the question says to skip missing values.
- **inplace**: ``df['age'].fillna(v, inplace=True)`` changes a copy under pandas 3.
- **text numbers**: a column of numbers stored as text used without converting it.
- **products**: aggregates of separate columns multiplied (``_groups.py``).
- **deviations**: "k standard deviations from the mean" compared on one side (``_checks.py``).
- **shares**: a share answered above 100 % or below 0 (``_checks.py``).
- **values**: a text column's placeholder holding none of its values (``_checks.py``).
- **stale values**: the answer's values come only from cells whose code breaks a rule while a
  cell whose code breaks none printed other values for every asked name (``_stale.py``).

Rounding to the asked decimals is done by ``traced_validator`` (it re-rounds the printed
number). Each rule sends the model back at most once per run, with a precise note; a
model whose code is right can answer again unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence

from codeact.agents._aliases import alias_problem
from codeact.agents._boolcol import bool_column_problem
from codeact.agents._booltext import bool_text_problem, folded_text_problem
from codeact.agents._candidate import AnswerCandidate, CellRun
from codeact.agents._category import category_problem, other_value_problem
from codeact.agents._checks import (
    deviation_problem,
    duration_problem_answer,
    fill_problem,
    garbled_problem,
    inplace_problem,
    rate_problem,
    series_problem,
    share_problem,
    value_problem,
)
from codeact.agents._clockmins import hours_problem, one_way_problem
from codeact.agents._codeforms import code_forms_problem
from codeact.agents._colwords import NOT_ASKED, named_aside
from codeact.agents._datarules import (
    DATA_RULES,
    case_problem,
    decimal_point_problem,
    dedup_problem,
    duration_problem,
    marker_problem,
    subset_problem,
    text_number_problem,
    yes_no_problem,
)
from codeact.agents._datetext import (
    clock_text_problem,
    date_text_problem,
    strftime_problem,
    year_problem,
)
from codeact.agents._durationfix import date_of_problem
from codeact.agents._extractmiss import extract_miss_problem
from codeact.agents._extrafilters import extra_filter_problem
from codeact.agents._filldrop import filled_count_problem, filled_dropped_problem
from codeact.agents._filters import filter_problem
from codeact.agents._fiscal import fiscal_quarter_problem
from codeact.agents._groups import (
    asked_groups,
    day_problem,
    describes_other,
    group_code,
    group_problem,
    in_column_range,
    label_extreme_problem,
    period_problem,
    product_problem,
    row_key,
)
from codeact.agents._joinfix import join_case_problem
from codeact.agents._leftout import left_out
from codeact.agents._mixedunits import mixed_units_problem
from codeact.agents._nomarks import marked_missing_problem
from codeact.agents._notecols import (
    column_of_value,
    in_column_list,
    note_column_kinds,
    note_columns,
    past_conversions,
    task_text,
    uses_column,
)
from codeact.agents._otherframe import other_frame_problem
from codeact.agents._pctfix import fraction_problem
from codeact.agents._placeholders import TOKEN
from codeact.agents._pmtimes import pm_problem
from codeact.agents._precedence import precedence_problem
from codeact.agents._problem import Problem, first_time, problem_of
from codeact.agents._readfix import title_problem, unit_problem
from codeact.agents._rowrules import row_rules
from codeact.agents._signs import sign_problem
from codeact.agents._sortlabel import sort_label_problem
from codeact.agents._stale import settled_answer, stale_problem, stale_values_note
from codeact.agents._textdates import text_date_problem
from codeact.agents._textnumfix import empty_zero_problem, gaps_filled_problem
from codeact.agents._unusedcols import without_unused_conversions
from codeact.agents._zeros import zeros_problem

_FILL = re.compile(r"\bfill(?:ing|ed)?\b.{0,60}\bmissing\b|\bmissing\b.{0,60}\bfill", re.I)
_SKIP = re.compile(r"\b(?:skip|ignore|drop|exclude)\w*\b.{0,40}\bmissing\b|\bknown\b", re.I)


#: The start of a sentence saying what a row is ("Every row of deliveries.csv is one parcel
#: a courier's driver took out"): the words after it describe rows, not columns to use.
_ROW_SENTENCE = re.compile(r"\b(?:every|each) row\b", re.I)


#: A column of identifiers (``int64, e.g. 39003895783``, ``text, e.g. 'LN70215'``).
_IDENTIFIERS = re.compile(r"(?:int64|text), e\.g\. '?[A-Za-z]{0,4}[-_]?\d{5,}")


def column_problem(question: str, code: str, written: str = "") -> str | None:
    """A column of the files note that the question names as a word (``units``, ``unit
    price`` for ``unit_price``) and that no code uses (counting rows instead of summing
    ``units``, one overall mean instead of one per ``department``); ``written``: the code as
    written, when ``code`` leaves out conversions nothing uses."""
    task = task_text(question)
    columns = note_columns(question)
    kinds = dict(note_column_kinds(question))
    for name in columns:
        bare = name.strip()
        spoken = {bare, bare.replace("_", " ")}
        if _IDENTIFIERS.match(kinds.get(name, "")) and bare not in task:
            continue  # ("returned items" are rows, not the Item column of barcodes)
        named = any(  # (not only as the column of a row the question leaves out, or as an
            # end of a range of columns: "one column per month, Jan to Dec")
            not left_out(task, m.start(), m.end(), code)
            and not in_column_range(task, m.start(), m.end(), columns)
            and not describes_other(task, m.start(), name, columns)
            and not named_aside(question, task, m.start(), m.end(), name)
            and not in_column_list(task, m.start(), m.end(), columns)
            and not _ROW_SENTENCE.search(re.split(r"[.?!;]\s", task[: m.start()])[-1])
            # (nor as a value of another column: "Status is Delivered", "not delivered")
            and column_of_value(question, task[m.start() : m.end()], fold=True) in (None, name)
            for w in spoken
            for m in re.finditer(rf"(?<![\w'\"]){re.escape(w)}(?![\w'\"])", task, re.I)
            if not re.search(NOT_ASKED, task[max(0, m.start() - 30) : m.start()], re.I)
        )
        used = uses_column(past_conversions(code, name), name)
        if named and not used and not row_key(task, name):
            group = asked_groups(question)
            example = (
                group_code(question, group, name)
                if group is not None
                and group != name
                and name in note_columns(question, numeric=True)
                else None
            )
            use = f"for example: {example}" if example else f"df[{name!r}]"
            only = " (it only converts it)" if uses_column(written or code, name) else ""
            return problem_of(
                f"The question is about the column {name!r}, but your code never uses it"
                f"{only}. Use it ({use}), print the result, then answer.",
                example,
            )
    return None


def missing_problem(question: str, code: str, answer: str) -> str | None:
    """Missing values the question asks to fill, or a ``nan`` answer it asks to avoid."""
    task = task_text(question)
    if _FILL.search(task) and not re.search(r"fillna|interpolate|SimpleImputer", code):
        return (
            "The question asks to fill missing values, but your code never fills them "
            "(e.g. s.fillna(s.median())). Fill them, print the result, then answer."
        )
    values = [v.strip().lower() for _, v in TOKEN.findall(answer)]
    if "nan" in values and _SKIP.search(task):
        return (
            "Your answer is nan although the question says to skip missing values: a column may "
            "hold numbers stored as text (see the files note) or be all missing after a filter. "
            "Check df.dtypes and the filter, print the result, then answer (nan again if it "
            "really is nan)."
        )
    return None


def check_rules(candidate: AnswerCandidate) -> str | None:
    """The first rule the computation breaks (each at most once per run), or None; a
    ``Problem`` carries the runnable example its note gives, if any."""
    written = "\n".join(c.code for c in candidate.ok_cells)
    code = without_unused_conversions(written)
    if not code or not candidate.cells:
        return None
    question = candidate.question

    def passes(cell_code: str) -> bool:
        return passes_rules(question, cell_code)

    stale = stale_values_note(question, candidate.text, candidate.ok_cells, passes)
    outputs = "\n".join(c.stdout for c in candidate.ok_cells)
    for rule, make in _problems(candidate, code, written, stale, outputs):
        problem = make()
        if problem is not None and first_time(rule, candidate.cells[0], problem):
            if code != written and isinstance(problem, Problem) and problem.code:
                # (the rule read the cell without conversions nothing uses; its runnable
                # code comes from the cell as written, or there is none)
                again = dict(_problems(candidate, written, written, stale, outputs))[rule]()
                problem.code = (
                    again.code if isinstance(again, Problem) and again == problem else None
                )
            return _with_code(rule, problem, candidate)
    return None


def _problems(
    candidate: AnswerCandidate,
    code: str,
    written: str,
    stale: tuple[str, str] | None,
    outputs: str,
) -> Iterator[tuple[str, Callable[[], str | None]]]:
    """Each rule's name and how to ask it of ``code`` (the cells without conversions nothing
    uses; ``written``: as written), in the order they are told."""
    question = candidate.question
    task = task_text(question)
    yield "titles", lambda: title_problem(question, code)
    yield "zeros", lambda: zeros_problem(question, code)
    yield "period", lambda: period_problem(question, code)
    yield "fiscal", lambda: fiscal_quarter_problem(question, code)
    yield "day", lambda: day_problem(question, code)
    yield "duplicates", lambda: dedup_problem(question, code)
    yield from row_rules(question, code)
    yield "marker", lambda: marker_problem(question, code)
    yield "bool column", lambda: bool_column_problem(question, code)
    yield "precedence", lambda: precedence_problem(question, code)
    yield "extra filter", lambda: extra_filter_problem(question, code, note_columns(question))
    yield "pm", lambda: pm_problem(question, code)
    yield "sign", lambda: sign_problem(question, code)
    yield "fractions", lambda: fraction_problem(question, code)
    yield "join case", lambda: join_case_problem(question, code)
    yield "other value", lambda: other_value_problem(question, code)
    yield "code forms", lambda: code_forms_problem(question, code)
    yield "aliases", lambda: alias_problem(question, code)
    yield "case", lambda: case_problem(question, code)
    yield "yes no", lambda: yes_no_problem(question, code)
    yield "bool text", lambda: bool_text_problem(question, code)
    yield "folded text", lambda: folded_text_problem(question, code)
    yield "empty zero", lambda: empty_zero_problem(question, code)
    yield "gaps filled", lambda: gaps_filled_problem(question, code)
    yield "duration", lambda: duration_problem(question, code)
    yield "one way", lambda: one_way_problem(question, code)
    yield "hours", lambda: hours_problem(question, code)
    yield "date of", lambda: date_of_problem(question, code)
    yield "subset", lambda: subset_problem(question, code)
    yield "no marks", lambda: marked_missing_problem(question, code)
    yield "filter", lambda: filter_problem(question, code)
    yield "category", lambda: category_problem(question, code)
    yield "groups", lambda: group_problem(question, code)
    yield "label extreme", lambda: label_extreme_problem(question, code)
    yield "sort label", lambda: sort_label_problem(question, code)
    yield "other frame", lambda: other_frame_problem(question, code)
    yield "column", lambda: column_problem(question, code, written)
    yield "missing", lambda: missing_problem(question, code, candidate.text)
    yield "filled copy", lambda: filled_dropped_problem(question, code, bool(_FILL.search(task)))
    yield "filled count", lambda: filled_count_problem(code)
    yield "inplace", lambda: inplace_problem([c.code for c in candidate.ok_cells])
    yield "decimal point", lambda: decimal_point_problem(question, code)
    yield "text numbers", lambda: text_number_problem(question, code)
    yield "extract", lambda: extract_miss_problem(question, code)
    yield "unit", lambda: unit_problem(question, code)
    yield "units", lambda: mixed_units_problem(question, code)
    yield "text dates", lambda: text_date_problem(question, code)
    yield "dates as text", lambda: strftime_problem(question, code)
    yield "year", lambda: year_problem(question, code)
    yield "clock text", lambda: clock_text_problem(question, code)
    yield "date text", lambda: date_text_problem(question, code)
    yield "product", lambda: product_problem(question, code)
    yield "deviation", lambda: deviation_problem(question, code)
    yield "fill", lambda: fill_problem(question, code)
    yield "share", lambda: share_problem(question, candidate.text, code)
    yield "rate", lambda: rate_problem(question, candidate.text, code)
    yield "stale", lambda: stale_problem(stale)
    yield "series", lambda: series_problem(question, outputs)
    yield "value", lambda: value_problem(question, candidate.text, written)
    yield "garbled", lambda: garbled_problem(candidate.text)
    yield "whole days", lambda: duration_problem_answer(candidate.text, outputs)


#: Rules that read code alone, asked again of the last cell alone when their note on all the
#: cells has no runnable code (a file read in two cells has no one line to fix after: the
#: fixes that insert a line after the read need the one cell that reads it).
_ALONE = {
    "duplicates": dedup_problem,
    "marker": marker_problem,
    "bool column": bool_column_problem,
    "code forms": code_forms_problem,
    "aliases": alias_problem,
    "case": case_problem,
    "yes no": yes_no_problem,
    "bool text": bool_text_problem,
    "folded text": folded_text_problem,
    "empty zero": empty_zero_problem,
    "gaps filled": gaps_filled_problem,
    "date of": date_of_problem,
    "no marks": marked_missing_problem,
    "text numbers": text_number_problem,
    "text dates": text_date_problem,
}


def _with_code(rule: str, problem: str, candidate: AnswerCandidate) -> str:
    """``problem``, with the runnable code the same rule gives for the last cell alone when
    it has none and that cell breaks the rule the same way."""
    again = _ALONE.get(rule)
    if not isinstance(problem, Problem) or problem.code or again is None:
        return problem
    alone = again(candidate.question, candidate.ok_cells[-1].code)
    if isinstance(alone, Problem) and alone.code and str(alone) == str(problem):
        problem.code = alone.code
    return problem


def passes_rules(question: str, code: str) -> bool:
    """Whether one cell's ``code`` breaks none of the rules that read code alone."""
    code = without_unused_conversions(code)
    rules = (
        period_problem,
        day_problem,
        bool_column_problem,
        precedence_problem,
        filter_problem,
        category_problem,
        other_value_problem,
        group_problem,
        label_extreme_problem,
        sort_label_problem,
        other_frame_problem,
        column_problem,
        product_problem,
        deviation_problem,
        text_date_problem,
        strftime_problem,
        year_problem,
        clock_text_problem,
        pm_problem,
        sign_problem,
        fraction_problem,
        date_text_problem,
        unit_problem,
        mixed_units_problem,
        one_way_problem,
        hours_problem,
        join_case_problem,
        code_forms_problem,
        alias_problem,
        bool_text_problem,
        folded_text_problem,
        title_problem,
        fill_problem,
        date_of_problem,
        marked_missing_problem,
        *DATA_RULES,
    )
    return all(rule(question, code) is None for rule in rules)


def settled(candidate: AnswerCandidate) -> str | None:
    """The answer with the values of the cell that computes what the question asks in place
    of stale ones (the model was told, or cannot be), or None (``_stale.py``)."""
    question = candidate.question
    return settled_answer(
        question, candidate.text, candidate.ok_cells, lambda code: passes_rules(question, code)
    )


def repeat_problem(
    question: str, cells: Sequence[CellRun], code: str, stdout: str
) -> Problem | None:
    """The rules checked when the model re-runs an earlier cell unchanged instead of
    answering (its output taken as the answer): the first broken rule as a ``Problem`` (each
    rule once per run, as at an answer), or None. A rule that reads code alone and gives
    runnable code comes first, told before or not: the re-sent cell is what it was sent back
    for, and its code is what runs."""
    if not cells:
        return None
    ran = CellRun(code=code, stdout=stdout)
    candidate = AnswerCandidate(text=stdout, question=question, cells=(*cells, ran))
    problem = check_rules(candidate)
    if not (isinstance(problem, Problem) and problem.code):
        read = without_unused_conversions(code)
        for name, rule in _ALONE.items():  # (a rule told before whose code the model never
            again = rule(question, read)  # ran: fresh17, seven job-type spellings sent back,
            if not isinstance(again, Problem) or not again.code:  # the count re-sent; once:
                continue  # a model sure of its cell is not told the same again and again)
            full = rule(question, code) if read != code else again  # (code as written)
            if not isinstance(full, Problem) or str(full) != str(again) or not full.code:
                continue
            if first_time(f"{name} re-sent", cells[0], full):
                return full
    if problem is None or isinstance(problem, Problem):
        return problem
    return problem_of(problem)
