"""Twenty more fresh questions (split ``fresh10``), in the public benchmark's instruction style,
over a car-rental company's booking export, written blind (without looking at how the agent
handles data) and never used to tune anything (run it with ``--split fresh10``); keep it that way.
``car_rentals.csv`` (a fixed seed; pickups January to June 2024 at five stations in Portugal and
Spain) writes Pickup and Return as ISO 8601 timestamps, some in UTC (``"...T09:15:00Z"``) and
some in the station's local time with its offset (``"...T10:15:00+01:00"``), so durations and
months need the offsets; Status keeps the Cancelled and No-show bookings (no Return) next to the
Completed rentals; values not recorded are written ``"N/A"``, ``"-"`` or ``"?"`` (Km Driven,
Rating); Discount is a percentage as text (``"15%"``, empty for none); Insurance is ``Y``/``N``;
Customer Country is a code in any case (``"de"``, ``"De"``, ``"DE"``). ``fleet.csv`` (when a
vehicle joined the fleet split into Acquired Year and Acquired Month) is keyed by the Plate the
rentals write in upper or lower case (``"ab-12-cd"`` is ``AB-12-CD``); three questions join it
(``Question.other_files``). Every answer is computed here with pandas; the seed (26) is
the first that ``problems`` passes (``python answer_data_fresh10.py`` scans from 0): no asked top
ties or nearly ties, nothing lies on an asked threshold, no float within 0.0005 of a rounding
boundary at its decimals.
"""

from __future__ import annotations

import io
import random
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

import numpy as np
import pandas as pd
from answer_data import Answer, Question, _csv
from answer_data_fresh2 import build_split
from answer_data_fresh7 import QFn, _gap
from answer_data_styled import _num, _q

SEED = 26
RENTALS, FLEET = "car_rentals.csv", "fleet.csv"
#: category: (vehicles in the fleet, daily rate in euros, km per day, makes)
CATEGORIES = {
    "Economy": (10, 29.9, 95, ["Fiat", "Renault", "Toyota"]),
    "Compact": (9, 36.5, 110, ["Peugeot", "Volkswagen", "Seat"]),
    "SUV": (6, 54.0, 135, ["Nissan", "Kia", "Dacia"]),
    "Van": (3, 62.0, 120, ["Ford", "Mercedes-Benz"]),
    "Premium": (4, 79.0, 150, ["BMW", "Audi"]),
}
#: station: (share of pickups, UTC offset in winter; an hour more from SUMMER on)
STATIONS = {"LIS": (5, 0), "OPO": (3, 0), "FAO": (2, 0), "MAD": (4, 1), "BCN": (3, 1)}
SUMMER = datetime(2024, 3, 31, 1)  # clocks go forward in Portugal and Spain (UTC)
COUNTRIES = {"PT": 30, "ES": 22, "DE": 12, "FR": 10, "GB": 12, "NL": 6, "US": 8}
MISSING = ["N/A", "-", "?"]
SEASON = [0.85, 0.85, 1.0, 1.05, 1.1, 1.25]  # January to June
HOURS = [1, 1, 0, 0, 0, 0, 3, 8, 10, 10, 9, 8, 7, 7, 8, 9, 9, 8, 6, 4, 2, 1, 1, 1]  # UTC
DAYS = [14, 16, 15, 12, 9, 8, 10, 4, 3, 3, 2, 2, 1, 3]  # rentals of 1 to 14 days
HEADER = ["Rental ID", "Plate", "Station", "Pickup", "Return", "Status", "Customer Country"]
HEADER += ["Daily Rate", "Discount", "Insurance", "Km Driven", "Rating"]


def _stamp(rnd: random.Random, at: datetime, winter: int) -> str:
    """``at`` (UTC) as the export writes it: in UTC, or in local time with the offset."""
    if rnd.random() < 0.4:
        return at.strftime("%Y-%m-%dT%H:%M:%SZ")
    hours = winter + (at >= SUMMER)
    return f"{(at + timedelta(hours=hours)).strftime('%Y-%m-%dT%H:%M:%S')}+{hours:02d}:00"


