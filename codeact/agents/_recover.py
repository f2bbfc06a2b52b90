"""Recovering from failed cells instead of looping: short hints appended to a failed cell's
observation.

- ``KeyError`` / ``AttributeError`` on a DataFrame: the frame's real column names (quoted, so
  spaces show) and dtypes, probed in the session with one expression per frame, and the column
  that was probably meant.
- Numbers stored as text (``could not convert string to float: '5,350,380'``): how to read them.
- A library the sandbox lacks (``scipy``, ``seaborn``): what to use instead.
- A successful cell run again unchanged: a note to compute the answer instead.
- A date method called on a number or on text (``'numpy.int32' object has no attribute
  'strftime'`` after grouping by ``.dt.month``): what the value is and how to use it.
- The same error a second time: the hint changes — stop repeating the code, check what is
  there, reuse the variables earlier cells made, take a different approach.
"""

from __future__ import annotations

import ast
import difflib
import keyword
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from codeact._parse import parse_source
from codeact.agents._callhints import (
    apply_value_hint,
    corr_hint,
    cut_off_hint,
    empty_rows_hint,
    group_mask_hint,
    scalar_date_hint,
    wide_hint,
)
from codeact.agents._convhint import conversion_hint
from codeact.agents._filenote import SEPARATED_NUMBER
from codeact.agents._imports import import_hint
from codeact.agents._money import SIGNED_NUMBER, signed_conversion
from codeact.agents._notecols import (
    compute_example,
    file_columns,
    note_column_kinds,
    question_without_note,
    uses_column,
)
from codeact.agents._style_state import CodeActRunState
from codeact.agents._unusedfix import failing_line
from codeact.executors.base import CodeExecutor, ExecutionResult

if TYPE_CHECKING:
    from codeact.agents._state import RunState

MAX_COLUMNS = 40
PROBE_TIMEOUT = 10.0
_NAME_BEFORE = re.compile(r"([A-Za-z_]\w*)\s*(?:\[|\.)")
_NO_ATTRIBUTE = re.compile(r"'(DataFrame|Series)' object has no attribute '([^']+)'")
_SEPARATED = re.compile(f"'{SEPARATED_NUMBER}'")
_SIGNED = re.compile(f"'(?:{SIGNED_NUMBER})'")
_TEXT_MATH = re.compile(
    r"unsupported operand type\(s\)|can only concatenate str"
    r"|not supported between instances of 'str'"
    r"|with (?:string|object) dtype|dtype '(?:str|string|object)' does not support"
    r"|could not convert string to float|Unable to parse string|invalid literal for int"
)


def assigned_names(cells: Sequence[Any]) -> list[str]:
    """Top-level names assigned by the given cells' code, in order."""
    out: dict[str, None] = {}
    for cell in cells:
        try:
            tree = parse_source(cell.code)
        except SyntaxError:
            continue
        for node in tree.body:
            targets = node.targets if isinstance(node, ast.Assign) else []
            if isinstance(node, ast.AnnAssign | ast.AugAssign):
                targets = [node.target]
            for target in targets:
                for sub in ast.walk(target):
                    if isinstance(sub, ast.Name):
                        out[sub.id] = None
    return list(out)


async def frame_columns(session: CodeExecutor, name: str) -> list[tuple[str, str]] | None:
    """``name``'s columns and dtypes when it is a DataFrame in the session, else None."""
    if not name.isidentifier() or keyword.iskeyword(name):
        return None
    probe = (
        f"[(str(c), str(t)) for c, t in {name}.dtypes.items()][:{MAX_COLUMNS}] "
        f"if hasattr({name}, 'columns') and hasattr({name}, 'dtypes') else None"
    )
    try:
        result = await session.execute(probe, timeout=PROBE_TIMEOUT)
        value = ast.literal_eval(result.value) if result.ok and result.value else None
    except Exception:  # a probe never breaks the run
        return None
    if not isinstance(value, list):
        return None
    return [(str(c), str(t)) for c, t in value if isinstance(c, str)]


def _meant(missing: str, columns: list[tuple[str, str]]) -> str:
    names = [c for c, _ in columns]
    same = [c for c in names if c.strip().lower() == missing.strip().lower()]
    if same and same[0] != same[0].strip():
        return (
            f" The column is {same[0]!r} (mind the spaces): strip the names right after "
            "read_csv with df.columns = df.columns.str.strip()."
        )
    if same:
        return f" The column is {same[0]!r}."
    close = difflib.get_close_matches(missing, names, n=2, cutoff=0.6)
    return f" Did you mean {' or '.join(repr(c) for c in close)}?" if close else ""


