"""Twenty more fresh questions (split ``fresh4``), in the public benchmark's instruction style,
over two new files with the messiness of real-world CSVs.

Written after every answer mechanism and never used to tune one: the untuned measure of the
agent (run with ``--split fresh4``). Keep it that way — a mechanism built from these
transcripts makes the split a tuning set; add new fresh questions instead.

``store_orders.csv`` (generated from a fixed seed) has order times as ISO text with a ``T`` and
seconds (``"2024-03-05T14:22:09"``), a category typed inconsistently (``"Books"``,
``" books"``, ``"BOOKS"``, ``"books "``) and a discount fraction that is empty when there was
none. ``clinic_visits.csv`` has mixed-case headers with spaces and a unit in brackets
(``'Weight (kg)'``), waiting times as text (``"1h 25m"``, ``"40m"``, ``"2h"``), a smoker flag
written ``yes``/``No``/``YES``, ``"n/a"`` for a weight not taken and ``"-"`` for a blood
pressure not measured. Every expected answer is computed here with pandas; the seed (3) was
chosen by scanning seeds so that no asked maximum or top-k has a tie or near-tie, no waiting
time lies on an outlier fence (the count is the same with strict comparisons) and no float
lies within 0.0005 of a rounding boundary at its asked decimals.
"""

from __future__ import annotations

import io
import math
import random
from collections.abc import Callable

import pandas as pd
from answer_data import Answer, Question, _csv
from answer_data_fresh2 import build_split
from answer_data_styled import _num, _q

#: price range of each category, and how often it is ordered
CATEGORIES = {
    "Books": (6, 45, 30),
    "Electronics": (25, 350, 15),
    "Toys": (8, 70, 20),
    "Garden": (5, 130, 15),
    "Kitchen": (4, 160, 20),
}
CLINICS = ["Eastside", "Harbor", "Midtown", "Westgate"]
ORDER_COLUMNS = "order_id,order_time,customer_id,category,quantity,unit_price,discount,channel"
VISIT_COLUMNS = "Visit ID,Visit Date,Patient ID,Clinic,Age,Smoker,Weight (kg),Systolic BP,Wait Time"


def _typed(rnd: random.Random, name: str) -> str:
    """A category as a clerk typed it."""
    variants = [name, f" {name.lower()}", name.upper(), f"{name.lower()} "]
    return rnd.choices(variants, [70, 10, 10, 10])[0]


def _wait(minutes: int) -> str:
    """Minutes as the clinic's system writes them: ``"1h 25m"``, ``"40m"``, ``"2h"``."""
    h, m = divmod(minutes, 60)
    return f"{h}h {m}m" if h and m else f"{h}h" if h else f"{m}m"


