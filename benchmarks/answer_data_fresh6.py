"""Twenty more fresh questions (split ``fresh6``), in the public benchmark's instruction style,
over two new files with the messiness of real-world CSVs.

Written after every answer mechanism and never used to tune one: the untuned measure of the
agent (run with ``--split fresh6``). Keep it that way — a mechanism built from these
transcripts makes the split a tuning set; add new fresh questions instead.

``library_loans.csv`` (generated from a fixed seed; a university library's 2023-24 export) has
checkout times in local time with a UTC offset that changes with daylight saving
(``"2023-11-06T14:22:05+01:00"``), return dates in two formats in one column (``"2024-03-05"``,
day first ``"05/03/2024"``; empty while a book is out), quoted ``"Last, First"`` authors and
titles with commas, ``Y``/``N`` renewals, fines empty until a book is back and a ``TOTAL`` row
last. ``course_grades.csv`` has student numbers with leading zeros (``"00417"`` is borrower
``417``: one question joins the files, ``Question.other_files``), odd header case and a trailing
space (``'COURSE'``, ``'Final Score '``), scores as percentage text (``"67.5%"``, empty for a
missed exam), ECTS such as ``7.5`` and a ``Y``/``N`` pass flag. Every expected answer is
computed here with pandas; the seed (0) is the first that ``problems`` passes (``python
answer_data_fresh6.py`` scans from 0): no asked maximum, top-5 or rank has a tie or near-tie,
the score threshold and late rule count the same with strict comparisons (no loan is kept
exactly 21 or 42 days) and no float lies within 0.0005 of a rounding boundary at its decimals.
"""

from __future__ import annotations

import io
import math
import random
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pandas as pd
from answer_data import Answer, Question, _csv
from answer_data_fresh2 import build_split
from answer_data_styled import _num, _q

SEED = 0
LOANS, GRADES = "library_loans.csv", "course_grades.csv"
#: the library's most borrowed books ("title/author"), by section
SHELVES = {
    "Fiction": "Dune/Herbert, Frank; Beloved/Morrison, Toni; Never Let Me Go/Ishiguro, Kazuo; "
    "Goodbye, Columbus/Roth, Philip; The Left Hand of Darkness/Le Guin, Ursula K.",
    "History": "Guns, Germs, and Steel/Diamond, Jared; The Guns of August/Tuchman, Barbara W.; "
    "SPQR/Beard, Mary; Postwar/Judt, Tony; The Silk Roads/Frankopan, Peter",
    "Science": "A Brief History of Time/Hawking, Stephen; The Selfish Gene/Dawkins, Richard; "
    "Surely You're Joking, Mr. Feynman!/Feynman, Richard P.; The Double Helix/Watson, James D.",
    "Law": "The Rule of Law/Bingham, Tom; Law's Empire/Dworkin, Ronald; The Concept of Law/Hart, "
    "H. L. A.; Just Mercy/Stevenson, Bryan",
    "Economics": "Thinking, Fast and Slow/Kahneman, Daniel; Freakonomics/Levitt, Steven D.; "
    "Poor Economics/Banerjee, Abhijit; The Wealth of Nations/Smith, Adam",
    "Arts": "Ways of Seeing/Berger, John; The Story of Art/Gombrich, E. H.; Eats, Shoots & "
    "Leaves/Truss, Lynne",
}
BOOKS = [(*b.split("/"), shelf) for shelf, books in SHELVES.items() for b in books.split("; ")]
#: each programme's courses (students take two a term) and the library section it reads most
PROGRAMMES = {
    "Law": ("LAW101 LAW210 LAW250 LAW330", "Law"),
    "Biology": ("BIO120 BIO230 BIO240 BIO310", "Science"),
    "Economics": ("ECON110 ECON220 ECON260 ECON305", "Economics"),
    "History": ("HIST105 HIST215 HIST240 HIST320", "History"),
    "Physics": ("PHYS150 PHYS210 PHYS260 PHYS330", "Science"),
}
TERMS = {"Autumn 2023": "STAT101", "Spring 2024": "ACAD100"}  # and the course all take
#: checkouts per weekday (Monday first) and per opening hour (08:00-21:00, local time)
WEEKDAYS, HOURS = [10, 10, 10, 9, 8, 5, 2], [2, 4, 6, 7, 8, 7, 8, 9, 8, 7, 6, 5, 4, 2]
LOAN_COLUMNS = "Loan ID,Borrower,Title,Author,Section,Checked Out,Returned,Renewed,Fine".split(",")
GRADE_COLUMNS = "Student_No,programme,COURSE,term,ECTS,Final Score ,Passed".split(",")


