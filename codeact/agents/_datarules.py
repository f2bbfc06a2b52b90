"""Rules on how the data is written (see ``_rules``), each from what the files note says
about a column: missing values written as words pandas reads as NaN (``'n/a'``), one value
written in several cases and spacings (``'Books'``, ``' books'``), numbers and durations as text.
Each rule returns a ``Problem`` whose runnable code, where the fix is mechanical, is the
model's own code with the fix applied."""

from __future__ import annotations

import re
from functools import partial

from codeact.agents._colvalues import cuts_lead
from codeact.agents._filenote import NA_STRINGS
from codeact.agents._isinfold import fold_isin, folded_compare, folded_value, unfolded_isin
from codeact.agents._notecols import (
    column_ref,
    file_columns,
    insert_after,
    masked_into,
    note_column_kinds,
    read_once,
    task_text,
    unlisted,
    uses_column,
)
from codeact.agents._problem import Problem, problem_of
from codeact.agents._textnumfix import converted_after_read, converts_column, empty_zero_problem
from codeact.agents._unusedcols import without_dedup_lists

_MARKERS = "|".join(re.escape(s) for s in sorted(NA_STRINGS, key=len, reverse=True))
#: ``df['Weight (kg)'] == 'n/a'`` (or ``!=``, or ``df.weight == ''``).
_NA_COMPARE = re.compile(
    rf"(\w+\s*\[\s*(['\"])[^'\"\n]+\2\s*\]|\b\w+\.\w+)\s*(==|!=)\s*(['\"])({_MARKERS})\4"
)
#: A read that keeps the words pandas would make NaN ('n/a', '') as text.
NO_DEFAULT_NA = re.compile(r"keep_default_na\s*=\s*False|na_filter\s*=\s*False")


def _filled_with(code: str, column: str, word: str) -> bool:
    """Whether the code fills the gaps of ``column`` (or of its whole table) with ``word``
    before comparing: ``df['d'] = df['d'].fillna('n/a')`` (fresh16), ``df = df.fillna('')``."""
    fill = rf"\.fillna\(\s*(?:value\s*=\s*)?(['\"]){re.escape(word)}\1"
    frame = re.escape(column.split("[")[0].split(".")[0])
    col = re.escape(column)
    ways = (
        rf"^\s*{col}\s*=\s*{col}{fill}",  # (the column's own gaps)
        rf"^\s*{frame}\s*=\s*{frame}{fill}",  # (the whole table's)
        rf"^\s*(?:{col}|{frame}){fill}[^\n]*inplace\s*=\s*True",
    )
    return any(re.search(way, ln) for ln in code.splitlines() for way in ways)


def marker_problem(question: str, code: str) -> Problem | None:
    """Code comparing a column with a word pandas reads as missing (``== 'n/a'``, ``== ''``):
    after ``read_csv`` those cells are NaN, so the comparison finds nothing. The fix uses
    ``.isna()`` / ``.notna()``."""
    del question
    if NO_DEFAULT_NA.search(code):
        return None
    found = [
        m for m in _NA_COMPARE.finditer(code) if not _filled_with(code, m.group(1), m.group(5))
    ]
    if not found:
        return None
    fixed = code
    for m in reversed(found):
        call = "isna" if m.group(3) == "==" else "notna"
        fixed = fixed[: m.start()] + f"{m.group(1)}.{call}()" + fixed[m.end() :]
    first = found[0]
    word = first.group(5)
    return problem_of(
        f"{first.group(0)} finds nothing: pandas reads {word!r} in the file as a missing value "
        f"(NaN) when it reads the CSV, so no value equals {word!r} any more. Use "
        f"{first.group(1)}.isna() for the missing ones (.notna() for the others); run your "
        "code again, print the result, then answer.",
        fixed,
    )


_FOLDS = re.compile(
    r"\.str\.(?:lower|upper|casefold|strip|title|capitalize)\(|\.lower\(\)|case\s*=\s*False"
)
#: The folds code may already apply before a comparison (a fix replaces them).
_FOLD_CALLS = r"(?:\.str\.(?:strip|lower|upper|casefold)\(\))+"
_VARIANTS = re.compile(
    r"ignoring case(?: and|,) spaces( \(and hyphens\))?(?: and a leading '\w+')?: compare (.*?)"
    r" == '([^']*)'"
)


