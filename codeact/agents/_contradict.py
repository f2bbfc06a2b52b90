"""A filter the cell's own later test contradicts: ``df = df[df['QC'] == 'OK']`` and then a
count of ``df['QC'] == 'fail'`` (fresh20: "How many batches failed the lab check?" answered 0).
The first line keeps only the rows whose QC is OK, so none is left that the second could find:
the answer is 0 (or NaN) whatever the data. The cell is sent back, and the runnable code is the
cell without the first filter.
"""

from __future__ import annotations

import re

from codeact.agents._notecols import without_comments
from codeact.agents._problem import Problem, problem_of

_FOLDS = r"(?:\.str\.(?:strip|lower|upper|casefold)\(\))*"
#: ``df = df[df['QC'] == 'OK']`` (the column's folds allowed): the frame, column and value.
_KEEP = re.compile(
    rf"^(?P<frame>\w+)\s*=\s*(?P=frame)\s*\[\s*(?P=frame)\s*\[\s*(?P<q>['\"])(?P<col>[^'\"\n]+)"
    rf"(?P=q)\s*\]{_FOLDS}\s*==\s*(?P<v>['\"])(?P<value>[^'\"\n]*)(?P=v)\s*\]\s*$"
)


def _folded(text: str) -> str:
    return text.strip().lower()


def contradiction_problem(question: str, code: str) -> Problem | None:
    """A top-level line keeping only the rows whose column equals one value, followed by a
    test of the same frame's column for another value (``==``, or ``.isin`` of values none of
    which is the kept one): that test finds nothing. Reassigning the frame in between (a new
    read) ends the check."""
    del question  # (the contradiction is the code's own)
    lines = without_comments(code).splitlines()  # (line for line: a comment's text gone)
    for i, line in enumerate(lines):
        keep = _KEEP.match(line.rstrip())
        if keep is None:
            continue
        frame, column, kept = keep.group("frame"), keep.group("col"), keep.group("value")
        ref = rf"\b{frame}\s*\[\s*['\"]{re.escape(column)}['\"]\s*\]{_FOLDS}"
        for later in lines[i + 1 :]:
            if re.match(rf"\s*{frame}\s*=(?!=)(?!\s*{frame}\b)", later):
                break  # (read again, or set from a saved copy: the filter is gone)
            tests = [m.group(2) for m in re.finditer(rf"{ref}\s*==\s*(['\"])([^'\"\n]*)\1", later)]
            if isin := re.search(rf"{ref}\.isin\(\s*\[([^\]\n]*)\]", later):
                tests += [a or b for a, b in re.findall(r"'([^'\n]*)'|\"([^\"\n]*)\"", isin[1])]
            if not tests or any(_folded(t) == _folded(kept) for t in tests):
                continue
            fixed = "\n".join(ln for j, ln in enumerate(code.splitlines()) if j != i)
            return problem_of(
                f"Your code keeps only the rows whose {column!r} is {kept!r} ({line.strip()}), "
                f"then looks for {column!r} {tests[0]!r} among them: no row left can be, so the "
                "result is 0 (or empty) whatever the data. Drop that filter (the question does "
                "not ask for it); run your code again, print the result, then answer.",
                fixed,
            )
    return None