async def column_hint(
    session: CodeExecutor, result: ExecutionResult, names: list[str], question: str = ""
) -> str:
    """Columns and dtypes of the frame a ``KeyError``/``AttributeError`` was about, and the
    other file that has the column (``question``'s files note), if any."""
    error = result.error
    if error is None or error.type not in ("KeyError", "AttributeError"):
        return ""
    if error.type == "KeyError":  # 'x', or a list of them: "['x']" / "None of [Index(['x'])]"
        quoted = re.findall(r"'([^'\n]*)'", error.message)
        missing = quoted[0] if quoted else error.message.strip().strip("'\"")
    else:
        m = _NO_ATTRIBUTE.search(error.message)
        if m is None or m.group(1) != "DataFrame":
            return ""
        missing = m.group(2)
    line = failing_line(error.traceback)
    # (the frames the line indexes first, then the others it names: a merge's right side)
    found = [*_NAME_BEFORE.findall(line), *re.findall(r"\b[A-Za-z_]\w*\b", line)]
    candidates = [n for n in dict.fromkeys(found) if n in names][:4]
    for name in candidates:
        columns = await frame_columns(session, name)
        if columns and any(c == missing for c, _ in columns):
            continue  # (this frame has it: the error is about another one)
        if columns:
            listed = ", ".join(f"{c!r}: {t}" for c, t in columns)
            meant = _meant(missing, columns)
            if re.search(r"\.(?:merge|join)\(", line) and not meant.startswith(" The column"):
                meant = (  # (a key named differently in the other file, not a typo)
                    f" To join frames whose keys are named differently, name each side's key: "
                    f".merge({name}, left_on=..., right_on=...) (the files note says how the "
                    "keys match)."
                )
            return f"{name} has the columns (name: dtype) {listed}.{meant}" + _elsewhere(
                question, missing, columns
            )
    return ""


def _elsewhere(question: str, missing: str, columns: list[tuple[str, str]]) -> str:
    """Where a column missing from a frame is: another file of the files note (``Plan`` of
    members.csv asked of the visits), to be joined first."""
    if any(c.startswith(missing) for c, _ in columns):
        return ""  # (joined already: 'Plan_x' and 'Plan_y')
    files = [f for f, cols in file_columns(question).items() if missing in cols]
    if not files:
        return ""
    return (
        f" {missing!r} is a column of {files[0]!r}: join that file to this frame first (the "
        "files note says how their keys match), then use the joined frame."
    )


def text_number_hint(result: ExecutionResult, question: str = "") -> str:
    """How to read numbers stored as text, when the error shows one; ``question`` (with its
    files note): the ',' separator advice only when the note names such a column."""
    error = result.error
    if error is None:
        return ""
    signed = _SIGNED.search(error.message)
    if signed:
        convert = signed_conversion([signed.group(0)], "df['col']")
        return (
            f"The column holds numbers stored as text with a sign ({signed.group(0)}): convert "
            f"it first, e.g. df['col'] = {convert}, then compute."
        )
    if _SEPARATED.search(error.message):
        return (
            "The column holds numbers stored as text with ',' separators: read the file with "
            "pd.read_csv(..., thousands=',') or convert with .str.replace(',', '').astype(float)."
        )
    if _TEXT_MATH.search(error.message):
        noted = question_without_note(question) != question  # (a files note follows)
        line = failing_line(error.traceback)
        if not noted or "with ',' separators" in question:
            how = (
                "Numbers written with ',' separators (see the files note) read with "
                "pd.read_csv(..., thousands=',')."
            )
        elif any(uses_column(line, name) for name, _kind in note_column_kinds(question)):
            how = "Convert the column to numbers the way the files note says for it."
        else:  # (a column the cell made itself)
            how = (
                "Convert it first: pd.to_numeric(s, errors='coerce') for numbers as text; for "
                "a month or a year take the number from dates (.dt.month, .dt.year), not from text."
            )
        return (
            f"A value is text where a number is needed: check the column's dtype (df.dtypes). {how}"
        )
    return ""


#: A column the files note describes as plain text: labels, codes, names (no way to read it
#: as numbers or dates).
_PLAIN_TEXT = re.compile(r"^text(?:, \d+ missing)?(?:, \d+ distinct values)?, e\.g\. (.*)$")
_NUMBER_LIKE = re.compile(r"[\s(\u2212+-]*[$\u20ac\u00a3\u00a5]?\s*\.?\d")


