"""A merge on a key one side does not have yet, when the files note says how to make it: the
1.5B model merges ``listings.merge(areas, on='District')`` although ``District`` is only
``areas.csv``'s; the note's "Keys inside codes" line gives the cut that makes it from
``Postcode``, but the model repeats the failing cell (fresh12: KeyError three times). The cell
is run again with the note's line made on the frame read from the file holding the codes,
just before the merge, when what ran before the merge is safe to repeat."""

from __future__ import annotations

import re
from dataclasses import dataclass

from codeact.agents._unusedfix import failing_lineno, safe_to_repeat
from codeact.executors.base import ExecutionResult

#: The files note's line for a key inside another file's codes (``_prefixkeys``).
_INSIDE = re.compile(
    r"^- Keys inside codes: '([^'\n]+)' of '[^'\n]+' .*?is part of '([^'\n]+)' of '([^'\n]+)' "
    r".*?Cut it out, then join: (df\[.*?); then df\.merge",
    re.M,
)


@dataclass(frozen=True)
class JoinKeyFix:
    """A failed merge re-run with the key made first, as the files note says."""

    code: str
    line: str

    def note(self) -> str:
        """What the model (and the transcript) is told about the re-run."""
        return (
            "Your cell failed: it merges on a key one table does not have yet. I re-ran your "
            f"cell with `{self.line}` before the merge, as the files note says; make the key "
            "yourself from now on. Output of the re-run:"
        )


def join_key_fix(question: str, result: ExecutionResult, code: str) -> JoinKeyFix | None:
    """The cell with the note's key line on the frame read from the file holding the codes,
    put just before the failing merge, when it failed with ``KeyError`` on that key at a
    line that merges, the frame never gets the key itself, and what ran before the merge can
    run again; None otherwise."""
    error = result.error
    if error is None or error.type != "KeyError":
        return None
    number = failing_lineno(error.traceback)
    lines = code.splitlines()
    if number is None or not 0 < number <= len(lines) or "merge(" not in lines[number - 1]:
        return None
    failing = lines[number - 1]
    for key, codes, file, made in _INSIDE.findall(question):
        if repr(key) not in error.message or key not in failing:
            continue
        read = re.search(
            rf"^\s*(\w+)\s*=\s*pd\.read_\w+\(\s*(['\"]){re.escape(file)}\2", code, re.M
        )
        if read is None:
            continue
        frame = read.group(1)
        if re.search(rf"\b{frame}\s*\[\s*['\"]{re.escape(key)}['\"]\s*\]\s*=", code):
            continue  # (the model made the key: its own way failed otherwise)
        merged = rf"\b{frame}\s*\.\s*merge\(|\bpd\.merge\(\s*{frame}\b"
        if not re.search(merged, failing) or len(re.findall(rf"^\s*{frame}\s*=", code, re.M)) > 1:
            continue  # (another frame merged, or this one rebuilt since it was read)
        if re.search(rf"\b{frame}\s*\[\s*['\"]{re.escape(codes)}['\"]\s*\]\s*=", code):
            continue  # (the codes changed by the cell: the note's cut may not fit them)
        if read.start() > sum(len(ln) + 1 for ln in lines[: number - 1]):
            continue  # (read after the merge: not the frame it merges)
        if not safe_to_repeat(code, error.traceback):
            return None
        indent = failing[: len(failing) - len(failing.lstrip())]
        line = made.replace("df[", f"{frame}[")
        fixed = "\n".join([*lines[: number - 1], f"{indent}{line}", *lines[number - 1 :]])
        return JoinKeyFix(code=fixed, line=line)
    return None
