"""Cells that import a module the sandbox does not have.

A small model asked for a "Pearson correlation coefficient" writes ``from scipy.stats import
pearsonr``, and asked for a share draws a chart with ``seaborn`` first; the sandbox has neither,
and shown the ``ImportError`` the model tends to send the same cell again. So a cell that failed
on such an import is run again, once, with:

- ``pearsonr`` / ``spearmanr`` from ``scipy.stats`` (however imported: ``from scipy import
  stats``, ``import scipy.stats as st``, ...) replaced by small definitions in the cell itself
  (pandas computes the coefficient, pairs with a missing value left out as pandas does; the
  two-sided p-value comes from Student's t distribution, as scipy's does);
- statements that only draw with a plotting library the sandbox lacks (``seaborn``,
  ``plotly``, ...) left out, with every statement that uses what they made;
- an import whose name the cell never uses left out.

Anything else (``scipy.stats.ttest_ind``, ``sklearn``) is not rewritten: the failed cell gets a
hint naming what to use instead. The model is told what was changed, and the call records the
code that actually ran.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from codeact._parse import parse_source
from codeact.executors.base import ExecutionResult

_MISSING = re.compile(
    r"import of '([\w.]+)' is not allowed|module '([\w.]+)' is allowed but not installed"
    r"|No module named '([\w.]+)'"
)
#: Libraries whose calls only draw: leaving them out changes no computed value.
PLOTTING = frozenset({"seaborn", "plotly", "matplotlib", "bokeh", "altair", "plotnine"})
#: What to use instead, per missing library (the hint when the cell cannot be rewritten).
INSTEAD = {
    "scipy": "pandas and numpy: a correlation is df['a'].corr(df['b']) (Spearman's: "
    "df['a'].rank().corr(df['b'].rank())); a z-score is (s - s.mean()) / s.std(); a t statistic is "
    "(a.mean() - b.mean()) / ((a.var() / len(a) + b.var() / len(b)) ** 0.5)",
    "sklearn": "pandas and numpy: a least-squares line is np.polyfit(x, y, 1); scaling is "
    "(s - s.min()) / (s.max() - s.min())",
    "statsmodels": "pandas and numpy: np.polyfit(x, y, 1) fits a line",
}

_T_DIST = '''def t_two_sided(t2, dof):
    """Two-sided p-value of Student's t (t squared, degrees of freedom)."""
    import math
    a, b, x = dof / 2, 0.5, dof / (dof + t2)
    if x <= 0 or x >= 1:
        return 0.0 if x <= 0 else 1.0
    swap = x >= (a + 1) / (a + b + 2)
    if swap:
        a, b, x = b, a, 1 - x
    c, d = 1.0, 1 - (a + b) * x / (a + 1)
    d = 1 / (d if abs(d) > 1e-300 else 1e-300)
    h = d
    for m in range(1, 500):
        for aa in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                   -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1 + aa * d
            d = 1 / (d if abs(d) > 1e-300 else 1e-300)
            c = 1 + aa / c
            c = c if abs(c) > 1e-300 else 1e-300
            h = h * d * c
        if abs(d * c - 1) < 1e-15:
            break
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                     + a * math.log(x) + b * math.log(1 - x))
    p = front * h / a
    return 1 - p if swap else p
'''

_CORR = '''def {name}(x, y):
    """{title}'s coefficient and two-sided p-value (scipy is not in the sandbox: pandas
    computes it, leaving out pairs with a missing value)."""
    import pandas as pd
    a, b = pd.Series(list(x), dtype=float), pd.Series(list(y), dtype=float)
    keep = a.notna() & b.notna()
    a, b = a[keep].reset_index(drop=True), b[keep].reset_index(drop=True)
    if {ranks}:
        a, b = a.rank(), b.rank()
    r = float(a.corr(b))
    if len(a) < 3 or r != r:
        return r, float("nan")
    if abs(r) >= 1:
        return r, 0.0
    return r, t_two_sided(r * r * (len(a) - 2) / (1 - r * r), len(a) - 2)
