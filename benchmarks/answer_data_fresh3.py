"""Twenty more fresh questions (split ``fresh3``), in the public benchmark's instruction style,
over two new files with the messiness of real-world CSVs.

Written after every answer mechanism and never used to tune one: the untuned measure of the
agent (run with ``--split fresh3``). Keep it that way — a mechanism built from these
transcripts makes the split a tuning set; add new fresh questions instead.

``flights.csv`` (generated from a fixed seed) has scheduled and actual departure times as text,
delays in minutes that are missing for cancelled flights and for a few flown ones, distances as
text with thousands separators (``"1,234"``) and a Y/N ``cancelled`` flag. ``students.csv`` has
test scores with missing values, attendance as percentage text (``"93.5%"``) under a header
with a leading space (``' attendance'``) and dates of birth written as ``"17-Apr-2008"``.
Every expected answer is computed here with pandas; the seed was chosen so that no asked
maximum has a tie or near-tie, no delay lies near the outlier threshold, the filtered count is
the same with strict comparisons and no float lies within 0.0005 of a rounding boundary at its
asked decimals.
"""

from __future__ import annotations

import io
import random
from collections.abc import Callable

import pandas as pd
from answer_data import Answer, Question, _csv
from answer_data_fresh2 import build_split
from answer_data_styled import _num, _q

AIRLINES = {"SkyJet": 0.04, "AeroNord": 0.07, "BlueWing": 0.05, "CoastAir": 0.1, "Polar": 0.06}
ORIGINS = ["LHR", "CDG", "FRA", "AMS", "MAD", "FCO"]
DESTINATIONS = ["JFK", "DXB", "OSL", "ATH", "LIS", "IST", "ORD", "HEL"]
SCHOOLS = ["Northfield High", "Riverside Academy", "Hillcrest School", "Lakeview High"]


def _score(rnd: random.Random, mean: float, missing: float) -> int | str:
    """A test score out of 100 around ``mean``, or a missing one."""
    value = min(100, max(0, round(mean + rnd.gauss(0, 8))))
    return "" if rnd.random() < missing else value


def generate_fresh3_files(seed: int = 48) -> dict[str, bytes]:
    """``flights.csv`` (420 departures, January to June 2024) and ``students.csv`` (320)."""
    rnd = random.Random(seed)
    km = {(o, d): rnd.randint(350, 7_500) for o in ORIGINS for d in DESTINATIONS}
    late = {a: rnd.uniform(-3, 6) for a in AIRLINES}
    flights = []
    for _ in range(420):
        airline = rnd.choice(list(AIRLINES))
        origin, dest = rnd.choice(ORIGINS), rnd.choice(DESTINATIONS)
        day = pd.Timestamp("2024-01-01") + pd.Timedelta(days=rnd.randint(0, 181))
        sched = day + pd.Timedelta(minutes=5 * rnd.randint(72, 275))
        cancelled = rnd.random() < AIRLINES[airline] + (0.04 if day.month <= 2 else 0)
        delay = max(-12, round(rnd.gauss(9 + late[airline] + day.month, 13)))
        delay += rnd.randint(90, 320) if rnd.random() < 0.03 else 0
        actual = (
            "" if cancelled else (sched + pd.Timedelta(minutes=delay)).strftime("%Y-%m-%d %H:%M")
        )
        flights.append(
            [
                f"{airline[:2].upper()}{rnd.randint(100, 999)}",
                airline,
                origin,
                dest,
                sched.strftime("%Y-%m-%d %H:%M"),
                actual,
                "" if cancelled or rnd.random() < 0.06 else delay,
                f"{km[origin, dest]:,}",
                "Y" if cancelled else "N",
                rnd.randint(60, 280),
            ]
        )
    level = {s: rnd.uniform(-5, 5) for s in SCHOOLS}
    gap = {s: rnd.uniform(-8, 8) for s in SCHOOLS}
    students = []
    for i in range(320):
        school, grade, gender = rnd.choice(SCHOOLS), rnd.randint(9, 12), rnd.choice("FM")
        born = pd.Timestamp(f"{2017 - grade}-09-01") + pd.Timedelta(days=rnd.randint(0, 364))
        attendance = round(min(100.0, rnd.gauss(91, 5)), 1)
        ability = level[school] + 0.9 * (attendance - 91) + rnd.gauss(0, 8)
        female = gap[school] if gender == "F" else 0
        students.append(
            [
                f"S{2001 + i}",
                school,
                grade,
                gender,
                born.strftime("%d-%b-%Y"),
                _score(rnd, 63 + ability + female, 0.07),
                _score(rnd, 68 + ability, 0.05),
                _score(rnd, 61 + ability, 0.06),
                f"{attendance:g}%",
                round(max(0.0, rnd.gauss(6, 2.5)), 1),
            ]
        )
    return {
        "flights.csv": _csv(
            "flight_no,airline,origin,dest,sched_dep,actual_dep,delay_min,distance_km,"
            "cancelled,passengers".split(","),
            flights,
        ),
        "students.csv": _csv(
            "student_id,school,grade,gender,date_of_birth,math_score,reading_score,"
            "science_score, attendance,study_hours".split(","),
            students,
        ),
    }


