"""Percentages written two ways, ``'20%'`` and the fraction ``'0.2'`` (fresh18: a cinema's
discounts). The files note says so; the 1.5B model strips the '%' and averages 20 with 0.2.
The rule sends such a cell back; its code reads the column as the note says, then makes the
fractions percent before the column is used."""

from __future__ import annotations

import re

from codeact.agents._notecols import name_pattern, note_column_kinds, without_comments
from codeact.agents._problem import Problem, problem_of

_TWO_WAYS = re.compile(
    r"convert with (df\[.*?\.astype\(float\)); the fractions written without '%'"
)


def fraction_problem(question: str, code: str) -> Problem | None:
    """A column of percentages some of which are fractions (the note's ``pct.where(...)``)
    converted by code that never tells the two apart (no ``'%'`` test on it)."""
    live = without_comments(code)
    for name, kind in note_column_kinds(question):
        m = _TWO_WAYS.search(kind)
        ref = rf"\w+\s*\[\s*['\"](?:{name_pattern(name)})['\"]\s*\]"
        own = re.compile(rf"^(\s*)({ref})\s*=(?!=)(.*)$", re.M)
        converted = [c for c in own.finditer(live) if re.search(r"astype|to_numeric", c.group(3))]
        if m is None or not converted:
            continue
        if re.search(rf"{ref}[^\n]*\.str\.(?:contains|endswith)\(\s*['\"]%", live):
            continue  # (told apart already)
        first = converted[0]
        column = first.group(2)
        read = m.group(1).replace(f"df[{name!r}]", column)
        made = (
            f"{first.group(1)}pct = {read}\n{first.group(1)}{column} = pct.where("
            f"{column}.str.contains('%', na=True), pct * 100)"
        )
        fixed = code.replace(first.group(0), made, 1) if first.group(0) in code else None
        return problem_of(
            f"The column {name!r} holds percentages written two ways (see the files note): "
            f"with '%' ('20%') and as fractions without it ('0.2' is 20%). Your code converts "
            "them alike, so a fraction counts as a hundredth of its percent. Make the "
            "fractions percent too: pct = <the note's conversion>; then pct.where("
            f"{column}.str.contains('%', na=True), pct * 100); run your code again, print "
            "the result, then answer.",
            fixed,
        )
    return None


#: ``df['ABV'] = df['ABV'] / 100``: percentages made fractions in place.
_TO_FRACTION = re.compile(
    r"^(?P<ref>\w+\s*\[\s*(?P<q>['\"])(?P<col>[^'\"\n]+)(?P=q)\s*\])\s*=\s*(?P=ref)\s*"
    r"(?:/\s*100(?:\.0*)?|\*\s*0?\.01)\s*$",
    re.M,
)


def fraction_compare_problem(question: str, code: str) -> Problem | None:
    """Percentages made fractions (``/ 100``) and then compared with the question's percent
    threshold as written (fresh20: ``df['ABV'] / 100`` then ``> 6`` for "stronger than 6 %":
    none is). The fix leaves the percentages as they were."""
    del question
    live = without_comments(code)
    for m in _TO_FRACTION.finditer(live):
        column = re.escape(m.group("col"))
        ref = rf"\w+\s*\[\s*['\"]{column}['\"]\s*\]"
        later = live[m.end() :]
        compared = re.search(rf"{ref}\s*(?:>|<|>=|<=)\s*(\d+(?:\.\d+)?)", later)
        if compared is None or float(compared.group(1)) <= 1:
            continue
        fixed = "\n".join(ln for ln in code.splitlines() if ln.strip() != m.group(0).strip())
        return problem_of(
            f"Your code makes {m.group('col')!r} a fraction ({m.group(0).strip()}), then "
            f"compares it with {compared.group(1)} as a percent: no fraction is that large. "
            "Keep the percentages as they are (or compare with the fraction); run your code "
            "again, print the result, then answer.",
            fixed,
        )
    return None