'''

#: scipy functions a cell may call that are defined in the re-run instead.
SHIMS = {
    "scipy.stats.pearsonr": ("pearsonr", "Pearson", "False"),
    "scipy.stats.spearmanr": ("spearmanr", "Spearman", "True"),
}


def missing_module(result: ExecutionResult) -> str | None:
    """The module a failed cell could not import (the sandbox lacks it or refuses it)."""
    error = result.error
    if error is None or error.type not in ("ImportError", "ModuleNotFoundError"):
        return None
    m = _MISSING.search(error.message)
    return next((g for g in m.groups() if g), None) if m else None


@dataclass(frozen=True)
class ImportFix:
    """A failed cell rewritten without the imports of a module the sandbox lacks."""

    code: str
    module: str
    #: scipy functions defined in the cell instead (``pearsonr``).
    defined: tuple[str, ...]
    #: Statements left out (drawing, or an unused import), as written.
    dropped: tuple[str, ...]

    def note(self) -> str:
        """What the model (and the transcript) is told about the re-run."""
        done = []
        if self.defined:
            names = " and ".join(self.defined)
            done.append(
                f"with {names} defined in the cell (pandas computes the coefficient, leaving "
                "out pairs with a missing value; the two-sided p-value is from Student's t)"
            )
        if self.dropped:
            shown = "; ".join(d.splitlines()[0][:60] for d in self.dropped[:4])
            done.append(f"without {shown}")
        return (
            f"Your cell failed: {self.module} is not available in this sandbox. I re-ran your "
            f"cell {', and '.join(done)}. Use pandas and numpy from now on. Output of the "
            "re-run:"
        )


def _bindings(node: ast.Import | ast.ImportFrom, root: str) -> dict[str, str] | None:
    """The names ``node`` binds from ``root`` → their dotted paths (None: a relative import
    or a star import)."""
    out: dict[str, str] = {}
    if isinstance(node, ast.ImportFrom):
        if node.level or not node.module or node.module.split(".")[0] != root:
            return {}
        for alias in node.names:
            if alias.name == "*":
                return None
            out[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        return out
    for alias in node.names:
        if alias.name.split(".")[0] == root:
            bound = alias.asname or alias.name.split(".")[0]
            out[bound] = alias.name if alias.asname else root
    return out


def _dotted(node: ast.expr, parents: dict[int, ast.AST]) -> tuple[ast.expr, str]:
    """The longest ``a.b.c`` chain that starts at the name ``node``, and its text."""
    parts = [node.id] if isinstance(node, ast.Name) else []
    top: ast.expr = node
    parent = parents.get(id(top))
    while isinstance(parent, ast.Attribute) and parent.value is top:
        parts.append(parent.attr)
        top = parent
        parent = parents.get(id(top))
    return top, ".".join(parts)


def _names_in(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _bound_by(stmt: ast.stmt) -> set[str]:
    targets: list[ast.expr] = []
    if isinstance(stmt, ast.Assign):
        targets = stmt.targets
    elif isinstance(stmt, ast.AnnAssign | ast.AugAssign):
        targets = [stmt.target]
    return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}


def import_fix(result: ExecutionResult, code: str) -> ImportFix | None:
    """``code`` rewritten so that it no longer needs the module the cell failed to import
    (see the module's docstring), or None when that cannot be done safely."""
    missing = missing_module(result)
    if missing is None:
        return None
    root = missing.split(".")[0]
    try:
        tree = parse_source(code)
    except SyntaxError:
        return None
    bound: dict[str, str] = {}
    imports: list[ast.Import | ast.ImportFrom] = []
    for stmt in tree.body:
        if isinstance(stmt, ast.Import | ast.ImportFrom):
            names = _bindings(stmt, root)
            if names is None:
                return None
            if names:
                bound |= names
                imports.append(stmt)
    if not imports:
        return None
    parents = {id(c): p for p in ast.walk(tree) for c in ast.iter_child_nodes(p)}
    edits: list[tuple[int, int, int, int, str]] = []  # (line, col, end line, end col, text)
    defined: dict[str, tuple[str, str, str]] = {}
    dropped: list[str] = []
    tainted = {n for n, path in bound.items() if path.split(".")[0] in PLOTTING}
    for stmt in tree.body:
        if stmt in imports:
            continue
        if _names_in(stmt) & tainted:
            if not isinstance(stmt, ast.Expr | ast.Assign | ast.AnnAssign | ast.AugAssign):
                return None  # (drawing inside a loop or a block: not taken apart)
            tainted |= _bound_by(stmt)
            dropped.append(ast.get_source_segment(code, stmt) or "")
            edits.append(node_span(stmt, ""))
            continue
        for node in ast.walk(stmt):
            if not (isinstance(node, ast.Name) and node.id in bound):
                continue
            top, text = _dotted(node, parents)
            path = bound[node.id] + text[len(node.id) :]
            if path not in SHIMS:
                return None
            defined[SHIMS[path][0]] = SHIMS[path]
            edits.append(node_span(top, SHIMS[path][0]))
    prelude = [_T_DIST] if defined else []
    prelude += [_CORR.format(name=n, title=t, ranks=k) for n, t, k in defined.values()]
    for stmt in imports:
        kept = _kept_aliases(stmt, root)
        if stmt is imports[0]:
            kept = "\n".join(filter(None, [kept, *prelude]))
        if not defined:
            dropped.insert(0, ast.get_source_segment(code, stmt) or "")
        edits.append(node_span(stmt, kept))
    return ImportFix(
        code=apply_edits(code, edits), module=root, defined=tuple(defined), dropped=tuple(dropped)
    )


def _kept_aliases(stmt: ast.Import | ast.ImportFrom, root: str) -> str:
    """The import statement with only the modules other than ``root`` (empty when none)."""
    if isinstance(stmt, ast.ImportFrom):
        return ""
    rest = [a for a in stmt.names if a.name.split(".")[0] != root]
    return ast.unparse(ast.Import(names=rest)) if rest else ""


def node_span(node: ast.AST, text: str) -> tuple[int, int, int, int, str]:
    """An edit replacing ``node``'s source with ``text`` (for ``apply_edits``)."""
    end_line = getattr(node, "end_lineno", None) or node.lineno  # type: ignore[attr-defined]
    end_col = getattr(node, "end_col_offset", None) or 0
    return (node.lineno, node.col_offset, end_line, end_col, text)  # type: ignore[attr-defined]


def source_offset(lines: list[str], line: int, col: int) -> int:
    """The character offset in the cell of ``ast``'s (line, byte column) position; ``lines``
    is the cell split with its line ends kept."""
    return sum(len(t) for t in lines[: line - 1]) + len(lines[line - 1].encode()[:col].decode())


def apply_edits(code: str, edits: list[tuple[int, int, int, int, str]]) -> str:
    """``code`` with each span replaced (spans do not overlap), indented as the line it
    starts on when the replacement has several lines."""
    lines = code.splitlines(keepends=True)

    def offset(line: int, col: int) -> int:
        return source_offset(lines, line, col)

    out = code
    for line, col, end_line, end_col, text in sorted(edits, reverse=True):
        start, end = offset(line, col), offset(end_line, end_col)
        if "\n" in text:
            first = lines[line - 1]
            text = text.rstrip("\n").replace("\n", "\n" + first[: len(first) - len(first.lstrip())])
        out = out[:start] + text + out[end:]
    return out


def import_hint(result: ExecutionResult) -> str:
    """What to use instead of a library the sandbox lacks (when the cell was not rewritten)."""
    missing = missing_module(result)
    if missing is None:
        return ""
    root = missing.split(".")[0]
    if root in PLOTTING:
        return (
            f"{root} is not available in this sandbox: leave the plot out and compute the answer."
        )
    instead = INSTEAD.get(root)
    if instead is None:
        return f"{root} is not available in this sandbox: compute with pandas and numpy instead."
    return f"{root} is not available in this sandbox: use {instead}."
