"""The first row of a sorted frame taken by its index label (see ``_rules``): after
``sort_values`` the rows keep their labels, so on a frame with a plain 0, 1, 2, ... index
(read from a file, or after ``reset_index()``) ``top['Route'][0]`` or ``top.loc[0]`` is the
row that was first *before* sorting (fresh23_top_route: the first route in the alphabet, not
the busiest). The rule sends it back with the cell taking the first row by position
(``.iloc[0]``)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from codeact.agents._notecols import without_comments
from codeact.agents._problem import Problem, problem_of
from codeact.agents._unusedfix import failing_line, safe_to_repeat
from codeact.executors.base import ExecutionResult

#: A whole-line assignment: the name and what it is given.
_ASSIGN = re.compile(r"^(\w+)\s*=\s*(?!=)(.+)$")
#: What gives a frame (or a column of one) the plain index 0, 1, 2, ...
_RANGED = re.compile(r"\bpd\.read_\w+\(|\.reset_index\(")
#: Label 0 of a name (or of one of its columns): ``v[0]``, ``v['c'][0]``, ``v.loc[0]``,
#: ``v['c'].loc[0]``, ``v.at[0, 'c']``.
_LABEL_ZERO = (
    r"\b{name}((?:\[\s*(['\"])[^'\"\n]+\2\s*\])?)"
    r"(\[\s*0\s*\]|\.(?:loc|at)\[\s*0\s*\]|\.(?:loc|at)\[\s*0\s*,\s*)"
)


#: The end of a value that is no frame or Series: ``[0]`` of it is by position.
_NO_LABELS = re.compile(
    r"\.(?:tolist\(\)|to_list\(\)|values|to_numpy\(\)|index|unique\(\)|keys\(\)|array)\s*$"
)


def _sorted_names(code: str) -> dict[str, int]:
    """Names whose rows were sorted after being given a plain index (line index of the sort),
    by reading the cell's whole-line assignments in order."""
    ranged: set[str] = set()
    out: dict[str, int] = {}
    for i, line in enumerate(code.splitlines()):
        renewed = re.match(r"^(\w+)\.reset_index\([^\n]*inplace\s*=\s*True", line)
        if renewed:  # (``top.reset_index(drop=True, inplace=True)``: labels made new)
            out.pop(renewed.group(1), None)
            ranged.add(renewed.group(1))
        m = _ASSIGN.match(line)
        if m is None:
            continue
        name, value = m.groups()
        source = re.match(r"\s*(\w+)\b", value)
        inherited = source is not None and source.group(1) in ranged | set(out)
        sort = value.rfind(".sort_values(")
        reset = max((r.start() for r in _RANGED.finditer(value)), default=-1)
        out.pop(name, None)
        ranged.discard(name)
        if _NO_LABELS.search(value):
            continue  # (a list, an array or an Index: [0] is its first item)
        if sort > reset and (reset >= 0 or inherited) and "ignore_index" not in value:
            out[name] = i
        elif max(sort, reset) < 0 and source is not None and source.group(1) in out:
            out[name] = i  # (a filter or a copy of a sorted frame stays sorted)
        elif reset >= 0 or (inherited and sort < 0):
            ranged.add(name)
    return out


def sort_label_problem(question: str, code: str) -> Problem | None:
    """A sorted frame (or column) whose first row the cell takes by label 0 after the sort."""
    live = without_comments(code)
    lines = live.splitlines()
    for name, at in _sorted_names(live).items():
        pattern = re.compile(_LABEL_ZERO.format(name=re.escape(name)))
        used = [m for ln in lines[at + 1 :] for m in pattern.finditer(ln)]
        if not used:
            continue
        shown = used[0].group(0)
        fixed = "\n".join(
            ln if i <= at else pattern.sub(_by_position, ln)
            for i, ln in enumerate(code.splitlines())
        )
        return problem_of(
            f"After sort_values, {name}'s rows keep their index labels: {shown} is the row "
            "labelled 0, the one that came first before sorting, not the first after it. Take "
            f"the first row by position ({_by_position(used[0])}); run your code again, print "
            "the result, then answer.",
            fixed if fixed != code else None,
        )
    return None


def _by_position(m: re.Match[str]) -> str:
    """A label-0 access made a first-row-by-position one (``.iloc[0]``, ``.iloc[0][...]``)."""
    head = m.group(0)[: m.start(1) - m.start(0)]
    column, access = m.group(1), m.group(3)
    if access.rstrip().endswith(","):
        return f"{head}{column}.iloc[0]["  # (``.loc[0, 'c']``: the rest, ``'c']``, follows)
    return f"{head}{column}.iloc[0]"


@dataclass(frozen=True)
class PositionFix:
    """A failed cell whose ``s[0]`` looked up the label 0 of an index of other labels, re-run
    with ``s.iloc[0]`` on that line."""

    code: str
    line: str

    def note(self) -> str:
        """What the model (and the transcript) is told about the re-run."""
        return (
            "Your cell failed with KeyError: [0] looks up the index label 0, and this index "
            "holds other labels (names, dates). I re-ran your cell with the item taken by "
            f"position ({self.line.strip()}); use .iloc[0] for the first item from now on. "
            "Output of the re-run:"
        )


def position_fix(result: ExecutionResult, code: str) -> PositionFix | None:
    """The cell with ``name[N]`` made ``name.iloc[N]`` on its failing line, when it failed
    with ``KeyError: N`` there (pandas 3 looks ``[N]`` up as a label: fresh23_top_route's
    ``route_passengers[0]`` of a Series indexed by route, twice), and what ran before can
    run again."""
    error = result.error
    if error is None or error.type != "KeyError" or not re.fullmatch(r"-?\d+", error.message):
        return None
    line = failing_line(error.traceback)
    if not line or code.count(line) != 1 or not safe_to_repeat(code, error.traceback):
        return None
    number = re.escape(error.message)
    at = re.compile(rf"(?<![.\w])(\w+(?:\[\s*(['\"])[^'\"\n]+\2\s*\])?)\[\s*{number}\s*\]")
    fixed = at.sub(lambda m: f"{m.group(1)}.iloc[{error.message}]", line)
    return PositionFix(code=code.replace(line, fixed), line=fixed) if fixed != line else None
