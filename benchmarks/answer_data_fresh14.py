"""Twenty more fresh questions (split ``fresh14``), in the public benchmark's instruction style,
over a public library's loans log, written blind (without looking at how the agent handles data)
and never used to tune anything (run it with ``--split fresh14``); keep it that way.

``loans.csv`` (a fixed seed; items lent January to early June 2024 by a town's four branches,
exported on 15 June 2024) has a ``Loan Date `` header with a trailing space and a ``RETURN DATE``
one in capitals; both columns write a date two ways (``"2024-03-05"`` and day first with slashes,
``"05/03/2024"``), and RETURN DATE is empty for an item still out. Member is ``"M-"`` and four
digits in any case, with or without the hyphen (``"M-0042"``, ``"m-0042"``, ``"M0042"``); Genre
is typed in any case with stray spaces, and Non-Fiction also as ``"Nonfiction"``; Pages has commas
between thousands (``"1,024"``) and is empty for audiobooks and DVDs; Loan Period is in weeks or
days (``"3 weeks"``, ``"21 days"``); Renewed is a boolean written several ways (``TRUE``/``true``/
``1``/``Y``, ``FALSE``/``false``/``0``/``N``); Fine is text with a pound sign (``"£1.40"``) and
``"£0"``, ``"none"`` or empty when there was none. ``library_members.csv`` (Branch, Age Band
and Joined; not ``members.csv``, which fresh11 uses) is keyed by Member No, a plain number
(``42``); three questions join it (``Question.other_files``). The split shares its theme with
fresh6 (a university library's loans) but not its files, quirks or questions.
Every answer is computed here with pandas; the seed (0) is the first that ``problems`` passes
(``python answer_data_fresh14.py`` scans from 0): no asked top ties or nearly ties, nothing lies
on an asked threshold, no float within 0.0005 of a rounding boundary at its decimals.
"""

from __future__ import annotations

import io
import random
from collections.abc import Callable
from dataclasses import replace
from datetime import date, timedelta

import pandas as pd
from answer_data import Answer, Question, _csv
from answer_data_fresh2 import build_split
from answer_data_fresh7 import QFn, _gap
from answer_data_fresh11 import Num, _count, _value
from answer_data_styled import _num, _q

SEED = 0
LOANS, MEMBERS = "loans.csv", "library_members.csv"
BRANCHES = {"Central": 34, "Riverside": 22, "Hillcrest": 20, "Oakwood": 14}  # members, roughly
#: age band: (share of the members, how much they borrow)
BANDS = {"Under 18": (20, 1.3), "18-34": (25, 0.8), "35-59": (32, 1.0), "60+": (23, 1.4)}
#: format: (share of the loans, loan period in days, fine per day late in pounds)
FORMATS = {"Book": (64, 21, 0.25), "Audiobook": (14, 14, 0.3), "DVD": (22, 7, 1.0)}
GENRES = {"Fiction": 30, "Non-Fiction": 21, "Crime": 18, "Children": 17, "Biography": 9}
WEEK = [1.0, 1.05, 1.0, 1.1, 0.95, 1.35, 0.4]  # Monday to Sunday
START, EXPORT = date(2024, 1, 2), date(2024, 6, 15)
HEADER = ["Loan ID", "Loan Date ", "RETURN DATE", "Member", "Item", "Format", "Genre", "Pages"]
HEADER += ["Loan Period", "Renewed", "Fine"]


def _date(rnd: random.Random, day: date) -> str:
    return day.isoformat() if rnd.random() < 0.55 else f"{day:%d/%m/%Y}"


def _period(rnd: random.Random, days: int) -> str:
    if days % 7 or rnd.random() < 0.45:
        return f"{days} days"
    return f"{days // 7} week{'s' * (days > 7)}"


