"""Words pandas reads as missing, looked for with ``.isin`` (fresh20: "Count the batches whose
QC is '-', 'n/a' or empty" as ``df['QC'].isin(['-', 'n/a', ''])``, after ``df =
df[df['QC'].notna()]``). ``read_csv`` makes ``'n/a'`` and empty cells NaN, so the list finds
the other words only; and rows kept for a value present have none missing left. The fix looks
for the missing ones with ``.isna()`` beside the other words, and leaves out such a filter of
the same column.
"""

from __future__ import annotations

import re

from codeact.agents._datarules import NO_DEFAULT_NA
from codeact.agents._filenote import NA_STRINGS
from codeact.agents._problem import Problem, problem_of

#: ``df['QC'].str.strip().isin(['-', 'n/a', ''])``: the column, its folds and the list.
_ISIN = re.compile(
    r"(?P<col>\b\w+\s*\[\s*(?P<q>['\"])[^'\"\n]+(?P=q)\s*\])(?P<folds>(?:\.str\.\w+\(\))*)"
    r"\.isin\(\s*\[(?P<items>[^\]\n]*)\]\s*\)"
)
_QUOTED = re.compile(r"'([^'\n]*)'|\"([^\"\n]*)\"")


def isin_marker_problem(question: str, code: str) -> Problem | None:
    """``.isin([...])`` with a word pandas reads as missing (``'n/a'``, ``''``) among other
    words: those cells are NaN after ``read_csv``, so the list finds none of them."""
    del question
    if NO_DEFAULT_NA.search(code):
        return None
    for m in _ISIN.finditer(code):
        items = [a or b for a, b in _QUOTED.findall(m.group("items"))]
        missing = [w for w in items if w.strip() in NA_STRINGS]
        if not missing or re.search(r"\.fillna\(", code):
            continue  # (filled first: the words may be there again)
        col, others = m.group("col"), [w for w in items if w.strip() not in NA_STRINGS]
        if re.search(rf"^\s*{re.escape(col)}\s*=(?!=)", code[: m.start()], re.M):
            continue  # (the column set again first: .replace(np.nan, 'n/a') puts the word back)
        test = f"{col}.isna()"
        if others:
            test = f"({test} | {col}{m.group('folds')}.isin({others!r}))"
        fixed = code[: m.start()] + test + code[m.end() :]
        frame = re.escape(col.split("[")[0].strip())
        kept = re.compile(rf"^\s*{frame}\s*=\s*{frame}\s*\[\s*{re.escape(col)}\.notna\(\)\s*\]\s*$")
        fixed = "\n".join(ln for ln in fixed.splitlines() if not kept.match(ln))
        shown = " and ".join(repr(w) for w in missing)
        return problem_of(
            f"{m.group(0)} misses the cells written {shown}: pandas reads them as missing "
            f"values (NaN) when it reads the CSV. Count those with {col}.isna() (and keep no "
            f"filter that drops them first), e.g. {test}; run your code again, print the "
            "result, then answer.",
            fixed,
        )
    return None