def generate_fresh4_files(seed: int = 3) -> dict[str, bytes]:
    """``store_orders.csv`` (January to June 2024) and ``clinic_visits.csv`` (2024)."""
    rnd = random.Random(seed)
    loyalty = [rnd.paretovariate(1.6) for _ in range(120)]
    times = []
    for month in range(1, 7):
        first = pd.Timestamp(f"2024-{month:02d}-01")
        n = rnd.randint(80, 130)
        times += [
            first + pd.Timedelta(seconds=rnd.randrange(first.days_in_month * 86_400))
            for _ in range(n)
        ]
    orders = []
    for i, when in enumerate(sorted(times)):
        category = rnd.choices(list(CATEGORIES), [w for _, _, w in CATEGORIES.values()])[0]
        lo, hi, _ = CATEGORIES[category]
        price = round(math.exp(rnd.uniform(math.log(lo), math.log(hi))), 2)
        quantity = max(1, min(12, round(rnd.gauss(7 - 2 * math.log10(price), 1.5))))
        orders.append(
            [
                f"ORD-{10001 + i}",
                when.strftime("%Y-%m-%dT%H:%M:%S"),
                f"C{rnd.choices(range(120), loyalty)[0] + 101}",
                _typed(rnd, category),
                quantity,
                price,
                "" if rnd.random() < 0.45 else rnd.choice([0.05, 0.1, 0.15, 0.2, 0.25]),
                rnd.choices(["web", "app", "store"], [50, 30, 20])[0],
            ]
        )
    patients = []
    for i in range(170):
        age, smoker, kg = rnd.randint(18, 88), rnd.random() < 0.28, rnd.gauss(78, 14)
        bp = 100 + 0.45 * age + (8 if smoker else 0) + 0.2 * (kg - 78) + rnd.gauss(0, 8)
        home = rnd.choice(CLINICS)
        patients.append((f"P{3001 + i}", age, smoker, kg, bp, home, rnd.paretovariate(2)))
    busy = {c: rnd.uniform(15, 40) for c in CLINICS}
    visits = []
    for _ in range(520):
        pid, age, smoker, kg, bp, home, _ = rnd.choices(patients, [p[-1] for p in patients])[0]
        day = pd.Timestamp("2024-01-02") + pd.Timedelta(days=rnd.randint(0, 360))
        clinic = home if rnd.random() < 0.85 else rnd.choice(CLINICS)
        wait = max(3, round(rnd.gammavariate(2, busy[clinic] / 2)))
        wait += rnd.randint(90, 200) if rnd.random() < 0.04 else 0
        visits.append(
            [
                day,
                pid,
                clinic,
                age,
                rnd.choice(["yes", "Yes", "YES"] if smoker else ["no", "No", "NO"]),
                "n/a" if rnd.random() < 0.08 else round(kg + rnd.gauss(0, 1.2), 1),
                "-" if rnd.random() < 0.07 else round(bp + rnd.gauss(0, 6)),
                _wait(wait),
            ]
        )
    visits.sort(key=lambda v: (v[0], v[1]))
    rows = [[f"V{5001 + i}", v[0].strftime("%Y-%m-%d"), *v[1:]] for i, v in enumerate(visits)]
    return {
        "store_orders.csv": _csv(ORDER_COLUMNS.split(","), orders),
        "clinic_visits.csv": _csv(VISIT_COLUMNS.split(","), rows),
    }


def _frames(files: dict[str, bytes]) -> dict[str, pd.DataFrame]:
    od = pd.read_csv(io.BytesIO(files["store_orders.csv"]))
    od["cat"] = od.category.str.strip().str.title()
    od["when"] = pd.to_datetime(od.order_time)
    od["revenue"] = od.quantity * od.unit_price * (1 - od.discount.fillna(0))
    cv = pd.read_csv(io.BytesIO(files["clinic_visits.csv"]))
    cv["weight"] = pd.to_numeric(cv["Weight (kg)"].replace({"n/a": math.nan}))
    cv["bp"] = pd.to_numeric(cv["Systolic BP"].replace({"-": math.nan}))
    parts = cv["Wait Time"].str.extract(r"^(?:(\d+)h)?\s*(?:(\d+)m)?$").astype(float).fillna(0)
    cv["wait"] = parts[0] * 60 + parts[1]
    cv["smoker"] = cv.Smoker.str.strip().str.lower() == "yes"
    cv["day"] = pd.to_datetime(cv["Visit Date"])
    return {"store_orders.csv": od, "clinic_visits.csv": cv}


QFn = Callable[[pd.DataFrame], tuple[str, list[Answer]]]
REVENUE = (
    "The revenue of an order is quantity * unit_price * (1 - discount); discount is a fraction "
    "(0.15 means 15% off) and an empty discount means no discount"
)
CATEGORY = (
    "Category names are typed inconsistently ('Books', ' books', 'BOOKS', 'books '): compare "
    "them ignoring case and surrounding spaces"
)
WAIT = "Wait Time holds text such as '1h 25m' (85 minutes), '40m' or '2h'; convert it to minutes"
BP = "A Systolic BP of '-' means it was not measured: leave those visits out"
SMOKER = "The Smoker column holds 'yes' or 'no' in any letter case ('Yes', 'YES', 'No', ...)"


def k01(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "How many orders were placed through the app?",
        "Count rows whose channel is 'app'.",
        _num("app_orders", "the count", None),
    ), [Answer("app_orders", int((d.channel == "app").sum()))]


def k02(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "What is the mean quantity per order?",
        "Use the quantity column and every order.",
        _num("mean_quantity", "the mean", 2),
    ), [Answer("mean_quantity", d.quantity.mean(), 2)]