def generate_fresh6_files(seed: int = SEED) -> dict[str, bytes]:
    """``library_loans.csv`` (September 2023 to June 2024) and ``course_grades.csv``."""
    rnd = random.Random(seed)
    students = {}
    for number in rnd.sample(range(100, 3000), 140):
        ability = rnd.gauss(0, 10)
        reads = math.exp(rnd.gauss(0, 0.7) + 0.04 * ability)
        students[number] = (rnd.choice(list(PROGRAMMES)), ability, reads)
    popular = [rnd.paretovariate(1.3) for _ in BOOKS]
    days = list(pd.date_range("2023-09-04", "2024-06-28"))
    open_days = [WEEKDAYS[d.weekday()] for d in days]
    loans = []
    for _ in range(660):
        who = rnd.choices(list(students), [s[2] for s in students.values()])[0]
        who = rnd.randint(90001, 90012) if rnd.random() < 0.1 else who  # staff
        section = PROGRAMMES[students[who][0]][1] if who in students else ""
        pool = [b for b in BOOKS if b[2] == section] if section and rnd.random() < 0.5 else BOOKS
        book = rnd.choices(pool, [popular[BOOKS.index(b)] for b in pool])[0]
        day = rnd.choices(days, open_days)[0]
        hour = 8 + rnd.choices(range(len(HOURS)), HOURS)[0]
        local = day + pd.Timedelta(hours=hour, seconds=rnd.randrange(3600))
        loans.append((local.tz_localize("Europe/Paris"), who, book))
    rows: list[list[Any]] = []
    for i, (when, who, (title, author, section)) in enumerate(sorted(loans)):
        yn = "Y" if rnd.random() < 0.22 else "N"  # renewed
        period = 42 if yn == "Y" else 21
        kept = round(rnd.gammavariate(5, 7) if period == 42 else rnd.gammavariate(3, 5.5)) + 1
        kept += rnd.choice([-1, 1]) if kept == period else 0  # never exactly on the due day
        back = when.tz_localize(None).normalize() + pd.Timedelta(days=kept)
        out = back >= pd.Timestamp("2024-07-01") or rnd.random() < 0.01
        fine = "" if out else f"{0.2 * max(0, kept - period):.2f}"
        ret = "" if out else back.strftime("%Y-%m-%d" if rnd.random() < 0.6 else "%d/%m/%Y")
        rows.append([f"L{i + 1:05d}", who, title, author, section, when.isoformat(), ret, yn, fine])
    total = sum(float(r[-1]) for r in rows if r[-1])
    rows.append(["TOTAL", "", "", "", "", "", "", "", f"{total:.2f}"])
    borrowed = pd.Series([r[1] for r in rows[:-1]]).value_counts()
    codes = [*TERMS.values(), *" ".join(c for c, _ in PROGRAMMES.values()).split()]
    courses = {c: (rnd.choice([5, 6, 7.5]), rnd.gauss(0, 6)) for c in codes}
    grades = []
    for number, (programme, ability, _) in sorted(students.items()):
        own = rnd.sample(PROGRAMMES[programme][0].split(), 4)
        for t, (term, common) in enumerate(TERMS.items()):
            for course in sorted([common, *own[2 * t : 2 * t + 2]]):
                ects, hard = courses[course]
                score = 58 + ability + hard + 2.5 * t + 0.4 * borrowed.get(number, 0)
                score = min(100.0, max(0.0, round(score + rnd.gauss(0, 9), 1)))
                absent = rnd.random() < 0.04
                mark = "" if absent else f"{score}%"
                passed = "Y" if not absent and score >= 50 else "N"
                grades.append([f"{number:05d}", programme, course, term, ects, mark, passed])
    return {LOANS: _csv(LOAN_COLUMNS, rows), GRADES: _csv(GRADE_COLUMNS, grades)}


