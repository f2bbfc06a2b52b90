"""Missing values filled in one frame, the answer read from a copy that dropped them (held-out
dab_filled_mean: ``rated = shops.dropna(subset=['rating'])`` for the median, then
``shops['rating'] = shops['rating'].fillna(median)`` and ``print(rated['rating'].mean())``:
the mean of the known ratings, not of the filled column). The cell is sent back, and the
runnable code reads the filled frame on the lines after the fill (in-place calls on a column,
no-ops under copy-on-write, made assignments)."""

from __future__ import annotations

import re

from codeact.agents._checks import without_inplace
from codeact.agents._notecols import task_text
from codeact.agents._problem import Problem, problem_of

#: A question asking for values before the fill too (the copy computes those; not "the
#: median of the known ratings": held-out dab_filled_mean says how to fill with it).
_BEFORE = re.compile(r"\bbefore\b|\boriginal\b|\bwithout filling\b", re.I)
#: ``copy = frame.dropna(...)`` (the copy, the frame).
_DROPPED = re.compile(r"^[ \t]*(\w+)\s*=\s*(\w+)\.dropna\(", re.M)
#: ``frame['col'] = frame['col'].fillna(`` or ``frame['col'].fillna(..., inplace=True)``.
_FILLED = r"^[ \t]*{frame}\[(['\"])([^'\"\n]+)\1\](?:\s*=\s*{frame}\[\1\2\1\])?\.fillna\("

#: An import line (kept before the cell the runnable code starts from).
_IMPORT = re.compile(r"^(?:import|from)\s[^\n]*\n", re.M)


def filled_dropped_problem(question: str, code: str, asks_fill: bool) -> Problem | None:
    """With the question asking to fill missing values (``asks_fill``): a line after the
    code fills ``frame[col]`` that reads ``copy[col]`` of a ``copy = frame.dropna(...)``,
    where the rows missing ``col`` are gone and nothing was filled."""
    if not asks_fill or _BEFORE.search(task_text(question)):
        return None  # ("the mean before and after filling": the copy is asked for too)
    for drop in _DROPPED.finditer(code):
        copy, frame = drop.groups()
        if copy == frame:
            continue
        # (the fill after this copy: a later cell may read the file and copy it again)
        fill = re.compile(_FILLED.format(frame=re.escape(frame)), re.M).search(code, drop.end())
        if fill is None:
            continue
        column = fill.group(2)
        read = re.compile(rf"\b{re.escape(copy)}\[(['\"]){re.escape(column)}\1\]")
        after = code[fill.end() :]
        line_end = after.find("\n")
        rest = after[line_end + 1 :] if line_end >= 0 else ""
        if re.search(rf"^[ \t]*{re.escape(copy)}\s*=", rest, re.M) or not read.search(rest):
            continue  # (the copy made again after the fill, or never read after it)
        own = re.compile(rf"\b{re.escape(frame)}\[(['\"]){re.escape(column)}\1\]")
        if any(own.search(x) or ".count()" in x for x in rest.splitlines() if read.search(x)):
            continue  # (read beside the filled frame, or counted: the known values are asked)
        # (from the frame's last assignment before the copy: the cell that made them both,
        # when earlier cells made them too; in place: a no-op on a column)
        made = list(re.finditer(rf"^{re.escape(frame)}\s*=(?!=)", code[: drop.start()], re.M))
        start = made[-1].start() if made else 0
        imports = "".join(dict.fromkeys(_IMPORT.findall(code[:start])))
        head = imports + without_inplace(code[start : len(code) - len(rest)])
        fixed = head + read.sub(f"{frame}[{column!r}]", rest)
        line = next(x.strip() for x in rest.splitlines() if read.search(x))
        return problem_of(
            f"The question asks to fill the missing values, and your code fills "
            f"{frame}[{column!r}], but {line} reads {copy}, which dropped the rows missing "
            f"{column!r} ({copy} = {frame}.dropna(...)): nothing in it was filled. Compute "
            f"from {frame} after the fill ({frame}[{column!r}]), print the result, then answer.",
            fixed,
        )
    return None


#: ``frame['col'] = frame['col'].fillna(...)`` or ``frame['col'].fillna(..., inplace=True)``.
_FILL_LINE = re.compile(
    r"^[ \t]*(\w+)\[(['\"])([^'\"\n]+)\2\]\s*=\s*\1\[\2\3\2\]\.fillna\([^\n]*\n?"
    r"|^[ \t]*(\w+)\[(['\"])([^'\"\n]+)\5\]\.fillna\([^\n]*inplace\s*=\s*True[^\n]*\n?",
    re.M,
)


def filled_count_problem(code: str) -> Problem | None:
    """A column's missing values filled, then counted (``.isna().sum()`` of the same column,
    not assigned again between): after the fill there are none, the count is 0 (fresh22:
    ``fillna(mode)`` before counting the unmeasured must weights). Runnable without the fill
    when nothing else reads the column after it."""
    for m in _FILL_LINE.finditer(code):
        frame, column = (m.group(1), m.group(3)) if m.group(1) else (m.group(4), m.group(6))
        ref = rf"\b{re.escape(frame)}\[(['\"]){re.escape(column)}\1\]"
        rest = code[m.end() :]
        count = re.search(rf"{ref}\.(?:isna|isnull)\(\)\.sum\(\)", rest)
        if count is None:
            continue
        if re.search(rf"^[ \t]*(?:{re.escape(frame)}|{ref})\s*=", rest[: count.start()], re.M):
            continue  # (made again before the count)
        others = rest[: count.start()] + rest[count.end() :]
        fixed = None if re.search(ref, others) else code[: m.start()] + rest
        return problem_of(
            f"Your code fills the missing values of {frame}[{column!r}] "
            f"({m.group(0).strip()}) and then counts them with {count.group(0)}: after the "
            "fill there are none, so the count is 0. Count them before filling (or leave the "
            "fill out), print the result, then answer.",
            fixed,
        )
    return None
