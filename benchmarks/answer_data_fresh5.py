"""Twenty more fresh questions (split ``fresh5``), in the public benchmark's instruction style,
over two new files with the messiness of real-world CSVs.

Written after every answer mechanism and never used to tune one: the untuned measure of the
agent (run with ``--split fresh5``). Keep it that way — a mechanism built from these
transcripts makes the split a tuning set; add new fresh questions instead.

``bike_rides.csv`` (generated from a fixed seed) has start and end times as Unix epoch seconds,
a station field holding two things (``"Bellecour, Lyon"``: the station and its city), a member
flag written ``1``/``0`` in some rows and ``TRUE``/``FALSE`` in others, ratings as text out of
five (``"4/5"``, empty when none was given) and rides the system logged twice (whole rows
repeated). ``stock_ledger.csv`` is semicolon-separated with numbers written the European way
(decimal commas and dots between thousands: ``"1.234,56"``, quantities such as ``"2.350"``)
and weights as text in mixed units (``"850 g"``, ``"12,5 kg"``). Every expected answer is
computed here with pandas; the seed (87) was chosen by scanning seeds so that no asked
maximum or top-k has a tie or near-tie, the unit-cost threshold gives the same count with a
strict comparison and no float lies within 0.0005 of a rounding boundary at its asked
decimals.
"""

from __future__ import annotations

import csv
import io
import math
import random
from collections.abc import Callable
from typing import Any

import pandas as pd
from answer_data import Answer, Question, _csv
from answer_data_fresh2 import build_split
from answer_data_styled import _num, _q

SEED = 87
CITIES = {
    "Lyon": ["Bellecour", "Part-Dieu", "Croix-Rousse", "Confluence"],
    "Nantes": ["Commerce", "Talensac", "Ile de Nantes", "Gare Sud"],
    "Lille": ["Grand Place", "Vauban", "Wazemmes", "Euralille"],
    "Bordeaux": ["Chartrons", "Saint-Michel", "Quinconces", "Victoire"],
}
#: riders per hour of the day (UTC): a morning and an evening peak
HOURS = [1, 1, 0, 0, 0, 1, 4, 10, 14, 8, 6, 6, 8, 7, 6, 7, 10, 15, 13, 9, 6, 4, 3, 2]
#: unit cost range (EUR), unit weight range (kg) and quantity range of each product group
GROUPS = {
    "Fasteners": (0.04, 0.9, 0.004, 0.02, 400, 5_000),
    "Paint": (8, 60, 1, 5, 5, 80),
    "Cables": (15, 400, 0.5, 12, 2, 40),
    "Tools": (20, 2_500, 0.3, 8, 1, 15),
    "Adhesives": (3, 25, 0.1, 1, 10, 200),
}
WAREHOUSES = {"Hamburg": 30, "Rotterdam": 30, "Gdansk": 20, "Milano": 20}
RIDE_COLUMNS = "ride_id,started_at,ended_at,start_station,bike_type,member,distance_km,rating"
LEDGER_COLUMNS = "entry_no,date,warehouse,sku,product_group,movement,qty,unit_cost,weight"


def _eu(x: float, decimals: int) -> str:
    """A number as a European spreadsheet writes it: ``1.234,56``."""
    return f"{x:,.{decimals}f}".translate(str.maketrans(",.", ".,"))


def _weight(rnd: random.Random, kg: float) -> str:
    """A weight as the scale's operator typed it: grams or kilograms."""
    if kg < 10 and rnd.random() < 0.6:
        return f"{round(kg * 1000)} g"
    return f"{_eu(kg, 1)} kg"


def _ssv(header: list[str], rows: list[list[Any]]) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out, delimiter=";", lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue().encode()


