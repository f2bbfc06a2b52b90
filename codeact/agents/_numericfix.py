"""A table's mean (or sum, median...) over columns some of which hold text: pandas 2 no
longer skips them (``TypeError: Could not convert 'STD' to numeric``), and the small model
answers by converting the text column to numbers, which fails again. A cell whose failing
line aggregates a whole table (``df.mean(axis=1)``) is re-run with ``numeric_only=True``: the
number columns, which is what the line meant. And a cell whose ``.astype(int)`` failed on
missing values is re-run with ``.astype(float)`` on that line (``integer_fix``)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from codeact.agents._notecols import frame_names
from codeact.agents._unusedfix import failing_line
from codeact.executors.base import ExecutionResult

_TEXT_IN_MATH = re.compile(
    r"Could not convert .* to numeric|can only concatenate str|unsupported operand type\(s\) "
    r"for [-+/*]: '\w+' and 'str'|could not convert string to float",
)


@dataclass(frozen=True)
class NumericFix:
    """A failed cell with its table aggregates limited to the number columns."""

    code: str
    line: str

    def note(self) -> str:
        """What the model (and the transcript) is told about the re-run."""
        return (
            "Your cell failed: the table has text columns, and pandas does not average (or "
            "correlate) text. "
            f"I re-ran your cell with numeric_only=True on that line ({self.line.strip()}), "
            "which uses the number columns only. Output of the re-run:"
        )


def numeric_fix(result: ExecutionResult, code: str) -> NumericFix | None:
    """The cell with ``numeric_only=True`` added to the failing line's aggregates of a whole
    table (a name the cell assigns a table to, or any call with ``axis=1``), when it failed
    on text in arithmetic; None otherwise."""
    error = result.error
    if error is None or not _TEXT_IN_MATH.search(error.message):
        return None
    line = failing_line(error.traceback)
    if not line or code.count(line) != 1 or "numeric_only" in line:
        return None
    frames = "|".join(re.escape(n) for n in frame_names(code))
    table = rf"(?:\b(?:{frames})\b)?" if frames else ""
    pattern = re.compile(
        rf"({table}\.\s*(?:mean|median|sum|std|var|corr|cov))\(((?:[^()\n]|\([^()\n]*\))*)\)"
    )

    def limited(m: re.Match[str]) -> str:
        called, args = m.group(1), m.group(2).strip().rstrip(",").rstrip()
        on_table = not called.startswith(".")
        if not on_table and not re.search(r"\baxis\s*=\s*(?:1|'columns')", args):
            return m.group(0)
        return f"{called}({args + ', ' if args else ''}numeric_only=True)"

    fixed = pattern.sub(limited, line)
    return NumericFix(code=code.replace(line, fixed), line=fixed) if fixed != line else None


#: pandas' errors for whole numbers asked of a column with missing values.
_NAN_TO_INT = re.compile(r"cannot convert float NaN to integer|Cannot convert non-finite values")
_AS_INT = re.compile(r"\.astype\(\s*(?:int|['\"]int(?:64|32)?['\"]|np\.int64)\s*\)")


@dataclass(frozen=True)
class IntegerFix:
    """A failed cell whose ``.astype(int)`` on its failing line becomes ``.astype(float)``."""

    code: str

    def note(self) -> str:
        """What the model (and the transcript) is told about the re-run."""
        return (
            "Your cell failed: the column has missing values (NaN), which have no whole "
            "number. I re-ran your cell with .astype(float) in place of .astype(int) on that "
            "line; means and sums leave the missing values out. Output of the re-run:"
        )


def integer_fix(result: ExecutionResult, code: str) -> IntegerFix | None:
    """The cell with the failing line's ``.astype(int)`` made ``.astype(float)``, when it
    failed on missing values (fresh14: page counts, empty for DVDs); None otherwise."""
    error = result.error
    if error is None or not _NAN_TO_INT.search(error.message):
        return None
    line = failing_line(error.traceback)
    if not line or code.count(line) != 1 or not _AS_INT.search(line):
        return None
    return IntegerFix(code=code.replace(line, _AS_INT.sub(".astype(float)", line)))