def _frames(files: dict[str, bytes]) -> dict[str, pd.DataFrame]:
    lo = pd.read_csv(io.BytesIO(files[LOANS]))
    lo = lo[lo["Loan ID"] != "TOTAL"].copy()
    lo["day"] = pd.to_datetime(lo["Checked Out"].str[:10])
    lo["utc"] = pd.to_datetime(lo["Checked Out"], utc=True)
    iso = pd.to_datetime(lo.Returned, format="%Y-%m-%d", errors="coerce")
    lo["back"] = iso.fillna(pd.to_datetime(lo.Returned, format="%d/%m/%Y", errors="coerce"))
    lo["kept"] = (lo.back - lo.day).dt.days
    lo["period"] = lo.Renewed.map({"Y": 42, "N": 21})
    cg = pd.read_csv(io.BytesIO(files[GRADES]), dtype={"Student_No": str})
    cg["score"] = cg["Final Score "].str.rstrip("%").astype(float)
    count = lo.groupby(lo.Borrower.astype(int)).size()
    cg["loans"] = cg.Student_No.astype(int).map(count).fillna(0)
    return {LOANS: lo, GRADES: cg}


QFn = Callable[[pd.DataFrame], tuple[str, list[Answer]]]
TOTAL = "The last row of the file is a summary line (Loan ID 'TOTAL'), not a loan: leave it out"
CHECKED = "Checked Out is the local date and time with its UTC offset ('2024-03-05T14:22:05+01:00')"
RETURNED = (
    "Returned is a date written either as '2024-03-05' or day first as '05/03/2024'; it is "
    "empty while the book is still on loan"
)
SCORE = (
    "The Final Score column holds a percentage text such as '67.5%' (read it as 67.5); it is "
    "empty when the student missed the exam"
)
NO_EMPTY = "leave out the empty scores"


def _late_pct(d: pd.DataFrame) -> pd.Series:
    back = d[d.back.notna()]
    return (back.kept > back.period).groupby(back.Section).mean() * 100


def _weighted(d: pd.DataFrame) -> pd.Series:
    s = d[d.score.notna()]
    return (s.ECTS * s.score).groupby(s.Student_No).sum() / s.ECTS.groupby(s.Student_No).sum()


def n01(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "How many loans are from the Science section?",
        f"{TOTAL}. Count rows whose Section is 'Science'.",
        _num("science_loans", "the count", None),
    ), [Answer("science_loans", int((d.Section == "Science").sum()))]


def n02(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "How many loans were renewed?",
        f"{TOTAL}. Renewed is 'Y' or 'N'; count the rows whose Renewed is 'Y'.",
        _num("renewed_loans", "the count", None),
    ), [Answer("renewed_loans", int((d.Renewed == "Y").sum()))]


def n03(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "How many books are still on loan?",
        f"{TOTAL}. Count the loans whose Returned is empty.",
        _num("open_loans", "the count", None),
    ), [Answer("open_loans", int(d.Returned.isna().sum()))]


def c01(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "How many grade records are from the Spring 2024 term?",
        "Count rows whose term is 'Spring 2024'.",
        _num("spring_records", "the count", None),
    ), [Answer("spring_records", int((d.term == "Spring 2024").sum()))]


def c02(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "How many different students appear in the grades file?",
        "Count the distinct values of Student_No.",
        _num("students", "the count", None),
    ), [Answer("students", int(d.Student_No.nunique()))]


def c03(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "How many grade records are marked as passed?",
        "Passed is 'Y' or 'N'; count the rows whose Passed is 'Y'.",
        _num("passed_records", "the count", None),
    ), [Answer("passed_records", int((d.Passed == "Y").sum()))]


def n04(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "What is the total of the late fines charged, in euros?",
        f"{TOTAL}. Fine is in euros and empty for books not yet returned; sum the Fine of "
        "every loan.",
        _num("total_fines", "the total in euros", 2),
    ), [Answer("total_fines", d.Fine.sum(), 2)]


def n05(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "How many loans were checked out on a Saturday or a Sunday?",
        f"{TOTAL}. {CHECKED}; use the local date as written (the part before the 'T').",
        _num("weekend_loans", "the count", None),
    ), [Answer("weekend_loans", int((d.day.dt.day_of_week >= 5).sum()))]


def n06(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "How many times was 'Thinking, Fast and Slow' borrowed?",
        f"{TOTAL}. Count rows whose Title is exactly 'Thinking, Fast and Slow'.",
        _num("title_loans", "the count", None),
    ), [Answer("title_loans", int((d.Title == "Thinking, Fast and Slow").sum()))]


def n07(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "How many books were returned in March 2024?",
        f"{TOTAL}. {RETURNED}. Count the loans whose Returned date is in March 2024.",
        _num("march_returns", "the count", None),
    ), [Answer("march_returns", int(((d.back.dt.month == 3) & (d.back.dt.year == 2024)).sum()))]