def generate_fresh14_files(seed: int = SEED) -> dict[str, bytes]:
    """``loans.csv`` (lent January to June 2024) and ``library_members.csv``."""
    rnd = random.Random(seed)
    numbers = sorted(rnd.sample(range(1, 400), sum(BRANCHES.values())))
    people = {}
    for n in numbers:
        branch = rnd.choices(list(BRANCHES), list(BRANCHES.values()))[0]
        band = rnd.choices(list(BANDS), [b[0] for b in BANDS.values()])[0]
        joined = rnd.randint(2006, 2024) if band != "Under 18" else rnd.randint(2014, 2024)
        people[n] = (branch, band, joined, BANDS[band][1] * rnd.lognormvariate(0, 0.7))
    days = [START + timedelta(days=i) for i in range(159)]
    rows = []
    for _ in range(510):
        day = rnd.choices(days, [WEEK[d.weekday()] for d in days])[0]
        member = rnd.choices(list(people), [p[3] for p in people.values()])[0]
        kind = rnd.choices(list(FORMATS), [f[0] for f in FORMATS.values()])[0]
        _, period, per_day = FORMATS[kind]
        genre = rnd.choices(list(GENRES), list(GENRES.values()))[0]
        renewed = rnd.random() < 0.2
        period *= 1 + renewed
        out = max(1, round(rnd.gauss(period * 0.7, period * 0.3)))
        out += rnd.randint(1, 25) if rnd.random() < 0.15 else 0
        out -= out == period  # nothing comes back on its due date exactly
        out += out == 21  # nor exactly 21 days after it went out
        back = day + timedelta(days=out)
        back = None if back > EXPORT or rnd.random() < 0.02 else back
        fine = min(10.0, (out - period) * per_day) if back and out > period else 0
        fine *= people[member][1] != "Under 18"  # children pay no fines
        paid = f"£{fine:.2f}" if fine else rnd.choice(["£0", "none", "", "£0.00"])
        pages = round(rnd.lognormvariate(5.8, 0.55)) if kind == "Book" else ""
        spelt = [genre, f"{genre.lower()} ", genre.upper()]
        spelt += ["Nonfiction"] * (genre == "Non-Fiction")
        typed = rnd.choices(spelt, [55, 25, 20, 15][: len(spelt)])[0]
        code = rnd.choices([f"M-{member:04d}", f"m-{member:04d}", f"M{member:04d}"], [6, 2.5, 1.5])
        yes = rnd.choice(["TRUE", "true", "1", "Y"] if renewed else ["FALSE", "false", "0", "N"])
        row = [_date(rnd, day), _date(rnd, back) if back else "", code[0]]
        row += [f"3900{rnd.randrange(10**7):07d}", kind, typed]
        row += [f"{pages:,}" if pages else "", _period(rnd, period), yes, "" if not back else paid]
        rows.append((day, row))
    rows.sort(key=lambda r: r[0])
    body = _csv(HEADER, [[f"LN{70215 + i}", *r] for i, (_, r) in enumerate(rows)])
    members = [[n, b, a, j] for n, (b, a, j, _) in people.items()]
    head = ["Member No", "Branch", "Age Band", "Joined"]
    return {LOANS: body, MEMBERS: _csv(head, rnd.sample(members, len(members)))}


def _dates(text: pd.Series) -> pd.Series:
    iso = pd.to_datetime(text, format="%Y-%m-%d", errors="coerce")
    return iso.fillna(pd.to_datetime(text, format="%d/%m/%Y", errors="coerce"))


def _frames(files: dict[str, bytes]) -> dict[str, pd.DataFrame]:
    d = pd.read_csv(io.BytesIO(files[LOANS]), dtype=str, keep_default_na=False)
    d["loaned"], d["returned"] = _dates(d["Loan Date "]), _dates(d["RETURN DATE"])
    d["days"], d["weekday"] = (d.returned - d.loaned).dt.days, d.loaned.dt.day_name()
    d["member"] = d.Member.str.extract(r"(\d+)", expand=False).astype(int)
    d["genre"] = d.Genre.str.strip().str.title().replace({"Nonfiction": "Non-Fiction"})
    d["pages"] = pd.to_numeric(d.Pages.str.replace(",", ""), errors="coerce")
    span = d["Loan Period"].str.extract(r"(\d+) (day|week)")
    d["period"] = span[0].astype(int) * span[1].map({"day": 1, "week": 7})
    d["renewed"] = d.Renewed.str.lower().isin(["true", "1", "y"])
    d["fine"] = pd.to_numeric(d.Fine.str.lstrip("£"), errors="coerce").fillna(0)
    d["out"], d["late"] = d.returned.isna(), d.days > d.period
    m = pd.read_csv(io.BytesIO(files[MEMBERS]))
    return {LOANS: d.merge(m, left_on="member", right_on="Member No", how="left"), MEMBERS: m}