def generate_fresh10_files(seed: int = SEED) -> dict[str, bytes]:
    """``car_rentals.csv`` (pickups January to June 2024) and ``fleet.csv``."""
    rnd = random.Random(seed)
    pair, fleet = lambda: "".join(rnd.choices("ABCDEFGHJKLMNPRSTUVXZ", k=2)), []
    for i, cat in enumerate(c for c, v in CATEGORIES.items() for _ in range(v[0])):
        plate = f"{pair()}-{10 + 2 * i + rnd.randrange(2)}-{pair()}"  # the numbers differ
        year, month = divmod(rnd.randrange(72), 12)  # January 2018 to December 2023
        fleet.append([plate, cat, rnd.choice(CATEGORIES[cat][3]), 2018 + year, month + 1])
    rnd.shuffle(fleet)
    pull = [rnd.lognormvariate(0, 0.3) for _ in fleet]
    no_show = {s: 0.05 * rnd.lognormvariate(0, 0.4) for s in STATIONS}
    care = {s: rnd.gauss(0, 0.25) for s in STATIONS} | {c: rnd.gauss(0, 0.3) for c in COUNTRIES}
    stay = {s: rnd.lognormvariate(0, 0.12) for s in STATIONS}
    rows: list[tuple[datetime, list[Any]]] = []
    for _ in range(1400):
        at = datetime(2024, 1, 1) + timedelta(days=rnd.randrange(182))
        at += timedelta(hours=rnd.choices(range(24), HOURS)[0], minutes=rnd.randrange(60))
        station = rnd.choices(list(STATIONS), [s[0] for s in STATIONS.values()])[0]
        plate, cat, *_ = rnd.choices(fleet, pull)[0]
        _, base, km_day, _ = CATEGORIES[cat]
        country = rnd.choices(list(COUNTRIES), list(COUNTRIES.values()))[0]
        spelt = rnd.choices([country, country.lower(), country.title()], [70, 20, 10])[0]
        days = min(14, max(1, round(rnd.choices(range(1, 15), DAYS)[0] * stay[station])))
        late = rnd.randint(-240, 299)  # minutes off a whole number of days, never none
        minutes = days * 1440 + late + (late >= 0)
        r = rnd.random()
        status = "Cancelled" if r < 0.09 else "No-show" if r < 0.09 + no_show[station] else ""
        discount = rnd.choices(["", "0%", "5%", "10%", "15%", "20%"], [64, 3, 12, 10, 7, 4])[0]
        rate = round(base * SEASON[at.month - 1] * rnd.choice([0.95, 1, 1, 1.05]), 2)
        insured = rnd.random() < 0.3 + 0.25 * (country in ("GB", "US", "NL"))
        row = [plate.lower() if rnd.random() < 0.35 else plate, station]
        row += [_stamp(rnd, at, STATIONS[station][1])]
        if status:  # a booking that never went out: no return, nothing recorded
            row += ["", status, spelt, f"{rate:.2f}", discount, "YN"[not insured]]
            rows.append((at, [*row, rnd.choice(MISSING), rnd.choice(MISSING)]))
            continue
        back = at + timedelta(minutes=minutes)
        km = round(km_day * minutes / 1440 * rnd.lognormvariate(0, 0.25))
        score = 4.0 + care[station] + care[country] + rnd.gauss(0, 0.8)
        row += [_stamp(rnd, back, STATIONS[station][1]), "Completed", spelt, f"{rate:.2f}"]
        row += [discount, "YN"[not insured], km if rnd.random() > 0.07 else rnd.choice(MISSING)]
        rating = round(min(5, max(1, score))) if rnd.random() < 0.55 else rnd.choice(MISSING)
        rows.append((at, [*row, rating]))
    rows.sort(key=lambda r: r[0])
    body = _csv(HEADER, [[70001 + i, *r] for i, (_, r) in enumerate(rows)])
    head = ["Plate", "Category", "Make", "Acquired Year", "Acquired Month"]
    return {RENTALS: body, FLEET: _csv(head, fleet)}


def _frames(files: dict[str, bytes]) -> dict[str, pd.DataFrame]:
    r = pd.read_csv(io.BytesIO(files[RENTALS]), na_values=MISSING)
    pickup = pd.to_datetime(r.Pickup, utc=True, format="ISO8601")
    hours = (pd.to_datetime(r.Return, utc=True, format="ISO8601") - pickup).dt.total_seconds()
    r["hours"], r["days"], r["month"] = hours / 3600, hours / 86400, pickup.dt.month
    r["billed"] = np.ceil(r.days)
    r["discount"] = r.Discount.str.rstrip("%").astype(float).fillna(0)
    r["revenue"] = r["Daily Rate"] * r.billed * (100 - r.discount) / 100
    r["country"], r["done"] = r["Customer Country"].str.upper(), r.Status == "Completed"
    r["insured"], r["plate"] = r.Insurance == "Y", r.Plate.str.upper()
    r["no_show"] = r.Status == "No-show"
    fl = pd.read_csv(io.BytesIO(files[FLEET]))
    fl["acquired"] = fl["Acquired Year"] * 12 + fl["Acquired Month"] - 1  # months since year 0
    joined = r.merge(fl.rename(columns={"Plate": "plate"}), on="plate", how="left")
    return {RENTALS: joined, FLEET: fl}