def case_problem(question: str, code: str) -> Problem | None:
    """A column whose values the files note shows written in several cases and spacings
    (``'Books'``, ``' books'``, ``'BOOKS'``), used by code that never folds them: a comparison
    with one spelling, a count or a group per spelling, each misses the others. The fix
    compares ``.str.strip().str.lower()`` with the lowercased value; when the spellings differ
    inside the words too (``Uber Eats``, ``UberEats``), the spaces and hyphens between letters
    go as well, and a comparison that folds only the case is sent back too."""
    for name, kind in note_column_kinds(question):
        m = _VARIANTS.search(kind)
        if m is None or not uses_column(unlisted(code), name):
            continue
        inner = m.group(1) is not None
        fold = m.group(2)[len(f"df[{name!r}]") :]
        quoted = "|".join(re.escape(repr(n)[1:-1]) for n in dict.fromkeys((name, name.strip())))
        compare = re.compile(
            rf"(\w+\s*\[\s*(['\"])\s*(?:{quoted})\s*\2\s*\])(?:{_FOLD_CALLS})?\s*(==|!=)\s*"
            rf"(['\"])([^'\"\n]*)\4"
        )
        chain = r"(?:\.(?:str\.)?\w+\((?:[^()\n]|\([^()\n]*\))*\))*?"
        own = (
            any(  # (a fold inside a .mask()/.where() test leaves the column as it was)
                not re.search(
                    r"(?:mask|where)\(", code[code.rfind("\n", 0, m.start()) + 1 : m.start()]
                )
                for m in re.finditer(rf"{column_ref(name)}{chain}(?:{_FOLDS.pattern})", code)
            )
            or re.search(
                rf"\w+\s*\[\s*[A-Za-z_]\w*\s*\]{chain}\.str\.(?:lower|upper|casefold)\(|\.apply(?:map)?\(",
                code,
            )
        )  # (or folded through a name: a loop over the columns, an apply)
        ms = masked_into(code, name)  # (fresh17: spellings made 'Volkswagen', then compared)
        kept = [t for t in compare.finditer(code) if not any(a <= t.start() < b for a, b, _ in ms)]
        if kept and all(t.group(5) in {v for _, _, v in ms} for t in kept):
            continue
        isins = unfolded_isin(code, name)  # (fresh17: .isin(['vw', 'volkswagen']) as written)
        searched = re.search(rf"{column_ref(name)}\.str\.(?:contains|match|split|find)\(", code)
        folded = bool(
            own if compare.search(code) else own or searched if inner else _FOLDS.search(code)
        )
        lead = re.search(r"a leading '(\w+)'", kind)  # ('MV Loch Seil': the word taken away too)
        folded = folded and (not lead or cuts_lead(code, lead[1]) or ".contains(" in code)
        if folded and not isins and (not inner or not compare.search(code)):
            continue  # (this column folded; contains, split and join left alone)
        fixed = compare.sub(partial(folded_compare, fold=fold, inner=inner), code)
        fixed = fold_isin(fixed, name, fold, inner)
        said = compare.search(code)  # (the cell's own value: fresh17 copied 'repair' for tyres)
        value = said.group(5) if said else m.group(3)
        example = f"{m.group(2)} == {folded_value(value, fold, inner)!r}"
        if isins and not said:
            example = fold_isin(isins[0].group(0), name, fold, inner)
        return problem_of(
            f"The column {name!r} holds one value written in several cases and spacings (see "
            "the files note), and your code compares or groups it as written, so it misses "
            f"the other spellings. Compare the folded text, e.g. {example} (group on "
            f"df[{name!r}]{fold} too); run your code again, print the "
            "result, then answer.",
            fixed if fixed != code else None,
        )
    return None


