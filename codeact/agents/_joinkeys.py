"""Keys written differently in two files: ``'AG-019'`` in one table's Agent column is ``19`` in
another's ``agent_id``. A merge on the columns as they are matches nothing (or fails on the
dtypes), and the small model does not see why; the files note says how to join them."""

from __future__ import annotations

import itertools
import re

from codeact.agents._cellforms import PLAIN_CODE
from codeact.agents._colvalues import lead_cut, prefix_word, without_lead
from codeact.agents._csvtable import Table
from codeact.agents._filenote import NA_STRINGS
from codeact.agents._prefixkeys import prefix_hints

KEY_ROWS = 5_000
MAX_COLUMNS = 60
#: A code: letters, an optional separator, then the number (``AG-019``, ``INC0001001``).
_CODE = re.compile(r"^([A-Za-z]+[-_ #]?)(\d+)$")
_WHOLE = re.compile(r"^\d+$")


def _digits(text: str) -> str:
    """A whole number as text without its leading zeros (``'0042'``: ``'42'``): compared as
    text, so a value of thousands of digits costs no ``int()`` (which refuses past 4,300)."""
    return text.lstrip("0") or "0"


def _columns(table: Table) -> dict[str, list[str]]:
    """The first ``KEY_ROWS`` present values of each of the first ``MAX_COLUMNS`` columns."""
    out = {}
    for name, values in zip(table.header[:MAX_COLUMNS], table.columns, strict=False):
        present = [v.strip() for v in values[:KEY_ROWS] if v.strip() not in NA_STRINGS]
        if present:
            out[name] = present
    return out


def _word(name: str) -> str:
    return re.sub(r"[^a-z]", "", name.lower())


def _linked(code_column: str, key_column: str) -> bool:
    """The names say the two hold the same thing (``Agent`` and ``agent_id``)."""
    code, key = _word(code_column), _word(key_column)
    return len(code) >= 2 and len(key) >= 2 and (code in key or key in code)


def _keys(tables: dict[str, dict[str, list[str]]]) -> dict[tuple[str, str], tuple[str, set[str]]]:
    """The key columns of each file (each value once): whole numbers (prefix ``""``), or
    codes of one prefix (``BR-03``: its letters, ``br``), with their numbers."""
    out = {}
    for name, columns in tables.items():
        for col, values in columns.items():
            if len(set(values)) != len(values):
                continue
            if all(_WHOLE.match(v) for v in values):
                out[(name, col)] = ("", {_digits(v) for v in values})
            elif (codes := _numbers(values)) is not None:
                out[(name, col)] = codes
    return out


def _numbers(values: list[str]) -> tuple[str, set[str]] | None:
    """The prefix's letters (lower case) and the numbers of a column of codes with one prefix
    (``AG-019``; its case and separator aside), or None."""
    found = [m for v in values if (m := _CODE.match(v))]
    # (one prefix, in any case, with or without its separator: 'M-0042', 'm-0042', 'M0042')
    if len(found) == len(values) and len({_word(m.group(1)) for m in found}) == 1:
        return _word(found[0].group(1)), {_digits(m.group(2)) for m in found}
    plain = [m.group(1) for v in values if (m := PLAIN_CODE.match(v))]  # (fresh18: '#2041',
    if found and plain and len(found) + len(plain) == len(values):  # '2041.0' too)
        # (a number written plain or after a word: '204', 'Rm 204', 'room 204': prefix '*';
        # after one prefix, its own: fresh17 'T04', 'T-4' and '4')
        words = {_word(m.group(1)) for m in found}
        numbers = {_digits(m.group(2)) for m in found} | {_digits(v) for v in plain}
        return (words.pop() if len(words) == 1 else "*"), numbers
    return None


