"""A column the cell made True/False (``df['Renewed'] = df['Renewed']...isin(['TRUE', 'Y'])``)
and then compared with text (``df['Renewed'] == 'TRUE'``): no row is equal to a text any
more, so the count is 0 (fresh14: renewed loans returned in May, 0 for 19). The rule sends the
cell back with the comparison made on the truth value."""

from __future__ import annotations

import re

from codeact.agents._problem import Problem, problem_of

#: ``frame['col'] = ... .isin([...])`` or ``.astype(bool)``: a column made True/False.
_MADE_BOOL = re.compile(
    r"^\s*(\w+)\s*\[\s*(['\"])([^'\"\n]+)\2\s*\]\s*=\s*(?!np\.where|pd\.Series\()[^=\n][^\n]*?"
    r"(?:\.isin\(\s*\[[^\]\n]*\]\s*\)|\.astype\(bool\))\s*$",
    re.M,
)
_TRUE_WORDS = {"true", "t", "yes", "y", "1"}
_FALSE_WORDS = {"false", "f", "no", "n", "0"}


def bool_text_problem(question: str, code: str) -> Problem | None:
    """A column made True/False by the cell, compared afterwards with a yes or no written as
    text; as code, the comparison with True or False. ``question`` is unused (the rule reads
    the code alone) but kept for the rules' common call."""
    del question
    for made in _MADE_BOOL.finditer(code):
        frame, name = made.group(1), made.group(3)
        compare = re.compile(
            rf"\b{re.escape(frame)}\s*\[\s*(['\"]){re.escape(name)}\1\s*\]\s*(==|!=)\s*"
            r"(['\"])(\w+)\3"
        )
        after = code[made.end() :]
        found = [
            c for c in compare.finditer(after) if c.group(4).lower() in _TRUE_WORDS | _FALSE_WORDS
        ]
        if not found:
            continue

        def truth(c: re.Match[str], frame: str = frame, name: str = name) -> str:
            word = c.group(4).lower()
            if word not in _TRUE_WORDS | _FALSE_WORDS:
                return c.group(0)
            value = (word in _TRUE_WORDS) == (c.group(2) == "==")
            return f"{frame}[{name!r}] == {value}"

        fixed = code[: made.end()] + compare.sub(truth, after)
        return problem_of(
            f"Your code made {frame}[{name!r}] True/False, then compares it with the text "
            f"{found[0].group(3)}{found[0].group(4)}{found[0].group(3)}: no row equals a text any "
            f"more. Compare with the truth value ({truth(found[0])}); run your code again, "
            "print the result, then answer.",
            fixed,
        )
    return None


#: ``frame['col'] = frame['col']...str.lower()...``: a column the cell folded in place.
_MADE_FOLDED = re.compile(
    r"^\s*(\w+)\s*\[\s*(['\"])([^'\"\n]+)\2\s*\]\s*=\s*\1\s*\[\s*\2\3\2\s*\]"
    r"(?P<calls>(?:\.str\.\w+\((?:[^()\n]|\([^()\n]*\))*\))+)\s*$",
    re.M,
)


def _fold(text: str, calls: str) -> str:
    """``text`` as the cell's ``.str`` calls fold it: strip, case, and the spaces and hyphens
    between letters taken out."""
    out = text.strip() if ".str.strip(" in calls else text
    if ".str.lower(" in calls or ".str.casefold(" in calls:
        out = out.lower()
    elif ".str.upper(" in calls:
        out = out.upper()
    if re.search(
        r"\.str\.replace\(\s*r?['\"][^'\"]*\[\\s_-\]\+[^'\"]*['\"]\s*,\s*(['\"])\1", calls
    ):
        out = re.sub(r"(?<=[A-Za-z])[\s_-]+(?=[A-Za-z])", "", out)
    return out


def folded_text_problem(question: str, code: str) -> Problem | None:
    """A column the cell folded (``df['Status'] = df['Status'].str.strip().str.lower()...``)
    then compared with text it did not fold (``== 'Checked out'``): no row equals it (fresh15:
    0 guests for 221). As code, the comparison with the text folded the same way."""
    del question
    for made in _MADE_FOLDED.finditer(code):
        frame, name, calls = made.group(1), made.group(3), made.group("calls")
        compare = re.compile(
            rf"\b{re.escape(frame)}\s*\[\s*(['\"]){re.escape(name)}\1\s*\]\s*(==|!=)\s*"
            r"(['\"])([^'\"\n]+)\3"
        )
        after = code[made.end() :]
        found = [c for c in compare.finditer(after) if _fold(c.group(4), calls) != c.group(4)]
        if not found:
            continue

        def folded(c: re.Match[str], calls: str = calls) -> str:
            return c.group(0)[: c.start(3) - c.start(0)] + repr(_fold(c.group(4), calls))

        first = found[0]
        return problem_of(
            f"Your code folded {frame}[{name!r}] (case and spaces), then compares it with "
            f"{first.group(4)!r} as written: no folded value equals it. Compare with the text "
            f"folded the same way ({_fold(first.group(4), calls)!r}); run your code again, "
            "print the result, then answer.",
            code[: made.end()] + compare.sub(folded, after),
        )
    return _inline_problem(code)


#: A column folded inside the comparison itself: ``df['Format'].str.strip().str.lower() ==
#: 'IMAX'`` (fresh18: 0 for 89).
_INLINE = re.compile(
    r"(\w+\s*\[\s*(['\"])[^'\"\n]+\2\s*\]((?:\.str\.(?:strip|lower|upper|casefold)\(\))+))"
    r"\s*(==|!=)\s*(['\"])([^'\"\n]+)\5"
)


def _inline_problem(code: str) -> Problem | None:
    """A comparison of text folded in place with text it did not fold: no row equals it."""
    found = [c for c in _INLINE.finditer(code) if _fold(c.group(6), c.group(3)) != c.group(6)]
    if not found:
        return None
    first = found[0]
    want = _fold(first.group(6), first.group(3))
    fixed = _INLINE.sub(
        lambda c: f"{c.group(1)} {c.group(4)} {_fold(c.group(6), c.group(3))!r}", code
    )
    return problem_of(
        f"Your code folds {first.group(1).split('.str.')[0]} (case and spaces), then compares it "
        f"with {first.group(6)!r} as written: no folded value equals it. Compare with the text "
        f"folded the same way ({want!r}); run your code again, print the result, then answer.",
        fixed,
    )