EVERY = "Every row of loans.csv is one item a public library lent to a member"
DATES = (
    "The 'Loan Date ' column (its header ends with a space) is the day the item was lent and "
    "RETURN DATE the day it came back; both are written either as YYYY-MM-DD or day first as "
    "DD/MM/YYYY: '2024-03-05' and '05/03/2024' are both 5 March 2024"
)
OUT = "RETURN DATE is empty for an item that is still out (not yet returned)"
MEMBER = (
    "Member is the borrower's member number, written 'M-' and four digits in any case, with or "
    "without the hyphen: 'M-0042', 'm-0042' and 'M0042' are all member 42"
)
GENRE = (
    "Genre is Fiction, Non-Fiction, Crime, Children or Biography, typed in any case with stray "
    "spaces ('fiction ', 'FICTION' and 'Fiction' are all Fiction); Non-Fiction is also written "
    "'Nonfiction', and it is not Fiction"
)
FORMAT = "Format is Book, Audiobook or DVD"
PAGES = (
    "Pages is the book's number of pages with a comma between thousands ('1,024' is 1024); it is "
    "empty for audiobooks and DVDs"
)
PERIOD = (
    "Loan Period is how long the member could keep the item, renewals included, in weeks or in "
    "days ('3 weeks' and '21 days' are the same)"
)
LATE = (
    "An item is returned late when it came back more days after its Loan Date than its Loan "
    "Period allows (its due date is the Loan Date plus the Loan Period)"
)
RENEWED = (
    "Renewed says whether the loan was renewed, written 'TRUE', 'true', '1' or 'Y' for yes and "
    "'FALSE', 'false', '0' or 'N' for no"
)
FINE = (
    "Fine is the late fine charged on return, in pounds with a £ sign ('£1.40'); '£0', '£0.00', "
    "'none' and an empty Fine all mean no fine (count them as 0)"
)
JOIN = (
    "library_members.csv has one row per member: Member No (the plain number, like 42), Branch "
    "(their home branch), Age Band (Under 18, 18-34, 35-59 or 60+) and Joined (the year they "
    "joined); join each loan to the row of its member"
)
KEYS = {
    "genre": '@genre[genre_name] where "genre_name" is written like Biography. ',
    "weekday": '@weekday[weekday_name] where "weekday_name" is the day in English, e.g. Tuesday. ',
    "branch": '@branch[branch_name] where "branch_name" is as in the Branch column, e.g. Oakwood. ',
    "member": '@member[member_no] where "member_no" is the plain member number, e.g. 17. ',
}
LOANS_N: Num = ("loans", "the count", None)


def _back(d: pd.DataFrame) -> pd.DataFrame:
    return d[~d.out]


#: what each "which ... the most" question ranks, and how far its top must lie above the next
RANKED: dict[str, tuple[Callable[[pd.DataFrame], pd.Series], float]] = {
    "genre": (lambda d: d.genre.value_counts(), 3),
    "weekday": (lambda d: d.weekday.value_counts(), 3),
    "branch": (lambda d: d.groupby("Branch").fine.sum(), 0.5),
    "genre_late": (lambda d: _back(d).groupby("genre").late.mean() * 100, 0.5),
    "member": (lambda d: d.member.value_counts(), 2),
}


def _top(question: str, constraints: str, key: str, num: Num, ranked: str = "") -> QFn:
    """Which ``key`` has the largest value of ``RANKED[ranked or key]``, and that value."""

    def fn(d: pd.DataFrame) -> tuple[str, list[Answer]]:
        values = RANKED[ranked or key][0](d)
        best, top = values.idxmax(), values.max()
        top = top if num[2] else int(top)
        best = best if isinstance(best, str) else int(best)
        text = _q(question, constraints, KEYS[key] + _num(*num))
        return text, [Answer(key, best), Answer(num[0], top, num[2])]

    return fn