def c04(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "What is the mean final score over the records that have one?",
        f"{SCORE}; {NO_EMPTY}.",
        _num("mean_score", "the mean score", 2),
    ), [Answer("mean_score", d.score.mean(), 2)]


def c05(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    stat = d.score[d.COURSE == "STAT101"]
    return _q(
        "How many STAT101 records have a final score of at least 70%?",
        f"{SCORE}. Only rows whose COURSE is 'STAT101'; count the scores of 70 or more (an empty "
        "score does not count).",
        _num("stat_70", "the count", None),
    ), [Answer("stat_70", int((stat >= 70).sum()))]


def c06(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "What is the median final score of the records of Law students?",
        f"{SCORE}. Only rows whose programme is 'Law'; {NO_EMPTY}.",
        _num("law_median", "the median score", 2),
    ), [Answer("law_median", d.score[d.programme == "Law"].median(), 2)]


def n08(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    late = _late_pct(d)
    return _q(
        "Which section has the highest share of late returns among its returned loans, and what "
        "is that share as a percentage?",
        f"{TOTAL}. {RETURNED}. {CHECKED}. Only loans with a Returned date count. A loan is late "
        "when the number of days from the local date of Checked Out to the Returned date is more "
        "than 21, or more than 42 when Renewed is 'Y'. For each Section, divide its late loans "
        "by its returned loans, times 100.",
        '@section[section_name] where "section_name" is the section. '
        + _num("late_pct", "the percentage", 2),
    ), [Answer("section", late.idxmax()), Answer("late_pct", late.max(), 2)]


def n09(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    hours = d.utc.dt.hour.value_counts()
    return _q(
        "In which hour of the day, in UTC, were the most loans checked out, and how many loans "
        "were checked out in that hour?",
        f"{TOTAL}. {CHECKED}: convert each time to UTC (the offset is +01:00 in winter and "
        "+02:00 in summer) and group the loans by the UTC hour (0-23) over the whole period.",
        _num("peak_utc_hour", "the hour, 0-23", None) + " " + _num("peak_loans", "the count", None),
    ), [Answer("peak_utc_hour", int(hours.idxmax())), Answer("peak_loans", int(hours.max()))]


def n10(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "What percentage of all loans are of the 5 most borrowed titles?",
        f"{TOTAL}. Count the loans per Title, add the counts of the 5 titles with the most loans "
        "and divide by the number of loans, times 100.",
        _num("top5_pct", "the percentage", 2),
    ), [Answer("top5_pct", d.Title.value_counts().iloc[:5].sum() / len(d) * 100, 2)]


def c07(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    w = _weighted(d)
    return _q(
        "Which student has the highest credit-weighted mean final score, and what is it?",
        f"{SCORE}; {NO_EMPTY}. For each Student_No, weight each score by the course's ECTS: "
        "sum(ECTS * score) / sum(ECTS) over that student's records with a score.",
        '@student[student_no] where "student_no" is the Student_No exactly as written in the '
        "file (with its leading zeros). " + _num("weighted_score", "the weighted mean", 2),
    ), [Answer("student", w.idxmax()), Answer("weighted_score", w.max(), 2)]


def c08(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    rate = (d.Passed == "Y").groupby(d.term).mean() * 100
    return _q(
        "By how many percentage points did the pass rate change from the Autumn 2023 term to the "
        "Spring 2024 term?",
        "Passed is 'Y' or 'N' (a student who missed the exam has 'N'). The pass rate of a term "
        "is its rows whose Passed is 'Y' divided by all its rows, times 100; subtract the Autumn "
        "2023 rate from the Spring 2024 rate (negative if it fell).",
        _num("pass_rate_change", "the difference in percentage points", 2),
    ), [Answer("pass_rate_change", rate["Spring 2024"] - rate["Autumn 2023"], 2)]


def c09(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    means = d.groupby("COURSE").score.mean().sort_values(ascending=False)
    rank = list(means.index).index("ECON110") + 1
    return _q(
        "Ranking the courses by their mean final score, highest first, what rank does ECON110 "
        "have, and what is its mean score?",
        f"{SCORE}; {NO_EMPTY}. The mean of a COURSE is over all its records with a score, in "
        "both terms. Rank 1 is the course with the highest mean.",
        _num("econ_rank", "the rank", None) + " " + _num("econ_mean", "the mean score", 2),
    ), [Answer("econ_rank", rank), Answer("econ_mean", means["ECON110"], 2)]


def c10(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    s = d.groupby("Student_No").agg(loans=("loans", "first"), score=("score", "mean"))
    return _q(
        "Across the students, what is the Pearson correlation coefficient between the number of "
        "library loans a student made and the student's mean final score?",
        "Join course_grades.csv to library_loans.csv on the student: Student_No is the Borrower "
        "with leading zeros ('00417' is 417). For every Student_No of course_grades.csv, take the "
        "number of rows of library_loans.csv whose Borrower is that student (0 if none; its last "
        "row, Loan ID 'TOTAL', is a summary line, not a loan) and the mean of the student's "
        f"scores. {SCORE}; {NO_EMPTY}.",
        _num("r_loans_score", "the coefficient", 2),
    ), [Answer("r_loans_score", s.loans.corr(s.score), 2)]


FRESH6: list[tuple[str, str, str, QFn]] = [
    ("fresh6_science_loans", "easy", LOANS, n01),
    ("fresh6_renewed_loans", "easy", LOANS, n02),
    ("fresh6_open_loans", "easy", LOANS, n03),
    ("fresh6_spring_records", "easy", GRADES, c01),
    ("fresh6_students", "easy", GRADES, c02),
    ("fresh6_passed_records", "easy", GRADES, c03),
    ("fresh6_total_fines", "medium", LOANS, n04),
    ("fresh6_weekend_loans", "medium", LOANS, n05),
    ("fresh6_title_loans", "medium", LOANS, n06),
    ("fresh6_march_returns", "medium", LOANS, n07),
    ("fresh6_mean_score", "medium", GRADES, c04),
    ("fresh6_stat_70", "medium", GRADES, c05),
    ("fresh6_law_median", "medium", GRADES, c06),
    ("fresh6_late_section", "hard", LOANS, n08),
    ("fresh6_utc_peak_hour", "hard", LOANS, n09),
    ("fresh6_top5_share", "hard", LOANS, n10),
    ("fresh6_best_student", "hard", GRADES, c07),
    ("fresh6_pass_rate_change", "hard", GRADES, c08),
    ("fresh6_econ_rank", "hard", GRADES, c09),
    ("fresh6_loans_score_corr", "hard", GRADES, c10),
]
#: questions that need another file besides their own (uploaded and described with it)
JOINS = {"fresh6_loans_score_corr": (LOANS,)}


def build_fresh6_questions(files: dict[str, bytes]) -> list[Question]:
    """The twenty questions with answers computed from ``files`` (split ``fresh6``)."""
    built = build_split(FRESH6, _frames(files), "fresh6")
    return [replace(q, other_files=JOINS.get(q.id, ())) for q in built]


def _gap(values: pd.Series, k: int = 1) -> float:
    """How far the k-th largest value lies above the next one."""
    top = values.sort_values(ascending=False)
    return float(top.iloc[k - 1] - top.iloc[k])


def problems(seed: int) -> list[str]:
    """Why the data of ``seed`` would make a question ambiguous or fragile (empty: fine)."""
    files = generate_fresh6_files(seed)
    lo, cg = _frames(files).values()
    out = [
        f"{a.name} near a rounding boundary"
        for q in build_fresh6_questions(files)
        for a in q.answers
        if a.decimals is not None
        and abs(a.value * 10**a.decimals % 1 - 0.5) < 0.0005 * 10**a.decimals
    ]
    order = cg.groupby("COURSE").score.mean().sort_values(ascending=False)
    rank, means = list(order.index).index("ECON110"), [math.inf, *order, -math.inf]
    stat = cg.score[cg.COURSE == "STAT101"]
    checks = {
        "late share tie": _gap(_late_pct(lo)) >= 1,
        "utc hour tie": _gap(lo.utc.dt.hour.value_counts()) >= 2,
        "top-5 title tie": _gap(lo.Title.value_counts(), 5) >= 2,
        "student tie": _gap(_weighted(cg)) >= 0.1,
        "rank at an end": 2 <= rank <= len(means) - 5,
        "rank tie": min(means[rank] - means[rank + 1], means[rank + 1] - means[rank + 2]) >= 0.2,
        "STAT101 threshold": (stat >= 70).sum() == (stat > 70).sum(),
        "late rule": not (lo.kept == lo.period).any(),
        "a student without a score": cg.groupby("Student_No").score.count().min() > 0,
    }
    return out + [name for name, ok in checks.items() if not ok]


if __name__ == "__main__":  # the seed scan: the first seed that passes every check
    print(next(s for s in range(1000) if not problems(s)))
