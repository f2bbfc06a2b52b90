"""Twenty more fresh questions (split ``fresh7``), in the public benchmark's instruction style,
over two new files with the messiness of real-world CSVs.

Written after every answer mechanism and never used to tune one: the untuned measure of the
agent (run with ``--split fresh7``). Keep it that way — a mechanism built from these
transcripts makes the split a tuning set; add new fresh questions instead.

``meter_readings.csv`` (generated from a fixed seed; an electricity supplier's 2024 export of
its households' monthly readings) is separated by semicolons and written the European way: day
first dates (``"31.01.2024"``) and consumption with a decimal comma, a dot between thousands and
a unit (``"1.234,5 kWh"``). Its Region is typed with inconsistent case and stray spaces
(``"North "``, ``"north"``, ``"NORTH"``), the Estimated flag is written several ways
(``yes``/``Yes``/``TRUE``/``1`` and ``no``/``No``/``FALSE``/``0``) and some readings were sent
twice (identical rows that questions say to drop). Households move in and out during the year
and a meter is now and then not read in a month (no row). ``tariffs.csv`` is a wide price list:
one row per tariff and one column per month (``Jan`` to ``Dec``) of unit prices in cents per
kWh; two questions join it to the readings (``Question.other_files``), pricing each reading
at its tariff's price in its month (a melt to one row per tariff and month). Every
expected answer is computed here with pandas; the seed (1) is the first that ``problems``
passes (``python answer_data_fresh7.py`` scans from 0): no asked maximum, minimum or top-10 has
a tie or near-tie, no price or consumption lies exactly on an asked threshold and no float lies
within 0.0005 of a rounding boundary at its decimals.
"""

from __future__ import annotations

import csv
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

SEED = 1
READINGS, TARIFFS = "meter_readings.csv", "tariffs.csv"
MONTHS = "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split()
#: code: (name, cents above the standard price (if fixed: above 27-30), fixed, share of homes)
PLANS = {
    "STD": ("Standard Variable", 0.0, False, 30),
    "E7": ("Economy 7", -4.0, False, 18),
    "GRN": ("Green Flex", 1.5, False, 20),
    "FIX12": ("Fixed 12 Months", 0.0, True, 14),
    "FIX24": ("Fixed 24 Months", 1.0, True, 10),
    "EV": ("EV Saver", -6.5, False, 8),
}
REGIONS = "North South East West Central".split()
YES, NO = ["yes", "Yes", "TRUE", "1"], ["no", "No", "FALSE", "0"]
READING_COLUMNS = ["Account", "Region", "Tariff", "Read Date", "Consumption", "Estimated"]


