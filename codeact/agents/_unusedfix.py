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

from codeact._parse import parse_source
from codeact.executors.base import CodeExecutor, ExecutionResult, OutputCallback

MAX_DROPPED = 5
#: Errors that say nothing about the cell as a whole (a line that cannot compute); not a
#: timeout, memory or syntax error.
_KEPT = frozenset({"SyntaxError", "TimeoutError", "MemoryError", "KeyboardInterrupt"})
_LINE = re.compile(r'File "<cell[^"]*>", line (\d+)')


def failing_line(traceback: str) -> str:
    """The source line of the cell where the error was raised (the last one quoted)."""
    lines = traceback.splitlines()
    for i in range(len(lines) - 1, 0, -1):
        if lines[i - 1].lstrip().startswith('File "<cell') and i < len(lines):
            return lines[i].strip()
    return ""


def failing_lineno(traceback: str) -> int | None:
    """The line of the failing cell's top-level statement (the first cell frame: a later one
    may be a function an earlier cell defined), or None."""
    found = _LINE.findall(traceback)
    return int(found[0]) if found else None


def repeatable_failure(code: str, traceback: str) -> tuple[int, list[str]] | None:
    """The failing line's number and the cell's lines, when that line is known and what ran
    before it can run again (``safe_to_repeat``): what a fix of that one line needs."""
    number = failing_lineno(traceback)
    lines = code.splitlines()
    if number is None or not 0 < number <= len(lines) or not safe_to_repeat(code, traceback):
        return None
    return number, lines


#: Calls that make a new object (a frame read or built): changes to it can run again.
_MAKERS = frozenset(
    {"read_csv", "read_excel", "read_json", "read_parquet", "read_table", "DataFrame", "Series"}
    | {"concat", "copy", "merge", "reset_index", "dropna", "fillna", "drop", "rename", "assign"}
    | {"sort_values", "query", "astype", "melt", "pivot_table", "to_frame", "head", "tail"}
)
#: Calls that change what they are called on, or the world: never run twice.
_CHANGERS = frozenset(
    {"pop", "append", "extend", "insert", "remove", "clear", "update", "add", "discard"}
    | {"setdefault", "popitem", "sort", "reverse", "write", "writelines", "send", "next"}
    | {"open", "to_csv", "to_excel", "to_json", "to_parquet", "exec", "eval", "input"}
)


def failed_at(result: ExecutionResult, code: str, errors: re.Pattern[str]) -> int | None:
    """The line number of ``code`` at which its cell failed with an error whose message
    ``errors`` matches, or None (no such error, or no line of the cell named)."""
    error = result.error
    if error is None or not errors.search(error.message):
        return None
    number = failing_lineno(error.traceback)
    return number if number is not None and 0 < number <= len(code.splitlines()) else None


def safe_to_repeat(code: str, traceback: str) -> bool:
    """Whether the statements before the failing line can run again without changing what
    the cell computes: imports, prints, names bound afresh from what the cell has not
    changed, and changes to a frame the cell itself read or built (``df =
    pd.read_csv(...)`` then ``df['c'] = ...``); no call that changes things (``.pop()``,
    ``open``, ``.to_csv``), no name from before the cell bound again after it was read."""
    failing = failing_lineno(traceback)
    try:
        tree = parse_source(code)
    except SyntaxError:
        return False
    if failing is None:
        return False
    made: set[str] = set()  # (frames the cell read or built: its own to change)
    seen: set[str] = set()  # (names read before the cell bound them: from before the cell)
    bound: set[str] = set()
    for statement in tree.body:
        if statement.end_lineno is not None and statement.end_lineno >= failing:
            break
        if not _repeatable(statement, made, seen, bound):
            return False
    return True


def _repeatable(statement: ast.stmt, made: set[str], seen: set[str], bound: set[str]) -> bool:
    """Whether ``statement`` can run again; ``made``, ``seen`` and ``bound`` (see
    ``safe_to_repeat``) are updated with what it reads and binds."""
    nodes = list(ast.walk(statement))
    if any(isinstance(n, ast.NamedExpr) for n in nodes) or any(
        isinstance(n, ast.Call) and _called(n) in _CHANGERS for n in nodes
    ):
        return False
    seen |= {n.id for n in nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)} - bound
    if isinstance(statement, ast.Import | ast.ImportFrom):
        bound.update((a.asname or a.name).split(".")[0] for a in statement.names)
        return True
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        func = statement.value.func
        if isinstance(func, ast.Name) and func.id == "print":
            return True
        return isinstance(func, ast.Attribute) and _base(func.value) in made  # df.dropna(...)
    if isinstance(statement, ast.AugAssign):
        return _base(statement.target) in made
    if not isinstance(statement, ast.Assign):
        return False
    for target in statement.targets:
        if isinstance(target, ast.Name):
            if target.id in seen and target.id not in bound:
                return False  # (a name from before the cell bound again: x = x + 1)
            bound.add(target.id)
            if _makes(statement.value, made):
                made.add(target.id)
            else:
                made.discard(target.id)
        elif _base(target) not in made:
            return False  # (df['c'] = ... on a frame from before the cell, or an alias)
    return True