def generate_fresh5_files(seed: int = SEED) -> dict[str, bytes]:
    """``bike_rides.csv`` (May to August 2024) and ``stock_ledger.csv`` (January to June 2024)."""
    rnd = random.Random(seed)
    members = {c: rnd.uniform(0.4, 0.75) for c in CITIES}
    starts = sorted(
        pd.Timestamp("2024-05-01")
        + pd.Timedelta(days=rnd.randrange(123), hours=rnd.choices(range(24), HOURS)[0])
        + pd.Timedelta(seconds=rnd.randrange(3600))
        for _ in range(640)
    )
    rides: list[list[Any]] = []
    for i, start in enumerate(starts):
        city = rnd.choice(list(CITIES))
        member, electric = rnd.random() < members[city], rnd.random() < 0.4
        secs = rnd.gammavariate(2.2, 330) if member else rnd.gammavariate(2, 600)
        secs = round(max(90, secs * (0.85 if electric else 1)))
        secs += rnd.randint(3600, 9000) if rnd.random() < 0.02 else 0
        speed = rnd.uniform(13, 20) if electric else rnd.uniform(10, 16)
        began = int(start.timestamp())
        row = [
            f"R{70001 + i}",
            began,
            began + secs,
            f"{rnd.choice(CITIES[city])}, {city}",
            "electric" if electric else "classic",
            rnd.choice(["1", "TRUE"] if member else ["0", "FALSE"]),
            round(secs / 3600 * speed * rnd.uniform(0.5, 1), 2),
            "" if rnd.random() < 0.35 else f"{rnd.choices(range(1, 6), [5, 8, 20, 37, 30])[0]}/5",
        ]
        rides += [row, row] if rnd.random() < 0.03 else [row]
    skus = {}
    for group, (clo, chi, wlo, whi, _, _) in GROUPS.items():
        for k in range(5):
            cost = math.exp(rnd.uniform(math.log(clo), math.log(chi)))
            skus[f"{group[:2].upper()}-{101 + k}"] = (group, cost, rnd.uniform(wlo, whi))
    stock: dict[tuple[str, str], int] = {}  # nothing ships that is not in stock
    ledger = []
    for i, day in enumerate(sorted(rnd.randint(0, 179) for _ in range(480))):
        sku = rnd.choice(list(skus))
        group, cost, unit_kg = skus[sku]
        where = rnd.choices(list(WAREHOUSES), list(WAREHOUSES.values()))[0]
        inbound = rnd.random() < 0.3 or not stock.get((where, sku))
        qlo, qhi = GROUPS[group][4:]
        qty = max(1, round(rnd.uniform(qlo, qhi) * (1 if inbound else 0.3)))
        qty = 50 * max(1, round(qty / 50)) if group == "Fasteners" else qty
        qty = qty if inbound else min(qty, stock[where, sku])
        stock[where, sku] = stock.get((where, sku), 0) + (qty if inbound else -qty)
        ledger.append(
            [
                f"L{2001 + i}",
                (pd.Timestamp("2024-01-02") + pd.Timedelta(days=day)).strftime("%Y-%m-%d"),
                where,
                sku,
                group,
                "IN" if inbound else "OUT",
                _eu(qty, 0),
                _eu(cost * rnd.uniform(0.95, 1.05), 2),
                _weight(rnd, qty * unit_kg * rnd.uniform(0.98, 1.02)),
            ]
        )
    return {
        "bike_rides.csv": _csv(RIDE_COLUMNS.split(","), rides),
        "stock_ledger.csv": _ssv(LEDGER_COLUMNS.split(","), ledger),
    }


def _frames(files: dict[str, bytes]) -> dict[str, pd.DataFrame]:
    br = pd.read_csv(io.BytesIO(files["bike_rides.csv"])).drop_duplicates()
    br["start"] = pd.to_datetime(br.started_at, unit="s")
    br["minutes"] = (br.ended_at - br.started_at) / 60
    br["city"] = br.start_station.str.split(",").str[1].str.strip()
    br["is_member"] = br.member.astype(str).str.upper().isin(["1", "TRUE"])
    br["stars"] = br.rating.str.split("/").str[0].astype(float)
    sl = pd.read_csv(io.BytesIO(files["stock_ledger.csv"]), sep=";", decimal=",", thousands=".")
    parts = sl.weight.str.extract(r"^([\d.,]+)\s*(kg|g)$")
    value = parts[0].str.replace(".", "").str.replace(",", ".").astype(float)
    sl["kg"] = value.where(parts[1] == "kg", value / 1000)
    sl["net"] = sl.qty.where(sl.movement == "IN", -sl.qty)
    return {"bike_rides.csv": br, "stock_ledger.csv": sl}


QFn = Callable[[pd.DataFrame], tuple[str, list[Answer]]]
DUPES = "Some rides were logged twice (the whole row repeated): drop the duplicate rows first"
EPOCH = "started_at and ended_at are Unix timestamps in seconds (UTC)"
MEMBER = "The member column holds 1 or TRUE for a member and 0 or FALSE for a casual rider"
RATING = "rating is text such as '4/5' (4 out of 5), empty when the rider gave none"
CITY = "start_station holds the station and its city, as in 'Bellecour, Lyon'"
SEMI = "The file is semicolon-separated"
EURO = (
    "The file is semicolon-separated and writes numbers the European way, with a decimal comma "
    "and a dot between thousands ('1.234,56' is 1234.56, a qty of '2.350' is 2350)"
)
WEIGHT = "weight is text in grams or kilograms ('850 g', '12,5 kg'); convert it to kilograms"
MOVE = "movement is 'IN' for goods received and 'OUT' for goods shipped"