e01 = _count(
    "How many loaned items are still out?",
    f"{EVERY}. {OUT}. Count the loans with an empty RETURN DATE.",
    "still_out",
    lambda d: d.out,
)
e02 = _count(
    "How many loans were renewed?",
    f"{EVERY}. {RENEWED}. Count the renewed loans.",
    "renewed",
    lambda d: d.renewed,
)
e03 = _count(
    "How many loans were of Fiction?",
    f"{EVERY}. {GENRE}. Count the loans whose Genre is Fiction.",
    "fiction",
    lambda d: d.genre == "Fiction",
)
e04 = _count(
    "How many loans were charged a fine?",
    f"{EVERY}. {FINE}. Count the loans with a fine of more than £0.",
    "fined",
    lambda d: d.fine > 0,
)
e05 = _count(
    "How many loans had a loan period of more than two weeks?",
    f"{EVERY}. {PERIOD}. Count the loans whose Loan Period is longer than 14 days.",
    "long_period",
    lambda d: d.period > 14,
)
f01 = _count(
    "How many members are in the 60+ age band?",
    "library_members.csv has one row per member; Age Band is Under 18, 18-34, 35-59 or 60+. "
    "Count the members whose Age Band is 60+.",
    "members_60_plus",
    lambda m: m["Age Band"] == "60+",
)
m01 = _value(
    "How much was charged in fines in total?",
    f"{EVERY}. {FINE}. Add up the fines of all the loans, in pounds.",
    ("total_fines", "the total in pounds", 2),
    lambda d: d.fine.sum(),
)
m02 = _top(
    "Which genre was lent the most, and how many times?",
    f"{EVERY}. {GENRE}. Count the loans of each genre.",
    "genre",
    LOANS_N,
)
m03 = _count(
    "How many items were lent in March 2024?",
    f"{EVERY}. {DATES}. Count the loans whose Loan Date is in March 2024.",
    "lent_march",
    lambda d: (d.loaned.dt.year == 2024) & (d.loaned.dt.month == 3),
)
m04 = _value(
    "What is the mean number of pages of the books lent?",
    f"{EVERY}. {FORMAT}. {PAGES}. Take the mean Pages over the loans whose Format is Book.",
    ("mean_pages", "the mean", 2),
    lambda d: d.pages[d.Format == "Book"].mean(),
)
m05 = _value(
    "On average, how many days were returned items kept?",
    f"{EVERY}. {DATES}. {OUT}: leave those out. For each returned loan count the days from its "
    "Loan Date to its RETURN DATE, and take the mean.",
    ("mean_days", "the mean number of days", 2),
    lambda d: d.days.mean(),
)
m06 = _top(
    "On which day of the week were the most items lent, and how many?",
    f"{EVERY}. {DATES}. Count the loans on each day of the week of their Loan Date (all Mondays "
    "together).",
    "weekday",
    LOANS_N,
)
m07 = _count(
    "How many items were returned more than 21 days after they were lent?",
    f"{EVERY}. {DATES}. {OUT}. Count the returned loans whose RETURN DATE is more than 21 days "
    "after their Loan Date.",
    "over_21_days",
    lambda d: d.days > 21,
)
h01 = _top(
    "Members of which home branch were charged the most in fines, and how much in total?",
    f"{EVERY}. {MEMBER}. {JOIN}; a loan's branch is the Branch of its member. {FINE}. Add up the "
    "fines of each branch's loans.",
    "branch",
    ("fines", "the total in pounds", 2),
)
h02 = _count(
    "How many items borrowed by members under 18 were returned late?",
    f"{EVERY}. {MEMBER}. {JOIN}. {DATES}. {OUT}. {PERIOD}. {LATE}. Count the loans returned late "
    "whose member's Age Band is Under 18.",
    "children_late",
    lambda d: d.late & (d["Age Band"] == "Under 18"),
)
h03 = _value(
    "What is the mean fine per loan of members aged 60 or over?",
    f"{EVERY}. {MEMBER}. {JOIN}. {FINE}. Keep the loans whose member's Age Band is 60+ (the "
    "items still out and those without a fine too) and take the mean of their fines, in pounds.",
    ("mean_fine_60_plus", "the mean in pounds", 2),
    lambda d: d.fine[d["Age Band"] == "60+"].mean(),
)
h04 = _count(
    "How many items were returned late?",
    f"{EVERY}. {DATES}. {OUT}. {PERIOD}. {LATE}. Count the loans returned late.",
    "returned_late",
    lambda d: d.late,
)
h05 = _top(
    "Which genre had the largest share of its returned items come back late, and what was it?",
    f"{EVERY}. {GENRE}. {DATES}. {OUT}: leave those out. {PERIOD}. {LATE}. For each genre, "
    "divide the number of its loans returned late by the number of its returned loans, times 100.",
    "genre",
    ("late_pct", "the percentage", 2),
    "genre_late",
)
h06 = _top(
    "Which member borrowed the most items, and how many?",
    f"{EVERY}. {MEMBER}. Count the loans of each member.",
    "member",
    LOANS_N,
)
h07 = _count(
    "How many renewed loans were returned in May 2024?",
    f"{EVERY}. {DATES}. {OUT}. {RENEWED}. Count the renewed loans whose RETURN DATE is in May "
    "2024.",
    "renewed_back_may",
    lambda d: d.renewed & (d.returned.dt.year == 2024) & (d.returned.dt.month == 5),
)