def _frames(files: dict[str, bytes]) -> dict[str, pd.DataFrame]:
    fl = pd.read_csv(io.BytesIO(files["flights.csv"]))
    fl["km"] = fl.distance_km.astype(str).str.replace(",", "").astype(float)
    fl["sched"] = pd.to_datetime(fl.sched_dep)
    fl["actual"] = pd.to_datetime(fl.actual_dep)
    st = pd.read_csv(io.BytesIO(files["students.csv"]))
    st["attend"] = st[" attendance"].str.rstrip("%").astype(float)
    st["born"] = pd.to_datetime(st.date_of_birth, format="%d-%b-%Y")
    return {"flights.csv": fl, "students.csv": st}


QFn = Callable[[pd.DataFrame], tuple[str, list[Answer]]]
ATTENDANCE = "The attendance column holds text such as '93.5%'; read '93.5%' as 93.5"


def h01(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "How many flights were cancelled?",
        "Count rows whose cancelled column is 'Y'.",
        _num("cancelled_count", "the count", None),
    ), [Answer("cancelled_count", int((d.cancelled == "Y").sum()))]


def h02(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "What is the mean number of passengers per flight?",
        "Use the passengers column and every flight.",
        _num("mean_passengers", "the mean", 2),
    ), [Answer("mean_passengers", d.passengers.mean(), 2)]


def h03(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "How many flights have no delay recorded?",
        "Count missing values of delay_min.",
        _num("no_delay", "the count", None),
    ), [Answer("no_delay", int(d.delay_min.isna().sum()))]


def h04(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "How many students are in grade 10?",
        "Count rows whose grade is 10.",
        _num("grade10_count", "the count", None),
    ), [Answer("grade10_count", int((d.grade == 10).sum()))]


def h05(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "What is the mean science score of the students?",
        "Use the science_score column; ignore missing values.",
        _num("mean_science", "the mean score", 2),
    ), [Answer("mean_science", d.science_score.mean(), 2)]


def h06(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "What is the mean number of weekly study hours of the students?",
        "Use the study_hours column and every student.",
        _num("mean_study_hours", "the mean in hours", 2),
    ), [Answer("mean_study_hours", d.study_hours.mean(), 2)]


def h07(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "What is the mean distance of a flight in kilometres?",
        "The distance_km column holds text with thousands separators such as '1,234'; use "
        "every flight, cancelled ones included.",
        _num("mean_km", "the mean distance", 2),
    ), [Answer("mean_km", d.km.mean(), 2)]


def h08(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "How many flights were scheduled to depart in March 2024?",
        "Use the sched_dep column (text such as '2024-03-05 07:35'); count cancelled flights too.",
        _num("march_flights", "the count", None),
    ), [Answer("march_flights", int((d.sched.dt.month == 3).sum()))]