_AS_TEXT = re.compile(r"(?:numbers|amounts) stored as text")
_SIGNED_CONVERT = re.compile(
    r"convert with (.*?\.astype\(float\)|pd\.to_numeric\(.*?errors='coerce'\))"
)


def text_number_problem(question: str, code: str) -> Problem | str | None:
    """A column the files note flags as numbers stored as text (``'2,907,163'``), used by
    code that never converts it: sorting, comparing or summing it works on text. A column
    written with signs (``'67.5%'``) converted as it is (``pd.to_numeric(df['score'],
    errors='coerce')``, ``.astype(float)``) is sent back too: every value becomes NaN."""
    for name, kind in note_column_kinds(question):
        if not _AS_TEXT.search(kind) or not uses_column(without_dedup_lists(code), name):
            continue  # (fresh17: a European export's 'amounts stored as text' too)
        convert = _SIGNED_CONVERT.search(kind)
        raw = _raw_conversion(code, name)
        if raw and convert and ".str.replace" in convert.group(1):
            return (
                f"The column {name!r} holds numbers written with signs (see the files note): "
                f"{raw} on that text gives NaN (or an error) for every value. Convert it with "
                f"{convert.group(1)} and run your code again, print the result, then answer."
            )
        if converts_column(code, name) or not uses_column(_text_tests(code, name), name):
            continue  # (converted, or only tested as text: ``.str.startswith('-')``)
        how = (
            f"Convert it with {convert.group(1)}"
            if convert
            else "Read the file with pd.read_csv(..., thousands=',')"
        )
        return problem_of(
            f"The column {name!r} holds numbers stored as text (see the files note): "
            f"sorting, comparing or summing it works on text. {how} and run your code "
            "again, print the result, then answer.",
            (converted_after_read(question, code) or (None,))[0],
        )
    return None


#: ``.str.replace('.', '')``: the decimal point taken out of a number written as text.
_NO_POINT = (
    r"\.str\.replace\(\s*r?(?P<q>['\"])\\?\.(?P=q)\s*,\s*(?P<e>['\"])(?P=e)"
    r"(?:\s*,\s*regex\s*=\s*False)?\s*\)"
)


def decimal_point_problem(question: str, code: str) -> Problem | None:
    """A column of numbers written with a decimal point (``'£1.40'``; the note's conversion
    keeps the point) whose code takes the point out (``.str.replace('.', '')``): every value
    becomes a hundred times too big (fresh14: 16865.00 in fines for 168.65). The code without
    that call is the example."""
    for name, kind in note_column_kinds(question):
        if "numbers" not in kind or "decimal comma" in kind or not re.search(r"\d\.\d", kind):
            continue
        if re.search(_NO_POINT, kind) or ".str.replace(',', '.')" in kind:
            continue  # (the note's reading takes out dots or reads commas as the decimal mark)
        found = re.compile(rf"{column_ref(name)}.*?{_NO_POINT}")
        lines = [ln for ln in code.splitlines() if found.search(ln)]
        if lines:
            fixed = "\n".join(
                re.sub(_NO_POINT, "", ln) if ln in lines else ln for ln in code.splitlines()
            )
            return problem_of(
                f"The column {name!r} holds numbers written with a decimal point (see the files "
                "note), and your code takes the point out (.str.replace('.', '')): '1.40' "
                "becomes 140, every value far too big. Keep the point (take out only the signs "
                "and the ',' between thousands); run your code again, print the result, then "
                "answer.",
                fixed,
            )
    return None


def _raw_conversion(code: str, name: str) -> str | None:
    """``pd.to_numeric(df['col'] ...)`` or ``df['col'].astype(float)`` in ``code``: the
    column converted as it is, with nothing taken out of the text first."""
    column = column_ref(name)
    found = re.search(rf"to_numeric\(\s*{column}\s*[,)]", code) or re.search(
        rf"{column}\s*\.astype\(\s*['\"]?float", code
    )
    cleaned = rf"^\s*{column}\s*=.*{column}\s*\.str\.(?:replace|extract)\("
    if found is None:
        return None
    line = code[found.end() :].split("\n", 1)[0]  # (errors='coerce' stays silent on what is
    if "errors" not in line and re.search(cleaned, code[: found.start()], re.M):  # left: told)
        return None  # (the column cleaned before: converting it again is harmless)
    return found.group(0).rstrip(",)") + ")"


