"""The filter rule (see ``_rules``): a quoted value or a threshold the question names and
the code never uses, unless it only shows how values are written (``such as '$12.50'``,
``holds 'yes' or 'no'``)."""

from __future__ import annotations

import re

from codeact.agents._aliases import stated_aliases
from codeact.agents._clockmins import in_other_units
from codeact.agents._colvalues import all_values
from codeact.agents._leftout import left_out, sentence_of
from codeact.agents._nomarks import noted_sign
from codeact.agents._notecols import (
    CATEGORY,
    THRESHOLD,
    coerced_marker,
    column_of_value,
    note_column_kinds,
    quoted_values,
    task_text,
)
from codeact.agents._problem import problem_of
from codeact.agents._signs import sign_example_fix
from codeact.agents._unrecorded import (
    HANDLES_MISSING,
    MEANS_MISSING,
    not_recorded,
    with_na_values,
)

QUOTED = re.compile(r"(?<![\w@\[])'([^'\n]{1,40})'(?!\w)|(?<![\w@\[])\"([^\"\n]{1,40})\"(?!\w)")

_FORMAT_EXAMPLE = re.compile(
    r"(?:such as|like|as in|e\.g\.?,?|for example,?|for instance,?|written as|formatted as"
    r"|in the form(?: of)?|read|treat|separated by|split (?:on|by|at)|delimited by"
    r"|followed by|preceded by|end(?:s|ing)? (?:in|with)"  # ("followed by ' L' or ' litres'")
    # ("in three ways:", "written with a £ sign in three ways:", "in title case or capitals (")
    r"|(?:written|typed|spelled)\s+[^.;'\"\n]{0,40}?\bways?:?|\b(?:case|capitals)\s*[(,]?)\s*$",
    re.I,
)


#: After a quoted value: what it reads as (``'1.234,56' is 1234.56``, ``'1h 25m' (85 minutes)``,
#: ``'vpn|remote' is the two tags``).
_READS_AS = r"\s*(?:is|are|means)\s+(?:the\s+)?(?:two|three|four|several|both)\b"
#: After a time, date or amount: what it is ("'12:15 PM' is a quarter past noon": fresh18).
_IS = re.compile(r"\s+(?:is|are)\s+(?:an?|the)\s+\w")
_EXPLAINED = re.compile(
    r"\s*(?:(?:is|means|stands for|reads as|equals|=)\s+|\()-?[\d$€£]|" + _READS_AS
)
#: "'€1.234,50', '1.234,50 €' or 'EUR 1234,50' (without the dot) are all 1234.50 euros":
#: each value of the list explained by the number after it (fresh17: not a filter).
_LISTED_THEN = (
    r"(?:\s*(?:,\s*(?:and|or)|,|and|or)\s*'[^'\n]*'(?:\s*\([^)\n]*\))?)*\s*(?:\([^)\n]*\)\s*)?"
)
_LIST_EXPLAINED = re.compile(  # (not "'Paris' or 'Lyon' are 3 items or more")
    _LISTED_THEN + r"(?:are|is)\s+(?:all|both)\s+-?[\d$€£]"
)
#: The same for amounts, times and dates without "all" ("'7:15 PM' and '7:15PM' are 19:15").
_WRITTEN_LIST = re.compile(_LISTED_THEN + r"(?:are|is)\s+-?[\d$€£]")
_WRITTEN = re.compile(r"\d.*[:/$€£%.,()]|[:/$€£%.,()].*\d")
#: "'£0', '£0.00', 'none' and an empty Fine all mean no fine": values read as none or zero;
#: "'0%' when no discount was given" (fresh18).
_MEAN_NONE = re.compile(
    r"(?:\s*(?:,|and|or)\s*(?:'[^'\n]*'|an? empty [\w ]{1,20}?|empty))*\s+(?:all\s+|both\s+)?"
    r"(?:(?:mean|means|stands? for)\s+(?:no|none|zero|0|nothing)\b|(?:is|are)?\s*(?:when|if) "
    r"(?:there (?:is|are|was|were) (?:none|no \w+)|(?:no \w+|none) (?:is|are|was|were) \w+)\b)",
    re.I,
)
#: Other items of a list between two of a column's values ("3D, IMAX or Dolby": fresh18).
_OTHER_ITEMS = re.compile(
    r"(?:,\s*|,?\s+(?:or|and)\s+)(?:[A-Z0-9][\w+-]*(?:\s[A-Z][\w+-]*)?(?:,\s*|,?\s+(?:or|and)\s+))+"
)
_ALTERNATIVE = re.compile(
    r"\s*(?:\([^()\n]{0,40}\))?\s*(?:,|/|or|and|, or|, and)\s*(?:(?:plain|bare|just)\s+)?"
)
#: After quoted spellings: what they all are, in brackets ("'P-017', 'p017' or plain '17' (all
#: plant 17)").
_ALL_ONE = re.compile(r"\s*\((?:all|both)\s", re.I)
_SAME = re.compile(r"\s*(?:are|mean)\s+(?:both|the same|one and the same|all|one)\b", re.I)
#: After quoted values: the columns some rows hold them in ("'N/A', '--' or empty in Cars").
_IN_FRONT = re.compile(r"\s*(?:in front|at the (?:start|front|end)|as a (?:prefix|suffix))\b")
_EMPTY_IN = re.compile(r"(?:\s*,\s*'[^'\n]*')*\s*,?\s*(?:or|and)\s+(?:empty|blank)\s+in\b")
#: After quoted values: the value they are other spellings of ("are Cancelled", "is No-show").
_SPELLINGS_OF = re.compile(
    r"\s+(?:is|are)\s+(?:all\s+|both\s+)?([A-Z][\w.+-]*(?:[ -][A-Za-z][\w-]*)?)(?=[\s,.;)])"
)
_DESCRIBES = re.compile(r"\b(?:holds|has|contains|values?|written|either|spelled|typed)\b", re.I)