def b01(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "How many rides were made on electric bikes?",
        f"{DUPES}. Count rows whose bike_type is 'electric'.",
        _num("electric_rides", "the count", None),
    ), [Answer("electric_rides", int((d.bike_type == "electric").sum()))]


def b02(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "What is the mean distance of a ride in kilometres?",
        f"{DUPES}. Use the distance_km column and every remaining ride.",
        _num("mean_distance", "the mean in km", 2),
    ), [Answer("mean_distance", d.distance_km.mean(), 2)]


def b03(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "How many rides were not rated by the rider?",
        f"{DUPES}. Count the rows whose rating is empty.",
        _num("unrated_rides", "the count", None),
    ), [Answer("unrated_rides", int(d.rating.isna().sum()))]


def l01(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "How many ledger entries are shipments out of a warehouse?",
        f"{SEMI}. Count rows whose movement is 'OUT'.",
        _num("out_entries", "the count", None),
    ), [Answer("out_entries", int((d.movement == "OUT").sum()))]


def l02(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "How many ledger entries were made at the Gdansk warehouse?",
        f"{SEMI}. Count rows whose warehouse is 'Gdansk'.",
        _num("gdansk_entries", "the count", None),
    ), [Answer("gdansk_entries", int((d.warehouse == "Gdansk").sum()))]


def l03(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "On how many different days was at least one ledger entry made?",
        f"{SEMI}. Count the distinct values of the date column.",
        _num("active_days", "the count", None),
    ), [Answer("active_days", int(d.date.nunique()))]


def b04(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "How many rides were made by members?",
        f"{DUPES}. {MEMBER}.",
        _num("member_rides", "the count", None),
    ), [Answer("member_rides", int(d.is_member.sum()))]


def b05(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "What is the mean rating of the rated rides, out of 5?",
        f"{DUPES}. {RATING}; read '4/5' as 4 and leave out rides without a rating.",
        _num("mean_rating", "the mean rating", 2),
    ), [Answer("mean_rating", d.stars.mean(), 2)]


def b06(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "How many rides started in Nantes?",
        f"{DUPES}. {CITY}; count the rides whose city is Nantes.",
        _num("nantes_rides", "the count", None),
    ), [Answer("nantes_rides", int((d.city == "Nantes").sum()))]


def b07(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "How many rides started in July 2024?",
        f"{DUPES}. {EPOCH}; use the UTC date of started_at.",
        _num("july_rides", "the count", None),
    ), [Answer("july_rides", int((d.start.dt.month == 7).sum()))]


def l04(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "What is the mean unit cost over all ledger entries, in euros?",
        f"{EURO}. Use the unit_cost column and every entry.",
        _num("mean_unit_cost", "the mean in euros", 2),
    ), [Answer("mean_unit_cost", d.unit_cost.mean(), 2)]


def l05(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "What is the total weight of all ledger entries, in kilograms?",
        f"{SEMI}. {WEIGHT}. Sum over every entry, received and shipped.",
        _num("total_kg", "the total in kg", 2),
    ), [Answer("total_kg", d.kg.sum(), 2)]


def l06(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "How many ledger entries have a unit cost above 100 euros?",
        f"{EURO}. Count the entries whose unit_cost is greater than 100.",
        _num("costly_entries", "the count", None),
    ), [Answer("costly_entries", int((d.unit_cost > 100).sum()))]


