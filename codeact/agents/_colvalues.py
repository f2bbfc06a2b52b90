"""Every value of a text column, when the files note shows them all (its folded list,
"the values are ...", or all of its few distinct values as examples); and a short word some
values are written with and others without ('MV Loch Seil', 'Loch Seil'), with the fold that
takes it away."""

from __future__ import annotations

import re

#: The files note's whole list of a column's values, folded: "(folded, the values are 'a', 'b')".
_FOLDED_LIST = re.compile(r"folded, the values are ((?:'[^'\n]*'(?:, )?)+)")
#: A column's few values, all shown: "5 distinct values, e.g. 'Forst', ..." (five of them).
_ALL_SHOWN = re.compile(r"\b(\d+) distinct values, e\.g\. (.*)$")


def all_values(kind: str, *, listed_only: bool = False) -> list[str]:
    """Every value of a text column, folded (case and outer spaces), in the note's order, when
    the note's description ``kind`` shows them all (with ``listed_only``, only from its folded
    list); else none."""
    listed = _FOLDED_LIST.search(kind)
    if listed:
        values = re.findall(r"'([^'\n]*)'", listed.group(1))
    elif (shown := _ALL_SHOWN.search(kind)) and not listed_only:
        values = re.findall(r"'([^'\n]*)'", shown.group(2))
        values = values if len(values) == int(shown.group(1)) else []
    else:
        values = []
    return list(dict.fromkeys(v.strip().lower() for v in values))


def prefix_word(written: list[str]) -> str:
    """A short first word in capitals that some values have and others lack (``'mv'`` for
    'MV Loch Seil' beside 'Loch Seil'; not 'New' of 'New York' beside 'York'), or ``""``."""
    lowered = [v.strip().lower() for v in written]
    found = set(lowered)
    firsts = [(v.split()[0], v) for v in written if v.split()]
    capitals = {w.lower() for w, v in firsts if w.isupper() and not v.isupper()}
    for word in dict.fromkeys(v.split(" ", 1)[0] for v in lowered if " " in v):
        with_it = [v for v in lowered if v.startswith(f"{word} ")]
        if (
            word.isalpha()
            and len(word) <= 3
            and word in capitals
            and len(with_it) > 1
            and all(v.removeprefix(f"{word} ").strip() in found for v in with_it)
        ):
            return word
    return ""


def lead_cut(word: str) -> str:
    """The call that takes the leading ``word`` (and its spaces) off a column's text."""
    return f".str.replace(r'^{word}\\s+', '', regex=True)"


def cuts_lead(code: str, word: str) -> bool:
    """Whether ``code`` takes the leading ``word`` off some text (a replace, removeprefix or
    lstrip naming it first)."""
    return (
        re.search(rf"(?:replace|removeprefix|lstrip)\(\s*r?['\"]\^?{word}", code, re.I) is not None
    )


def without_lead(value: str, word: str) -> str:
    """``value`` without the leading ``word`` (any case) and its spaces."""
    return re.sub(rf"^{word}\s+", "", value.strip(), flags=re.I)
