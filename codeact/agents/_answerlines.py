"""A cell with its answer written as code: the 1.5B model ends a cell with the answer line
(``@price_per_m2[round(df.iloc[0, 1], 2)]``), which is a SyntaxError, so nothing in the cell
runs and it repeats the same cell. The cell is run again with each such line printed when
what it holds is an expression of names the cell binds (the value is then computed, not
guessed), and left out when it holds a written value.

Also here: a cell whose ``final_answer(a, b)`` passed several values is re-run with a print
of them in the question's format (``final_answer_fix``), and a cell that printed the format's
own placeholder word as text (``print("@late[late_value]")``) after computing ``late`` gets
the print of that value run after it (``print_placeholders``)."""

from __future__ import annotations

import ast
import builtins
import re
from dataclasses import dataclass

from codeact._parse import parse_source
from codeact.agents._placeholders import required_placeholders
from codeact.executors.base import CodeExecutor, ExecutionResult, OutputCallback

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
            tree = parse_source(line.strip())
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
            f"cell and {' and '.join(said)}; give the answer after the output, in a reply "
            "without code. Output of the re-run:"
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


def _placeholder(name: str, inside: str) -> bool:
    """Whether an answer token holds the format's placeholder word (``big_sales_value``, or
    its own name), not a written value (``Porto``)."""
    word = inside.strip()
    return word == name or re.fullmatch(r"\w*value", word, re.I) is not None


#: A question asking for a count.
_COUNT_ASKED = re.compile(r"\bhow many\b|\bnumber of\b|\bcount\b", re.I)


def answer_line_fix(result: ExecutionResult, code: str, question: str = "") -> AnswerLineFix | None:
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
            if expr is None and name in bound - set(dir(builtins)) and _placeholder(name, inside):
                # (the format's placeholder word, and a value the cell named after the answer:
                # ``big_sales = df[df['Qty'] > 40]`` then ``@big_sales[big_sales_value]``; when
                # a count is asked, a table's rows are the count)
                expr = name
                if _COUNT_ASKED.search(question):
                    out.append(
                        f"{indent}{name} = len({name}) if hasattr({name}, 'columns') else {name}"
                    )
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
        parse_source(fixed)
    except SyntaxError:
        return None
    return AnswerLineFix(code=fixed, printed=tuple(printed), dropped=tuple(dropped))


_ONE_VALUE = "final_answer() takes one value"
_FINAL_CALL = re.compile(r"^(\s*)final_answer\(([^()\n]*)\)\s*$", re.M)


@dataclass(frozen=True)
class FinalAnswerFix:
    """A failed cell whose ``final_answer(a, b)`` (several values) becomes a print of the
    values in the question's ``@name[...]`` format, one per asked name, in order."""

    code: str
    printed: str

    def note(self) -> str:
        """What the model (and the transcript) is told about the re-run."""
        return (
            "Your cell failed: final_answer() takes one value. I re-ran your cell with "
            f"{self.printed} in its place. Output of the re-run:"
        )


def final_answer_fix(
    result: ExecutionResult, code: str, wanted: list[str]
) -> FinalAnswerFix | None:
    """``final_answer(a, b)`` with one plain argument per asked placeholder → ``print(f"@x[{a}]
    @y[{b}]")``; None for any other failure."""
    error = result.error
    if error is None or _ONE_VALUE not in error.message or not wanted:
        return None
    calls = _FINAL_CALL.findall(code)
    if len(calls) != 1:
        return None
    indent, args = calls[0]
    values = [a.strip() for a in args.split(",") if a.strip()]
    if len(values) != len(wanted) or any("=" in v or "{" in v or "}" in v for v in values):
        return None
    text = " ".join(f"@{n}[{{{v}}}]" for n, v in zip(wanted, values, strict=True))
    printed = f'print(f"{text}")' if '"' not in text else f"print(f'{text}')"
    fixed = _FINAL_CALL.sub(lambda _: f"{indent}{printed}", code)
    return FinalAnswerFix(code=fixed, printed=printed)


@dataclass(frozen=True)
class PlaceholderPrint:
    """The print of the values a cell computed, after it printed the format's placeholder
    words in their place (``print("@late[late_value]")`` with ``late`` computed)."""

    code: str
    printed: tuple[str, ...]

    def note(self) -> str:
        """What the model (and the transcript) is told about the added print."""
        return (
            f"Your cell printed {', '.join(self.printed)}: the format's placeholder, not a "
            f"value. I ran {self.code} after it, with the values your cell computed:"
        )


def placeholder_print_fix(
    question: str, result: ExecutionResult, code: str
) -> PlaceholderPrint | None:
    """For a cell that printed an asked ``@name[word]`` as written text (``word`` the
    question's own placeholder word, or a name the cell binds): the print of the value the
    cell bound to ``word`` or to ``name``; None when there is none."""
    if not result.ok:
        return None
    try:
        bound = {n.id for node in ast.walk(parse_source(code)) for n in _targets(node)}
    except SyntaxError:
        return None
    parts, printed = [], []
    for name in required_placeholders(question):
        words = set(re.findall(rf"@{re.escape(name)}\[([A-Za-z_]\w*)\]", question))
        for word in dict.fromkeys(
            re.findall(rf"@{re.escape(name)}\[([A-Za-z_]\w*)\]", result.stdout)
        ):
            shown = f"@{name}[{word}]"
            if not re.search(rf"['\"][^'\"\n]*{re.escape(shown)}", code) or "{" in word:
                continue  # (not a written text of the cell's)
            var = word if word in bound else name if name in bound and word in words else None
            if var is not None:
                parts.append(f"@{name}[{{{var}}}]")
                printed.append(shown)
                break
    if not parts:
        return None
    return PlaceholderPrint(code=f'print(f"{" ".join(parts)}")', printed=tuple(printed))


def _targets(node: ast.AST) -> list[ast.Name]:
    """The plain names an assignment statement binds."""
    if isinstance(node, ast.Assign):
        return [t for t in node.targets if isinstance(t, ast.Name)]
    if isinstance(node, (ast.AnnAssign, ast.AugAssign)) and isinstance(node.target, ast.Name):
        return [node.target]
    return []


async def print_placeholders(
    session: CodeExecutor,
    question: str,
    result: ExecutionResult,
    code: str,
    timeout: float | None,
    on_output: OutputCallback | None,
) -> tuple[ExecutionResult, str]:
    """The cell's result and code with ``placeholder_print_fix``'s print run after it (the
    session keeps the cell's names), as if the cell had ended with it; unchanged otherwise."""
    fix = placeholder_print_fix(question, result, code)
    if fix is None:
        return result, code
    if on_output is not None:
        on_output("stderr", f"\n[{fix.note()}]\n")
    printed = await session.execute(fix.code, timeout=timeout, on_output=on_output)
    if not printed.ok:
        return result, code
    stdout = f"{result.stdout}[{fix.note()}]\n{printed.stdout}"
    return result.model_copy(update={"stdout": stdout}), f"{code}\n{fix.code}"
