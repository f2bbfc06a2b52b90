"""A cell with its answer written as code: the 1.5B model ends a cell with the answer line
(``@price_per_m2[round(df.iloc[0, 1], 2)]``), which is a SyntaxError, so nothing in the cell
runs and it repeats the same cell. The cell is run again with each such line printed when
what it holds is an expression of the cell's names (the value is then computed, not
guessed), and left out when it holds a written value."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from codeact.executors.base import ExecutionResult

#: A line that is only answer placeholders: ``@name[...]`` once or more.
_ANSWER_LINE = re.compile(r"^([ \t]*)((?:@\w+\[[^\n]*?\][ \t]*)+)$", re.M)
_TOKEN = re.compile(r"@(\w+)\[([^\n]*?)\](?=\s*(?:@|$))")


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
            said.append(f"left out {', '.join(self.dropped)} (a value no code computed)")
        return (
            "Your cell failed: an answer line such as @name[...] is not Python. I re-ran your "
            f"cell and {' and '.join(said)}; give the answer after the output, outside "
            "<execute>. Output of the re-run:"
        )


def _computed(expression: str) -> bool:
    """Whether ``expression`` is Python that reads a name (not a written value)."""
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except SyntaxError:
        return False
    return any(isinstance(node, ast.Name) for node in ast.walk(tree))


def answer_line_fix(result: ExecutionResult, code: str) -> AnswerLineFix | None:
    """The cell with its ``@name[...]`` lines printed (an expression) or left out (a written
    value), when it failed to compile and compiles so; None otherwise."""
    error = result.error
    if error is None or error.type != "SyntaxError" or not _ANSWER_LINE.search(code):
        return None
    printed: list[str] = []
    dropped: list[str] = []

    def line(m: re.Match[str]) -> str:
        after = code[m.end() :].lstrip()
        if after.startswith(("def ", "class ", "async def ")):
            return m.group(0)  # (a decorator)
        tokens = _TOKEN.findall(m.group(2))
        shown = [(n, v) for n, v in tokens if _computed(v)]
        dropped.extend(f"@{n}[{v}]" for n, v in tokens if not _computed(v))
        if not shown:
            return f"{m.group(1)}pass"
        text = " ".join(f"@{n}[{{{v.strip()}}}]" for n, v in shown)
        call = f'print(f"{text}")' if '"' not in text else f"print(f'{text}')"
        printed.append(call)
        return f"{m.group(1)}{call}"

    fixed = _ANSWER_LINE.sub(line, code)
    if fixed == code:
        return None
    try:
        ast.parse(fixed)
    except SyntaxError:
        return None
    return AnswerLineFix(code=fixed, printed=tuple(printed), dropped=tuple(dropped))