#: After quoted values: what they stand for (``'1' and 'yes' mean an estimated reading``,
#: ``Guest is 'yes' when the member brought a guest and 'no' when not``).
_LEGEND = re.compile(
    r"\s*(?:\([^()\n]{0,30}\)\s*)?"  # ("'ja' (in any case) if the grapes were picked by hand")
    r"(?:means?|stands? for|denotes?|indicates?|marks?|when|if|for (?:yes|no|true|false))\b",
    re.I,
)


def listed_values(question: str, task: str, low_code: str) -> set[int]:
    """Positions (just before) of a text column's values that the task lists together
    without quotes ("Status is Completed, Cancelled or No-show", "leave the Cancelled and
    No-show rows out") when the code selects by one of the column's values: the list says
    what the column holds or what the selection leaves out (as with ``described_values``'
    positions of quoted values)."""
    out: set[int] = set()
    for name, kind in note_column_kinds(question):
        if not CATEGORY.match(kind):
            continue
        values = quoted_values(kind, 2, 40)
        named = name.strip().lower() in low_code  # (fresh18: 'imax', no example of the note)
        if not named and not any(v.lower() in low_code for v in values):
            continue  # (the code selects by none of the column's values)
        hits = sorted(
            (m.start(), m.end(), v)
            for v in values
            for m in re.finditer(rf"(?<![\w'\"]){re.escape(v)}(?![\w'\"])", task, re.I)
        )
        groups: list[list[tuple[int, int, str]]] = []
        for hit in hits:
            gap = task[groups[-1][-1][1] : hit[0]] if groups else ""
            if groups and (_ALTERNATIVE.fullmatch(gap) or _OTHER_ITEMS.fullmatch(gap)):
                groups[-1].append(hit)
            else:
                groups.append([hit])
        for group in groups:
            if len(group) > 1:
                out |= {start - 1 for start, _e, _v in group}
    return out


_PARENTHESES = re.compile(r"\([^()\n]*\)")


def explained_positions(task: str) -> set[int]:
    """Positions (just before) of words inside parentheses that quote how a value is written
    (``('RIV-0042' is member 42 of RIV)``, ``('yoga ', ' YOGA' and 'Yoga' are all Yoga)``):
    the words explain the example; a value named there is not a filter."""
    out: set[int] = set()
    for m in _PARENTHESES.finditer(task):
        if QUOTED.search(m.group(0)):
            out |= set(range(m.start(), m.end()))
    return out