STATUS = (
    "Status is Completed, Cancelled or No-show; only the Completed rows are rentals that took place"
)
DONE = f"{STATUS}: leave the Cancelled and No-show rows out"
TIMES = (
    "Pickup and Return are ISO 8601 timestamps, some in UTC (ending in 'Z') and some in the "
    "station's local time with its UTC offset ('2024-03-05T10:15:00+01:00' is 09:15 UTC)"
)
DURATION = f"{TIMES}; a rental's duration is its Return minus its Pickup"
MONTH = f"{TIMES}; a rental's month is the month of its Pickup in UTC"
NOT_RECORDED = "'N/A', '-' and '?' mark a value that was not recorded"
KM = f"Km Driven is the kilometres driven; {NOT_RECORDED}"
RATING = f"Rating is the customer's score from 1 to 5; {NOT_RECORDED}: leave those rentals out"
COUNTRY = "Customer Country is a two-letter code in any case ('de', 'De' and 'DE' are all DE)"
DISCOUNT = "Discount is a percentage as text ('15%' is 15 percent); an empty one is no discount"
INSURANCE = "Insurance is 'Y' when the customer took the insurance and 'N' when not"
REVENUE = (
    f"{DURATION}. {DISCOUNT}. A rental's revenue is its Daily Rate (euros per day) times its "
    "billed days times (100 minus its Discount percentage) divided by 100, where the billed days "
    "are its duration in days rounded up to a whole day (26 hours is 2 days)"
)
JOIN = (
    "fleet.csv has one row per vehicle; its Plate is the rentals' Plate in upper case ('ab-12-cd' "
    "in car_rentals.csv is 'AB-12-CD' in fleet.csv): join each rental to its vehicle"
)
ACQUIRED = "Acquired Year and Acquired Month (1-12) are the year and month the vehicle was bought"
KEYS = {
    "country": '@country[country_code] where "country_code" is the code in upper case, e.g. FR. ',
    "month": _num("month", "the month's number, 1-12", None) + " ",
    "category": '@category[category_name] where "category_name" is as in fleet.csv, e.g. Van. ',
    "station": '@station[station_code] where "station_code" is as written in Station, e.g. LIS. ',
    "plate": '@plate[plate_number] where "plate_number" is as in fleet.csv, e.g. AB-12-CD. ',
}
Num = tuple[str, str, int | None]  # an answer's name, what it is and its decimals (None: int)
RENTALS_N: Num = ("rentals", "the count", None)
MIN_RATED = 50


def _d(d: pd.DataFrame) -> pd.DataFrame:
    return d[d.done]


def _known_km(d: pd.DataFrame) -> pd.DataFrame:
    return _d(d)[_d(d)["Km Driven"].notna()]


def _km_day(d: pd.DataFrame) -> pd.Series:
    by = _known_km(d).groupby("Category")[["Km Driven", "days"]].sum()
    return by["Km Driven"] / by.days


def _rated(d: pd.DataFrame) -> pd.Series:
    by = _d(d).groupby("country").Rating
    return by.mean()[by.count() >= MIN_RATED]


#: what each "which ... the most" question ranks, and how far its top must lie above the next
RANKED: dict[str, tuple[Callable[[pd.DataFrame], pd.Series], float]] = {
    "country": (lambda d: _d(d).country.value_counts(), 3),
    "month": (lambda d: _d(d).month.value_counts(), 3),
    "category": (lambda d: _d(d).groupby("Category").revenue.sum(), 20),
    "km_day": (_km_day, 0.5),
    "no_show": (lambda d: d[d.Status != "Cancelled"].groupby("Station").no_show.mean() * 100, 0.5),
    "rating": (_rated, 0.02),
    "station": (lambda d: _d(d).groupby("Station").days.mean(), 0.02),
}


def _value(question: str, constraints: str, num: Num, fn: Callable[[Any], Any]) -> QFn:
    """A question asking for the one number ``fn`` computes from the frame."""
    return lambda d: (_q(question, constraints, _num(*num)), [Answer(num[0], fn(d), num[2])])