def b08(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    share = d.groupby("city").is_member.mean() * 100
    return _q(
        "Which city has the highest share of rides made by members, and what is that share as "
        "a percentage?",
        f"{DUPES}. {CITY}. {MEMBER}. For each city, divide its number of member rides by its "
        "number of rides, times 100.",
        '@city[city_name] where "city_name" is the city. '
        + _num("member_pct", "the percentage", 2),
    ), [Answer("city", share.idxmax()), Answer("member_pct", share.max(), 2)]


def b09(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    gap = d.minutes[~d.is_member].mean() - d.minutes[d.is_member].mean()
    return _q(
        "How many minutes longer is the mean ride of casual riders than the mean ride of members?",
        f"{DUPES}. {EPOCH}; a ride lasts from started_at to ended_at. {MEMBER}. Subtract the "
        "members' mean duration from the casual riders' mean duration.",
        _num("casual_gap", "the difference in minutes", 2),
    ), [Answer("casual_gap", gap, 2)]


def b10(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    hours = d.start.dt.hour.value_counts()
    return _q(
        "In which hour of the day did the most rides start, and how many rides started in it?",
        f"{DUPES}. {EPOCH}. Group the rides by the UTC hour (0-23) of started_at over the "
        "whole period.",
        _num("peak_hour", "the hour, 0-23", None)
        + " "
        + _num("peak_rides", "the number of rides that started in that hour", None),
    ), [Answer("peak_hour", int(hours.idxmax())), Answer("peak_rides", int(hours.max()))]


def l07(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    paint = d[(d.product_group == "Paint") & (d.movement == "IN")]
    v = (paint.qty * paint.unit_cost).sum() / paint.qty.sum()
    return _q(
        "What is the quantity-weighted mean unit cost of the Paint received into the warehouses?",
        f"{EURO}. {MOVE}. Only rows whose product_group is 'Paint' and movement is 'IN'; "
        "weight each unit_cost by the entry's qty: sum(qty * unit_cost) / sum(qty).",
        _num("paint_cost", "the weighted mean in euros", 2),
    ), [Answer("paint_cost", v, 2)]


def l08(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    net = d.groupby("sku").net.sum()
    return _q(
        "Which SKU gained the most stock over the ledger's period, and by how many units?",
        f"{EURO}. {MOVE}. The stock change of a SKU is the qty it received minus the qty it "
        "shipped, over all warehouses.",
        '@sku[sku_code] where "sku_code" is the SKU. '
        + _num("sku_gain", "the stock change in units", None),
    ), [Answer("sku", net.idxmax()), Answer("sku_gain", int(net.max()))]


def l09(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    hamburg = d[d.warehouse == "Hamburg"]
    stock = hamburg.groupby("date").net.sum().cumsum()
    return _q(
        "Counting all of its products together, on which day was the stock of the Hamburg "
        "warehouse highest, and how many units did it hold at the end of that day?",
        f"{EURO}. {MOVE}. Only rows whose warehouse is 'Hamburg'. Start from 0 before the "
        "first entry, add the qty of every IN entry and subtract the qty of every OUT entry, "
        "day by day; take the running total at the end of each day with entries.",
        '@peak_day[date] where "date" is the day in YYYY-MM-DD format. '
        + _num("peak_stock", "the running total in units at the end of that day", None),
    ), [Answer("peak_day", str(stock.idxmax())), Answer("peak_stock", int(stock.max()))]


def l10(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    cables = d[d.product_group == "Cables"]
    return _q(
        "Over the Cables entries, what is the Pearson correlation coefficient between the "
        "quantity and the weight in kilograms?",
        f"{EURO}. {WEIGHT}. Only rows whose product_group is 'Cables'; use qty and the weight.",
        _num("r_qty_weight", "the coefficient", 2),
    ), [Answer("r_qty_weight", cables.qty.corr(cables.kg), 2)]


FRESH5: list[tuple[str, str, str, QFn]] = [
    ("fresh5_electric_rides", "easy", "bike_rides.csv", b01),
    ("fresh5_mean_distance", "easy", "bike_rides.csv", b02),
    ("fresh5_unrated_rides", "easy", "bike_rides.csv", b03),
    ("fresh5_out_entries", "easy", "stock_ledger.csv", l01),
    ("fresh5_gdansk_entries", "easy", "stock_ledger.csv", l02),
    ("fresh5_active_days", "easy", "stock_ledger.csv", l03),
    ("fresh5_member_rides", "medium", "bike_rides.csv", b04),
    ("fresh5_mean_rating", "medium", "bike_rides.csv", b05),
    ("fresh5_nantes_rides", "medium", "bike_rides.csv", b06),
    ("fresh5_july_rides", "medium", "bike_rides.csv", b07),
    ("fresh5_mean_unit_cost", "medium", "stock_ledger.csv", l04),
    ("fresh5_total_kg", "medium", "stock_ledger.csv", l05),
    ("fresh5_costly_entries", "medium", "stock_ledger.csv", l06),
    ("fresh5_member_share", "hard", "bike_rides.csv", b08),
    ("fresh5_casual_gap", "hard", "bike_rides.csv", b09),
    ("fresh5_peak_hour", "hard", "bike_rides.csv", b10),
    ("fresh5_paint_cost", "hard", "stock_ledger.csv", l07),
    ("fresh5_sku_gain", "hard", "stock_ledger.csv", l08),
    ("fresh5_hamburg_peak", "hard", "stock_ledger.csv", l09),
    ("fresh5_qty_weight_corr", "hard", "stock_ledger.csv", l10),
]


def build_fresh5_questions(files: dict[str, bytes]) -> list[Question]:
    """The twenty questions with answers computed from ``files`` (split ``fresh5``)."""
    return build_split(FRESH5, _frames(files), "fresh5")
