"""Rows of a table the files note speaks of besides its records: rows repeating an earlier
row exactly (``copies``), the header row repeated inside (``repeated``: an export's page
breaks, skipped in the read call the note gives)."""

from __future__ import annotations

#: At most this many repeated header rows are given as lines to skip in the read call.
MAX_REPEATS = 30


def repeated(count: int) -> str:
    """What the note says of ``count`` rows repeating the header."""
    return (
        f"the header row repeated on {count} line{'s' * (count > 1)} inside (an export's page "
        "breaks: not records)"
    )


def copies(columns: list[list[str]]) -> list[str]:
    """A line on rows that repeat an earlier row exactly, when there are a few (at most one
    in ten) and a column is nearly all distinct (an id: a repeated id is a copy; a sales log
    of few values repeats rows by chance, and nobody drops those)."""
    rows = [r for r in zip(*columns, strict=False) if any(v.strip() for v in r)]
    count = len(rows) - len(set(rows))
    ids = any(len(set(c)) * 10 >= len(c) * 9 for c in columns)  # (an id column: a copy)
    if not 0 < count * 10 <= len(rows) or not ids:
        return []
    return [
        f"  {count} row{'s' * (count > 1)} repeat{'s' * (count == 1)} an earlier row exactly "
        "(df.duplicated().sum() counts them; df.drop_duplicates() keeps one copy of each)"
    ]
