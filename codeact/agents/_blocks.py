"""CodeAct's text protocol on the way in: ``<execute>`` blocks in a reply, and the note that
shows the model its files."""

from __future__ import annotations

import re

from codeact._parse import parses
from codeact.agents._csvtable import Table, read_table
from codeact.agents._filenote import describe_table
from codeact.agents._joinkeys import key_hints

_BLOCK = re.compile(r"<execute>(.*?)</execute>", re.DOTALL)
_FENCE = re.compile(r"^\s*```[a-zA-Z0-9_+-]*\s*\n(.*?)\n?\s*```\s*$", re.DOTALL)

PREVIEW_LINES = 5


def describe_files(files: dict[str, bytes]) -> str:
    """A note for the model listing the uploaded files (names quoted, so spaces show) with the
    first lines of text files and, for tables, each column's dtype, missing values, numbers
    stored as text and example values (``codeact.agents._filenote``), and keys written
    differently in two tables (``codeact.agents._joinkeys``)."""
    if not files:
        return ""
    out = ["Files in the working directory (open them with relative paths):"]
    tables: dict[str, Table] = {}
    for name, data in files.items():
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            out.append(f"- {name!r} ({len(data)} bytes, binary)")
            continue
        lines = text.splitlines()
        head = "\n".join(line[:300] for line in lines[:PREVIEW_LINES])
        out.append(f"- {name!r} ({len(lines)} lines). First lines:\n```\n{head}\n```")
        table = read_table(text, single_column=name.lower().endswith(".csv"))
        if table is not None:
            out.append(describe_table(table))
            tables[name] = table
    if len(tables) > 1:
        out += key_hints(tables)
    if any(_SKIPPED.search(line) for line in out):  # (a model copies one file's skip to the rest)
        out = [line if "(read with pd.read_csv(" in line else _header_first(line) for line in out]
    return "\n".join(out)


#: A table's note line whose read skips rows (title lines, a repeated header).
_SKIPPED = re.compile(r"\(read with pd\.read_csv\(path, [^\n]*?skiprows=")
#: A table's note line, up to its list of columns.
_TABLE_LINE = re.compile(r"^(  (?:.*? )?\d+ rows x \d+ columns)(\. Columns \(name: type\):)", re.M)


def _header_first(line: str) -> str:
    """A table's note line saying its header is its first line (when another file of the
    note skips rows: fresh23 read vessels.csv with the crossings' skiprows=2)."""
    said = ", its header on its first line (no rows to skip: no skiprows= when reading it)"
    return _TABLE_LINE.sub(lambda m: f"{m.group(1)}{said}{m.group(2)}", line, count=1)


def parse_blocks(text: str) -> tuple[list[str], str | None]:
    """``(code blocks, format error)`` found in a reply; fences inside the tags are tolerated.
    A last block opened and never closed is run when its code parses whole; cut off inside a
    statement, it is a format error."""
    blocks = []
    for raw in _BLOCK.findall(text):
        fenced = _FENCE.match(raw)
        code = fenced.group(1) if fenced else raw
        code = code.strip("\n")
        if code.strip():
            blocks.append(code)
    rest = _BLOCK.sub("", text)
    if "<execute>" in rest:
        tail = _FENCE.sub(r"\1", rest.partition("<execute>")[2].strip("\n"))
        whole = tail.strip() and "<execute>" not in tail and parses(tail)
        if whole:  # (fresh17: a whole cell, its closing tag left out; sent back, the model
            return [*blocks, tail], None  # asked for the task again)
        return blocks, (
            "Your reply opened an <execute> block without closing it. Put the code between "
            "<execute> and </execute>, or reply without the tag if this is your final answer."
        )
    return blocks, None