def _called(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _makes(value: ast.expr, made: set[str]) -> bool:
    """``value`` is a new frame: a maker call (``pd.read_csv``, ``.copy()``), or rows or
    columns of a frame the cell made (``df[df['a'] > 1]``)."""
    if isinstance(value, ast.Call):
        return _called(value) in _MAKERS
    return isinstance(value, ast.Subscript) and _base(value) in made


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
        lines = "line that only reworks" if self.also == 1 else "lines that only rework"
        more = f" (and {self.also} later {lines} it)" if self.also else ""
        return (
            f"One line of your cell failed, `{self.line}` ({self.error}), and nothing after it "
            f"uses {self.what}: I re-ran your cell without it{more}. Convert only the columns "
            "the question needs. Output of the re-run:"
        )


def unused_line_fix(result: ExecutionResult, code: str) -> UnusedLineFix | None:
    """The cell without the top-level column assignment it failed at (``df['X'] = ...``),
    when no later live statement reads the column or uses the frame as a whole and what ran
    before can run again; None otherwise."""
    error = result.error
    if error is None or error.type in _KEPT:
        return None
    line = failing_lineno(error.traceback)
    try:
        tree = parse_source(code)
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
    if not isinstance(target, ast.Subscript) or key is None or not live:
        return None  # (a column only: a name may be read by a function of an earlier cell)
    if any(key in _reads(s) for s in live) or _whole_frame(_base(target), live):
        return None
    # (later lines that only rework what the failing line made, and feed nothing live, go too)
    alive = {id(s) for s in live}
    gone = [statement, *(s for s in later if id(s) not in alive and key in _reads(s))]
    if not all(_own_lines(g, tree.body) for g in gone):
        return None  # (a line shared with another statement, or a := inside)
    if not safe_to_repeat(code, error.traceback):
        return None
    lines = code.splitlines()
    dropped = {n for g in gone for n in range(g.lineno - 1, g.end_lineno or g.lineno)}
    kept = "\n".join(text for n, text in enumerate(lines) if n not in dropped)
    what = f"the column {ast.literal_eval(target.slice)!r}"  # (a str constant: see _key)
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


#: What a later line may do with the frame and still not read the left-out column: pick
#: columns or rows (``df['Y']``, ``df[mask]``), count rows (``len(df)``, ``df.shape``).
_ROW_ONLY = frozenset({"shape", "index"})


def _whole_frame(frame: str | None, live: list[ast.stmt]) -> bool:
    """Whether a live statement uses ``frame`` (or a frame taken from it) as a whole, where
    the left-out column may count without being named: ``print(df)``, ``df.describe()``,
    ``df.corr()``, ``df.iloc[:, 2]``, ``df.columns``."""
    frames = {frame} if frame else set()
    for statement in live:
        parents = {id(c): n for n in ast.walk(statement) for c in ast.iter_child_nodes(n)}
        for n in ast.walk(statement):
            if not (isinstance(n, ast.Name) and n.id in frames and isinstance(n.ctx, ast.Load)):
                continue
            up = parents.get(id(n))
            picked = isinstance(up, ast.Subscript) and up.value is n
            counted = isinstance(up, ast.Attribute) and up.attr in _ROW_ONLY
            sized = isinstance(up, ast.Call) and getattr(up.func, "id", "") == "len"
            if not (picked or counted or sized):
                return True
        value = statement.value if isinstance(statement, ast.Assign) else None
        if isinstance(value, ast.Subscript) and (_base(value) or "") in frames:
            # (rows taken: a frame of its own)
            frames |= {t.id for t in getattr(statement, "targets", []) if isinstance(t, ast.Name)}
    return False


def _own_lines(statement: ast.stmt, body: list[ast.stmt]) -> bool:
    """``statement`` has its lines to itself (no ``a = 1; b = 2``) and binds no ``:=``."""
    first, last = statement.lineno, statement.end_lineno or statement.lineno
    shared = any(
        s is not statement and s.lineno <= last and (s.end_lineno or s.lineno) >= first
        for s in body
    )
    return not shared and not any(isinstance(n, ast.NamedExpr) for n in ast.walk(statement))


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


def shown_lines(lines: tuple[str, ...]) -> str:
    """The lines a fix added or changed, as a note shows them (```a`; `b```)."""
    return "; ".join(f"`{ln}`" for ln in lines)
