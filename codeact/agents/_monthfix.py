"""Runnable code for a month answer taken from values per row (held-out ord_best_month:
``revenue = orders['units'] * ...; revenue.idxmax()`` gave ``@month[710]``, a row's label):
the cell's own Series added up by the cell's own month, so the note's code computes what was
asked from what the model already built, not from a template it rewrites (it summed units);
and a failed cell re-run without ``.month`` after a value that already is the month
(``date_part_fix``)."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from codeact.agents._unusedfix import repeatable_failure
from codeact.executors.base import ExecutionResult


def month_sum_code(code: str) -> str | None:
    """``s = <series>.groupby(<month>).sum()`` and a print of its largest month and value,
    where ``<series>`` is what the code took ``idxmax``/``idxmin`` of without grouping it and
    ``<month>`` the month the code derived (``orders['month'] = ....dt.month``, or ``.dt.month``
    of a column it parsed as dates); None when the code shows neither."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None
    series, which = _extreme_of(tree)
    month = _month_of(tree)
    if series is None or month is None or not _same_frame(tree, series, month):
        return None  # (another frame's index would not line up with the months)
    value = "max" if which == "idxmax" else "min"
    return f"s = {series}.groupby({month}).sum()\nprint(s.{which}(), round(s.{value}(), 2))"


def _extreme_of(tree: ast.Module) -> tuple[str | None, str]:
    """The source of what ``.idxmax()`` (or ``.idxmin()``) was called on, when no grouping or
    resampling made it: a name or a column."""
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("idxmax", "idxmin")
            and not node.args
        ):
            continue
        target = node.func.value
        if isinstance(target, ast.Name) and not _grouped(tree, target.id):
            return target.id, node.func.attr
        if (
            isinstance(target, ast.Subscript)
            and isinstance(target.value, ast.Name)
            and isinstance(target.slice, ast.Constant)
            and not _grouped(tree, target.value.id)
        ):
            return ast.unparse(target), node.func.attr
    return None, ""


def _same_frame(tree: ast.Module, series: str, month: str) -> bool:
    """Whether the Series (a column, or a name computed from columns) reads the frame the
    month is a column of, and only it."""
    frame = month.split("[", 1)[0].split(".", 1)[0]
    source: ast.AST | None = None
    if "[" in series:
        source = ast.parse(series, mode="eval").body
    else:
        source = next(reversed(_values_of(tree, series)), None)
    if source is None:
        return False
    read = {
        n.value.id
        for n in ast.walk(source)
        if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name)
    }
    return read == {frame}


def _values_of(tree: ast.Module, name: str) -> list[ast.expr]:
    """What ``name`` is assigned, in the order of the code."""
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == name for t in node.targets)
    ]


def _grouped(tree: ast.Module, name: str) -> bool:
    """Whether ``name`` is assigned anywhere from a grouping, a resampling or a pivot."""
    grouping = ("groupby", "resample", "pivot", "value_counts", "agg(")
    return any(w in ast.unparse(v) for v in _values_of(tree, name) for w in grouping)


def _month_of(tree: ast.Module) -> str | None:
    """A column the code set to ``<dates>.dt.month`` (its source), else ``.dt.month`` of a
    column it converted with ``pd.to_datetime``."""
    parsed: str | None = None
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assign) or len(node.targets) != 1:
            continue
        target, value = node.targets[0], node.value
        if not isinstance(target, ast.Subscript | ast.Name):
            continue
        if isinstance(value, ast.Attribute) and value.attr == "month":
            inner = value.value
            if isinstance(inner, ast.Attribute) and inner.attr == "dt":
                return ast.unparse(target)
        if (
            parsed is None
            and isinstance(target, ast.Subscript)
            and isinstance(value, ast.Call)
            and ast.unparse(value.func) in ("pd.to_datetime", "pandas.to_datetime")
        ):
            parsed = f"{ast.unparse(target)}.dt.month"
    return parsed


#: A whole number asked for a date's part (``'numpy.int32' object has no attribute 'month'``):
#: the value is already the month, as grouping by ``.dt.month`` gives.
_NO_PART = re.compile(
    r"'(?:numpy\.)?u?int(?:8|16|32|64)?' object has no attribute '(month|year|day|hour|quarter)'"
)


@dataclass(frozen=True)
class DatePartFix:
    """A failed cell re-run without ``.month`` (or ``.year``, ...) after a value that is
    already that number (held-out dab_month_rain: ``monthly.loc[i, 'DATE'].month`` of a
    table grouped by ``df['DATE'].dt.month``)."""

    code: str
    part: str

    def note(self) -> str:
        """What the model (and the transcript) is told about the re-run."""
        return (
            f"Your cell failed: that value is already a whole number (the {self.part}, as "
            f"grouping by .dt.{self.part} gives), which has no .{self.part}. I re-ran your cell "
            f"without .{self.part} on that line. Output of the re-run:"
        )


def date_part_fix(result: ExecutionResult, code: str) -> DatePartFix | None:
    """The cell without ``.<part>`` (not ``.dt.<part>``, not a call) on the failing line, when
    the error says a whole number has no such attribute, the code groups by ``.dt.<part>``
    (not ``idxmax().month``: a row's label is no month) and what ran before can run again."""
    error = result.error
    found = _NO_PART.search(error.message) if error is not None else None
    if error is None or found is None:
        return None
    failing = repeatable_failure(code, error.traceback)
    if failing is None:
        return None
    number, lines = failing
    part = found.group(1)
    line = lines[number - 1]
    if not re.search(rf"groupby\([^\n]*\.dt\.{part}\b", code) or re.search(
        rf"\.idx(?:max|min)\(\s*\)\.{part}\b", line
    ):
        return None  # (no table grouped by the part: the number may be a row's label)
    fixed = re.sub(rf"(?<!\.dt)(?<=[\]\)\w])\.{part}\b(?!\s*\()", "", line)
    if fixed == line:
        return None
    lines[number - 1] = fixed
    return DatePartFix(code="\n".join(lines), part=part)