def _count(question: str, constraints: str, name: str, rows: Callable[[Any], Any]) -> QFn:
    """A question asking how many rows (rentals or vehicles) ``rows`` picks."""
    return _value(question, constraints, (name, "the count", None), lambda d: int(rows(d).sum()))


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
    "How many bookings were cancelled?",
    f"{STATUS}; count the rows whose Status is Cancelled.",
    "cancelled",
    lambda d: d.Status == "Cancelled",
)
e02 = _count(
    "How many rentals took place?",
    f"Every row of car_rentals.csv is a booking. {DONE}.",
    "rentals",
    lambda d: d.done,
)
e03 = _value(
    "What is the mean rating of the completed rentals that have one?",
    f"{DONE}. {RATING}.",
    ("mean_rating", "the mean rating", 2),
    lambda d: _d(d).Rating.mean(),
)
e04 = _count(
    "How many completed rentals took the insurance?",
    f"{DONE}. {INSURANCE}.",
    "insured",
    lambda d: _d(d).insured,
)
f01 = _count(
    "How many vehicles of the fleet were bought before 2021?",
    f"fleet.csv has one row per vehicle; {ACQUIRED}. Count the vehicles bought in 2020 or earlier.",
    "old_vehicles",
    lambda d: d["Acquired Year"] < 2021,
)


def f02(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "Which vehicle joined the fleet most recently?",
        f"fleet.csv has one row per vehicle; {ACQUIRED}.",
        KEYS["plate"].rstrip(),
    ), [Answer("plate", d.Plate[d.acquired.idxmax()])]


m01 = _top(
    "Customers from which country had the most completed rentals, and how many?",
    f"{DONE}. {COUNTRY}. Count the rentals of each country.",
    "country",
    RENTALS_N,
)
m02 = _value(
    "What is the mean distance driven per completed rental, in kilometres?",
    f"{DONE}. {KM}: leave the rentals without a recorded Km Driven out.",
    ("mean_km", "kilometres", 2),
    lambda d: _known_km(d)["Km Driven"].mean(),
)
m03 = _value(
    "What is the median duration of the completed rentals, in hours?",
    f"{DONE}. {DURATION}.",
    ("median_hours", "the median in hours", 2),
    lambda d: _d(d).hours.median(),
)
m04 = _top(
    "In which month of 2024 were the most rentals picked up, and how many?",
    f"{DONE}. {MONTH}. Count the rentals of each month.",
    "month",
    RENTALS_N,
)
m05 = _value(
    "What is the mean discount of the completed rentals, in percent?",
    f"{DONE}. {DISCOUNT}; take the mean over all completed rentals, those without a discount "
    "counting as 0.",
    ("mean_discount", "the mean percentage", 2),
    lambda d: _d(d).discount.mean(),
)
m06 = _count(
    "How many completed rentals lasted longer than a week?",
    f"{DONE}. {DURATION}; count the rentals whose duration is more than 7 days (168 hours).",
    "over_a_week",
    lambda d: _d(d).hours > 168,
)
m07 = _value(
    "What percentage of the completed rentals by customers from Great Britain took the insurance?",
    f"{DONE}. {COUNTRY}; Great Britain is GB. {INSURANCE}. Divide the number of GB rentals with "
    "the insurance by the number of GB rentals, times 100.",
    ("insured_pct", "the percentage", 2),
    lambda d: _d(d).insured[_d(d).country == "GB"].mean() * 100,
)
h01 = _top(
    "Which vehicle category earned the most revenue, and how much?",
    f"{DONE}. {REVENUE}. {JOIN}; a rental's category is the Category of its vehicle. Add up the "
    "revenue of each category.",
    "category",
    ("revenue", "euros", 2),
)
h02 = _top(
    "Which vehicle category was driven the most kilometres per rental day, and how many?",
    f"{DONE}. {KM}: leave those rentals out. {DURATION}. {JOIN}. For each category, divide the "
    "total Km Driven of its rentals by the total of their durations in days (not rounded).",
    "category",
    ("km_per_day", "kilometres per day", 2),
    "km_day",
)
h03 = _value(
    "What percentage of the completed rentals used a vehicle bought before March 2022?",
    f"{DONE}. {JOIN}. {ACQUIRED}. Divide the number of rentals whose vehicle was bought in "
    "February 2022 or earlier by the number of all completed rentals, times 100.",
    ("older_pct", "the percentage", 2),
    lambda d: (_d(d).acquired < 2022 * 12 + 2).mean() * 100,
)
h04 = _top(
    "Which station had the highest no-show rate, and what was it in percent?",
    f"{STATUS}. Leave the Cancelled rows out; for each station (the Station column), divide the "
    "number of its No-show rows by the number of its Completed and No-show rows, times 100.",
    "station",
    ("no_show_pct", "the percentage", 2),
    "no_show",
)
h05 = _top(
    f"Among the countries with at least {MIN_RATED} rated rentals, customers from which country "
    "gave the highest mean rating, and what was it?",
    f"{DONE}. {COUNTRY}. {RATING}. Count each country's completed rentals with a rating, keep "
    f"the countries with {MIN_RATED} or more, and take the mean Rating of each.",
    "country",
    ("mean_rating", "the mean rating", 2),
    "rating",
)
h06 = _top(
    "At which station did the completed rentals last longest on average, and how many days?",
    f"{DONE}. {DURATION}. For each station (the Station column), take the mean duration of its "
    "rentals in days (not rounded).",
    "station",
    ("mean_days", "the mean in days", 2),
)
h07 = _value(
    "What was the total revenue of the rentals picked up in June 2024?",
    f"{DONE}. {REVENUE}. A rental's month is the month of its Pickup in UTC. Add up the revenue "
    "of the rentals picked up in June.",
    ("june_revenue", "euros", 2),
    lambda d: _d(d).revenue[_d(d).month == 6].sum(),
)

