"""A joined table's column taken from the table before the join (see ``_rules``): after ``m =
df.merge(vessels, ...)``, ``m['Cars'] / vessels['Car Capacity']`` lines the rows up by index
label, not by the join's key: each sailing divided by whichever vessel sits at its row number
(fresh23_full_car_decks, tuned run: 1 for 42). The rule sends it back with the joined
table's own column in its place."""

from __future__ import annotations

import re

from codeact.agents._notecols import without_comments
from codeact.agents._problem import Problem, problem_of

#: ``name = <...>merge(`` or ``name = pd.merge(``: the name and the call's arguments on the line.
_MERGED = re.compile(r"^\s*(\w+)\s*=\s*(?:pd\.merge\((.*)|(\w+)\.merge\((.*))$", re.M)
#: A frame's column: the frame and the quoted name.
_COLUMN = r"\b{frame}\s*\[\s*(['\"])([^'\"\n]+)\1\s*\]"
#: Arithmetic or a comparison between two columns on one line.
_BETWEEN = re.compile(r"[-+*/<>]|==")


def _joined(code: str) -> dict[str, tuple[set[str], int]]:
    """Each name given a merged table (or a table made from one: ``sub = m[m[...]]``), with
    the frames merged into it and where (the offset of the line) it was given it."""
    out: dict[str, tuple[set[str], int]] = {}
    for m in _MERGED.finditer(code):
        args = m.group(2) or f"{m.group(3)}, {m.group(4)}"
        parts = set(re.findall(r"\b([A-Za-z_]\w*)\b", args.split("on=")[0]))
        out.setdefault(m.group(1), (parts, m.start()))
    for m in re.finditer(r"^\s*(\w+)\s*=\s*(\w+)\s*\[", code, re.M):  # (filtered copies)
        if m.group(2) in out and m.group(1) not in out and m.start() > out[m.group(2)][1]:
            out[m.group(1)] = (out[m.group(2)][0], m.start())
    return out


def other_frame_problem(question: str, code: str) -> Problem | None:
    """A line computing with a column of a joined table and a column of one of the tables
    joined into it, the second still there in the joined one: the rows are not lined up."""
    live = without_comments(code)
    for name, (parts, at) in _joined(live).items():
        for part in parts - {name, "pd"}:
            mine = re.compile(_COLUMN.format(frame=re.escape(name)))
            theirs = re.compile(_COLUMN.format(frame=re.escape(part)))
            for line in live[at:].splitlines()[1:]:  # (after the join)
                if "merge(" in line or not _BETWEEN.search(line):
                    continue
                other = theirs.search(line)
                if other is None or not any(mine.finditer(line)):
                    continue
                if re.match(rf"^\s*{re.escape(part)}\s*\[", line):
                    continue  # (a column of the table itself, made before the join uses it)
                fixed_line = theirs.sub(f"{name}[\\1\\2\\1]", line)
                fixed = code.replace(line, fixed_line) if code.count(line) == 1 else None
                return problem_of(
                    f"{other.group(0)} is a column of {part!r} before the join, and your code "
                    f"computes it with columns of {name!r}, the joined table: pandas lines the "
                    "two up by row number, not by the join's key. Use the joined table's own "
                    f"column ({name}[{other.group(2)!r}]); run your code again, print the "
                    "result, then answer.",
                    fixed,
                )
    return None