#: Before a quoted value: another spelling of a value named before it.
_ALSO_WRITTEN = re.compile(
    r"(?:\b[A-Z][\w-]*\s+(?:is|are)\s+)?\b(?:also|sometimes|or)\s+(?:written|spelled|spelt|typed)"
    r"\s+(?:as\s+)?$"
)
#: After a quoted part of a value: what follows it in the value ("'M-' and four digits").
_PATTERN = re.compile(r"\s+(?:and|then|followed by)\s+(?:\w+\s+)?(?:digits?|numbers?|letters?)\b")


def _converted_code(question: str, value: str) -> bool:
    """Whether the files note lists ``value`` among a column's currency codes or signs that
    its conversion strips, for amounts in one currency (in several, a code is a filter)."""
    for m in re.finditer(r"((?:'[^'\n]*'(?: and )?)+) (?:codes|signs)\b(?=([^\n]*))", question):
        if repr(value) in m.group(1) and "more than one currency" not in m.group(2)[:60]:
            return True
    return False


def described_values(task: str, low_code: str) -> set[int]:
    """Starts of quoted values listed as the ways a column's values are written (``holds
    'yes' or 'no'``, ``('Books', ' books', 'BOOKS')``) when the code uses one of them, or
    listed as examples (``such as '1h 25m' (85 minutes) or '40m'``), or shown with how they
    read (``'1.234,56' is 1234.56``): not filters the code missed."""
    quoted = list(QUOTED.finditer(task))
    groups: list[list[re.Match[str]]] = []
    for m in quoted:
        if groups and _ALTERNATIVE.fullmatch(task[groups[-1][-1].end() : m.start()]):
            groups[-1].append(m)
        else:
            groups.append([m])
    # a value quoted to show how it reads ("'vpn|remote' is the two tags vpn and remote")
    out: set[int] = {m.start() for m in quoted if re.match(_READS_AS, task[m.end() :])}
    # another spelling of a value ("Repair 'Repairs'"): the alias rule's, not a filter
    aliases = {a.strip().lower() for a, _value, _at in stated_aliases(task)}
    out |= {m.start() for m in quoted if (m.group(1) or m.group(2)).strip().lower() in aliases}
    for group in groups:
        same = _SAME.match(task, group[-1].end())
        spelt = _SPELLINGS_OF.match(task, group[-1].end())
        if spelt:  # ("'Canceled' and 'CANCELLED' are Cancelled": spellings, and what they are)
            out |= {g.start() for g in group} | {spelt.start(1) - 1}
            continue
        if same and len(group) > 1:
            out |= {g.start() for g in group}  # ("'€12.50' and '12.50 EUR' are both 12.50")
            out.add(same.end())  # (and what they all are: "... are all Yoga")
            continue
        values = [(g.group(1) or g.group(2)).strip().lower() for g in group]
        spellings = len(set(values)) == 1
        before = task[max(0, group[0].start() - 40) : group[0].start()]
        if _FORMAT_EXAMPLE.search(before) or _PATTERN.match(task, group[-1].end()):
            out |= {g.start() for g in group}  # ("such as '1h 25m' (85 minutes) or '40m'",
            continue  # "written 'M-' and four digits": how values are written)
        also = _ALSO_WRITTEN.search(before)
        if len(group) == 1 and also:  # ("Non-Fiction is also written 'Nonfiction'": both)
            out |= {group[0].start(), group[0].start() - len(before) + also.start() - 1}
            continue
        said = _DESCRIBES.search(before)
        keys = {re.sub(r"\D", "", v).lstrip("0") for v in values}
        one_key = len(keys) == 1 and keys != {""}
        if len(group) > 1 and said and _ALL_ONE.match(task, group[-1].end()) and one_key:
            out |= {g.start() for g in group}  # (one key's spellings: 'P-017', 'p017', '17')
            continue
        if len(group) > 1 and (spellings or said) and any(v in low_code for v in values):
            out |= {g.start() for g in group}
    # a legend ("'yes', 'TRUE' and '1' mean estimated; 'no', 'FALSE' and '0' mean actual"):
    # code that reads one side of it has read the other
    # or, its values quoted nowhere else, says what a column holds ("Bio ('ja' if the grower
    # farms organically, 'nein' if not)" in a list of a file's columns: fresh22)
    legends = [g for g in groups if _LEGEND.match(task, g[-1].end())]
    told = {m.start() for g in legends for m in g}
    elsewhere = {
        (m.group(1) or m.group(2)).strip().lower() for m in quoted if m.start() not in told
    }
    for group in legends:
        sentence = sentence_of(task, group[0].start(), group[-1].end())
        mates = [g for g in legends if sentence_of(task, g[0].start(), g[-1].end()) == sentence]
        seen = {(m.group(1) or m.group(2)).strip().lower() for g in mates for m in g}
        bracketed = task.rfind("(", 0, group[0].start()) > task.rfind(")", 0, group[0].start())
        meant = [_meaning(task, g[-1].end()) for g in mates]  # ("picked by hand" asked too)
        asked = any(len(w) > 3 and task.lower().count(w) > 1 for w in meant)
        if len(mates) > 1 and (
            any(v in low_code for v in seen) or (bracketed and not seen & elsewhere and not asked)
        ):
            out |= {m.start() for m in group}
    return out