def _text_tests(code: str, name: str) -> str:
    """``code`` without the tests of ``name`` as text (``df['Subtotal'].str.startswith('-')``,
    ``df['Bedrooms'] == 'Studio'``, the word the files note says stands for no number, a
    count of the gaps): they work on the text as written."""
    test = r"\.str\.(?:startswith|endswith|contains|match|len)\([^()\n]*\)"
    test += r"|\.(?:isna|notna|isnull|notnull)\(\)"
    word = r"(?:'[^'\"\d\n]*'|\"[^'\"\d\n]*\")"  # (a quoted word: no number compared as text)
    folded = r"(?:\s*\.str\.(?:strip|lower|upper|casefold)\(\))*"
    compared = rf"{folded}\s*(?:[=!]=\s*{word}|\.isin\(\s*\[\s*{word}(?:\s*,\s*{word})*\s*\]\s*\))"
    filled = (
        rf"^[ \t]*(?:{column_ref(name)}\s*=\s*)?\w+\s*\[[^\]\n]*\]\s*\.fillna\([^()\n]*\)[ \t]*$"
    )
    code = re.sub(filled, "", code, flags=re.M)  # (its gaps filled: fresh17, no sum of text)
    return re.sub(rf"{column_ref(name)}\s*(?:{test}|{compared})", "", code)


_DURATION_NOTE = re.compile(
    r"durations as text: (pd\.to_timedelta\(.*?\)\.dt\.total_seconds\(\) / 60)"
)


def duration_problem(question: str, code: str) -> Problem | None:
    """A column the files note shows as durations written as text (``'1h 25m'``), used by
    code that never reads it as durations: parsing it by hand misses forms (``'2h'``,
    ``'40m'``); ``pd.to_timedelta`` reads them all."""
    if "to_timedelta" in code:
        return None
    for name, kind in note_column_kinds(question):
        m = _DURATION_NOTE.search(kind)
        if m is None or not uses_column(without_dedup_lists(code), name):  # (subset=[...])
            continue
        return problem_of(
            f"The column {name!r} holds durations as text (see the files note): read them "
            f"with pd.to_timedelta, e.g. minutes = {m.group(1)}, then compute with minutes; "
            "run your code again, print the result, then answer."
        )
    return None


_YES_NO = re.compile(r"yes/no written several ways \(.*?\): (.*?)\.isin\((\[.*?\])\)")
_TRUE = {"true", "1", "yes", "y", "t"}
_TRUTHY = "['TRUE', '1', 'YES', 'Y', 'T']"
_FALSY = "['FALSE', '0', 'NO', 'N', 'F']"


def yes_no_problem(question: str, code: str) -> Problem | None:
    """A yes/no column written several ways (``TRUE``, ``1``, ``FALSE``, ``0``) compared with
    one spelling: the rows written the other way are missed. The fix compares the folded
    text with every spelling of that answer."""
    if ".isin(" in code:
        return None
    for name, kind in note_column_kinds(question):
        m = _YES_NO.search(kind)
        if m is None or not uses_column(code, name):
            continue
        quoted = re.escape(name)
        compare = re.compile(rf"(\w+)\s*\[\s*(['\"]){quoted}\2\s*\]\s*(==|!=)\s*(['\"]?)(\w+)\4")
        found = compare.search(code)
        if found is None:
            continue

        def folded(c: re.Match[str], name: str = name) -> str:
            truthy = c.group(5).lower() in _TRUE
            spellings = _TRUTHY if truthy else _FALSY
            negate = "~" if c.group(3) == "!=" else ""
            column = f"{c.group(1)}[{name!r}]"
            return f"{negate}{column}.astype(str).str.strip().str.upper().isin({spellings})"

        fixed = compare.sub(folded, code)
        shown = folded(found)
        return problem_of(
            f"The column {name!r} writes yes and no several ways (see the files note), and "
            f"{found.group(0)} misses the rows written the other way. Compare every spelling: "
            f"{shown}; run your code again, print the result, then answer.",
            fixed,
        )
    return None