FRESH10: list[tuple[str, str, str, QFn]] = [
    ("fresh10_cancelled", "easy", RENTALS, e01),
    ("fresh10_rentals", "easy", RENTALS, e02),
    ("fresh10_mean_rating", "easy", RENTALS, e03),
    ("fresh10_insured", "easy", RENTALS, e04),
    ("fresh10_old_vehicles", "easy", FLEET, f01),
    ("fresh10_newest_vehicle", "easy", FLEET, f02),
    ("fresh10_top_country", "medium", RENTALS, m01),
    ("fresh10_mean_km", "medium", RENTALS, m02),
    ("fresh10_median_hours", "medium", RENTALS, m03),
    ("fresh10_busiest_month", "medium", RENTALS, m04),
    ("fresh10_mean_discount", "medium", RENTALS, m05),
    ("fresh10_over_a_week", "medium", RENTALS, m06),
    ("fresh10_gb_insured", "medium", RENTALS, m07),
    ("fresh10_top_category", "hard", RENTALS, h01),
    ("fresh10_km_per_day", "hard", RENTALS, h02),
    ("fresh10_older_share", "hard", RENTALS, h03),
    ("fresh10_no_show_station", "hard", RENTALS, h04),
    ("fresh10_best_rated_country", "hard", RENTALS, h05),
    ("fresh10_longest_station", "hard", RENTALS, h06),
    ("fresh10_june_revenue", "hard", RENTALS, h07),
]
#: questions that need another file besides their own (uploaded and described with it)
JOINS = {q: (FLEET,) for q in ("fresh10_top_category", "fresh10_km_per_day", "fresh10_older_share")}


def build_fresh10_questions(files: dict[str, bytes]) -> list[Question]:
    """The twenty questions with answers computed from ``files`` (split ``fresh10``)."""
    built = build_split(FRESH10, _frames(files), "fresh10")
    return [replace(q, other_files=JOINS.get(q.id, ())) for q in built]


def problems(seed: int) -> list[str]:
    """Why the data of ``seed`` would make a question ambiguous or fragile (empty: fine)."""
    files = generate_fresh10_files(seed)
    r, fl = _frames(files).values()
    answers = [a for q in build_fresh10_questions(files) for a in q.answers if a.decimals]
    near = {a.name: abs(a.value * 10**a.decimals % 1 - 0.5) / 10**a.decimals for a in answers}
    out = [f"{name} near a rounding boundary" for name, n in near.items() if n <= 0.00051]
    out += [f"{name} tie" for name, (by, gap) in RANKED.items() if _gap(by(r)) < gap]
    d, rated = _d(r), _d(r).groupby("country").Rating.count()
    checks = {
        "newest vehicle tie": _gap(fl.acquired) >= 1,
        "a week exactly": not (d.hours == 168).any(),
        "a whole number of days": not (d.hours % 24 == 0).any(),
        "bought in March 2022": not (fl.acquired == 2022 * 12 + 2).any(),
        "rated threshold": not (rated == MIN_RATED).any() and (rated < MIN_RATED).any(),
        "a timestamp unread": d.hours.notna().all() and r.month.notna().all(),
        "a value unread": r.Rating.dtype == float and r["Km Driven"].dtype == float,
        "a country unread": set(r.country) == set(COUNTRIES),
        "a rental unjoined": r.Category.notna().all(),
    }
    return out + [name for name, ok in checks.items() if not ok]


if __name__ == "__main__":  # the seed scan: the first seed that passes every check
    print(next(s for s in range(1000) if not problems(s)))
