"""Twelve fresh questions (split ``fresh``), in the public benchmark's instruction style, over
data with other traps than the held-out half's.

Written after every answer mechanism of issue 29 and never used to tune one: the untuned
measure of those mechanisms (run with ``--split fresh``). Keep it that way — a mechanism built
from these transcripts makes the split a tuning set; add new fresh questions instead.

``trips.csv`` (generated from a fixed seed) has fares stored as text with a currency sign
(``"$12.50"``), a header with a leading space (``' Distance KM'``), pickup times as text,
missing distances and tips. Every expected answer is computed here with pandas.
"""

from __future__ import annotations

import io
import random
from collections.abc import Callable

import pandas as pd
from answer_data import Answer, Question, _csv
from answer_data_styled import _num, _q

ZONES = ["North", "South", "East", "West", "Center"]


def generate_fresh_files(seed: int = 23) -> dict[str, bytes]:
    """``trips.csv``: 400 rides from January to June 2023."""
    rnd = random.Random(seed)
    rows = []
    start = pd.Timestamp("2023-01-01")
    for i in range(400):
        when = start + pd.Timedelta(minutes=rnd.randint(0, 181 * 24 * 60 - 1))
        km = round(rnd.uniform(0.5, 30), 1)
        fare = 3 + km * rnd.uniform(1.1, 1.6)
        tip = "" if rnd.random() < 0.2 else round(rnd.uniform(0, 6), 2)
        rows.append(
            [
                i + 1,
                when.strftime("%Y-%m-%d %H:%M"),
                "" if rnd.random() < 0.05 else km,
                f"${fare:,.2f}",
                rnd.choice(["card", "card", "cash", "app"]),
                rnd.choice(ZONES),
                tip,
                rnd.randint(1, 4),
            ]
        )
    header = ["trip_id", "Pickup Time", " Distance KM", "Fare", "payment", "zone", "tip"]
    return {"trips.csv": _csv([*header, "passengers"], rows)}


def _trips(files: dict[str, bytes]) -> pd.DataFrame:
    df = pd.read_csv(io.BytesIO(files["trips.csv"]))
    df["fare_usd"] = df["Fare"].str.replace("[$,]", "", regex=True).astype(float)
    df["pickup"] = pd.to_datetime(df["Pickup Time"])
    return df


QFn = Callable[[pd.DataFrame], tuple[str, list[Answer]]]


def f01(t: pd.DataFrame) -> tuple[str, list[Answer]]:
    n = int((t.payment == "cash").sum())
    return _q(
        "How many trips were paid in cash?",
        "Count rows whose payment is 'cash'.",
        _num("cash_trips", "the count", None),
    ), [Answer("cash_trips", n)]


def f02(t: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "What is the mean number of passengers per trip?",
        "Use all trips.",
        _num("mean_passengers", "the mean", 2),
    ), [Answer("mean_passengers", t.passengers.mean(), 2)]


def f03(t: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "How many trips have no tip recorded?",
        "Count missing values of tip.",
        _num("no_tip", "the count", None),
    ), [Answer("no_tip", int(t.tip.isna().sum()))]


def f04(t: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "What is the longest trip distance in kilometres?",
        "Use the Distance KM column; ignore missing values.",
        _num("longest_km", "the distance", 1),
    ), [Answer("longest_km", t[" Distance KM"].max(), 1)]


def f05(t: pd.DataFrame) -> tuple[str, list[Answer]]:
    counts = t.zone.value_counts()
    return _q(
        "Which zone has the most trips, and how many trips started there?",
        "Count trips per zone.",
        '@zone[zone_name] where "zone_name" is the zone\'s name. '
        + _num("zone_trips", "the number of trips", None),
    ), [Answer("zone", counts.idxmax()), Answer("zone_trips", int(counts.max()))]


def f06(t: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "What is the mean fare of a trip in dollars?",
        "The Fare column holds amounts such as '$12.50'; use every trip.",
        _num("mean_fare_usd", "the mean fare", 2),
    ), [Answer("mean_fare_usd", t.fare_usd.mean(), 2)]


def f07(t: pd.DataFrame) -> tuple[str, list[Answer]]:
    v = t.loc[t.payment == "card", " Distance KM"].mean()
    return _q(
        "What is the mean distance of trips paid by card?",
        "Only trips whose payment is 'card'; ignore missing distances.",
        _num("card_km", "the mean distance in km", 2),
    ), [Answer("card_km", v, 2)]


def f08(t: pd.DataFrame) -> tuple[str, list[Answer]]:
    n = int((t.pickup.dt.month == 3).sum())
    return _q(
        "How many trips started in March 2023?",
        "Use the Pickup Time column.",
        _num("march_trips", "the count", None),
    ), [Answer("march_trips", n)]


def f09(t: pd.DataFrame) -> tuple[str, list[Answer]]:
    totals = t.groupby("payment").fare_usd.sum()
    return _q(
        "Which payment method brought in the highest total fare, and what is that total?",
        "Sum the fares (in dollars) per payment method.",
        '@payment[method] where "method" is the payment method. '
        + _num("payment_total", "the total fare in dollars", 2),
    ), [Answer("payment", totals.idxmax()), Answer("payment_total", totals.max(), 2)]


def f10(t: pd.DataFrame) -> tuple[str, list[Answer]]:
    both = t.dropna(subset=[" Distance KM"])
    r = both[" Distance KM"].corr(both.fare_usd)
    return _q(
        "What is the Pearson correlation coefficient between trip distance and fare?",
        "Fares in dollars; leave out trips without a distance.",
        _num("r_distance_fare", "the coefficient", 2),
    ), [Answer("r_distance_fare", r, 2)]


def f11(t: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "After filling missing tips with 0, what is the mean tip per trip?",
        "Fill the missing values of tip with 0 first, then average over all trips.",
        _num("mean_tip", "the mean tip", 2),
    ), [Answer("mean_tip", t.tip.fillna(0).mean(), 2)]


def f12(t: pd.DataFrame) -> tuple[str, list[Answer]]:
    per_month = t.groupby(t.pickup.dt.month)[" Distance KM"].sum()
    return _q(
        "In which month (1-12) was the total distance driven highest, and what was it?",
        "Group the trips by the month of their pickup time; ignore missing distances.",
        _num("month", "the month number", None)
        + " "
        + _num("month_km", "the total distance in km", 1),
    ), [Answer("month", int(per_month.idxmax())), Answer("month_km", per_month.max(), 1)]


FRESH: list[tuple[str, str, QFn]] = [
    ("fresh_cash_trips", "easy", f01),
    ("fresh_mean_passengers", "easy", f02),
    ("fresh_no_tip", "easy", f03),
    ("fresh_longest_km", "easy", f04),
    ("fresh_zone_trips", "medium", f05),
    ("fresh_mean_fare", "medium", f06),
    ("fresh_card_km", "medium", f07),
    ("fresh_march_trips", "medium", f08),
    ("fresh_payment_total", "hard", f09),
    ("fresh_distance_fare_corr", "hard", f10),
    ("fresh_filled_tip", "hard", f11),
    ("fresh_month_km", "hard", f12),
]


def build_fresh_questions(files: dict[str, bytes]) -> list[Question]:
    """The twelve fresh questions with answers computed from ``files`` (split ``fresh``)."""
    trips = _trips(files)
    out = []
    for qid, level, fn in FRESH:
        text, answers = fn(trips)
        out.append(Question(qid, "fresh", level, "trips.csv", text, tuple(answers)))
    return out
