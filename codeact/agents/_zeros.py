"""Ids written with leading zeros (``'0042'``), which pandas reads as numbers (42): a merge
of one file's ids kept as text with another's read as numbers is re-run with both as text
(``zero_key_fix``); a question asking for them as written, answered by code reading them as
numbers, is sent back with the reads keeping them (``zeros_problem``)."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from codeact.agents._notecols import file_columns, question_without_note, task_text, uses_column
from codeact.agents._placeholders import TOKEN
from codeact.agents._problem import Problem, problem_of
from codeact.agents._readfix import READ_CALL
from codeact.agents._unusedfix import safe_to_repeat
from codeact.executors.base import ExecutionResult

#: The key of a merge that failed on text against numbers (``for key 'Mitglied-Nr.'``).
_KEY_OF = re.compile(r"for key '([^'\n]+)'")


@dataclass(frozen=True)
class ZeroKeyFix:
    """A failed merge of ids kept as text with the same ids read as numbers, re-run with
    each read of a file the note says writes them with leading zeros keeping them as text."""

    code: str
    reads: tuple[str, ...]

    def note(self) -> str:
        """What the model (and the transcript) is told about the re-run."""
        return (
            "Your cell failed: it merges ids kept as text with the same ids read as numbers. "
            f"I re-ran your cell with {'; '.join(self.reads)} (the ids as written, leading "
            "zeros and all, as the files note says); read them so from now on. Output of the "
            "re-run:"
        )


def zero_key_fix(question: str, result: ExecutionResult, code: str) -> ZeroKeyFix | None:
    """The cell with ``dtype={key: str}`` added to each read of a file whose ``key`` the
    files note says is written with leading zeros, when a merge on ``key`` failed on text
    against numbers (fresh22: one file read with ``dtype={'Mitglied-Nr.': str}``, the other
    not) and what ran before can run again."""
    error = result.error
    key = _KEY_OF.search(error.message) if error is not None else None
    if error is None or key is None or not safe_to_repeat(code, error.traceback):
        return None
    name = key.group(1)
    zeros = [file for file, column in zero_columns(question) if column == name]
    fixed, reads = _read_as_text(code, zeros, name)
    return ZeroKeyFix(code=fixed, reads=tuple(reads)) if reads else None


def _read_as_text(code: str, files: list[str], column: str) -> tuple[str, list[str]]:
    """``code`` with ``dtype={column: str}`` added to each read of one of ``files`` that
    gives no ``dtype``, and the new calls."""
    reads: list[str] = []

    def kept(m: re.Match[str]) -> str:
        if m.group(3) not in files or re.search(r"\bdtype\s*=", m.group(4)):
            return m.group(0)
        reads.append(f"{m.group(1)}{m.group(4)}, dtype={{{column!r}: str}})")
        return reads[-1]

    return READ_CALL.sub(kept, code), reads


def _section_end(question: str, at: int) -> int:
    end = question.find("\n- ", at + 1)
    return end if end >= 0 else len(question)


#: A question asking for ids as written, leading zeros and all; a note's column so written.
_ZEROS_ASKED = re.compile(
    r"\b(?:keep\w*|with|including|include)\b[^.;\n]{0,40}\bleading zeros?\b"
    r"|\bleading zeros?\s+(?:included|and all|kept)",
    re.I,
)
#: Code keeping them itself: read as text, or padded back.
_ZEROS_KEPT = re.compile(r"\b(?:dtype|converters)\s*=|zfill|rjust|\.pad\(|:0\d|%0\d")
_ZEROS_SAID = re.compile(r"^  - ('[^'\n]+'): [^\n]*written with leading zeros", re.M)


def zeros_problem(question: str, code: str) -> Problem | None:
    """The question asks for ids with their leading zeros, the files note says a column the
    code uses is written with them, and the code reads its file as numbers (no ``dtype``,
    no ``zfill``): ``0253`` comes out as 253. Sent back with the reads keeping them."""
    # (said of the answer: the format, when there is one; "keep it as written" of a join
    # key whose village is asked is no ask: fresh22_top_village)
    lines = question_without_note(question).splitlines()
    formats = [x for x in lines if TOKEN.search(x) or x.lower().startswith("format")]
    asked = _ZEROS_ASKED.search("\n".join(formats) if formats else task_text(question))
    if not asked or re.search(r"\bwithout\b", asked.group(0), re.I) or _ZEROS_KEPT.search(code):
        return None
    for file, column in zero_columns(question):
        fixed, reads = (
            _read_as_text(code, [file], column) if uses_column(code, column) else ("", [])
        )
        if reads:
            return problem_of(
                f"The question asks for {column!r} as written, leading zeros and all, and "
                f"your code reads it as numbers ('0042' becomes 42). Read it with "
                f"{'; '.join(reads)}, print the result, then answer.",
                fixed,
            )
    return None


def zero_columns(question: str) -> list[tuple[str, str]]:
    """(file, column) for each column the files note says is written with leading zeros."""
    out = []
    for file in file_columns(question):
        at = question.find(f"- {file!r} (")
        section = question[at : _section_end(question, at)] if at >= 0 else ""
        out += [(file, ast.literal_eval(name)) for name in _ZEROS_SAID.findall(section)]
    return out
