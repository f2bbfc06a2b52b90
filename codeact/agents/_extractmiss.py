"""Numbers pulled out of a text column with the model's own pattern, which misses forms the
files note shows (fresh21: ``df['Ex-Showroom (₹)'].str.extract('(\\d+\\.\\d+)')`` kept only
the amounts written in lakh, '7.25 L', and dropped '6,35,000' and '635000' as NaN). The
cell is sent back; the runnable code converts the column as the note says, right after the
file is read, and uses it where the extract stood."""

from __future__ import annotations

import re

from codeact.agents._notecols import column_read, insert_after, note_column_kinds
from codeact.agents._problem import Problem, problem_of

#: ``frame['column'].str.extract(r'pattern'...)`` and what usually follows it
#: (``[0]``, ``.astype(float)``).
_EXTRACT = re.compile(
    r"(?P<frame>\w+)\[(?P<q>['\"])(?P<column>[^'\"\n]+)(?P=q)\]\.str\.extract\(\s*r?"
    r"(?P<p>['\"])(?P<pattern>[^'\"\n]+)(?P=p)[^()\n]*\)(?:\s*\[\s*0\s*\])?"
    r"(?:\.astype\(\s*float\s*\))?"
)
#: The note's conversion of a column (up to its examples).
_CONVERT = re.compile(r"convert with (?P<code>.+?)(?:; |, e\.g\. |$)")


def extract_miss_problem(question: str, code: str) -> Problem | None:
    """An extract whose pattern finds nothing in some example values the files note gives
    for a column it also gives a conversion for."""
    kinds = dict(note_column_kinds(question))
    for m in _EXTRACT.finditer(code):
        frame, column = m.group("frame"), m.group("column")
        kind = kinds.get(column, "")
        convert = _CONVERT.search(kind)
        if convert is None or ", e.g. " not in kind:
            continue
        try:
            pattern = re.compile(m.group("pattern"))
        except re.error:
            continue
        examples = re.findall(r"'([^'\n]*)'", kind.rsplit(", e.g. ", 1)[1])
        missed = [e for e in examples if e.strip() and not pattern.search(e)]
        if not missed:
            continue
        conversion = convert.group("code").replace(f"df[{column!r}]", f"{frame}[{column!r}]")
        line = f"{frame}[{column!r}] = {conversion}"
        fixed = None
        found = column_read(question, code.splitlines(), column)
        if found is not None and found[1] == frame:
            fixed = insert_after(code.replace(m.group(0), f"{frame}[{column!r}]"), found[0], line)
        shown = " and ".join(repr(e) for e in missed[:3])
        return problem_of(
            f"{frame}[{column!r}].str.extract({m.group('pattern')!r}) finds no number in "
            f"{shown} (values of {column!r} in the files note): those rows turn NaN and drop "
            f"out. Convert the whole column as the note says: {line}; print the result, then "
            "answer.",
            fixed,
        )
    return None
