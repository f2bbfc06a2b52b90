"""The cells at the top of an exported notebook: the files the run uploaded (and a cell that
finds them), and the stand-ins for what only existed in the sandbox (``final_answer`` and the
host tools bridged in as the ``tools`` module)."""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

from codeact._parse import parse_source

__all__ = ["data_dir_for", "files_cell", "sandbox_uses", "setup_cell"]

_FINAL = re.compile(r"\bfinal_answer\s*\(")
_TOOLS = re.compile(r"^\s*(?:from\s+tools\s+import|import\s+tools\b)", re.MULTILINE)


def sandbox_uses(code: str) -> tuple[bool, set[str]]:
    """``(calls final_answer, names of host tools it uses)`` for one cell's code."""
    final = bool(_FINAL.search(code))
    names: set[str] = set()
    try:
        tree = parse_source(code)
    except (SyntaxError, ValueError):
        return final, {"*"} if _TOOLS.search(code) else set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "tools" and not node.level:
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.Import) and any(a.name == "tools" for a in node.names):
            names.add("*")
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "tools"
        ):
            names.add(node.attr)
    return final, names


def sandbox_comment(final: bool, tools: set[str]) -> str:
    """The comment put above a cell that used what only the sandbox had."""
    lines = []
    if tools:
        shown = ", ".join(sorted(n for n in tools if n.isidentifier() and n != "ToolError"))
        what = f" ({shown})" if shown else ""
        lines.append(
            f"# Sandbox-only: this cell called host tools{what} bridged into the agent's sandbox."
        )
        lines.append("# Here they are stand-ins (set-up cell) that raise NotImplementedError.")
    if final:
        lines.append("# Sandbox-only: final_answer() ended the agent's run. Here it is the set-up")
        lines.append("# cell's stand-in, which keeps the value in FINAL_ANSWER.")
    return "\n".join(lines)


def setup_cell(final: bool, tools: set[str], matplotlib: bool) -> str | None:
    """The code of the set-up cell, or None when the notebook needs none."""
    parts = []
    if matplotlib:
        parts.append("%matplotlib inline")
    if final:
        parts.append(
            "FINAL_ANSWER = None\n\n\n"
            "def final_answer(value=None, **kwargs):\n"
            '    """Stand-in for the sandbox\'s final_answer(): keeps the value, prints '
            'nothing."""\n'
            "    global FINAL_ANSWER\n"
            '    FINAL_ANSWER = kwargs.get("answer", value)'
        )
    names = sorted(n for n in tools if n.isidentifier() and n != "ToolError")
    if tools:
        lines = [
            "import sys\nimport types\n\n",
            "def _sandbox_only(name):",
            "    def call(*args, **kwargs):",
            "        raise NotImplementedError(",
            '            f"{name}() was a host tool of the agent\'s sandbox; not available here"',
            "        )",
            "    return call\n\n",
            'tools = types.ModuleType("tools")',
            'tools.ToolError = type("ToolError", (Exception,), {})',
            *[f"tools.{n} = _sandbox_only({n!r})" for n in names],
            'sys.modules["tools"] = tools',
        ]
        parts.append("\n".join(lines))
    if not parts:
        return None
    head = "# Set-up: stand-ins for what only the agent's sandbox had."
    return head + "\n" + "\n\n".join(parts) + "\n"


def files_cell(names: Iterable[str], sizes: Mapping[str, int], data_dir: str) -> str:
    """The code of the cell that finds the uploaded files (and moves there when they sit in
    another folder than the notebook): the cells open them by relative paths, as in the
    sandbox's working directory."""
    listed = {n: sizes.get(n) for n in names}
    return (
        "# The files the agent's sandbox had. Keep them next to this notebook, or set DATA_DIR\n"
        "# to the folder that holds them: the cells below open them by relative paths.\n"
        "import os\n"
        "from pathlib import Path\n\n"
        'NOTEBOOK_DIR = globals().setdefault("NOTEBOOK_DIR", Path.cwd())  # kept on a re-run\n'
        f"DATA_DIR = (NOTEBOOK_DIR / {data_dir!r}).resolve()\n"
        f"FILES = {listed!r}  # name: size in bytes when uploaded\n"
        "missing = [name for name in FILES if not (DATA_DIR / name).is_file()]\n"
        "if missing:\n"
        '    raise FileNotFoundError(f"put these files in {DATA_DIR.resolve()}: {missing}")\n'
        "os.chdir(DATA_DIR)\n"
    )


def data_dir_for(files: Mapping[str, bytes], folders: Iterable[Path], notebook: Path) -> str:
    """The folder, relative to the notebook's, among ``folders`` that holds every file with
    the uploaded size; ``"."`` when none does (the files must then be put next to it)."""
    for folder in folders:
        try:
            if all((folder / n).stat().st_size == len(b) for n, b in files.items()):
                return Path(os.path.relpath(folder.resolve(), notebook.parent.resolve())).as_posix()
        except (OSError, ValueError):
            continue
    return "."
