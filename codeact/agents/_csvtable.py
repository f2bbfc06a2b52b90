"""A CSV text read once, for the files note and the join hints: its separator, the title
lines above its header (a spreadsheet's export), the header and the first rows' values."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

SCAN_ROWS = 20_000


def dialect(head: str) -> str:
    """The separator of a CSV text from its first lines (``,``, ``;``, tab or ``|``)."""
    lines = [ln for ln in head.splitlines()[:5] if ln.strip()]
    if not lines:
        return ","
    counts = {d: [ln.count(d) for ln in lines] for d in (",", ";", "\t", "|")}
    usable = {d: c[0] for d, c in counts.items() if c[0] > 0 and len(set(c)) == 1}
    return max(usable, key=lambda d: usable[d]) if usable else ","


def title_lines(text: str) -> int:
    """How many lines above the header are titles or notes (a spreadsheet's export: at most
    one filled field each, padded with separators or not), when the table below has at least
    three columns; 0 when the first line is the header."""
    lines = text[:20_000].splitlines()[:12]
    for skip in range(min(len(lines) - 3, 10)):
        delimiter = dialect("\n".join(lines[skip:]))
        rows = list(csv.reader(lines[skip:], delimiter=delimiter))
        filled = [sum(bool(f.strip()) for f in r) for r in rows[:4]]
        if min(filled, default=0) >= 3:
            above = list(csv.reader(lines[:skip], delimiter=delimiter))
            titles = all(sum(bool(f.strip()) for f in r) <= 1 for r in above)
            # (a title with a quoted line break is two lines but one record: skiprows counts
            # records, so such a file is left as it is)
            return skip if titles and all(ln.count('"') % 2 == 0 for ln in lines[:skip]) else 0
        if filled and filled[0] > 1:
            return 0
    return 0


@dataclass(frozen=True)
class Table:
    """A CSV text as read once for the note: its title lines, separator, header, the values
    of the first ``SCAN_ROWS`` rows per column (as written) and the rows counted."""

    titles: int
    delimiter: str
    header: list[str]
    columns: list[list[str]]
    rows: int
    body: str
    #: The lines (0 is the header's) of rows repeating the header (an export's page breaks),
    #: left out of ``columns`` and ``rows``; empty when line numbers cannot say (a quoted line
    #: break, a scan stopped early) while ``repeated`` counts those seen.
    repeats: tuple[int, ...] = ()
    repeated: int = 0


def read_table(text: str, *, single_column: bool = False) -> Table | None:
    """The table of a CSV text, or None when it does not parse as one (one column counts only
    with ``single_column``: a ``.csv`` file); title lines above the header are skipped."""
    text = text.removeprefix("\ufeff")  # (a byte-order mark: pandas drops it too)
    titles = title_lines(text)
    if titles:
        text = text.split("\n", titles)[-1]
    delimiter = dialect(text[:20_000])
    try:
        reader = csv.reader(io.StringIO(text), delimiter=delimiter)
        header = next(reader, None)
        if not header or (len(header) < 2 and not single_column):
            return None
        columns: list[list[str]] = [[] for _ in header]
        rows = 0
        names = [h.strip() for h in header]
        repeats: list[int] = []
        for row in reader:
            if len(header) > 1 and [f.strip() for f in row[: len(names)]] == names:
                repeats.append(reader.line_num - 1)  # (the header again: a page break)
                continue
            rows += 1
            for i, col in enumerate(columns):
                col.append(row[i] if i < len(row) else "")
            if rows >= SCAN_ROWS:
                break
    except csv.Error:
        return None
    count = len(repeats)
    if rows >= SCAN_ROWS or reader.line_num != rows + count + 1:
        repeats = []  # (more may follow; or a quoted line break: line numbers are not rows)
    return Table(titles, delimiter, header, columns, rows, text, tuple(repeats), count)