def _meaning(task: str, end: int) -> str:
    """What a legend's value stands for (``'ja' if picked by hand, ...``: "picked by hand")."""
    m = _LEGEND.match(task, end)
    return re.split(r"[,;().]", task[m.end() :] if m else "", maxsplit=1)[0].strip().lower()


def _example(task: str, m: re.Match[str]) -> bool:
    """The quoted value at ``m`` shows how values are written: after "such as" or "written
    as", or a value with a digit inside parentheses (``a negative Subtotal ('-€12.50' or
    '-12.50 EUR')``, ``('br3' in orders.csv is 'BR-03' in branches.csv)``), or a list alone
    in them (``'Fuel Options' lists its fuels ('Petrol / CNG')``)."""
    if _FORMAT_EXAMPLE.search(task[max(0, m.start() - 40) : m.start()]):
        return True
    value = m.group(1) or m.group(2)
    opened, closed = task.rfind("(", 0, m.start()), task.rfind(")", 0, m.start())
    ends = [i for i in (task.find(")", m.end()), task.find("\n", m.end())) if i >= 0]
    inside = opened > closed and bool(ends) and task[min(ends)] == ")"
    listed = len(re.split(r"\s+[/|]\s+|;\s*", value.strip())) > 1  # ('Petrol / CNG': a list)
    said = QUOTED.sub(lambda q: " " * len(q.group(0)), task[opened + 1 : m.start()])
    if inside and re.search(r",\s*$", said) and _WRITING.search(said):
        return True  # (after how it is written: "Vessel (its name, without MV, 'Loch Seil')")
    if not inside or not (listed or any(c.isdigit() for c in value)):
        return False
    # before the value (from the last comma outside quotes): nothing, values, "or", "e.g.",
    # "'br3' in orders.csv is": an example; a column's name ("(Priority 'P1')"): a filter
    before = QUOTED.sub(lambda q: " " * len(q.group(0)), task[opened + 1 : m.start()])
    if listed and not any(c.isdigit() for c in value) and before.strip():
        return False  # (a list after other words: "(Fuel 'Petrol / CNG')" is a filter)
    before = before[max(before.rfind(","), before.rfind(";")) + 1 :]
    return all(w.lower() in _EXAMPLE_WORDS or "." in w for w in re.findall(r"[\w.]+", before))


#: Words saying how a value is written, before an example after a comma in brackets.
_WRITING = re.compile(r"\b(?:its|their|name|names|without|written|spelt|spelled|e\.g)\b", re.I)
_EXAMPLE_WORDS = {"or", "and", "in", "is", "are", "e.g", "eg", "i.e", "ie", "as", "like", "vs"}