def generate_fresh7_files(seed: int = SEED) -> dict[str, bytes]:
    """``meter_readings.csv`` (January to December 2024) and ``tariffs.csv``."""
    rnd = random.Random(seed)
    standard = [rnd.uniform(26.5, 31.5) for _ in range(4)]  # the price cap moves each quarter
    prices = {}
    for code, (_, above, fixed, _) in PLANS.items():
        if fixed:
            prices[code] = [round(rnd.uniform(27, 30) + above, 2)] * 12
        else:
            quarters = [round(s + above + rnd.gauss(0, 0.5), 2) for s in standard]
            prices[code] = [quarters[m // 3] for m in range(12)]
    tariffs = [[code, PLANS[code][0], *(f"{p:.2f}" for p in ps)] for code, ps in prices.items()]
    rows: list[list[Any]] = []
    for number in rnd.sample(range(10000, 99999), 160):
        r = rnd.choice(REGIONS)
        typed = [r, r, r, r.lower(), f"{r} ", r.upper(), f" {r}"]  # the first is the usual way
        plan = rnd.choices(list(PLANS), [p[3] for p in PLANS.values()])[0]
        base = rnd.lognormvariate(math.log(280), 0.5) * (1.4 if plan == "E7" else 1)
        base += 200 if plan == "EV" else 0  # charging the car
        swing = 0.55 if plan == "E7" else 0.3  # storage heaters use more in winter
        first = 1 if rnd.random() < 0.88 else rnd.randint(2, 11)  # moved in during the year
        last = 12 if rnd.random() < 0.92 else rnd.randint(first, 11)  # moved out
        pump = rnd.randint(2, 12) if rnd.random() < 0.05 else 13  # a heat pump from that month
        for m in range(first, last + 1):
            if rnd.random() < 0.02:
                continue  # the meter was not read that month
            season = 1 + swing * math.cos(2 * math.pi * (m - 1) / 12)
            kwh = base * season * rnd.gauss(1, 0.12) * (1.7 if m >= pump else 1)
            day = f"{rnd.randint(1, 28):02d}.{m:02d}.2024"
            flag = rnd.choice(YES if rnd.random() < 0.1 else NO)
            eu = f"{max(5.0, kwh):,.1f}".translate(str.maketrans(",.", ".,")) + " kWh"
            rows.append([f"ACC{number}", rnd.choice(typed), plan, day, eu, flag])
    rows.sort(key=lambda r: (r[3][3:5], r[3][:2], r[0]))
    for row in rnd.sample(rows, len(rows) // 25):  # sent twice
        rows.insert(rnd.randrange(len(rows) + 1), list(row))
    out = io.StringIO()
    csv.writer(out, delimiter=";", lineterminator="\n").writerows([READING_COLUMNS, *rows])
    return {READINGS: out.getvalue().encode(), TARIFFS: _csv(["Tariff", "Name", *MONTHS], tariffs)}


def _frames(files: dict[str, bytes]) -> dict[str, pd.DataFrame]:
    mr = pd.read_csv(io.BytesIO(files[READINGS]), sep=";", dtype=str)
    mr["dup"] = mr.duplicated()
    mr["kwh"] = mr.Consumption.str[:-4].str.translate({ord("."): None, ord(","): "."}).astype(float)
    mr["region"] = mr.Region.str.strip().str.title()
    mr["est"] = mr.Estimated.str.lower().isin(["yes", "true", "1"])
    mr["month"] = pd.to_datetime(mr["Read Date"], format="%d.%m.%Y").dt.month
    tf = pd.read_csv(io.BytesIO(files[TARIFFS]))
    long = tf.melt(id_vars=["Tariff", "Name"], value_vars=MONTHS, var_name="mon", value_name="c")
    long["month"] = long.mon.map({m: i + 1 for i, m in enumerate(MONTHS)})
    mr = mr.merge(long[["Tariff", "month", "c"]], on=["Tariff", "month"], how="left")
    mr["charge"] = mr.kwh * mr.c / 100
    return {READINGS: mr, TARIFFS: tf}


QFn = Callable[[pd.DataFrame], tuple[str, list[Answer]]]
DUPS = (
    "Some readings were sent twice by the export and appear as identical rows: drop the exact "
    "duplicate rows first, keeping one copy of each"
)
CONS = (
    "Consumption is in kWh, written with a decimal comma, a dot between thousands and a unit "
    "('1.234,5 kWh' is 1234.5)"
)
REGION = (
    "Region is typed with inconsistent case and stray spaces ('North ', 'north', 'NORTH' are all "
    "North): strip the spaces and ignore the case"
)
EST = (
    "Estimated is written in several ways: 'yes', 'Yes', 'TRUE' and '1' mean an estimated "
    "reading; 'no', 'No', 'FALSE' and '0' mean an actual one"
)
DATE = "Read Date is day first ('05.03.2024' is 5 March 2024); a reading counts for its month"
PRICES = (
    "tariffs.csv has one row per tariff (its code in the Tariff column) and one column per month "
    "of 2024, Jan to Dec, holding the unit price in cents per kWh"
)
CHARGE = (
    "The charge of a reading, in euros, is its Consumption times the unit price of its Tariff in "
    "the month of its Read Date (from tariffs.csv), divided by 100"
)
REGION_FMT = '@region[region_name] where "region_name" is the region, such as North. '
TARIFF_FMT = '@tariff[tariff_code] where "tariff_code" is the code of the Tariff column. '


def _u(d: pd.DataFrame) -> pd.DataFrame:
    return d[~d.dup]


def _full_year(d: pd.DataFrame) -> pd.Series:
    u = _u(d)
    full = u.groupby("Account").month.nunique() == 12
    kept = u[u.Account.map(full)]
    return kept.groupby("Account").kwh.sum().groupby(kept.groupby("Account").region.first()).mean()


def _by_month(d: pd.DataFrame, first: int, second: int) -> pd.DataFrame:
    wide = _u(d).pivot(index="Account", columns="month", values="kwh")
    return wide[[first, second]].dropna()


def e01(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "How many different accounts appear in the readings?",
        "Count the distinct values of Account.",
        _num("accounts", "the count", None),
    ), [Answer("accounts", int(d.Account.nunique()))]


def e02(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "How many rows of the file are duplicates of an earlier row?",
        "Some readings were sent twice by the export and appear as two identical rows; count the "
        "rows that are identical in every column to a row above them.",
        _num("duplicate_rows", "the count", None),
    ), [Answer("duplicate_rows", int(d.dup.sum()))]


def e03(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "How many accounts are on the Economy 7 tariff?",
        "Count the distinct values of Account among the rows whose Tariff is 'E7'.",
        _num("e7_accounts", "the count", None),
    ), [Answer("e7_accounts", int(d.Account[d.Tariff == "E7"].nunique()))]


def e04(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "How many readings were estimated rather than read from the meter?",
        f"{DUPS}. {EST}; count the estimated readings.",
        _num("estimated_readings", "the count", None),
    ), [Answer("estimated_readings", int(_u(d).est.sum()))]


def t01(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "How many tariffs had a unit price above 30 cents per kWh in January?",
        f"{PRICES}. Count the tariffs whose Jan price is more than 30.",
        _num("tariffs_over_30", "the count", None),
    ), [Answer("tariffs_over_30", int((d.Jan > 30).sum()))]


def t02(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "Which tariff had the lowest unit price in July?",
        f"{PRICES}. Compare the Jul column.",
        TARIFF_FMT.strip(),
    ), [Answer("tariff", d.Tariff[d.Jul.idxmin()])]


def m01(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "What was the total electricity consumption over all readings, in kWh?",
        f"{DUPS}. {CONS}.",
        _num("total_kwh", "the total in kWh", 1),
    ), [Answer("total_kwh", _u(d).kwh.sum(), 1)]


def m02(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "How many readings are from the North region?",
        f"{DUPS}. {REGION}; count the readings whose Region is North.",
        _num("north_readings", "the count", None),
    ), [Answer("north_readings", int((_u(d).region == "North").sum()))]


def m03(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "What is the mean consumption of the readings taken in January 2024?",
        f"{DUPS}. {DATE}. {CONS}.",
        _num("january_mean", "the mean in kWh", 2),
    ), [Answer("january_mean", _u(d).query("month == 1").kwh.mean(), 2)]


def m04(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "How many readings have a consumption of more than 1,000 kWh?",
        f"{DUPS}. {CONS}; count the readings above 1000 kWh.",
        _num("readings_over_1000", "the count", None),
    ), [Answer("readings_over_1000", int((_u(d).kwh > 1000).sum()))]


def m05(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "What is the median consumption of the estimated readings?",
        f"{DUPS}. {EST}. {CONS}.",
        _num("estimated_median", "the median in kWh", 2),
    ), [Answer("estimated_median", _u(d).query("est").kwh.median(), 2)]


def m06(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    months = _u(d).groupby("month").kwh.sum()
    return _q(
        "In which month of 2024 was the total consumption highest, and what was that total?",
        f"{DUPS}. {DATE}. {CONS}. Add up the consumption of the readings of each month.",
        _num("peak_month", "the month, 1-12", None) + " " + _num("peak_kwh", "the total kWh", 1),
    ), [Answer("peak_month", int(months.idxmax())), Answer("peak_kwh", months.max(), 1)]


def t03(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    mean = d.set_index("Tariff")[MONTHS].mean(axis=1)
    return _q(
        "Which tariff has the highest mean unit price over the twelve months of 2024, and what "
        "is that mean?",
        f"{PRICES}. The mean of a tariff is the plain mean of its twelve monthly prices.",
        TARIFF_FMT + _num("mean_price", "the mean in cents per kWh", 2),
    ), [Answer("tariff", mean.idxmax()), Answer("mean_price", mean.max(), 2)]


def h01(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    full = _full_year(d)
    return _q(
        "Among the accounts with a reading in every month of 2024, which region has the highest "
        "mean annual consumption per account, and what is it?",
        f"{DUPS}. {REGION}. {DATE}. {CONS}. Keep only the accounts with a reading in each of the "
        "twelve months; an account's annual consumption is the sum of its readings; average "
        "those per region.",
        REGION_FMT + _num("annual_kwh", "the mean annual consumption in kWh", 2),
    ), [Answer("region", full.idxmax()), Answer("annual_kwh", full.max(), 2)]


def h02(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    paid = _u(d).groupby("region").charge.sum()
    return _q(
        "Which region paid the most for its electricity in 2024, and how much, in euros?",
        f"{DUPS}. {REGION}. {DATE}. {CONS}. {PRICES}. {CHARGE}. Add up the charges per region.",
        REGION_FMT + _num("region_euros", "the total charge in euros", 2),
    ), [Answer("region", paid.idxmax()), Answer("region_euros", paid.max(), 2)]


def h03(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    u = _u(d)
    return _q(
        "Weighted by consumption, what unit price did the households pay on average, in cents "
        "per kWh?",
        f"{DUPS}. {DATE}. {CONS}. {PRICES}. Each reading is priced at the unit price of its "
        "Tariff in the month of its Read Date: divide the sum over all readings of Consumption "
        "times that price by the total Consumption.",
        _num("paid_cents", "the price in cents per kWh", 2),
    ), [Answer("paid_cents", (u.kwh * u.c).sum() / u.kwh.sum(), 2)]


def h04(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    g = _u(d)[_u(d).Tariff == "GRN"]
    q1, q4 = g.kwh[g.month <= 3].sum(), g.kwh[g.month >= 10].sum()
    return _q(
        "By what percentage did the total consumption of the GRN tariff's readings change from "
        "the first quarter of 2024 to the fourth?",
        f"{DUPS}. {DATE}. {CONS}. Only rows whose Tariff is 'GRN'. The first quarter is January "
        "to March, the fourth October to December; the change is (fourth quarter total - first "
        "quarter total) / first quarter total * 100 (negative if it fell).",
        _num("grn_change_pct", "the percentage change", 2),
    ), [Answer("grn_change_pct", (q4 - q1) / q1 * 100, 2)]


def h05(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    u = _u(d)
    top = u.groupby("Account").kwh.sum().nlargest(10).sum()
    return _q(
        "What percentage of the total consumption comes from the 10 accounts that consumed the "
        "most?",
        f"{DUPS}. {CONS}. Sum each Account's consumption over all its readings, add the 10 "
        "largest of these sums and divide by the total consumption of all readings, times 100.",
        _num("top10_pct", "the percentage", 2),
    ), [Answer("top10_pct", top / u.kwh.sum() * 100, 2)]


def h06(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    both = _by_month(d, 1, 7)
    return _q(
        "Across the accounts, what is the Pearson correlation coefficient between the January "
        "consumption and the July consumption?",
        f"{DUPS}. {DATE}. {CONS}. Only the accounts with a reading in January 2024 and one in "
        "July 2024 (an account has at most one reading a month); pair each such account's "
        "January consumption with its July consumption.",
        _num("r_jan_jul", "the coefficient", 2),
    ), [Answer("r_jan_jul", both[1].corr(both[7]), 2)]


def h07(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    both = _by_month(d, 1, 12)
    rise = both[12] - both[1]
    return _q(
        "Which account's consumption rose the most from January 2024 to December 2024, and by "
        "how many kWh?",
        f"{DUPS}. {DATE}. {CONS}. Only the accounts with a reading in January and one in "
        "December (an account has at most one reading a month); the rise is the December "
        "consumption minus the January consumption.",
        '@account[account_id] where "account_id" is the Account as written, such as ACC12345. '
        + _num("rise_kwh", "the rise in kWh", 1),
    ), [Answer("account", rise.idxmax()), Answer("rise_kwh", rise.max(), 1)]


FRESH7: list[tuple[str, str, str, QFn]] = [
    ("fresh7_accounts", "easy", READINGS, e01),
    ("fresh7_duplicate_rows", "easy", READINGS, e02),
    ("fresh7_e7_accounts", "easy", READINGS, e03),
    ("fresh7_estimated_readings", "easy", READINGS, e04),
    ("fresh7_tariffs_over_30", "easy", TARIFFS, t01),
    ("fresh7_cheapest_july", "easy", TARIFFS, t02),
    ("fresh7_total_kwh", "medium", READINGS, m01),
    ("fresh7_north_readings", "medium", READINGS, m02),
    ("fresh7_january_mean", "medium", READINGS, m03),
    ("fresh7_over_1000", "medium", READINGS, m04),
    ("fresh7_estimated_median", "medium", READINGS, m05),
    ("fresh7_peak_month", "medium", READINGS, m06),
    ("fresh7_dearest_tariff", "medium", TARIFFS, t03),
    ("fresh7_region_full_year", "hard", READINGS, h01),
    ("fresh7_region_charges", "hard", READINGS, h02),
    ("fresh7_price_paid", "hard", READINGS, h03),
    ("fresh7_grn_change", "hard", READINGS, h04),
    ("fresh7_top10_share", "hard", READINGS, h05),
    ("fresh7_jan_jul_corr", "hard", READINGS, h06),
    ("fresh7_biggest_rise", "hard", READINGS, h07),
]
#: questions that need another file besides their own (uploaded and described with it)
JOINS = {"fresh7_region_charges": (TARIFFS,), "fresh7_price_paid": (TARIFFS,)}


def build_fresh7_questions(files: dict[str, bytes]) -> list[Question]:
    """The twenty questions with answers computed from ``files`` (split ``fresh7``)."""
    built = build_split(FRESH7, _frames(files), "fresh7")
    return [replace(q, other_files=JOINS.get(q.id, ())) for q in built]


def _gap(values: pd.Series, k: int = 1) -> float:
    """How far the k-th largest value lies above the next one."""
    top = values.sort_values(ascending=False)
    return float(top.iloc[k - 1] - top.iloc[k])


def problems(seed: int) -> list[str]:
    """Why the data of ``seed`` would make a question ambiguous or fragile (empty: fine)."""
    files = generate_fresh7_files(seed)
    mr, tf = _frames(files).values()
    out = [
        f"{a.name} near a rounding boundary"
        for q in build_fresh7_questions(files)
        for a in q.answers
        if a.decimals is not None
        and abs(a.value * 10**a.decimals % 1 - 0.5) < 0.0005 * 10**a.decimals
    ]
    u, rise = _u(mr), _by_month(mr, 1, 12).diff(axis=1)[12]
    checks = {
        "July price tie": _gap(-tf.Jul) >= 0.1,
        "mean price tie": _gap(tf[MONTHS].mean(axis=1)) >= 0.1,
        "January threshold": (tf.Jan - 30).abs().min() >= 0.1,
        "1000 kWh threshold": not (u.kwh == 1000).any(),
        "peak month tie": _gap(u.groupby("month").kwh.sum()) >= 50,
        "region tie": _gap(_full_year(mr)) >= 10,
        "charges tie": _gap(u.groupby("region").charge.sum()) >= 10,
        "top-10 tie": _gap(u.groupby("Account").kwh.sum(), 10) >= 5,
        "rise tie": _gap(rise) >= 5 and rise.max() > 0,
        "an account read twice a month": not u.duplicated(["Account", "month"]).any(),
        "an unpriced reading": u.c.notna().all(),
    }
    return out + [name for name, ok in checks.items() if not ok]


if __name__ == "__main__":  # the seed scan: the first seed that passes every check
    print(next(s for s in range(1000) if not problems(s)))