def key_hints(parsed: dict[str, Table]) -> list[str]:
    """For each code column of one file (one prefix, then a number) whose numbers are those
    of another file's key column of a linked name (``Agent``, ``agent_id``; a key: whole
    numbers, or codes written another way, each once): how to join the two. Codes written
    the same way in both need no hint (a merge matches them)."""
    tables = {name: _columns(table) for name, table in parsed.items()}
    keys = _keys(tables)
    hints: list[str] = []
    seen: set[frozenset[tuple[str, str]]] = set()
    for a, columns in tables.items():
        for col, values in columns.items():
            coded = _numbers(values)
            if coded is None:
                continue
            prefix, numbers = coded
            for (b, key), (letters, wholes) in keys.items():
                pair = frozenset({(a, col), (b, key)})
                if prefix == "*" and letters:
                    continue  # (numbers after several words match plain numbers only)
                if b == a or not _linked(col, key) or letters not in ("", prefix) or pair in seen:
                    continue  # (codes of other letters, E001 and D01, are other things)
                small = min(len(numbers), len(wholes))
                if small < 3 or len(numbers & wholes) < 0.8 * small:
                    continue
                written = tables[b][key]
                folded = {w.upper() for w in written}  # (rows whose number is a key's but
                odd = [v for v in values if v.upper() not in folded and _key_number(v) in wholes]
                if prefix != "*" and len(odd) < max(3, 0.05 * len(values)):  # text is not)
                    continue  # (the same codes in both, their case aside: a merge, folded)
                seen.add(pair)
                number = "df[{!r}].str.extract(r'(\\d+)')[0].astype(int)"
                other = f" in {a!r} and {number.format(key)} in {b!r}" if letters else ""
                shown = repr(written[0]) if letters else written[0]
                hints.append(
                    f"- Keys written differently: {col!r} of {a!r} (e.g. {values[0]!r}) is "
                    f"{key!r} of {b!r} (e.g. {shown}). Join on the number: "
                    f"{number.format(col)}{other}"
                )
    hints += _padded_hints(tables, keys)
    hints += _case_hints(tables, seen)
    hints += _folded_hints(tables, seen | _hinted(hints, tables))
    return hints + _pair_hints(parsed) + prefix_hints(tables)


def _hinted(
    hints: list[str], tables: dict[str, dict[str, list[str]]]
) -> set[frozenset[tuple[str, str]]]:
    """The column pairs ``hints`` already join (each names its two columns first)."""
    pairs = set()
    for hint in hints:
        named = re.findall(r"'([^'\n]*)' of '([^'\n]*)'", hint)[:2]
        if len(named) == 2:
            pairs.add(frozenset((f, c) for c, f in named))
    return pairs


def _fold(value: str) -> str:
    return re.sub(r"[^A-Z0-9]", "", value.upper())


#: How the note folds a key: capitals, and nothing but letters and digits.
_FOLD = "df[{!r}].str.upper().str.replace(r'[^A-Z0-9]', '', regex=True)"


def _folded_hints(
    tables: dict[str, dict[str, list[str]]], joined: set[frozenset[tuple[str, str]]]
) -> list[str]:
    """A column of one file whose values are another file's key (each once, with letters)
    once case, spaces and signs are ignored (fresh20: ``'L 12'``, ``'l12'`` and ``'L12 '``
    are beer ``'L-12'``), where a plain merge would drop rows: the join on the folded keys.
    The names need not be linked (``' Beer '`` and ``'Code'``): most values must match."""
    columns = [(name, col, values) for name, cols in tables.items() for col, values in cols.items()]
    texts = [c for c in columns if any(ch.isalpha() for ch in c[2][0])]
    hints = []
    for (a, col, values), (b, key, written) in itertools.permutations(texts, 2):
        pair = frozenset({(a, col), (b, key)})
        if b == a or pair in joined or len(set(written)) != len(written):
            continue  # (the other side is a key: each value once)
        if not _linked(col, key) and not any(c.isdigit() for c in written[0]):
            continue  # (words alike in two files, 'High' and 'Low', join nothing unnamed)
        keys = {_fold(w) for w in written}
        mine = {_fold(v) for v in values}
        if len(keys) != len(written) or len(mine) < 3 or len(mine & keys) < 0.8 * len(mine):
            continue  # (not the same keys, or two keys fold into one)
        exact = set(written)
        rescued = [v for v in values if v not in exact and _fold(v) in keys]
        if len(rescued) < max(3, 0.05 * len(values)):
            continue  # (a plain merge matches them; keys missing from the other file stay so)
        joined = joined | {pair}
        by_fold = {_fold(w): w for w in written}
        odd = rescued[0]
        hints.append(
            f"- Keys written differently: {col!r} of {a!r} (e.g. {odd!r}) is {key!r} of {b!r} "
            f"(e.g. {by_fold.get(_fold(odd), written[0])!r}) once case, spaces and signs are "
            "ignored. Join on the "
            f"folded keys: df['key'] = {_FOLD.format(col)} in {a!r}, the same of {key!r} in "
            f"{b!r}, then merge on 'key'"
        )
    return hints


