"""A column of codes the files note says are written several ways for one code
(``'M-0042'``, ``'m-0042'``, ``'M0042'``), counted, grouped or compared as written
(``code_forms_problem``; the note's hint is ``_cellforms.code_forms``)."""

from __future__ import annotations

import re

from codeact.agents._notecols import (
    column_read,
    column_ref,
    insert_after,
    note_column_kinds,
    uses_column,
)
from codeact.agents._problem import Problem, problem_of

#: What counts, groups or compares a column's values as written.
_AS_WRITTEN = re.compile(
    r"value_counts\(|groupby\(|nunique\(|\.unique\(|\.mode\(|==|!=|\.isin\(|merge\(|pivot"
)


def code_forms_problem(question: str, code: str) -> Problem | None:
    """A column of codes the files note says are written several ways for one code
    (``'M-0042'``, ``'m-0042'``, ``'M0042'``), counted, grouped or compared as written by
    code that never takes the number out: one member's loans split three ways (fresh14:
    'M-0230' with 23 loans for member 230's 37). As code, the note's number right after
    the file is read."""
    for name, kind in note_column_kinds(question):
        if "codes written several ways" not in kind:
            continue
        lines = [ln for ln in code.splitlines() if uses_column(ln, name)]
        if not any(_AS_WRITTEN.search(ln) for ln in lines):
            continue
        if any(
            re.search(r"\.str\.(?:extract|replace|upper|lower|findall|slice)\(|\.str\[", ln)
            for ln in lines
        ):
            continue  # (the model takes the codes apart its own way)
        number = f"pd.to_numeric(df[{name!r}].str.extract(r'(\\d+)')[0])"
        found = column_read(question, code.splitlines(), name)
        fixed = None
        if found is not None and not re.search(rf"{column_ref(name)}\s*\.str\b", code):
            at, frame = found  # (a .str call left on the column would fail on its numbers)
            made = f"{frame}[{name!r}] = {number.replace('df[', f'{frame}[')}"
            fixed = insert_after(code, at, made)
        return problem_of(
            f"The column {name!r} holds codes written several ways for one code (see the "
            "files note), and your code counts, groups or compares them as written, so one "
            f"code's rows are split among its spellings. Take the number first ({number}), "
            "then count, group or compare; run your code again, print the result, then answer.",
            fixed,
        )
    return None