#: The rules here that read code alone (``passes_rules``).


#: The question asks to drop rows identical in every column.
_EXACT_DUPLICATES = re.compile(
    r"\b(?:exact(?:ly)?\s+(?:the\s+same|duplicates?|duplicated|identical)|identical\s+(?:rows?|in\s+"
    r"every\s+column)|whole\s+row|in\s+every\s+column)\b",
    re.I,
)
_SUBSET = re.compile(
    r"(\.drop_duplicates\()\s*subset\s*=\s*(\[[^\]\n]*\]|'[^'\n]*'|\"[^\"\n]*\")\s*,?\s*"
)


def subset_problem(question: str, code: str) -> Problem | None:
    """The question drops rows identical in every column, and the code lists several columns
    but not all (``subset=['Account', 'Read Date']``): rows that differ elsewhere go too. The
    fix drops exact duplicates (no ``subset``). One key column (``subset=['ride_id']``) is
    left alone: an id repeated is a row repeated."""
    if not _EXACT_DUPLICATES.search(task_text(question)):
        return None
    m = _SUBSET.search(code)
    if m is None:
        return None
    listed = set(re.findall(r"'([^'\n]*)'|\"([^\"\n]*)\"", m.group(2)))
    names = {a or b for a, b in listed}
    files = [cols for cols in file_columns(question).values() if names <= set(cols)]
    if len(names) < 2 or not files or any(names >= set(cols) for cols in files):
        return None  # (one key column such as an id, another file's, or every column)
    task = task_text(question)
    if all(re.search(rf"(?<!\w){re.escape(n)}(?!\w)", task) for n in names):
        return None  # ("rows with exactly the same Account and Read Date": the question's own)
    fixed = code[: m.start()] + m.group(1) + code[m.end() :]
    return problem_of(
        f"The question drops rows identical in every column, but your code drops duplicates of "
        f"only {', '.join(sorted(names))}: rows that differ in another column go too. Drop exact "
        "duplicates with df.drop_duplicates() (no subset), print the result, then answer.",
        fixed,
    )


#: "drop the exact duplicate rows first", "remove duplicate rows", "drop duplicates".
_DROP_DUPLICATES = re.compile(
    r"\b(?:drop|remove|delete|discard)\w*\s+(?:the\s+|any\s+)?(?:exact(?:ly)?\s+)?"
    r"(?:duplicate|duplicated|repeated)(?:\s+rows)?\b|\bdrop\s+(?:the\s+)?duplicates\b",
    re.I,
)


def dedup_problem(question: str, code: str) -> Problem | None:
    """The question says to drop duplicate rows first, and the code never does (no
    ``drop_duplicates``, ``duplicated`` or distinct count): repeated rows count twice
    (fresh19: dockets the export repeats). The fix drops them right after the file is read:
    the first file of the note, whose rows the question is about."""
    task = task_text(question)
    said = task[: m.start()] if (m := _DROP_DUPLICATES.search(task)) else ""
    if m is None or re.search(r"\b(?:not|n't|never|no need to)\s+$", said[-16:]):
        return None  # ("Do not remove duplicate rows")
    if re.search(r"drop_duplicates|duplicated\(|nunique|\.unique\(", code):
        return None
    files = list(file_columns(question))
    found = read_once(code.splitlines(), files[0]) if files else None
    fixed = None
    if found is not None:
        at, frame = found
        fixed = insert_after(code, at, f"{frame} = {frame}.drop_duplicates()")
    return problem_of(
        "The question says to drop the duplicate rows first, but your code never does: each "
        "repeated row counts again. Drop them right after reading the file (df = "
        "df.drop_duplicates()); run your code again, print the result, then answer.",
        fixed,
    )


DATA_RULES = (
    dedup_problem,
    marker_problem,
    case_problem,
    yes_no_problem,
    empty_zero_problem,
    duration_problem,
    subset_problem,
    decimal_point_problem,
)