def _abbreviates(short: str, long: str) -> bool:
    """``short`` is ``long`` with letters left out, first letter kept (``acct``, ``accountno``)."""
    a, b = _word(short), _word(long)
    rest = iter(b[1:])
    return len(a) >= 3 and a[0] == b[:1] and all(c in rest for c in a[1:])


def _padded_hints(
    tables: dict[str, dict[str, list[str]]], keys: dict[tuple[str, str], tuple[str, set[str]]]
) -> list[str]:
    """Numbers padded with zeros (``'00417'``, beside a word for none such as ``'CASH'``) in
    one file that are another file's key of whole numbers (``417``) under a linked or
    abbreviated name (``Acct``, ``Account No``; fresh19): read as text, they match nothing."""
    hints = []
    for a, columns in tables.items():
        for col, values in columns.items():
            padded = [v for v in values if _WHOLE.match(v)]
            words = {v for v in values if not _WHOLE.match(v)}
            if len(set(padded)) < 3 or len(words) > 2 or not words:
                continue  # (all numbers: pandas reads them as numbers, the zeros gone)
            if not any(v.startswith("0") and len(v) > 1 for v in padded):
                continue
            numbers = {_digits(v) for v in padded}
            for (b, key), (letters, wholes) in keys.items():
                linked = _linked(col, key) or _abbreviates(col, key) or _abbreviates(key, col)
                if b == a or letters or not linked:
                    continue
                if len(numbers & wholes) < max(3, 0.8 * min(len(numbers), len(wholes))):
                    continue
                shown = " and ".join(repr(w) for w in sorted(words))
                hints.append(
                    f"- Keys written differently: {col!r} of {a!r} (e.g. {padded[0]!r}, and "
                    f"{shown} for none) is {key!r} of {b!r} (e.g. {tables[b][key][0]}, without "
                    f"the zeros). Join on the number: pd.to_numeric(df[{col!r}], errors="
                    f"'coerce') in {a!r} and {key!r} in {b!r}"
                )
    return hints


def _key_number(value: str) -> str | None:
    """The number in a key (``'T-4'``: ``'4'``), without its leading zeros, or None."""
    m = re.search(r"\d+", value)
    return _digits(m.group(0)) if m else None


def _case_hints(
    tables: dict[str, dict[str, list[str]]], joined: set[frozenset[tuple[str, str]]]
) -> list[str]:
    """Keys of linked names in two files that match once case is ignored, where rows of one
    would not match as written (``'se-10-km'`` is ``'SE-10-KM'``): the join on the folded
    keys (not for a pair in ``joined``, which joins on its numbers)."""
    columns = [(name, col, values) for name, cols in tables.items() for col, values in cols.items()]
    folded = {(name, col): {v.upper() for v in values} for name, col, values in columns}
    hints, seen = [], set()
    for (a, col, values), (b, key, written) in itertools.product(columns, columns):
        pair = frozenset({(a, col), (b, key)})
        if b == a or pair in seen or pair in joined or not _linked(col, key):
            continue
        if len(set(written)) != len(written) or not any(c.isalpha() for c in written[0]):
            continue  # (the other side is a key: each value once, with letters)
        keys = folded[(b, key)]
        lead = prefix_word(values)  # ('MV Loch Seil': fresh23)
        if lead and any(v.upper().startswith(f"{lead.upper()} ") for v in keys):
            lead = ""  # (the other side has it too: part of the names)
        shown, values = values, [without_lead(v, lead) if lead else v for v in values]
        found = [v for v in values if v.upper() in keys]
        small = min(len(folded[(a, col)]), len(keys))
        if small < 3 or len({v.upper() for v in found}) < 0.8 * small:
            continue  # (not the same keys)
        exact = set(written)  # (rows a plain merge drops: as written, the word and all)
        lost = sum(v not in exact for v, b in zip(shown, values, strict=True) if b.upper() in keys)
        if lost < max(3, 0.05 * len(values)):
            continue
        seen.add(pair)
        case = "lower" if all(v == v.lower() for v in written) else "upper"
        fold = "df[{!r}].str.strip().str." + case + "()"
        word = getattr(lead, case)()
        cut = lead_cut(word) if lead else ""
        also = f" and with a leading {word!r}" if lead else ""
        hints.append(
            f"- Keys written in other case{also}: {col!r} of {a!r} (e.g. "
            f"{_odd(shown, case)!r}) is {key!r} of {b!r} (e.g. {written[0]!r}). Join on the "
            f"folded keys: {fold.format(col)}{cut} in {a!r} and {fold.format(key)} in {b!r}"
        )
    return hints


