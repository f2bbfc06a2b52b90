"""A failed line whose result nothing uses: left out, and the cell run again.

The small model converts every column the files note describes, not only those its question
needs, and one conversion it gets wrong (``df['Asking Price'].str.replace('£', '')
.astype(float)`` on ``'£175k'``) fails a cell that would have answered (fresh12: a count of
March listings failed five times on a price column it never used). When the failing statement
only assigns a column or a name that no later statement of the cell reads, the cell computes
the same without it: it runs again without that statement (at most ``MAX_DROPPED`` times a
cell, each failure its own), and the model is told which line went and why.

Running a cell again repeats what ran before the failure, so that must be safe to repeat
(``safe_to_repeat``): imports, prints, names bound afresh, and changes to a frame the cell
itself read or built (``df = pd.read_csv(...)`` then ``df['c'] = df['c'] * 2`` doubles once
again from the file; without the read it would double twice)."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Protocol

from codeact.executors.base import CodeExecutor, ExecutionResult, OutputCallback

MAX_DROPPED = 5
#: Errors that say nothing about the cell as a whole (a line that cannot compute); not a
#: timeout, memory or syntax error.
_KEPT = frozenset({"SyntaxError", "TimeoutError", "MemoryError", "KeyboardInterrupt"})
_LINE = re.compile(r'File "<cell[^"]*>", line (\d+)')


def failing_line(traceback: str) -> int | None:
    """The cell's line number the error was raised at (the last cell frame), or None."""
    found = _LINE.findall(traceback)
    return int(found[-1]) if found else None


def safe_to_repeat(code: str, traceback: str) -> bool:
    """Whether the statements before the failing line can run again without changing what
    the cell computes: imports, prints, names bound afresh (``x = f(y)``, not ``x = x + 1``
    unless ``x`` was bound afresh above), and changes to a name bound afresh above
    (``df['c'] = ...``, ``df.dropna(inplace=True)``); anything else may not."""
    failing = failing_line(traceback)
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return False
    if failing is None:
        return False
    fresh: set[str] = set()
    for statement in tree.body:
        if statement.end_lineno is not None and statement.end_lineno >= failing:
            break
        if not _repeatable(statement, fresh):
            return False
    return True


def _repeatable(statement: ast.stmt, fresh: set[str]) -> bool:
    """Whether ``statement`` can run again (``fresh``: the names bound afresh above it, to
    which it adds those it binds)."""
    if isinstance(statement, ast.Import | ast.ImportFrom):
        return True
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        func = statement.value.func
        if isinstance(func, ast.Name) and func.id == "print":
            return True
        return isinstance(func, ast.Attribute) and _base(func.value) in fresh  # df.dropna(...)
    if isinstance(statement, ast.AugAssign):
        return _base(statement.target) in fresh
    if not isinstance(statement, ast.Assign):
        return False
    used = {n.id for n in ast.walk(statement.value) if isinstance(n, ast.Name)}
    bound = set()
    for target in statement.targets:
        if isinstance(target, ast.Name):
            if target.id in used and target.id not in fresh:
                return False  # (x = x + 1 on an x from before the cell)
            bound.add(target.id)
        elif _base(target) not in fresh:
            return False  # (df['c'] = ... on a frame from before the cell)
    if not isinstance(statement.value, ast.Name):  # (df2 = df is the same frame, not a copy)
        fresh |= bound
    return True