def label_column_hint(question: str, result: ExecutionResult, line: str) -> str:
    """Arithmetic on a column of labels (``df['Subtotal'] - df['Discount Code']``): that the
    column holds text such as codes or names, and what to do instead."""
    if result.error is None or not _TEXT_MATH.search(result.error.message):
        return ""
    for name, kind in note_column_kinds(question):
        plain = _PLAIN_TEXT.match(kind)
        shown = plain.group(1) if plain is not None else ""
        examples = re.findall(r"'([^'\n]*)'", shown)
        if not examples or any(_NUMBER_LIKE.match(v) for v in examples):
            continue  # (amounts the note did not recognise, '(1,234.00)' or '1.2k': not labels)
        quoted = re.escape(name)
        column = rf"\w+\s*\[\s*(?:'{quoted}'|\"{quoted}\")\s*\]"
        operand = rf"[-+*/]\s*{column}|{column}\s*(?:[-+*/]|[<>]=?\s*\d)"  # (not a key)
        if re.search(operand, line):
            return (
                f"{name!r} holds text such as {shown} (see the files note), not "
                "numbers: arithmetic and number comparisons on it fail. Leave it out of the "
                "calculation (or count or group by it), and compute only what the question asks."
            )
    return ""


def repeat_hint(run: RunState, result: ExecutionResult, names: list[str]) -> str:
    """A different hint when the same error happens again in this run."""
    error = result.error
    if error is None:
        return ""
    signature = f"{error.type}: {error.message[:200]}"
    seen = run.state_of(CodeActRunState).error_counts
    seen[signature] = seen.get(signature, 0) + 1
    if seen[signature] < 2:
        return ""
    kept = (
        f" Variables from earlier cells still exist ({', '.join(names[:12])}): reuse them."
        if names
        else ""
    )
    return (
        f"This is the same error as before ({signature}). Do not run the same code again.{kept} "
        "First print what you need to check (for a table: df.columns.tolist() and df.dtypes), "
        "then take a different approach."
    )


def repeated_cell_note(run: RunState | None, code: str) -> str:
    """A note for a successful cell whose code an earlier successful cell of the run already
    ran (a small model re-printing a table instead of computing the answer from it)."""
    if run is None:
        return ""
    if " ".join(code.split()) not in run.state_of(CodeActRunState).ok_codes():
        return ""
    names = assigned_names([CellCode(code)])
    kept = f" (its variables {', '.join(names[:6])} still exist)" if names else ""
    example = compute_example(run.user_msg, code)
    compute = f", for example {example}" if example else ", print the result"
    return (
        "\nNote: this cell repeats an earlier one and printed the same thing again. Do not run "
        f"it again{kept}: write the code that computes what the question asks{compute}, "
        "then answer."
    )


async def failure_hints(
    session: CodeExecutor | None, run: RunState | None, result: ExecutionResult, code: str
) -> str:
    """The hints for a failed cell (empty when there is nothing to add); ``session`` None
    means the session must not be probed."""
    if result.error is None:
        return ""
    cells = run.state_of(CodeActRunState).cells if run is not None else []
    ok_cells = [c for c in cells if c.error is None]
    names = assigned_names([*ok_cells, CellCode(code)])
    asked = run.user_msg if run is not None else ""
    columns = await column_hint(session, result, names, asked) if session is not None else ""
    line = failing_line(result.error.traceback)
    convert = conversion_hint(run.user_msg, code, line) if run is not None else ""
    # (the note's way to read the failing line's column says more than the generic hint)
    kinds = note_column_kinds(run.user_msg) if run is not None else []
    own = any(convert.startswith(f"{n!r} holds") for n, _ in kinds if uses_column(line, n))
    labels = label_column_hint(run.user_msg, result, line) if run and not own else ""
    numbers = "" if own or labels else text_number_hint(result, run.user_msg if run else "")
    hints = [columns, labels, numbers, import_hint(result), scalar_date_hint(result)]
    if run is not None:
        hints.append(cut_off_hint(run.user_msg, result, code))
        hints.append(corr_hint(run.user_msg, result, code))
        hints.append(wide_hint(run.user_msg, result, code))
        hints.append(group_mask_hint(result, code))
        hints.append(empty_rows_hint(result, code))
        hints.append(apply_value_hint(result, code))
        hints.append(convert)
        hints.append(repeat_hint(run, result, assigned_names(ok_cells)))
    text = "\n".join(h for h in hints if h)
    return f"\nHint: {text}" if text else ""


class CellCode:
    """Just a cell's code (what ``assigned_names`` reads)."""

    def __init__(self, code: str) -> None:
        self.code = code