def _odd(values: list[str], case: str) -> str:
    """A value written in another case than ``case`` (the example that shows the problem)."""
    return next((v for v in values if v != getattr(v, case)()), values[0])


#: A code of a label and a number (``RIV-0042``), the label one of several.
_PAIR = re.compile(r"^([A-Za-z]+)[-_/ #.]?(\d+)$")


def _pair_hints(parsed: dict[str, Table]) -> list[str]:
    """Codes of one file made of another file's two key columns (``'RIV-0042'`` is Club RIV
    and Member No 42, numbers starting again at each club): the join on both parts."""
    hints = []
    for (a, ta), (b, tb) in itertools.permutations(parsed.items(), 2):
        coded = []  # (the columns of codes with two labels or more: most files have none)
        for col, values in zip(ta.header[:MAX_COLUMNS], ta.columns, strict=False):
            codes = [m for v in values[:KEY_ROWS] if (m := _PAIR.match(v.strip()))]
            if len(codes) >= 5 and len({m.group(1) for m in codes}) >= 2:
                coded.append((col, codes))
        if not coded:
            continue
        rows = list(zip(*(c[:KEY_ROWS] for c in tb.columns[:MAX_COLUMNS]), strict=False))
        sets = [{v.strip() for v in c[:KEY_ROWS]} for c in tb.columns[:MAX_COLUMNS]]
        present = [{v for v in values if v not in NA_STRINGS} for values in sets]
        whole = [k for k, p in enumerate(present) if p and all(_WHOLE.match(v) for v in p)]
        for col, codes in coded:
            labels = {m.group(1) for m in codes}
            wanted = {(m.group(1), _digits(m.group(2))) for m in codes}
            named = [j for j, values in enumerate(sets) if labels <= values]  # (every label)
            for j, k in itertools.product(named, whole):
                label, number = tb.header[j], tb.header[k]
                pairs = [(r[j].strip(), r[k].strip()) for r in rows if r[k].strip()]
                keys = {(x, _digits(n)) for x, n in pairs if _WHOLE.match(n)}
                if len(keys) < len(pairs) or not labels <= {x for x, _ in keys}:
                    continue  # (the two together are not a key, or other labels)
                if len(wanted & keys) < 0.8 * len(wanted):
                    continue
                if len({n for _, n in keys}) == len(keys):
                    continue  # (the number alone is the key: not two parts)
                example = codes[0].group(0)
                column = f"df[{col!r}].str.strip().str.extract"
                hints.append(
                    f"- Keys in two parts: {col!r} of {a!r} (e.g. {example!r}) is {label!r} "
                    f"and {number!r} of {b!r} together (a {number!r} alone repeats across "
                    f"{label!r}). Join on both: df['key_label'] = {column}(r'^([A-Za-z]+)')[0]; "
                    f"df['key_number'] = pd.to_numeric({column}(r'(\\d+)$')[0], "
                    "errors='coerce').astype('Int64'); then "
                    f"df.merge(pd.read_csv({b!r}), left_on=['key_label', 'key_number'], "
                    f"right_on=[{label!r}, {number!r}])"
                )
                break
    return hints