def every_value_positions(question: str, task: str, low_code: str) -> set[int]:
    """Starts of quoted values listed together that are every value a text column holds
    (``Status is 'Sailed', 'Cancelled - Weather' or 'Cancelled - Technical'``: fresh23),
    when the code uses one of them or they stand in brackets after the column's name: what
    the column holds, not filters."""
    every = {
        n.strip(): v for n, kind in note_column_kinds(question) if len(v := all_values(kind)) > 1
    }
    groups: list[list[re.Match[str]]] = []
    for m in QUOTED.finditer(task):
        if groups and _ALTERNATIVE.fullmatch(task[groups[-1][-1].end() : m.start()]):
            groups[-1].append(m)
        else:
            groups.append([m])
    out: set[int] = set()
    for group in groups:
        values = {(g.group(1) or g.group(2)).strip().lower() for g in group}
        names = [n for n, v in every.items() if set(v) == values]
        before = task[: group[0].start()]  # ("Propulsion ('Diesel' or 'Hybrid')": its legend)
        legend = any(re.search(rf"\b{re.escape(n)}'?\s*\(\s*$", before) for n in names)
        if names and (legend or any(v in low_code for v in values)):
            out |= {g.start() for g in group}
    return out


def filter_problem(question: str, code: str) -> str | None:
    """A quoted value or a threshold of the question that the code never uses, or an example
    of how values are written that the code selects rows by."""
    task, low = task_text(question), code.lower()
    described = described_values(task, low) | every_value_positions(question, task, low)
    columns = {name.strip() for name, _kind in note_column_kinds(question)}
    shown = {(q.group(1) or q.group(2)).strip() for q in QUOTED.finditer(task) if _example(task, q)}
    unquoted = QUOTED.sub(" ", task)
    for m in QUOTED.finditer(task):  # (a value once quoted as an example stays one: fresh21)
        value = (m.group(1) or m.group(2)).strip()
        if value in shown:
            compared = re.search(
                rf"(?:==|!=|\.str\.contains\(|\.isin\(\s*\[)\s*(['\"]){re.escape(value)}\1", code
            )
            bare = re.search(rf"(?<!\w){re.escape(value)}(?!\w)", unquoted)
            if compared and any(c.isdigit() for c in value) and not bare:  # ("is 7 Seater")
                return problem_of(
                    f"The question quotes {value!r} only as an example of how values are "
                    "written; comparing with it keeps or drops just the rows written exactly "
                    "so. Use the condition the question states (convert the column to numbers "
                    "or dates first, as the files note says), print the result, then answer.",
                    sign_example_fix(question, task, value, code),
                )
            continue  # ("amounts such as '$12.50'": how values are written, not a filter)
        if any(r.match(task, m.end()) for r in (_EXPLAINED, _MEAN_NONE, _LIST_EXPLAINED)):
            continue  # ("'1.234,56' is 1234.56", "'£0', 'none' ... all mean no fine")
        written = _WRITTEN.search(value) is not None  # (an amount, a time or a date)
        if written and (_IS.match(task, m.end()) or _WRITTEN_LIST.match(task, m.end())):
            continue  # ("'12:15 PM' is a quarter past noon", "'($45.00)' or ... is -45.00")
        if _EMPTY_IN.match(task, m.end()) or _IN_FRONT.match(task, m.end()):
            continue  # ("'N/A', '--' or empty in Cars, ...", "with or without 'MV ' in front")
        if MEANS_MISSING.match(task, m.end()) and HANDLES_MISSING.search(code):
            continue  # ("a weight of 'n/a' means it was not taken": pandas read it as NaN)
        unrecorded = not_recorded(task, m.start(), m.end(), value)
        if unrecorded and re.search(r"errors\s*=\s*['\"]coerce|na_values", code):
            continue  # ("'not synced' was not recorded": converted to NaN, or read as NaN)
        if left_out(task, m.start(), m.end(), code) or coerced_marker(question, value, code):
            continue  # (the code drops the row the question leaves out, or made it NaN)
        if re.search(rf"total rows? \({re.escape(repr(value))} in ", question) and re.search(
            r"skiprows\s*=\s*\[", code
        ):
            continue  # (a total the note's read skips with the header's repeats: fresh22)
        if value in columns:
            continue  # (a column's name: "the month in 'Batch No'"; the column rule's)
        listed = rf"(?:'[^'\n]*' and )*{re.escape(repr(value))}(?: and '[^'\n]*')*"  # (fresh18)
        read_as_nan = re.search(
            rf"\(written {listed} in the file: pandas reads them as NaN", question
        )
        if value.lower() not in low and noted_sign(question, task, value):
            continue  # (a sign for no date or number, said so twice: its own rule, _nomarks)
        if _converted_code(question, value):
            continue  # (a currency code or sign the note converts: "after 'GBP'", fresh16)
        if read_as_nan and not MEANS_MISSING.match(task, m.end()):
            continue  # (read as NaN already: comparisons leave those rows out)
        before = task[max(0, m.start() - 20) : m.start()]
        both = unrecorded and re.search(r"\b(?:empty|blank)\s+or\s+$", before, re.I)
        if both and value.lower() in low and not HANDLES_MISSING.search(code):
            return (  # ("empty or 'n/k' when it was not measured": both kinds of rows)
                f"The question counts the empty values too (empty or {value!r}), but your code "
                f"only compares with {value!r}. Read the file with na_values=[{value!r}] "
                "(then .isna() finds both), print the result, then answer."
            )
        if value and value.lower() not in low and m.start() not in described:
            if unrecorded:
                return problem_of(
                    f"The question says {value!r} marks a missing value, but your code never "
                    f"uses it: pandas reads {value!r} as text, so .isna() misses those rows. "
                    f"Read the file with na_values=[{value!r}] (then .isna() finds them with "
                    "the empty ones), print the result, then answer.",
                    with_na_values(code, value),
                )
            return (
                f"The question names {value!r}, but your code never uses it. Apply that "
                "filter (check the exact spelling in the data), print the result, then answer."
            )
    for m in THRESHOLD.finditer(task):
        inside = task[task.rfind("(", 0, m.start()) : task.find(")", m.end()) + 1]
        if column_of_value(question, m.group(0).strip(), fold=True) or (
            inside.startswith("(") and "(" not in inside[1:] and re.search(r"\bfor '", inside)
        ):  # ("Age Band is Under 18, 18-34 or 60+"; "(more than 84 days for '10-12 weeks')")
            continue
        number = (m.group(1) or m.group(2)).replace(",", "")
        spellings = {number, number.replace(".0", ""), f"{number}.0", _underscored(number)}
        spellings |= in_other_units(number, task[m.end() : m.end() + 12])
        if re.match(r"\s*(?:%|per ?cent)", task[m.end() : m.end() + 9]):  # (90%: 0.9)
            spellings |= {f"{float(number) / 100:g}", f"{float(number) / 100:g}".lstrip("0")}
        if not any(re.search(rf"(?<![\d.]){re.escape(s)}(?![\d])", code) for s in spellings if s):
            return (
                f"The question sets the threshold {number} ({m.group(0).strip()!r}), but your "
                "code never uses it. Apply it, print the result, then answer."
            )
    for m in _CLOCK_LIMIT.finditer(task):  # ("at or after 6:00 PM": the hour 18)
        hour = int(m.group(1)) % 12 + (12 if m.group(3).lower() == "p" else 0)
        said = f"{hour:02d}:{m.group(2) or '00'}"
        twelve = rf"(?<!\d)0?{int(m.group(1))}(?::{m.group(2) or '00'})?\s*{m.group(3)}\.?m\b"
        if not re.search(rf"(?<![\d.]){hour}(?![\d])|{said}|{twelve}", code, re.I):
            return (
                f"The question sets the time {m.group(0).split(maxsplit=1)[-1]!r} (hour "
                f"{hour}, or {said}), but your code never uses it. Apply it (for example "
                "pd.to_datetime(...).dt.hour), print the result, then answer."
            )
    return None


#: A limit at a time of day (``after 6:00 PM``, ``before 8 am``).
_CLOCK_LIMIT = re.compile(
    r"\b(?:after|before|from|until|since)\s+(\d{1,2})(?::([0-5]\d))?\s*([ap])\.?m\b", re.I
)


def _underscored(number: str) -> str:
    head, dot, tail = number.partition(".")
    if not head.lstrip("-").isdigit() or len(head.lstrip("-")) < 4:
        return ""
    sign = "-" if head.startswith("-") else ""
    digits = head.lstrip("-")
    groups: list[str] = []
    while digits:
        groups.insert(0, digits[-3:])
        digits = digits[:-3]
    return sign + "_".join(groups) + dot + tail