def _base(node: ast.expr) -> str | None:
    """The name a subscript or attribute chain starts from (``df`` of ``df['a'].b``)."""
    while isinstance(node, ast.Subscript | ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


@dataclass(frozen=True)
class UnusedLineFix:
    """A failed cell without its failing statement, whose result nothing after it read."""

    code: str
    line: str
    what: str
    error: str
    also: int = 0

    def note(self) -> str:
        """What the model (and the transcript) is told about the re-run."""
        more = f" (and the {self.also} later lines that only rework it)" if self.also else ""
        return (
            f"One line of your cell failed, `{self.line}` ({self.error}), and nothing after it "
            f"uses {self.what}: I re-ran your cell without it{more}. Convert only the columns "
            "the question needs. Output of the re-run:"
        )


def unused_line_fix(result: ExecutionResult, code: str) -> UnusedLineFix | None:
    """The cell without the top-level assignment it failed at, when no later statement reads
    what that assigns (a column by its name, or a variable) and what ran before can run
    again; None otherwise."""
    error = result.error
    if error is None or error.type in _KEPT:
        return None
    line = failing_line(error.traceback)
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None
    if line is None:
        return None
    found = [s for s in tree.body if s.lineno <= line <= (s.end_lineno or s.lineno)]
    target = _target(found[0]) if len(found) == 1 else None
    if target is None:
        return None
    statement = found[0]
    later = [s for s in tree.body if s.lineno > (statement.end_lineno or statement.lineno)]
    live = _live(later)
    key = _key(target)
    if key is None or not live or any(key in _reads(s) for s in live):
        return None
    # (later lines that only rework what the failing line made, and feed nothing live, go too)
    alive = {id(s) for s in live}
    gone = [statement, *(s for s in later if id(s) not in alive and key in _reads(s))]
    if not safe_to_repeat(code, error.traceback):
        return None
    lines = code.splitlines()
    dropped = {n for g in gone for n in range(g.lineno - 1, g.end_lineno or g.lineno)}
    kept = "\n".join(text for n, text in enumerate(lines) if n not in dropped)
    what = (
        f"the column {target.slice.value!r}"
        if isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant)
        else f"`{ast.unparse(target)}`"
    )
    shown = " ".join((ast.get_source_segment(code, statement) or ast.unparse(statement)).split())
    shown = shown if len(shown) <= 120 else shown[:117] + "..."
    message = error.message.strip().splitlines()[-1] if error.message.strip() else ""
    return UnusedLineFix(kept, shown, what, f"{error.type}: {message}"[:200], len(gone) - 1)


def _target(statement: ast.stmt) -> ast.expr | None:
    """What a plain assignment assigns: a name, or a column by its name (``df['X']``)."""
    if not isinstance(statement, ast.Assign) or len(statement.targets) != 1:
        return None
    target = statement.targets[0]
    if isinstance(target, ast.Name):
        return target
    column = isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant)
    return target if column else None


def _live(statements: list[ast.stmt]) -> list[ast.stmt]:
    """The statements whose effect can show: every statement but an assignment whose name
    or column no later live statement reads (found from the last statement back, each
    statement walked once)."""
    live: list[ast.stmt] = []
    needed: set[tuple[str, str]] = set()
    for statement in reversed(statements):
        target = _target(statement)
        key = _key(target) if target is not None else None
        if key is not None and key not in needed:
            continue
        live.append(statement)
        needed |= _reads(statement)
    return live[::-1]


def _key(target: ast.expr) -> tuple[str, str] | None:
    """What ``_reads`` finds for a statement reading ``target``: ``("name", "x")`` for a
    name, ``("text", "X")`` for a column ``df['X']`` (a column named by a number: None)."""
    if isinstance(target, ast.Name):
        return ("name", target.id)
    if isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant):
        key = target.slice.value
        return ("text", key.strip()) if isinstance(key, str) else None
    return None


def _reads(statement: ast.stmt) -> set[tuple[str, str]]:
    """Every name and every text a statement holds (``'X'`` anywhere: ``df[['X', 'Y']]``,
    ``groupby('X')``, an f-string's parts; ``.X``): what it may read."""
    out: set[tuple[str, str]] = set()
    for n in ast.walk(statement):
        if isinstance(n, ast.Name):
            out.add(("name", n.id))
        elif isinstance(n, ast.Attribute):
            out.add(("text", n.attr))
        elif isinstance(n, ast.Constant) and isinstance(n.value, str):
            out.add(("text", n.value.strip()))
    return out


async def drop_unused_lines(
    probe: CodeExecutor,
    result: ExecutionResult,
    code: str,
    *,
    timeout: float | None,
    on_output: OutputCallback | None,
) -> tuple[ExecutionResult, str, list[str]] | None:
    """Run the cell again without each failing line nothing uses (``MAX_DROPPED`` at most):
    the last result, the code that ran, and a note per line left out; None when the first
    failure is not such a line."""
    notes: list[str] = []
    for _ in range(MAX_DROPPED):
        fix = unused_line_fix(result, code)
        if fix is None:
            break
        result = await run_fix(probe, fix, timeout=timeout, on_output=on_output)
        code = fix.code
        notes.append(fix.note())
    return (result, code, notes) if notes else None


class Fix(Protocol):
    """A changed cell the agent runs instead of the failed one, and what the model is told."""

    @property
    def code(self) -> str: ...

    def note(self) -> str: ...


async def run_fix(
    probe: CodeExecutor, fix: Fix, *, timeout: float | None, on_output: OutputCallback | None
) -> ExecutionResult:
    """Run ``fix``'s cell, its note streamed first as stderr (what a watcher sees)."""
    if on_output is not None:
        on_output("stderr", f"\n[{fix.note()}]\n")
    return await probe.execute(fix.code, timeout=timeout, on_output=on_output)
