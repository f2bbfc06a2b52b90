"""SSE framing of AG-UI events (a leaf: the run registry, replays and history all use it)."""

from __future__ import annotations


def frame(seq: int, data: str) -> bytes:
    """One SSE frame with its id (for ``Last-Event-ID``): LF framing, one event per data.
    A lone surrogate (which UTF-8 cannot carry) becomes ``?`` rather than failing the run."""
    return b"id: %d\ndata: %s\n\n" % (seq, data.encode("utf-8", "replace"))
