"""Twenty more fresh questions (split ``fresh13``), in the public benchmark's instruction style,
over a parcel courier's delivery log, written blind (without looking at how the agent handles
data) and never used to tune anything (run it with ``--split fresh13``); keep it that way.

``deliveries.csv`` (a fixed seed; parcels taken out January to April 2024 by fourteen drivers)
writes Date two ways in one column (``"2024-03-05"`` and ``"5 Mar 2024"``); its `` Driver ``
header has a space on each side and its driver IDs are typed in any case with stray spaces
(``"d07 "``, ``" D07"``); Service is typed in any case (``"next day"``, ``"NEXT DAY"``); Weight
is text with a unit, kilograms or grams with commas between thousands (``"2.4 kg"``, ``"850 g"``,
``"1,250 g"``); Delivered is a time of day on a 12-hour clock or a 24-hour one (``"4:30 pm"``,
``"12:40 pm"``, ``"16:30"``) and ``"n/a"`` for a parcel that was not delivered; Signed is yes or
no written several ways (``Y``/``yes``/``Yes``/``YES``, ``N``/``no``/``No``); Rating is 1 to 5 or
``"—"`` when the customer gave none. ``drivers.csv`` (Depot, Van and Started) is keyed by Driver
ID in capitals (``"D07"``); three questions join it (``Question.other_files``). Every answer is
computed here with pandas; the seed (2) is the first that ``problems`` passes (``python
answer_data_fresh13.py`` scans from 0): no asked top ties or nearly ties, nothing lies on an
asked threshold, no float within 0.0005 of a rounding boundary at its decimals.
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

SEED = 2
DELIVERIES, DRIVERS = "deliveries.csv", "drivers.csv"
#: driver: (depot, van, year started, share of the parcels, chance a parcel of theirs fails)
CREW = {
    "D01": ("Northgate", "Diesel", 2014, 9, 0.06),
    "D02": ("Northgate", "Electric", 2021, 7, 0.10),
    "D03": ("Northgate", "Diesel", 2017, 8, 0.05),
    "D04": ("Northgate", "Electric", 2019, 6, 0.08),
    "D05": ("Eastfield", "Electric", 2022, 7, 0.15),
    "D06": ("Eastfield", "Diesel", 2012, 10, 0.04),
    "D07": ("Eastfield", "Diesel", 2018, 9, 0.07),
    "D08": ("Eastfield", "Electric", 2020, 6, 0.09),
    "D09": ("Southport", "Diesel", 2016, 8, 0.06),
    "D10": ("Southport", "Electric", 2023, 5, 0.12),
    "D11": ("Southport", "Electric", 2015, 7, 0.05),
    "D12": ("Southport", "Diesel", 2021, 7, 0.11),
    "D13": ("Harbourside", "Electric", 2019, 6, 0.07),
    "D14": ("Harbourside", "Diesel", 2013, 8, 0.05),
}
#: service: (share of the parcels, charge in pounds, and per kilogram, chance of a signature)
SERVICES = {"Economy": (30, 3.2, 0.35, 0.3), "Standard": (45, 4.5, 0.45, 0.55)}
SERVICES["Next Day"] = (25, 7.9, 0.6, 0.9)
WEEK = [1.2, 1.0, 1.0, 1.05, 1.1, 0.6, 0.15]  # Monday to Sunday
THRESHOLDS = (10 * 60, 12 * 60, 18 * 60)  # minutes after midnight asked about
HEADER = ["Parcel", "Date", " Driver ", "Service", "Weight", "Attempts", "Status", "Delivered"]
HEADER += ["Signed", "Rating", "Charge (GBP)"]


def _clock(rnd: random.Random, minutes: int) -> str:
    hour, minute = divmod(minutes, 60)
    if rnd.random() < 0.6:
        return f"{hour:02d}:{minute:02d}"
    return f"{hour % 12 or 12}:{minute:02d} {'am' if hour < 12 else 'pm'}"


def generate_fresh13_files(seed: int = SEED) -> dict[str, bytes]:
    """``deliveries.csv`` (January to April 2024) and ``drivers.csv``."""
    rnd = random.Random(seed)
    days = [date(2024, 1, 1) + timedelta(days=i) for i in range(121)]
    rows = []
    for _ in range(520):
        day = rnd.choices(days, [WEEK[d.weekday()] for d in days])[0]
        driver = rnd.choices(list(CREW), [c[3] for c in CREW.values()])[0]
        service = rnd.choices(list(SERVICES), [s[0] for s in SERVICES.values()])[0]
        _, base, per_kg, signs = SERVICES[service]
        grams = max(100, int(round(rnd.lognormvariate(7.3, 0.9), -1)))
        grams += 10 * (grams == 5000)  # no parcel weighs exactly 5 kg
        weight = f"{grams / 1000:g} kg" if grams >= 1000 and rnd.random() < 0.65 else f"{grams:,} g"
        failed = rnd.random() < CREW[driver][4]
        if service == "Next Day":
            minutes = round(rnd.gauss(11 * 60, 100))
        else:
            minutes = round(rnd.triangular(8 * 60, 21 * 60, 13 * 60))
        minutes = min(max(minutes, 7 * 60 + 30), 21 * 60)
        minutes += minutes in THRESHOLDS  # nothing handed over on an asked time exactly
        attempts = rnd.randint(1, 3) if failed else rnd.choices([1, 2, 3], [82, 14, 4])[0]
        signed = not failed and rnd.random() < signs
        spelt = rnd.choice(["Y", "yes", "Yes", "YES"] if signed else ["N", "no", "No"])
        stars = 5 - min(4, round(abs(rnd.gauss(0, 1.2)) + (attempts - 1) * 0.8))
        rating = stars if not failed and rnd.random() < 0.55 else "—"
        kind = rnd.choices([service, service.lower(), service.upper()], [65, 20, 15])[0]
        spaced = [driver, driver.lower(), f"{driver} ", f" {driver.lower()}"]
        code = rnd.choices(spaced, [55, 20, 15, 10])[0]
        when = day.isoformat() if rnd.random() < 0.6 else f"{day.day} {day:%b %Y}"
        charge = round((base + per_kg * grams / 1000) * 20) / 20
        row = [when, code, kind, weight, attempts, "Failed" if failed else "Delivered"]
        row += ["n/a" if failed else _clock(rnd, minutes), spelt, rating, f"{charge:.2f}"]
        rows.append((day, row))
    rows.sort(key=lambda r: r[0])
    body = _csv(HEADER, [[f"PX{480113 + i}", *r] for i, (_, r) in enumerate(rows)])
    crew = [[d, p, v, s] for d, (p, v, s, *_) in CREW.items()]
    head = ["Driver ID", "Depot", "Van", "Started"]
    return {DELIVERIES: body, DRIVERS: _csv(head, rnd.sample(crew, len(crew)))}


def _minutes(times: pd.Series) -> pd.Series:
    parts = times.str.extract(r"(\d+):(\d+)").astype(float)
    pm, twelve = times.str.endswith("pm"), times.str.endswith("m")
    hour = parts[0].where(~twelve, parts[0] % 12 + 12 * pm)
    return hour * 60 + parts[1]


def _frames(files: dict[str, bytes]) -> dict[str, pd.DataFrame]:
    d = pd.read_csv(io.BytesIO(files[DELIVERIES]), na_values=["n/a", "—"], dtype=str)
    iso = pd.to_datetime(d.Date, format="%Y-%m-%d", errors="coerce")
    d["date"] = iso.fillna(pd.to_datetime(d.Date, format="%d %b %Y", errors="coerce"))
    d["weekday"] = d.date.dt.day_name()
    d["driver"] = d[" Driver "].str.strip().str.upper()
    d["service"] = d.Service.str.title()
    size = d.Weight.str.replace(",", "").str.extract(r"^([\d.]+)", expand=False).astype(float)
    d["kg"] = size.where(d.Weight.str.endswith(" kg"), size / 1000)
    d["minutes"], d["failed"] = _minutes(d.Delivered), d.Status == "Failed"
    d["signed"] = d.Signed.str.lower().isin(["y", "yes"])
    d["rating"], d["attempts"] = d.Rating.astype(float), d.Attempts.astype(int)
    d["charge"] = d["Charge (GBP)"].astype(float)
    c = pd.read_csv(io.BytesIO(files[DRIVERS]))
    return {DELIVERIES: d.merge(c, left_on="driver", right_on="Driver ID", how="left"), DRIVERS: c}


EVERY = "Every row of deliveries.csv is one parcel a courier's driver took out for delivery"
STATUS = (
    "Status is Delivered or Failed (a parcel still not delivered after its last attempt); "
    "Attempts is the number of delivery attempts"
)
DATE = (
    "Date is the day of the parcel's last delivery attempt, written either as YYYY-MM-DD or like "
    "'5 Mar 2024': '2024-03-05' and '5 Mar 2024' are both 5 March 2024"
)
DRIVER = (
    "The ' Driver ' column (its header has a space on each side) is the driver's ID, typed in any "
    "case with stray spaces ('d07 ', ' D07' and 'D07' are all driver D07)"
)
SERVICE = (
    "Service is Economy, Standard or Next Day, typed in any case ('next day', 'NEXT DAY' and "
    "'Next Day' are all Next Day)"
)
WEIGHT = (
    "Weight is text with a unit, in kilograms ('2.4 kg') or in grams with a comma between "
    "thousands ('850 g' is 0.85 kg and '1,250 g' is 1.25 kg)"
)
TIME = (
    "Delivered is the time of day the parcel was handed over, on a 12-hour clock ('9:05 am', "
    "'12:40 pm' is 12:40 and '4:30 pm' is 16:30) or on a 24-hour one ('16:30'); it is 'n/a' for "
    "a parcel that was not delivered"
)
SIGNED = (
    "Signed says whether someone signed for the parcel, written 'Y', 'yes', 'Yes' or 'YES' for "
    "yes and 'N', 'no' or 'No' for no"
)
RATING = "Rating is the customer's rating from 1 to 5, or '—' when they gave none"
CHARGE = "Charge (GBP) is what the sender paid for the parcel, in pounds"
JOIN = (
    "drivers.csv has one row per driver (Driver ID, written in capitals like 'D07') with their "
    "Depot, Van (Electric or Diesel) and Started (the year they started); join each parcel to "
    "the row of its driver"
)
KEYS = {
    "service": '@service[service_name] where "service_name" is the service with each word '
    "capitalised, e.g. Economy. ",
    "weekday": '@weekday[weekday_name] where "weekday_name" is the day in English, e.g. Tuesday. ',
    "depot": '@depot[depot_name] where "depot_name" is as in the Depot column, e.g. Southport. ',
    "driver": '@driver[driver_id] where "driver_id" is in capitals, e.g. D03. ',
}
PARCELS_N: Num = ("parcels", "the count", None)


def _delivered(d: pd.DataFrame) -> pd.DataFrame:
    return d[~d.failed]


#: what each "which ... the most" question ranks, and how far its top must lie above the next
RANKED: dict[str, tuple[Callable[[pd.DataFrame], pd.Series], float]] = {
    "service": (lambda d: d.service.value_counts(), 3),
    "weekday": (lambda d: d.weekday.value_counts(), 3),
    "depot": (lambda d: _delivered(d).Depot.value_counts(), 3),
    "driver": (lambda d: d.groupby("driver").failed.mean() * 100, 0.5),
    "service_kg": (lambda d: (d.charge / d.kg).groupby(d.service).mean(), 0.05),
}


def _top(question: str, constraints: str, key: str, num: Num, ranked: str = "") -> QFn:
    """Which ``key`` has the largest value of ``RANKED[ranked or key]``, and that value."""

    def fn(d: pd.DataFrame) -> tuple[str, list[Answer]]:
        values = RANKED[ranked or key][0](d)
        best, top = values.idxmax(), values.max()
        top = top if num[2] else int(top)
        text = _q(question, constraints, KEYS[key] + _num(*num))
        return text, [Answer(key, best), Answer(num[0], top, num[2])]

    return fn


e01 = _count(
    "How many parcels could not be delivered?",
    f"{EVERY}. {STATUS}. Count the parcels whose Status is Failed.",
    "failed",
    lambda d: d.failed,
)
e02 = _count(
    "How many parcels were signed for?",
    f"{EVERY}. {SIGNED}. Count the parcels someone signed for.",
    "signed",
    lambda d: d.signed,
)
e03 = _count(
    "How many parcels were sent with the Next Day service?",
    f"{EVERY}. {SERVICE}; count the Next Day parcels.",
    "next_day",
    lambda d: d.service == "Next Day",
)
e04 = _count(
    "How many parcels have no customer rating?",
    f"{EVERY}. {RATING}; count the parcels without a rating.",
    "no_rating",
    lambda d: d.rating.isna(),
)
e05 = _count(
    "How many parcels were delivered at the first attempt?",
    f"{EVERY}. {STATUS}. Count the delivered parcels whose Attempts is 1.",
    "first_attempt",
    lambda d: ~d.failed & (d.attempts == 1),
)
f01 = _count(
    "How many drivers drive an electric van?",
    "drivers.csv has one row per driver; Van is Electric or Diesel. Count the drivers whose Van "
    "is Electric.",
    "electric_drivers",
    lambda c: c.Van == "Electric",
)
m01 = _value(
    "What is the mean weight of a parcel, in kilograms?",
    f"{EVERY}. {WEIGHT}. Take the mean weight of all the parcels, in kilograms.",
    ("mean_kg", "the mean in kilograms", 2),
    lambda d: d.kg.mean(),
)
m02 = _top(
    "Which service was used for the most parcels, and for how many?",
    f"{EVERY}. {SERVICE}. Count the parcels of each service.",
    "service",
    PARCELS_N,
)
m03 = _count(
    "How many parcels are dated in March 2024?",
    f"{EVERY}. {DATE}. Count the parcels whose Date is in March 2024.",
    "march",
    lambda d: (d.date.dt.year == 2024) & (d.date.dt.month == 3),
)
m04 = _count(
    "How many parcels were delivered after 6 pm?",
    f"{EVERY}. {TIME}. Count the parcels whose Delivered time is later than 18:00.",
    "after_6pm",
    lambda d: d.minutes > 18 * 60,
)
m05 = _value(
    "What is the mean customer rating?",
    f"{EVERY}. {RATING}: leave the parcels without a rating out.",
    ("mean_rating", "the mean rating", 2),
    lambda d: d.rating.mean(),
)
m06 = _top(
    "On which day of the week were the most parcels dated, and how many?",
    f"{EVERY}. {DATE}. Count the parcels on each day of the week (all Mondays together).",
    "weekday",
    PARCELS_N,
)
m07 = _count(
    "How many parcels weigh more than 5 kilograms?",
    f"{EVERY}. {WEIGHT}. Count the parcels heavier than 5 kg.",
    "over_5kg",
    lambda d: d.kg > 5,
)
h01 = _top(
    "Drivers of which depot delivered the most parcels, and how many?",
    f"{EVERY}. {DRIVER}. {JOIN}; a parcel's depot is the Depot of its driver. {STATUS}. Count "
    "the delivered parcels of each depot.",
    "depot",
    PARCELS_N,
)
h02 = _value(
    "What is the total weight of the parcels delivered by drivers with an electric van?",
    f"{EVERY}. {DRIVER}. {JOIN}. {STATUS}. {WEIGHT}. Keep the delivered parcels whose driver's "
    "Van is Electric and add up their weights, in kilograms.",
    ("electric_kg", "the total in kilograms", 2),
    lambda d: _delivered(d).kg[_delivered(d).Van == "Electric"].sum(),
)
h03 = _count(
    "How many parcels of drivers who started before 2020 could not be delivered?",
    f"{EVERY}. {DRIVER}. {JOIN}. {STATUS}. Count the Failed parcels whose driver's Started year "
    "is 2019 or earlier.",
    "veteran_failed",
    lambda d: d.failed & (d.Started < 2020),
)
h04 = _count(
    "How many Next Day parcels were delivered after 12 noon?",
    f"{EVERY}. {SERVICE}. {TIME}. Count the Next Day parcels whose Delivered time is later than "
    "12:00.",
    "late_next_day",
    lambda d: (d.service == "Next Day") & (d.minutes > 12 * 60),
)
h05 = _top(
    "Which driver had the largest share of parcels that could not be delivered, and what was it?",
    f"{EVERY}. {DRIVER}. {STATUS}. For each driver, divide the number of their parcels whose "
    "Status is Failed by the number of all their parcels, times 100.",
    "driver",
    ("failed_pct", "the percentage", 2),
)
h06 = _top(
    "Which service had the highest mean charge per kilogram, and what was it?",
    f"{EVERY}. {SERVICE}. {WEIGHT}. {CHARGE}. For each parcel divide its Charge (GBP) by its "
    "weight in kilograms, then take the mean of those charges per kilogram over each service's "
    "parcels.",
    "service",
    ("per_kg", "the mean in pounds per kilogram", 2),
    "service_kg",
)
h07 = _count(
    "How many parcels dated on a weekend were delivered before 10 am?",
    f"{EVERY}. {DATE}; the weekend is Saturday and Sunday. {TIME}. Count the parcels dated on a "
    "Saturday or a Sunday whose Delivered time is earlier than 10:00.",
    "weekend_early",
    lambda d: d.weekday.isin(["Saturday", "Sunday"]) & (d.minutes < 10 * 60),
)

FRESH13: list[tuple[str, str, str, QFn]] = [
    ("fresh13_failed", "easy", DELIVERIES, e01),
    ("fresh13_signed", "easy", DELIVERIES, e02),
    ("fresh13_next_day", "easy", DELIVERIES, e03),
    ("fresh13_no_rating", "easy", DELIVERIES, e04),
    ("fresh13_first_attempt", "easy", DELIVERIES, e05),
    ("fresh13_electric_drivers", "easy", DRIVERS, f01),
    ("fresh13_mean_weight", "medium", DELIVERIES, m01),
    ("fresh13_top_service", "medium", DELIVERIES, m02),
    ("fresh13_march", "medium", DELIVERIES, m03),
    ("fresh13_after_6pm", "medium", DELIVERIES, m04),
    ("fresh13_mean_rating", "medium", DELIVERIES, m05),
    ("fresh13_busiest_weekday", "medium", DELIVERIES, m06),
    ("fresh13_over_5kg", "medium", DELIVERIES, m07),
    ("fresh13_depot_delivered", "hard", DELIVERIES, h01),
    ("fresh13_electric_weight", "hard", DELIVERIES, h02),
    ("fresh13_veteran_failed", "hard", DELIVERIES, h03),
    ("fresh13_late_next_day", "hard", DELIVERIES, h04),
    ("fresh13_driver_failed_share", "hard", DELIVERIES, h05),
    ("fresh13_service_per_kg", "hard", DELIVERIES, h06),
    ("fresh13_weekend_early", "hard", DELIVERIES, h07),
]
#: questions that need another file besides their own (uploaded and described with it)
JOINS = {
    f"fresh13_{q}": (DRIVERS,) for q in ("depot_delivered", "electric_weight", "veteran_failed")
}


def build_fresh13_questions(files: dict[str, bytes]) -> list[Question]:
    """The twenty questions with answers computed from ``files`` (split ``fresh13``)."""
    built = build_split(FRESH13, _frames(files), "fresh13")
    return [replace(q, other_files=JOINS.get(q.id, ())) for q in built]


def problems(seed: int) -> list[str]:
    """Why the data of ``seed`` would make a question ambiguous or fragile (empty: fine)."""
    files = generate_fresh13_files(seed)
    d, _ = _frames(files).values()
    answers = [a for q in build_fresh13_questions(files) for a in q.answers if a.decimals]
    near = {a.name: abs(a.value * 10**a.decimals % 1 - 0.5) / 10**a.decimals for a in answers}
    out = [f"{name} near a rounding boundary" for name, n in near.items() if n <= 0.00051]
    out += [f"{n} tie" for n, (by, gap) in RANKED.items() if _gap(by(d)) < gap]
    raw = pd.read_csv(io.BytesIO(files[DELIVERIES]), dtype=str, keep_default_na=False)
    tops = {by(d).idxmax() for by, _ in RANKED.values()}
    weekend = d.minutes[d.weekday.isin(["Saturday", "Sunday"])]
    checks = {
        "exactly 5 kg": not (d.kg - 5).abs().lt(1e-9).any() and (d.kg > 5).any(),
        "an asked time": not d.minutes.isin(THRESHOLDS).any(),
        "no weekend morning": (weekend < 600).any() and (weekend > 600).any(),
        "no 12:xx pm": raw.Delivered.str.match(r"12:\d\d pm").any(),
        "a date unread": d.date.notna().all() and set(d.date.dt.month) == {1, 2, 3, 4},
        "both date forms": raw.Date.str.contains(" ").any() and raw.Date.str.contains("-").any(),
        "a weight unread": d.kg.notna().all() and raw.Weight.str.contains(",").any(),
        "a time unread": d.minutes.notna().sum() == (~d.failed).sum(),
        "a service unread": set(d.service) == set(SERVICES),
        "a driver unjoined": d.Depot.notna().all() and set(d.driver) == set(CREW),
        "no stray space": raw[" Driver "].str.contains(" ").any(),
        "a signature unread": d.signed.sum() == raw.Signed.str.match("[Yy]").sum(),
        "an example is an answer": not {"Economy", "Tuesday", "Southport", "D03"} & tops,
    }
    return out + [name for name, ok in checks.items() if not ok]


if __name__ == "__main__":  # the seed scan: the first seed that passes every check
    print(next(s for s in range(1000) if not problems(s)))