def h09(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    v = d.loc[d.airline == "BlueWing", "delay_min"].mean()
    return _q(
        "What is the mean delay, in minutes, of the flights of BlueWing?",
        "Only rows whose airline is 'BlueWing'; ignore missing delays.",
        _num("bluewing_delay", "the mean delay in minutes", 2),
    ), [Answer("bluewing_delay", v, 2)]


def h10(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    counts = d.loc[d.cancelled == "Y", "origin"].value_counts()
    return _q(
        "Which origin airport had the most cancelled flights, and how many?",
        "Count the rows whose cancelled is 'Y' per origin.",
        '@origin[airport_code] where "airport_code" is the origin\'s code. '
        + _num("origin_cancelled", "the number of cancelled flights", None),
    ), [Answer("origin", counts.idxmax()), Answer("origin_cancelled", int(counts.max()))]


def h11(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "What is the mean attendance of the students, in percent?",
        f"{ATTENDANCE}. Use every student.",
        _num("mean_attendance", "the mean attendance in percent", 2),
    ), [Answer("mean_attendance", d.attend.mean(), 2)]


def h12(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    v = d.loc[d.school == "Riverside Academy", "reading_score"].mean()
    return _q(
        "What is the mean reading score of the students of Riverside Academy?",
        "Only rows whose school is 'Riverside Academy'; ignore missing reading scores.",
        _num("riverside_reading", "the mean score", 2),
    ), [Answer("riverside_reading", v, 2)]


def h13(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "How many students were born in 2008?",
        "date_of_birth is text such as '17-Apr-2008' (day, month name, year).",
        _num("born_2008", "the count", None),
    ), [Answer("born_2008", int((d.born.dt.year == 2008).sum()))]


def h14(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    rate = d.groupby("airline").cancelled.apply(lambda c: (c == "Y").mean() * 100)
    return _q(
        "Which airline has the highest cancellation rate, and what is that rate as a percentage?",
        "For each airline, divide the number of its flights whose cancelled is 'Y' by its "
        "number of flights, times 100.",
        '@airline[airline_name] where "airline_name" is the airline. '
        + _num("cancel_pct", "the percentage", 2),
    ), [Answer("airline", rate.idxmax()), Answer("cancel_pct", rate.max(), 2)]


def h15(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    flown = d[d.cancelled == "N"]
    delay = flown.delay_min.fillna((flown.actual - flown.sched).dt.total_seconds() / 60)
    monthly = delay.groupby(flown.sched.dt.month).mean()
    return _q(
        "Over the flights that were not cancelled, in which month (1-12) was the mean delay "
        "highest, and what was it?",
        "Only rows whose cancelled is 'N'. Where delay_min is missing, use the minutes from "
        "sched_dep to actual_dep instead. Group the flights by the month of sched_dep.",
        _num("worst_month", "the month number", None)
        + " "
        + _num("worst_month_delay", "the mean delay of that month in minutes", 2),
    ), [Answer("worst_month", int(monthly.idxmax())), Answer("worst_month_delay", monthly.max(), 2)]


def h16(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    t = d.delay_min
    n = int(((t - t.mean()).abs() > 3 * t.std()).sum())
    return _q(
        "How many flights have a delay more than 3 standard deviations away from the mean delay?",
        "Use delay_min as given, with the mean and the sample standard deviation (ddof=1) of "
        "the non-missing delays; missing delays are not outliers.",
        _num("delay_outliers", "the count", None),
    ), [Answer("delay_outliers", n)]


def h17(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    n = int((d.grade.isin([11, 12]) & (d.attend >= 93) & (d.math_score >= 70)).sum())
    return _q(
        "How many students in grade 11 or 12 have an attendance of at least 93% and a math "
        "score of at least 70?",
        f"{ATTENDANCE}. A student with a missing math score does not count.",
        _num("top_seniors", "the count", None),
    ), [Answer("top_seniors", n)]


def h18(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    filled = d.math_score.fillna(d.groupby("school").math_score.transform("mean"))
    return _q(
        "After filling each missing math score with the mean math score of the student's "
        "school, what is the mean math score of the students in grade 12?",
        "The mean of a school is taken over its known math scores; fill the missing scores "
        "with it, then average over every grade 12 student.",
        _num("grade12_math", "the mean score", 2),
    ), [Answer("grade12_math", filled[d.grade == 12].mean(), 2)]


def h19(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    means = d.groupby(["school", "gender"]).math_score.mean().unstack()
    gap = means["F"] - means["M"]
    return _q(
        "In which school is the mean math score of female students furthest above that of "
        "male students, and by how much?",
        "gender is 'F' or 'M'; ignore missing math scores. For each school, subtract the "
        "mean of its male students from the mean of its female students.",
        '@school[school_name] where "school_name" is the school. '
        + _num("gender_gap", "the difference in points", 2),
    ), [Answer("school", gap.idxmax()), Answer("gender_gap", gap.max(), 2)]


def h20(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    r = d.attend.corr(d.math_score)
    return _q(
        "What is the Pearson correlation coefficient between attendance and math score?",
        f"{ATTENDANCE}. Leave out students without a math score.",
        _num("r_attendance_math", "the coefficient", 2),
    ), [Answer("r_attendance_math", r, 2)]


FRESH3: list[tuple[str, str, str, QFn]] = [
    ("fresh3_cancelled_count", "easy", "flights.csv", h01),
    ("fresh3_mean_passengers", "easy", "flights.csv", h02),
    ("fresh3_no_delay", "easy", "flights.csv", h03),
    ("fresh3_grade10_count", "easy", "students.csv", h04),
    ("fresh3_mean_science", "easy", "students.csv", h05),
    ("fresh3_mean_study_hours", "easy", "students.csv", h06),
    ("fresh3_mean_km", "medium", "flights.csv", h07),
    ("fresh3_march_flights", "medium", "flights.csv", h08),
    ("fresh3_bluewing_delay", "medium", "flights.csv", h09),
    ("fresh3_origin_cancelled", "medium", "flights.csv", h10),
    ("fresh3_mean_attendance", "medium", "students.csv", h11),
    ("fresh3_riverside_reading", "medium", "students.csv", h12),
    ("fresh3_born_2008", "medium", "students.csv", h13),
    ("fresh3_cancel_rate", "hard", "flights.csv", h14),
    ("fresh3_worst_month", "hard", "flights.csv", h15),
    ("fresh3_delay_outliers", "hard", "flights.csv", h16),
    ("fresh3_top_seniors", "hard", "students.csv", h17),
    ("fresh3_grade12_math", "hard", "students.csv", h18),
    ("fresh3_gender_gap", "hard", "students.csv", h19),
    ("fresh3_attendance_math_corr", "hard", "students.csv", h20),
]


def build_fresh3_questions(files: dict[str, bytes]) -> list[Question]:
    """The twenty questions with answers computed from ``files`` (split ``fresh3``)."""
    return build_split(FRESH3, _frames(files), "fresh3")