def k03(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "How many orders have no discount recorded?",
        "Count the rows whose discount is empty.",
        _num("no_discount", "the count", None),
    ), [Answer("no_discount", int(d.discount.isna().sum()))]


def k04(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "How many visits were made to the Harbor clinic?",
        "Count rows whose Clinic is 'Harbor'.",
        _num("harbor_visits", "the count", None),
    ), [Answer("harbor_visits", int((d.Clinic == "Harbor").sum()))]


def k05(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "What is the mean age of the patients over all visits?",
        "Use the Age column and every visit (a patient who came twice counts twice).",
        _num("mean_age", "the mean age", 2),
    ), [Answer("mean_age", d.Age.mean(), 2)]


def k06(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "How many visits have no weight recorded?",
        "A weight of 'n/a' in the Weight (kg) column means it was not taken; count those visits.",
        _num("no_weight", "the count", None),
    ), [Answer("no_weight", int(d.weight.isna().sum()))]


def k07(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "How many orders are in the Books category?",
        f"{CATEGORY}.",
        _num("books_orders", "the count", None),
    ), [Answer("books_orders", int((d.cat == "Books").sum()))]


def k08(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "What is the total revenue of all orders?",
        f"{REVENUE}. Sum the revenue over every order.",
        _num("total_revenue", "the total revenue", 2),
    ), [Answer("total_revenue", d.revenue.sum(), 2)]


def k09(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "How many orders were placed in April 2024?",
        "Use the order_time column (text such as '2024-04-05T14:22:09').",
        _num("april_orders", "the count", None),
    ), [Answer("april_orders", int((d.when.dt.month == 4).sum()))]


def k10(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "What is the Pearson correlation coefficient between unit price and quantity?",
        "Use the unit_price and quantity columns over every order.",
        _num("r_price_quantity", "the coefficient", 2),
    ), [Answer("r_price_quantity", d.unit_price.corr(d.quantity), 2)]


def k11(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "What is the mean waiting time of a visit, in minutes?",
        f"{WAIT}. Use every visit.",
        _num("mean_wait", "the mean in minutes", 2),
    ), [Answer("mean_wait", d.wait.mean(), 2)]


def k12(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "What is the highest systolic blood pressure recorded?",
        f"Use the Systolic BP column. {BP}.",
        _num("max_bp", "the maximum in mmHg", None),
    ), [Answer("max_bp", int(d.bp.max()))]


def k13(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "How many visits were made by smokers?",
        f"{SMOKER}; count the visits whose Smoker is 'yes'.",
        _num("smoker_visits", "the count", None),
    ), [Answer("smoker_visits", int(d.smoker.sum()))]


