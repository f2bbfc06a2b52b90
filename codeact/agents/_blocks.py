"""CodeAct's text protocol on the way in: ``<execute>`` blocks in a reply, and the note that
shows the model its files."""

from __future__ import annotations

import re

_BLOCK = re.compile(r"<execute>(.*?)</execute>", re.DOTALL)
_FENCE = re.compile(r"^\s*```[a-zA-Z0-9_+-]*\s*\n(.*?)\n?\s*```\s*$", re.DOTALL)

PREVIEW_LINES = 5


def describe_files(files: dict[str, bytes]) -> str:
    """A note for the model listing the uploaded files with the first lines of text files."""
    if not files:
        return ""
    out = ["Files in the working directory (open them with relative paths):"]
    for name, data in files.items():
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            out.append(f"- {name} ({len(data)} bytes, binary)")
            continue
        head = "\n".join(text.splitlines()[:PREVIEW_LINES])
        out.append(f"- {name} ({len(text.splitlines())} lines). First lines:\n```\n{head}\n```")
    return "\n".join(out)


def parse_blocks(text: str) -> tuple[list[str], str | None]:
    """``(code blocks, format error)`` found in a reply; fences inside the tags are tolerated."""
    blocks = []
    for raw in _BLOCK.findall(text):
        fenced = _FENCE.match(raw)
        code = fenced.group(1) if fenced else raw
        code = code.strip("\n")
        if code.strip():
            blocks.append(code)
    rest = _BLOCK.sub("", text)
    if "<execute>" in rest:
        return blocks, (
            "Your reply opened an <execute> block without closing it. Put the code between "
            "<execute> and </execute>, or reply without the tag if this is your final answer."
        )
    return blocks, None
