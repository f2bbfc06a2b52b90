"""A column of another file used by a cell that never joins it (fresh15: ``df[df['Type'] ==
'Suite']`` on the bookings, Type being a column of rooms.csv; then a merge on 'ROOM' it does
not have, then a filter on 'Rm'). When the files note pairs the two files' keys, the cell is
run again with the other file read and joined right after its own file is read: the note's
lines that make the keys match, then a left join on them (``join_missing_fix``)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from codeact.agents._joinfix import key_pairs, keys_made, on_frames
from codeact.agents._notecols import file_columns, read_once
from codeact.agents._unusedfix import failing_lineno, safe_to_repeat, shown_lines
from codeact.executors.base import ExecutionResult


@dataclass(frozen=True)
class JoinMissingFix:
    """A failed cell re-run with the file holding its missing column joined first."""

    code: str
    lines: tuple[str, ...]

    def note(self) -> str:
        """What the model (and the transcript) is told about the re-run."""
        return (
            "Your cell failed: it uses a column of another file without joining that file. I "
            "re-ran your cell with " + shown_lines(self.lines) + " right "
            "after your file is read (the files note says how the keys match); join the "
            "files yourself from now on. Output of the re-run:"
        )


def join_missing_fix(question: str, result: ExecutionResult, code: str) -> JoinMissingFix | None:
    """The cell with the other file joined after its own file's read, when it failed with
    ``KeyError`` on a column only that other file has, the note pairs the two files' keys,
    the cell reads its own file once (and the other once or never, and joins nothing), no
    column but the keys is in both files, and what ran before can run again."""
    error = result.error
    if error is None or error.type != "KeyError":
        return None
    missing = re.match(r"""^['"](.+)['"]$""", error.message.strip())
    files = file_columns(question)
    holders = [f for f, cs in files.items() if missing and missing.group(1) in cs]
    if missing is None or len(holders) != 1:
        return None
    lines = code.splitlines()
    other = holders[0]
    read_other = read_once(lines, other)
    if read_other is None and re.search(rf"['\"]{re.escape(other)}['\"]", code):
        return None  # (read some other way: the model's join is at fault)
    if read_other is not None and re.search(r"merge\(|\.join\(|concat\(", code):
        return None  # (read and joined: another fix sees to the join)
    for col_a, file_a, col_b, file_b, made in key_pairs(question):
        if other not in (file_a, file_b):
            continue
        own = file_b if other == file_a else file_a
        read = read_once(lines, own)
        number = failing_lineno(error.traceback)
        if read is None or number is None or read[0] >= number - 1:
            continue
        shared = set(files[own]) & set(files[other]) - {col_a, col_b}
        if shared or not safe_to_repeat(code, error.traceback):
            return None  # (a column in both: the join would rename it)
        at, frame = read
        joined = "_" + re.sub(r"\W", "_", other.rsplit(".", 1)[0])
        if read_other is not None:  # (read by the cell, never joined: joined after both)
            if read_other[0] >= number - 1:
                return None
            at, joined = max(at, read_other[0]), read_other[1]
        keys = (col_a, col_b) if own == file_a else (col_b, col_a)
        frames = (frame, joined) if own == file_a else (joined, frame)
        before = "\n".join(lines[: number - 1])
        own_way = keys_made(before, col_a, col_b)
        added = [
            *([f"{joined} = pd.read_csv({other!r})"] if read_other is None else []),
            *([] if own_way else (on_frames(ln, *frames) for ln in made)),
            f"{frame} = {frame}.merge({joined}, left_on={keys[0]!r}, right_on={keys[1]!r}, "
            "how='left')",
        ]
        fixed = [*lines[: at + 1], *added, *lines[at + 1 :]]
        return JoinMissingFix(code="\n".join(fixed), lines=tuple(added))
    return None
