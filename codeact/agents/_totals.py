"""Total rows inside a table (fresh20: a brewing log with ``'Total 03/2023'`` after each month,
only Volume and Cost filled in). Spreadsheets exported as CSV carry them; summed or counted
with the records, every total counts the month twice. The files note names them and gives the
line that leaves them out; a question that says to leave them out, answered by code that
never does, is sent back with that line in place after the read.
"""

from __future__ import annotations

import ast
import re

from codeact.agents._notecols import (
    NOTE_HEAD,
    insert_after,
    note_column_kinds,
    read_once,
    task_text,
    uses_column,
)
from codeact.agents._problem import Problem, problem_of

#: A label of a total row: "Total", "Subtotal", "Sub-total", "Grand total", "Sum", "Totals",
#: and in the languages of other exports ("Summe", "Gesamt", "Zwischensumme", "Somme",
#: "Totaal", "Totale", "Suma").
_TOTAL = re.compile(
    r"^(?:sub-?\s?totals?|grand\s+totals?|totals?|sum|summe|gesamt(?:summe)?|insgesamt"
    r"|zwischensumme|somme|totaal|totale|suma)\b",
    re.I,
)
#: What the files note says of them, and its line leaving them out.
_SAID = re.compile(
    r"^  \d+ rows? (?:is a total|are totals), not records \((['\"].*?['\"]) in (['\"].*?['\"]), "
    r"most other columns empty(?:, only (.*?) filled in)?\).*?: (df = .*)$",
    re.M,
)
_QUOTED = re.compile(r"'(?:[^'\\\n]|\\.)*'|\"[^\"\n]*\"")
#: A test that keeps rows by a value they hold (``== 'FAIL'``, ``.isin([...])``, ``> 6``).
_KEEPS = re.compile(r"==|\.isin\(|\.str\.(?:contains|startswith)\(|[<>]=?\s*(?:-?\d|['\"])")
#: A question that speaks of them ("a subtotal row after each month ... leave those rows out",
#: "a summary line (Loan ID 'TOTAL'), not a loan: leave it out").
_ASKED = re.compile(
    r"\b(?:sub-?\s?)?total\s+(?:rows?|lines?)\b|\bsubtotals?\b|\brows? of totals\b"
    r"|\bsummary\s+(?:rows?|lines?)\b",
    re.I,
)
_EMPTY = {"", "-", "n/a", "na", "nan", "null", "none"}
_FIRST = set("TtSsGgIiZz ")  # (the first characters of a label: most values are no label)


def totals_hint(header: list[str], columns: list[list[str]]) -> str:
    """The note's line on rows labelled as totals (``'Total 03/2023'`` in the first column
    with more than half of the others empty), or '' when the table has none or they are
    half its rows or more."""
    return total_rows(header, columns)[1]


def total_rows(header: list[str], columns: list[list[str]]) -> tuple[list[int], str, int]:
    """The rows labelled as totals (their indices in ``columns``), the note's line on them
    (``totals_hint``) and the column of their labels, or ``([], "", 0)``."""
    rows = min((len(c) for c in columns), default=0)
    for j, column in enumerate(columns):
        found = [
            i for i, v in enumerate(column[:rows]) if v[:1] in _FIRST and _TOTAL.match(v.strip())
        ]
        if not found or len(found) * 2 >= rows:
            continue
        others = [c for k, c in enumerate(columns) if k != j]
        if not others or any(
            sum(c[i].strip().lower() not in _EMPTY for c in others) * 2 > len(others) for i in found
        ):
            continue  # (a record whose text starts with "Total": its row is filled in)
        filled = [
            header[k]
            for k, c in enumerate(columns)
            if k != j and any(c[i].strip().lower() not in _EMPTY for i in found)
        ]
        if not any(re.search(r"\d", columns[k][i]) for k in range(len(columns)) for i in found):
            continue  # (no number in them: "Sum up survey results" is a task, not a total)
        labels = [column[i].strip() for i in found]
        words = {re.match(r"[\w-]+", w).group(0).lower() for w in labels}  # type: ignore[union-attr]
        name = header[j]
        said = "|".join(re.escape(w) for w in sorted(words))  # (each word whole: 'Summer
        said = said if len(words) == 1 else f"(?:{said})"  # Ale' is no 'Sum')
        test = f".str.strip().str.match(r'(?i){said}\\b')"
        count = f"{len(found)} rows are totals" if len(found) > 1 else "1 row is a total"
        shown = " and ".join(repr(f) for f in filled)
        told = f", only {shown} filled in" if filled and len(filled) <= 3 else ""
        return (
            found,
            (
                f"  {count}, not records ({labels[0]!r} in {name!r}, most other columns empty"
                f"{told}): leave them out first: df = df[~df[{name!r}].astype(str){test}]"
            ),
            j,
        )
    return [], "", 0