FRESH14: list[tuple[str, str, str, QFn]] = [
    ("fresh14_still_out", "easy", LOANS, e01),
    ("fresh14_renewed", "easy", LOANS, e02),
    ("fresh14_fiction", "easy", LOANS, e03),
    ("fresh14_fined", "easy", LOANS, e04),
    ("fresh14_long_period", "easy", LOANS, e05),
    ("fresh14_members_60_plus", "easy", MEMBERS, f01),
    ("fresh14_total_fines", "medium", LOANS, m01),
    ("fresh14_top_genre", "medium", LOANS, m02),
    ("fresh14_lent_march", "medium", LOANS, m03),
    ("fresh14_mean_pages", "medium", LOANS, m04),
    ("fresh14_mean_days_kept", "medium", LOANS, m05),
    ("fresh14_busiest_weekday", "medium", LOANS, m06),
    ("fresh14_over_21_days", "medium", LOANS, m07),
    ("fresh14_branch_fines", "hard", LOANS, h01),
    ("fresh14_children_late", "hard", LOANS, h02),
    ("fresh14_mean_fine_60_plus", "hard", LOANS, h03),
    ("fresh14_returned_late", "hard", LOANS, h04),
    ("fresh14_genre_late_share", "hard", LOANS, h05),
    ("fresh14_top_member", "hard", LOANS, h06),
    ("fresh14_renewed_back_may", "hard", LOANS, h07),
]
#: questions that need another file besides their own (uploaded and described with it)
JOINS = {f"fresh14_{q}": (MEMBERS,) for q in ("branch_fines", "children_late", "mean_fine_60_plus")}


def build_fresh14_questions(files: dict[str, bytes]) -> list[Question]:
    """The twenty questions with answers computed from ``files`` (split ``fresh14``)."""
    built = build_split(FRESH14, _frames(files), "fresh14")
    return [replace(q, other_files=JOINS.get(q.id, ())) for q in built]


def problems(seed: int) -> list[str]:
    """Why the data of ``seed`` would make a question ambiguous or fragile (empty: fine)."""
    files = generate_fresh14_files(seed)
    d, m = _frames(files).values()
    answers = [a for q in build_fresh14_questions(files) for a in q.answers if a.decimals]
    near = {a.name: abs(a.value * 10**a.decimals % 1 - 0.5) / 10**a.decimals for a in answers}
    out = [f"{name} near a rounding boundary" for name, n in near.items() if n <= 0.00051]
    out += [f"{n} tie" for n, (by, gap) in RANKED.items() if _gap(by(d)) < gap]
    raw = pd.read_csv(io.BytesIO(files[LOANS]), dtype=str, keep_default_na=False)
    tops = {str(by(d).idxmax()) for by, _ in RANKED.values()}
    both = [raw[c].str.contains("/").any() and raw[c].str.contains("-").any() for c in HEADER[1:3]]
    paid = raw.Fine.str.fullmatch(r"£\d+\.\d\d")
    day_first = raw["Loan Date "].str.match(r"(0\d|1[0-2])/0[1-6]/")  # would read as a month too
    checks = {
        "on a due date": not (d.days == d.period).any() and d.late.any(),
        "exactly 21 days": not (d.days == 21).any(),
        "a date unread": d.loaned.notna().all() and set(d.loaned.dt.month) == set(range(1, 7)),
        "a return unread": d.returned.notna().sum() == (raw["RETURN DATE"] != "").sum(),
        "both date forms": all(both) and day_first.any(),
        "no thousands": raw.Pages.str.contains(",").any(),
        "a page count unread": d.pages.notna().sum() == (d.Format == "Book").sum(),
        "a period unread": d.period.notna().all() and raw["Loan Period"].str.contains("week").any(),
        "a renewal unread": d.renewed.sum() == raw.Renewed.isin(["TRUE", "true", "1", "Y"]).sum(),
        "a fine unread": d.fine.gt(0).sum() == (paid & raw.Fine.ne("£0.00")).sum(),
        "a genre unread": set(d.genre) == set(GENRES) and raw.Genre.eq("Nonfiction").any(),
        "a member unjoined": d.Branch.notna().all() and not raw.Member.str.match("[Mm]-").all(),
        "no late child": (d.late & (d["Age Band"] == "Under 18")).any(),
        "an example is an answer": not {"Biography", "Tuesday", "Oakwood", "17"} & tops,
        "a member twice": m["Member No"].is_unique,
    }
    return out + [name for name, ok in checks.items() if not ok]


if __name__ == "__main__":  # the seed scan: the first seed that passes every check
    print(next(s for s in range(1000) if not problems(s)))