def k14(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    top = d.groupby("customer_id").revenue.sum().nlargest(10)
    return _q(
        "What is the combined revenue of the 10 customers who spent the most?",
        f"{REVENUE}. Sum the revenue per customer_id, take the 10 largest totals and add them.",
        _num("top10_revenue", "the combined revenue", 2),
    ), [Answer("top10_revenue", top.sum(), 2)]


def k15(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    growth = d.groupby(d.when.dt.month).revenue.sum().pct_change().dropna() * 100
    return _q(
        "In which month (1-12) of 2024 did revenue rise the most, in percent, over the month "
        "before, and by how much?",
        f"{REVENUE}. Total the revenue per calendar month of order_time; the increase of a "
        "month is (its total / the previous month's total - 1) * 100.",
        _num("growth_month", "the month number", None)
        + " "
        + _num("growth_pct", "the increase in percent", 2),
    ), [Answer("growth_month", int(growth.idxmax())), Answer("growth_pct", growth.max(), 2)]


def k16(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    share = d.groupby("cat").revenue.sum() / d.revenue.sum() * 100
    return _q(
        "Which category brought in the largest share of the total revenue, and what is that "
        "share as a percentage?",
        f"{CATEGORY}. {REVENUE}. Divide each category's revenue by the revenue of all orders, "
        "times 100.",
        '@category[category_name] where "category_name" is the category. '
        + _num("category_pct", "the percentage", 2),
    ), [Answer("category", share.idxmax()), Answer("category_pct", share.max(), 2)]


def k17(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    gap = d.bp[d.smoker].mean() - d.bp[~d.smoker].mean()
    return _q(
        "How much higher is the mean systolic blood pressure at visits of smokers than at "
        "visits of non-smokers?",
        f"{SMOKER}. {BP}. Subtract the mean of the non-smokers' visits from the mean of the "
        "smokers' visits.",
        _num("smoker_bp_gap", "the difference in mmHg", 2),
    ), [Answer("smoker_bp_gap", gap, 2)]


def k18(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    filled = d.weight.fillna(d.groupby("Clinic").weight.transform("median"))
    means = filled.groupby(d.Clinic).mean()
    return _q(
        "After filling each missing weight with the median weight of the visit's clinic, which "
        "clinic has the highest mean weight, and what is it?",
        "A weight of 'n/a' means it was not taken. The median of a clinic is taken over its "
        "known weights; fill only the missing weights with it, then average per Clinic.",
        '@clinic[clinic_name] where "clinic_name" is the clinic. '
        + _num("clinic_weight", "the mean weight in kg", 2),
    ), [Answer("clinic", means.idxmax()), Answer("clinic_weight", means.max(), 2)]


def k19(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    q1, q3 = d.wait.quantile(0.25), d.wait.quantile(0.75)
    fence = 1.5 * (q3 - q1)
    n = int(((d.wait < q1 - fence) | (d.wait > q3 + fence)).sum())
    return _q(
        "How many visits have a waiting time that is an outlier by the 1.5 IQR rule?",
        f"{WAIT}. Q1 and Q3 are the 25th and 75th percentiles of all waiting times (linear "
        "interpolation, pandas' default); an outlier lies below Q1 - 1.5 * (Q3 - Q1) or above "
        "Q3 + 1.5 * (Q3 - Q1).",
        _num("wait_outliers", "the count", None),
    ), [Answer("wait_outliers", n)]


def k20(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    days = d.groupby("Patient ID").day.agg(["min", "max", "count"])
    span = (days["max"] - days["min"]).dt.days[days["count"] >= 2]
    return _q(
        "Over the patients with at least two visits, what is the mean number of days between "
        "a patient's first and last visit?",
        "Group the visits by Patient ID; the span of a patient is the number of days from the "
        "earliest to the latest Visit Date. Leave out patients with a single visit.",
        _num("mean_span_days", "the mean span in days", 2),
    ), [Answer("mean_span_days", span.mean(), 2)]


FRESH4: list[tuple[str, str, str, QFn]] = [
    ("fresh4_app_orders", "easy", "store_orders.csv", k01),
    ("fresh4_mean_quantity", "easy", "store_orders.csv", k02),
    ("fresh4_no_discount", "easy", "store_orders.csv", k03),
    ("fresh4_harbor_visits", "easy", "clinic_visits.csv", k04),
    ("fresh4_mean_age", "easy", "clinic_visits.csv", k05),
    ("fresh4_no_weight", "easy", "clinic_visits.csv", k06),
    ("fresh4_books_orders", "medium", "store_orders.csv", k07),
    ("fresh4_total_revenue", "medium", "store_orders.csv", k08),
    ("fresh4_april_orders", "medium", "store_orders.csv", k09),
    ("fresh4_price_quantity_corr", "medium", "store_orders.csv", k10),
    ("fresh4_mean_wait", "medium", "clinic_visits.csv", k11),
    ("fresh4_max_bp", "medium", "clinic_visits.csv", k12),
    ("fresh4_smoker_visits", "medium", "clinic_visits.csv", k13),
    ("fresh4_top10_customers", "hard", "store_orders.csv", k14),
    ("fresh4_revenue_growth", "hard", "store_orders.csv", k15),
    ("fresh4_category_share", "hard", "store_orders.csv", k16),
    ("fresh4_smoker_bp_gap", "hard", "clinic_visits.csv", k17),
    ("fresh4_filled_weight", "hard", "clinic_visits.csv", k18),
    ("fresh4_wait_outliers", "hard", "clinic_visits.csv", k19),
    ("fresh4_patient_span", "hard", "clinic_visits.csv", k20),
]


def build_fresh4_questions(files: dict[str, bytes]) -> list[Question]:
    """The twenty questions with answers computed from ``files`` (split ``fresh4``)."""
    return build_split(FRESH4, _frames(files), "fresh4")