def totals_problem(question: str, code: str) -> Problem | None:
    """The question says to leave the total rows out, the files note names them, and the
    code never mentions them: each total is counted (or summed) with the records. The fix
    leaves them out right after the file is read."""
    if not _ASKED.search(task_text(question)):
        return None
    note = question.partition(NOTE_HEAD)[2]
    for section in re.split(r"\n- (?='|\")", note)[1:]:
        said = _SAID.search(section)
        file = re.match(r"'([^'\n]*)'|\"([^\"\n]*)\"", section)
        if said is None or file is None:
            continue
        label, column = said.group(1)[1:-1], re.escape(said.group(2)[1:-1])
        ref = rf"(?:\[\s*['\"]{column}['\"]\s*\]|`{column}`|\.iloc\[\s*:\s*,\s*\d+\s*\])"
        tests = rf"{ref}[^\n]*\.str\.(?:startswith|contains|match|isdigit|isnumeric|len|slice)\("
        exact = rf"{ref}\s*!=\s*['\"]{re.escape(label)}['\"]"  # (one label: 'TOTAL')
        others = r"\.dropna\((?:\)|.*subset)|\[\s*:\s*-\s*\d+\s*\]|\.head\(\s*-|\.drop\("
        filled = [ast.literal_eval(f) for f in _QUOTED.findall(said.group(3) or "")]
        empty = [  # (a column the totals leave empty, kept where present: no total passes)
            rf"\[\s*['\"]{re.escape(n)}['\"]\s*\]\.(?:notna|notnull)\(\)"
            for n in totals_left_empty(f"{NOTE_HEAD}\n- {section}")
        ]
        if re.search("|".join([tests, exact, others, *empty]), code, re.I):
            return None  # (left out, by the label or by the empty columns)
        if filled and not any(uses_column(code, f) for f in filled) and _KEEPS.search(code):
            continue  # (a test of the rows' own columns: a total, empty there, never passes)
        near = re.search(rf"\w+{ref}\s*!=\s*(['\"][^'\"\n]*['\"])", code)
        kept = f" ({near.group(0)} keeps them: they read {label!r})" if near else ""
        found = read_once(code.splitlines(), file.group(1) or file.group(2))
        fixed = None
        if found is not None and not re.search(r"usecols|index_col", code.splitlines()[found[0]]):
            at, frame = found
            fixed = insert_after(code, at, re.sub(r"\bdf\b", frame, said.group(4)))
        return problem_of(
            f"The question says to leave the total rows out, but your code never does{kept}: "
            "each total counts again with the records it adds up. Leave them out right after "
            f"reading the file ({said.group(4)}); run your code again, print the result, "
            "then answer.",
            fixed,
        )
    return None


def totals_left_empty(question: str) -> set[str]:
    """The columns the total rows the files note names leave empty (none without such rows,
    or when the note does not say which they fill)."""
    out: set[str] = set()
    for section in re.split(r"\n- (?='|\")", question.partition(NOTE_HEAD)[2])[1:]:
        said = _SAID.search(section)
        if said is None or not said.group(3):
            continue
        filled = {ast.literal_eval(f) for f in _QUOTED.findall(said.group(3))}
        label = said.group(2)[1:-1]
        out |= {
            n
            for n, _kind in note_column_kinds(f"{NOTE_HEAD}\n- {section}")
            if n not in filled and n != label
        }
    return out


_LEAVE = re.compile(
    r"\b(?:leave|leaving|exclud\w*|ignor\w*|drop\w*|skip\w*|except|not counted)\b", re.I
)


def about_total_rows(task: str, start: int) -> bool:
    """Whether ``task[start]`` lies in a sentence about total rows the question leaves out
    (fresh20: "a subtotal row after each month, with ... and only Volume and Cost filled in:
    leave those rows out" names Volume for the totals, not for the count)."""
    left = max(task.rfind(". ", 0, start), task.rfind("\n", 0, start)) + 1
    ends = [i for i in (task.find(". ", start), task.find("\n", start)) if i >= 0]
    sentence = task[left : min(ends, default=len(task))]
    return bool(_ASKED.search(sentence) and _LEAVE.search(sentence))
