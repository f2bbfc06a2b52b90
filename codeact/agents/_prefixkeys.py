"""Keys hidden inside longer codes: another file's ``District`` (``KB4``) is the start of a
postcode (``kb4 7ab``, ``KB47AB``), a ``Region`` (``NW``) the part of a store code before its
dash (``NW-0123``). A merge on the columns as written matches nothing, and the small model
cuts the codes wrongly (``str[:3]`` gives ``KB1`` for ``KB12 4SP``); the files note gives the
cut that matches, found by trying a few on the data."""

from __future__ import annotations

import itertools
from collections.abc import Callable

#: The share of one file's codes whose cut must be a key of the other file.
MATCHED = 0.9
MIN_KEYS = 3
MAX_HINTS = 3


def _cuts(keys: set[str]) -> list[tuple[str, Callable[[str], str]]]:
    """Ways to cut a code down to a key (pandas code after ``df[col]``, the same in Python),
    on codes folded to the keys' case."""
    cuts: list[tuple[str, Callable[[str], str]]] = [
        (".str.split().str[0]", lambda v: v.split()[0] if v.split() else ""),
        (".str.split('-').str[0]", lambda v: v.split("-")[0]),
        (".str.replace(' ', '').str[:-3]", lambda v: v.replace(" ", "")[:-3]),
    ]
    sizes = {len(k) for k in keys}
    if len(sizes) == 1:  # (keys of one length: the first that many characters)
        n = sizes.pop()
        cuts.append((f".str[:{n}]", lambda v: v[:n]))
    return cuts


def _case(keys: set[str]) -> str | None:
    """How the keys are written: ``upper``, ``lower``, or None (mixed: no folding)."""
    if all(k == k.upper() for k in keys):
        return "upper"
    if all(k == k.lower() for k in keys):
        return "lower"
    return None


def prefix_hints(tables: dict[str, dict[str, list[str]]]) -> list[str]:
    """For a column of one file whose values, folded to the case of another file's key
    column (each value once, with letters) and cut one of a few ways, are keys of it in
    ``MATCHED`` of rows (and seldom as written): the cut and the merge."""
    hints: list[str] = []
    keyed = [
        (name, col, set(values))
        for name, cols in tables.items()
        for col, values in cols.items()
        if len(set(values)) == len(values) >= MIN_KEYS
        and all(any(c.isalpha() for c in v) and len(v) >= 2 for v in values)
    ]
    distinct = {(a, col): len(set(v)) for a, cols in tables.items() for col, v in cols.items()}
    for (b, key, keys), (a, columns) in itertools.product(keyed, tables.items()):
        case = _case(keys)
        if a == b or case is None:
            continue
        if key in columns:
            continue  # (the file has the key's column itself: a plain merge)
        for col, values in columns.items():
            if len(hints) >= MAX_HINTS:
                return hints
            if distinct[(a, col)] <= len(keys):
                continue  # (no more codes than keys: not codes holding a key)
            found = _cut(values, keys, case)
            if found:
                code, share = found
                some = "" if share == 1 else f" ({share:.0%} of the rows match)"
                hints.append(
                    f"- Keys inside codes: {key!r} of {b!r} (e.g. {min(keys)!r}) is part of "
                    f"{col!r} of {a!r} (e.g. {values[0]!r}){some}. Cut it out, then join: "
                    f"df[{key!r}] = df[{col!r}].str.strip().str.{case}(){code}; then "
                    f"df.merge(pd.read_csv({b!r}), on={key!r})"
                )
    return hints


def _cut(values: list[str], keys: set[str], case: str) -> tuple[str, float] | None:
    """The pandas cut that makes the most of ``values`` (folded to ``case``) keys, and the
    share it matches, when that is ``MATCHED`` or more; tried on the first rows, then on
    all."""
    head = [getattr(v, case)() for v in values[:200]]
    if sum(v in keys for v in head) > 0.5 * len(head):
        return None  # (the keys as written: a plain merge)
    best: tuple[str, float] | None = None
    for code, cut in _cuts(keys):
        if sum(cut(v) in keys for v in head) < MATCHED * len(head):
            continue
        cut_values = [cut(getattr(v, case)()) for v in values]
        matched = [v for v in cut_values if v in keys]
        share = len(matched) / len(values)
        if len(set(matched)) >= MIN_KEYS and share >= MATCHED and (not best or share > best[1]):
            best = (code, share)
    return best
