"""A cell with its answer written as code: the 1.5B model ends a cell with the answer line
(``@price_per_m2[round(df.iloc[0, 1], 2)]``), which is a SyntaxError, so nothing in the cell
runs and it repeats the same cell. The cell is run again with each such line printed when
what it holds is an expression of names the cell binds (the value is then computed, not
guessed), and left out when it holds a written value."""

from __future__ import annotations

import ast
import builtins
import re
from dataclasses import dataclass

from codeact.executors.base import ExecutionResult

_START = re.compile(r"@(\w+)\[")


def _tokens(line: str) -> list[tuple[str, str]] | None:
    """The ``(name, inside)`` of each ``@name[...]`` when ``line`` holds nothing else (commas,
    spaces and a trailing comment aside), brackets matched by depth; None otherwise. One
    pass over the line (no backtracking)."""
    out: list[tuple[str, str]] = []
    i, text = 0, line.strip()
    while i < len(text):
        if text[i] in " \t,":
            i += 1
            continue
        if text[i] == "#" and out:
            break
        m = _START.match(text, i)
        if m is None:
            return None
        depth, j = 1, m.end()
        while j < len(text) and depth:
            depth += {"[": 1, "]": -1}.get(text[j], 0)
            j += 1
        if depth:
            return None
        out.append((m.group(1), text[m.end() : j - 1]))
        i = j
    return out or None


def _bound(code: str) -> set[str]:
    """The names the lines of ``code`` that parse bind (assignments, imports, loops, defs)."""
    names = set(dir(builtins))
    for line in code.splitlines():
        try:
            tree = ast.parse(line.strip())
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.alias):
                names.add((node.asname or node.name).split(".")[0])
            elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                names.add(node.name)
    return names


@dataclass(frozen=True)
class AnswerLineFix:
    """A cell whose answer lines became prints of their expressions (or were left out)."""

    code: str
    printed: tuple[str, ...]
    dropped: tuple[str, ...]

    def note(self) -> str:
        """What the model (and the transcript) is told about the re-run."""
        said = []
        if self.printed:
            said.append(f"printed {', '.join(self.printed)}")
        if self.dropped:
            said.append(f"left out {', '.join(self.dropped)} (no value your cell computes)")
        return (
            "Your cell failed: an answer line such as @name[...] is not Python. I re-ran your "
            f"cell and {' and '.join(said)}; give the answer after the output, outside "
            "<execute>. Output of the re-run:"
        )


def _expression(inside: str, bound: set[str]) -> str | None:
    """The Python expression an answer token holds (``{mean:.2f}`` read as ``mean``), when
    every name it reads is bound by the cell; None for a written value (``Porto``, ``nan``)."""
    text = inside.strip()
    if text.startswith("{") and text.endswith("}"):
        text = text[1:-1].split(":", 1)[0] if ":" in text and "[" not in text else text[1:-1]
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        return None
    read = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    return text if read and read <= bound else None


def answer_line_fix(result: ExecutionResult, code: str) -> AnswerLineFix | None:
    """The cell with its ``@name[...]`` lines printed (an expression of the cell's names) or
    left out (a written value), when it failed to compile and compiles so; None otherwise."""
    error = result.error
    if error is None or error.type != "SyntaxError" or "@" not in code:
        return None
    lines = code.splitlines()
    bound = _bound(code)
    printed: list[str] = []
    dropped: list[str] = []
    out = []
    for n, line in enumerate(lines):
        tokens = _tokens(line) if line.lstrip().startswith("@") else None
        after = next((ln.strip() for ln in lines[n + 1 :] if not ln.lstrip().startswith("@")), "")
        if tokens is None or after.startswith(("def ", "class ", "async def ")):
            out.append(line)  # (not an answer line, or a decorator)
            continue
        indent = line[: len(line) - len(line.lstrip())]
        shown = []
        for name, inside in tokens:
            expr = _expression(inside, bound)
            if expr is None:
                dropped.append(f"@{name}[{inside}]")
            else:
                shown.append(f"@{name}[{{{expr}}}]")
        if not shown:
            out.append(f"{indent}pass")
            continue
        text = " ".join(shown)
        call = f'print(f"{text}")' if '"' not in text else f"print(f'{text}')"
        printed.append(call)
        out.append(f"{indent}{call}")
    fixed = "\n".join(out)
    if fixed == code:
        return None
    try:
        ast.parse(fixed)
    except SyntaxError:
        return None
    return AnswerLineFix(code=fixed, printed=tuple(printed), dropped=tuple(dropped))
