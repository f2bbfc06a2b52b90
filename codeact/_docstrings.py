"""Tiny docstring reader: a summary and per-argument descriptions (Google, Sphinx, NumPy)."""

from __future__ import annotations

import inspect
import re

_SECTION = re.compile(
    r"^(Args|Arguments|Parameters|Params|Keyword Args|Returns|Raises|Yields|"
    r"Examples?|Notes?|See Also)\s*:?\s*$"
)
_GOOGLE_ARG = re.compile(r"^(\*{0,2}\w+)\s*(?:\(([^)]*)\))?\s*:\s*(.*)$")
_SPHINX_ARG = re.compile(r"^:param\s+(?:[^:]*\s)?(\w+)\s*:\s*(.*)$")


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """Return ``(description, {arg: description})`` read from a docstring.

    The description is the text before the first section; argument docs come from a Google
    ``Args:`` section, Sphinx ``:param x:`` lines or a NumPy ``Parameters`` section.
    """
    if not doc:
        return "", {}
    lines = inspect.cleandoc(doc).splitlines()
    summary: list[str] = []
    args: dict[str, str] = {}
    section: str | None = None
    current: str | None = None
    arg_indent: int | None = None
    i = 0
    while i < len(lines):
        raw = lines[i]
        line = raw.strip()
        nxt = lines[i + 1].strip() if i + 1 < len(lines) else ""
        m_sphinx = _SPHINX_ARG.match(line)
        if m_sphinx:
            current = m_sphinx.group(1)
            args[current] = m_sphinx.group(2).strip()
            section = "sphinx"
        elif line.startswith(":"):
            section, current = "sphinx-other", None
        elif _SECTION.match(line) and (line.endswith(":") or set(nxt) == {"-"}):
            section = _SECTION.match(line).group(1).lower()  # type: ignore[union-attr]
            current, arg_indent = None, None
            if set(nxt) == {"-"}:
                section += "-numpy"
                i += 1  # the underline
        elif section is None:
            summary.append(raw)
        elif section in ("args", "arguments", "parameters", "params", "keyword args"):
            indent = len(raw) - len(raw.lstrip())
            if line and arg_indent is None:
                arg_indent = indent
            current = _read_google_arg(line, indent > (arg_indent or 0), args, current)
        elif section == "parameters-numpy":
            current = _read_numpy_arg(raw, line, args, current)
        elif section == "sphinx" and current and line:
            args[current] = f"{args[current]} {line}".strip()
        i += 1
    return "\n".join(summary).strip(), args


def _read_google_arg(
    line: str, continuation: bool, args: dict[str, str], current: str | None
) -> str | None:
    if not line:
        return current
    m = _GOOGLE_ARG.match(line)
    if m and not (continuation and current is not None):
        name = m.group(1).lstrip("*")
        args[name] = m.group(3).strip()
        return name
    if current is not None:
        args[current] = f"{args[current]} {line}".strip()
    return current


def _read_numpy_arg(raw: str, line: str, args: dict[str, str], current: str | None) -> str | None:
    if not line:
        return current
    if not raw.startswith((" ", "\t")):
        name = line.split(":", 1)[0].strip().lstrip("*")
        args[name] = ""
        return name
    if current is not None:
        args[current] = f"{args[current]} {line}".strip()
    return current
