"""Twenty more fresh questions (split ``fresh23``), in the public benchmark's instruction style,
over a Scottish island ferry operator's crossings log, written blind (without looking at how the
agent handles data) and never used to tune anything (run it with ``--split fresh23``); keep it so.

``ferry_crossings.csv`` (a fixed seed; about 800 scheduled sailings, May to September 2024) opens
with two title lines, padded with commas, above its header row, and two header names carry a stray
space (``" Vessel"``, ``"Passengers "``); dates are ISO (``"2024-07-14"``) or ``"14-Jul-24"``;
vessels are written with or without ``"MV "`` in front and in any case (``"MV LOCH SEIL"``); fuel
is litres with a unit and, at times, a comma between thousands (``"1,240 L"``, ``"1240 litres"``);
revenue is pounds with or without ``"£"`` and commas; what a cancelled sailing (or an unread fuel
meter) lacks is ``"N/A"``, ``"--"`` or empty. ``vessels.csv`` is keyed by the plain vessel names;
three questions join it (``Question.other_files``), one is about it alone. Answers are computed
with pandas; the seed (15) is the first from 9 that ``problems`` passes (``python
answer_data_fresh23.py`` scans): no asked top ties or near ties, nothing on an asked threshold, no
float within 0.0005 of a rounding boundary, no example value an answer.
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

SEED = 15
CROSSINGS, VESSELS_CSV = "ferry_crossings.csv", "vessels.csv"
#: vessel: (built, passengers and cars it may carry, length in metres, propulsion, litres of fuel
#: a nautical mile)
VESSELS: dict[str, tuple[int, int, int, float, str, float]] = {
    "Hebridean Star": (1998, 950, 90, 85.0, "Diesel", 55),
    "Lord of the Sound": (1989, 600, 54, 73.6, "Diesel", 48),
    "Sound of Sleat": (2019, 250, 24, 42.0, "Hybrid", 14),
    "Loch Seil": (1993, 150, 12, 35.2, "Diesel", 12),
    "Morven Castle": (2022, 850, 127, 102.4, "Diesel", 62),
    "Isle of Kerrera": (2016, 400, 36, 50.3, "Hybrid", 24),
    "Clansman Rose": (1984, 640, 60, 78.0, "Diesel", 50),
    "Isle of Gigha": (2003, 300, 30, 55.0, "Diesel", 20),
}
#: route: (nautical miles, demand, departures, fares for a passenger and a car)
ROUTES: dict[str, tuple[int, float, str, float, float]] = {
    "Oban - Craignure": (8, 0.8, "07:45 09:55 12:00 14:00 16:00 18:00", 4.10, 16.90),
    "Mallaig - Armadale": (5, 0.95, "08:40 10:20 12:10 14:50 17:30", 3.20, 11.30),
    "Ullapool - Stornoway": (44, 0.7, "09:30 14:30", 10.40, 51.50),
    "Oban - Lismore": (6, 0.55, "08:15 11:45 16:10", 3.05, 13.20),
    "Kennacraig - Port Askaig": (26, 0.75, "07:00 13:00 18:00", 7.95, 35.90),
    "Uig - Tarbert": (23, 0.65, "09:40 14:00 19:15", 6.95, 31.10),
}
#: the vessels of each route, and how often each sails it
FLEETS: dict[str, dict[str, int]] = {
    "Oban - Craignure": {"Hebridean Star": 3, "Lord of the Sound": 2},
    "Mallaig - Armadale": {"Sound of Sleat": 4, "Isle of Gigha": 1},
    "Ullapool - Stornoway": {"Morven Castle": 1},
    "Oban - Lismore": {"Loch Seil": 4, "Isle of Gigha": 1},
    "Kennacraig - Port Askaig": {"Isle of Kerrera": 2, "Clansman Rose": 1},
    "Uig - Tarbert": {"Clansman Rose": 2, "Isle of Kerrera": 1},
}
MONTHS = {5: 0.5, 6: 0.62, 7: 0.8, 8: 0.86, 9: 0.55}  # the season's demand
BLANK, SAILED = ["N/A", "--", ""], "Sailed"
WEATHER, TECHNICAL = "Cancelled - Weather", "Cancelled - Technical"
TITLE = ["Hebridean Link Ferries - Crossings Log", "Season: Summer 2024 (01/05/2024 - 30/09/2024)"]
HEADER = "Sailing Ref,Date,Route, Vessel,Sched Dep,Actual Dep,Status,Passengers ,Cars,Fuel Used,"
HEADER += "Revenue (£)"


def _sailing(rnd: random.Random, day: date, route: str, slot: str) -> list[str]:
    """One scheduled sailing of ``route`` at ``slot`` on ``day``: a row without its number."""
    (nm, demand, _, fare, car_fare), fleet = ROUTES[route], FLEETS[route]
    vessel = rnd.choices(list(fleet), list(fleet.values()))[0]
    built, seats, deck, _, _, per_nm = VESSELS[vessel]
    weather = 0.01 + 0.0015 * nm + 0.025 * (day.month in (5, 9))
    status = rnd.choices([SAILED, WEATHER, TECHNICAL], [1, weather, 0.012 + 0.03 * (built < 1990)])
    when = f"{day:%Y-%m-%d}" if rnd.random() < 0.55 else f"{day:%d-%b-%y}"
    name = rnd.choices(
        [vessel, f"MV {vessel}", vessel.upper(), f"MV {vessel.upper()}"], [5, 3, 1, 1]
    )
    row = [when, route, name[0], slot]
    if status[0] != SAILED:
        return [*row, rnd.choice(BLANK), status[0], *[rnd.choice(BLANK) for _ in range(4)]]
    load = demand * MONTHS[day.month] * (0.75 + 0.4 * (slot[:2] in ("09", "12", "14")))
    pax = round(seats * min(0.99, max(0.02, rnd.gauss(load * 170 / (seats**0.5 + 150), 0.12))))
    pax += pax == 500  # never on a threshold asked about
    cars = round(deck * min(1.0, max(0.0, rnd.gauss(load * 1.05, 0.15))))
    cars += 1 if cars == 0.9 * deck else 0
    late = rnd.choice([0, 0, 1, 2, 3, 4]) if rnd.random() < 0.7 else int(rnd.expovariate(1 / 12))
    late += 3 * (day.month == 8) * (rnd.random() < 0.4) + (nm > 20) * (late > 3)
    late += late == 10  # never on a threshold asked about
    hh, mm = map(int, slot.split(":"))
    actual = f"{(hh * 60 + mm + late) // 60:02d}:{(hh * 60 + mm + late) % 60:02d}"
    litres = round(nm * per_nm * (1 + 0.15 * cars / deck) * rnd.uniform(0.92, 1.08))
    fuel = rnd.choices([f"{litres:,} L", f"{litres} L", f"{litres:,} litres"], [5, 3, 2])[0]
    fuel = rnd.choice(BLANK) if rnd.random() < 0.04 else fuel
    paid = round(pax * fare * rnd.uniform(0.82, 0.97) + cars * car_fare * rnd.uniform(0.9, 1), 2)
    money = rnd.choices([f"£{paid:,.2f}", f"{paid:.2f}", f"£{paid:.2f}"], [5, 3, 2])[0]
    return [*row, actual, SAILED, str(pax), str(cars), fuel, money]


def generate_fresh23_files(seed: int = SEED) -> dict[str, bytes]:
    """``ferry_crossings.csv`` (the 2024 summer season) and ``vessels.csv``."""
    rnd, body = random.Random(seed), list[list[str]]()
    slots = [
        (t, r) for r, v in ROUTES.items() for t in v[2].split()
    ]  # the log: one departure in four
    for i in range(153):  # 1 May to 30 September 2024
        day = date(2024, 5, 1) + timedelta(days=i)
        for slot, route in sorted(s for s in slots if rnd.random() < 0.24):
            body.append([f"HLF-{len(body) + 1:05d}", *_sailing(rnd, day, route, slot)])
    head = ["Vessel", "Built", "Passenger Capacity", "Car Capacity", "Length (m)", "Propulsion"]
    table = [[k, *v[:3], f"{v[3]:.1f}", v[4]] for k, v in VESSELS.items()]
    pad = "," * HEADER.count(",")  # a spreadsheet pads its title lines to the header's width
    log = "".join(f"{t}{pad}\n" for t in TITLE).encode() + _csv(HEADER.split(","), body)
    return {CROSSINGS: log, VESSELS_CSV: _csv(head, table)}


def _number(text: pd.Series) -> pd.Series:  # "£1,234.50", "1,240 L", "1240 litres"
    return pd.to_numeric(text.str.replace(r"^£|,| L$| litres$", "", regex=True), errors="coerce")


def _minutes(text: pd.Series) -> pd.Series:
    t = pd.to_datetime(text, format="%H:%M", errors="coerce")
    return t.dt.hour * 60 + t.dt.minute


def _frames(files: dict[str, bytes]) -> dict[str, pd.DataFrame]:
    raw = pd.read_csv(io.BytesIO(files[CROSSINGS]), skiprows=2, dtype=str, keep_default_na=False)
    d = raw.rename(columns=str.strip)
    iso = pd.to_datetime(d.Date, format="%Y-%m-%d", errors="coerce")
    d["day"] = iso.fillna(pd.to_datetime(d.Date, format="%d-%b-%y", errors="coerce"))
    d["month"], d["sailed"] = d.day.dt.month, d.Status == SAILED
    d["vessel"] = d.Vessel.str.upper().str.removeprefix("MV ").map({v.upper(): v for v in VESSELS})
    d["late"] = _minutes(d["Actual Dep"]) - _minutes(d["Sched Dep"])
    d["pax"], d["cars"] = _number(d.Passengers), _number(d.Cars)
    d["fuel"], d["paid"] = _number(d["Fuel Used"]), _number(d["Revenue (£)"])
    v = pd.read_csv(io.BytesIO(files[VESSELS_CSV]))
    d = d.merge(v, left_on="vessel", right_on="Vessel", how="left", suffixes=("", "_v"))
    d["load"] = d.pax / d["Passenger Capacity"] * 100
    d.attrs["header"] = list(raw.columns)
    return {CROSSINGS: d, VESSELS_CSV: v}


E = (
    "Every row of ferry_crossings.csv is one scheduled sailing of a ferry operator in the "
    "Hebrides, Scotland, in the summer season of 2024 (May to September). The file opens with two "
    "title lines above its header row, and some header names have a stray space before or after "
    "them (' Vessel', 'Passengers ')"
)
DATE = "Date is written as YYYY-MM-DD or as day-month-year ('2024-07-14' and '14-Jul-24' are alike)"
STATUS = (
    "Status is 'Sailed', 'Cancelled - Weather' or 'Cancelled - Technical'; a cancelled sailing has "
    "'N/A', '--' or empty in Actual Dep, Passengers, Cars, 'Fuel Used' and 'Revenue (£)'"
)
SAILINGS = "the completed sailings (Status 'Sailed')"
VESSEL = (
    "Vessel is the ship's name, in any case and with or without 'MV ' in front ('Loch Seil', 'MV "
    "Loch Seil' and 'MV LOCH SEIL' are one vessel)"
)
DELAY = (
    "'Sched Dep' and 'Actual Dep' are the scheduled and actual departure times on a 24-hour clock "
    "('14:05'); a sailing's delay is Actual Dep minus Sched Dep in minutes (none left early and "
    "none departed after midnight)"
)
PAX = "Passengers and Cars are how many passengers and cars a completed sailing carried"
FUEL = (
    "'Fuel Used' is in litres, with or without a comma between thousands, followed by ' L' or ' "
    "litres' ('1,240 L', '1240 L' and '1,240 litres' are all 1240), or 'N/A', '--' or empty if "
    "it was not recorded"
)
PAID = (
    "'Revenue (£)' is the fares taken, in pounds, with or without '£' in front and a comma between "
    "thousands ('£1,234.50', '1234.50' and '£1234.50' are all 1234.50)"
)
JOIN = (
    f"{VESSEL}. vessels.csv has one row per vessel of the operator: Vessel (its name, without MV, "
    "'Loch Seil'), Built (the year), 'Passenger Capacity', 'Car Capacity', 'Length (m)' and "
    "Propulsion ('Diesel' or 'Hybrid'); join each sailing to the row of its vessel"
)
KEYS = {
    "route": '@route[route_name] where "route_name" is the Route as written, e.g. Oban - Lismore. ',
    "vessel": '@vessel[vessel_name] where "vessel_name" is the name as in vessels.csv, without MV, '
    "e.g. Loch Seil. ",
}
EXAMPLES = {"Oban - Lismore", "Loch Seil", "1240", "1234.50"}
#: what each "which ... the most" question ranks, and how far its top must lie above the next
RANKED: dict[str, tuple[Callable[[pd.DataFrame], pd.Series], float]] = {
    "route": (lambda d: d.groupby("Route").pax.sum(), 100),
    "vessel": (lambda d: d[d.sailed].vessel.value_counts(), 3),
    "load": (lambda d: d.groupby("vessel").load.mean(), 0.5),
    "delay": (lambda d: d.groupby("Route").late.mean(), 0.1),
}


def _top(question: str, constraints: str, key: str, num: Num, ranked: str = "") -> QFn:
    """Which ``key`` has the largest value of ``RANKED[ranked or key]``, and that value."""

    def fn(d: pd.DataFrame) -> tuple[str, list[Answer]]:
        values = RANKED[ranked or key][0](d)
        top = values.max() if num[2] else int(values.max())
        answers = [Answer(key, str(values.idxmax())), Answer(num[0], top, num[2])]
        return _q(question, constraints, KEYS[key] + _num(*num)), answers

    return fn


e01 = _count(
    "How many scheduled sailings were cancelled?",
    f"{E}. {STATUS}. Count the sailings whose Status is 'Cancelled - Weather' or 'Cancelled - "
    "Technical'.",
    "cancelled_sailings",
    lambda d: ~d.sailed,
)
e02 = _count(
    "How many sailings were cancelled because of the weather?",
    f"{E}. {STATUS}. Count the sailings whose Status is 'Cancelled - Weather'.",
    "weather_cancellations",
    lambda d: d.Status == WEATHER,
)
e03 = _count(
    "How many sailings did the Lord of the Sound complete?",
    f"{E}. {STATUS}. {VESSEL}. Count {SAILINGS} whose Vessel is the Lord of the Sound.",
    "lord_sailings",
    lambda d: d.sailed & (d.vessel == "Lord of the Sound"),
)
e04 = _count(
    "How many sailings carried more than 500 passengers?",
    f"{E}. {STATUS}. {PAX}. Count {SAILINGS} whose Passengers is more than 500.",
    "busy_sailings",
    lambda d: d.pax > 500,
)
e05 = _count(
    "How many sailings were scheduled in July 2024?",
    f"{E}. {DATE}. Count the sailings, completed or cancelled, whose Date is in July 2024.",
    "july_sailings",
    lambda d: d.month == 7,
)
f01 = _count(
    "How many of the ferry operator's vessels were built before the year 2000?",
    "vessels.csv has one row per vessel of a ferry operator in the Hebrides, Scotland; Built is "
    "the year the vessel was built. Count the vessels whose Built is earlier than 2000.",
    "old_vessels",
    lambda v: v.Built < 2000,
)
m01 = _value(
    "How many passengers did the operator carry in the 2024 season?",
    f"{E}. {STATUS}. {PAX}. Add up the Passengers of {SAILINGS}.",
    ("total_passengers", "the total", None),
    lambda d: int(d.pax.sum()),
)
m02 = _top(
    "Which route carried the most passengers, and how many?",
    f"{E}. {STATUS}. {PAX}. Add up the Passengers of {SAILINGS} of each Route.",
    "route",
    ("route_passengers", "the total", None),
)
m03 = _value(
    "How many passengers did a completed Oban - Craignure sailing carry on average?",
    f"{E}. {STATUS}. {PAX}. Take the mean Passengers of {SAILINGS} whose Route is 'Oban - "
    "Craignure'.",
    ("craignure_mean_passengers", "the mean", 2),
    lambda d: d.pax[d.Route == "Oban - Craignure"].mean(),
)
m04 = _value(
    "How many litres of fuel did a completed sailing use on average?",
    f"{E}. {STATUS}. {FUEL}. Take the mean 'Fuel Used' of {SAILINGS} where it was recorded.",
    ("mean_fuel_litres", "the mean in litres", 2),
    lambda d: d.fuel.mean(),
)
m05 = _value(
    "How much revenue, in pounds, did the season's sailings take in all?",
    f"{E}. {STATUS}. {PAID}. Add up the 'Revenue (£)' of {SAILINGS}.",
    ("total_revenue", "the total in pounds", 2),
    lambda d: d.paid.sum(),
)
m06 = _top(
    "Which vessel completed the most sailings, and how many?",
    f"{E}. {STATUS}. {VESSEL}. Count {SAILINGS} of each vessel.",
    "vessel",
    ("vessel_sailings", "the count", None),
)
m07 = _value(
    "What is the median departure delay of the completed sailings, in minutes?",
    f"{E}. {STATUS}. {DELAY}. Take the median delay of {SAILINGS}.",
    ("median_delay_minutes", "the median in minutes", 2),
    lambda d: d.late.median(),
)
h01 = _top(
    "Which vessel sailed the fullest on average, and with what passenger load factor?",
    f"{E}. {STATUS}. {PAX}. {JOIN}. A sailing's load factor is its Passengers as a percentage of "
    f"its vessel's 'Passenger Capacity'; for each vessel, take the mean load factor of {SAILINGS}.",
    "vessel",
    ("load_factor_pct", "the mean load factor in percent", 2),
    "load",
)
h02 = _value(
    "How many litres of fuel did a completed sailing of a hybrid vessel use on average?",
    f"{E}. {STATUS}. {FUEL}. {JOIN}. Take the mean 'Fuel Used' of {SAILINGS} whose vessel's "
    "Propulsion is Hybrid, where it was recorded.",
    ("hybrid_mean_fuel", "the mean in litres", 2),
    lambda d: d.fuel[d.Propulsion == "Hybrid"].mean(),
)
h03 = _count(
    "How many sailings filled more than 90% of their vessel's car deck?",
    f"{E}. {STATUS}. {PAX}. {JOIN}. Count {SAILINGS} whose Cars is more than 90% of (0.9 times) "
    "their vessel's 'Car Capacity'.",
    "full_car_decks",
    lambda d: d.cars > 0.9 * d["Car Capacity"],
)
h04 = _value(
    "What percentage of the sailings completed in August 2024 left more than 10 minutes late?",
    f"{E}. {DATE}. {STATUS}. {DELAY}. Of {SAILINGS} whose Date is in August 2024, take the "
    "percentage whose delay is more than 10 minutes.",
    ("august_late_pct", "the percentage", 2),
    lambda d: (d.late[d.sailed & (d.month == 8)] > 10).mean() * 100,
)
h05 = _value(
    "By what percentage did the passengers carried grow from June 2024 to July 2024?",
    f"{E}. {DATE}. {STATUS}. {PAX}. Add up the Passengers of {SAILINGS} in June 2024 and in "
    "July 2024, and take the change from June to July as a percentage of June's total.",
    ("june_july_growth_pct", "the percentage change", 2),
    lambda d: (d.pax[d.month == 7].sum() / d.pax[d.month == 6].sum() - 1) * 100,
)
h06 = _top(
    "On which route did the completed sailings leave the latest on average, and how late?",
    f"{E}. {STATUS}. {DELAY}. Take the mean delay of {SAILINGS} of each Route.",
    "route",
    ("mean_delay_minutes", "the mean delay in minutes", 2),
    "delay",
)
h07 = _value(
    "What is the Pearson correlation between cars carried and revenue on Ullapool - Stornoway?",
    f"{E}. {STATUS}. {PAX}. {PAID}. Over {SAILINGS} whose Route is 'Ullapool - Stornoway', take "
    "the Pearson correlation coefficient of Cars and 'Revenue (£)'.",
    ("stornoway_cars_revenue_corr", "the correlation coefficient", 2),
    lambda d: d.cars[d.Route == "Ullapool - Stornoway"].corr(
        d.paid[d.Route == "Ullapool - Stornoway"]
    ),
)

#: the questions of each level, keyed by their ids without "fresh23_" (f01 is over vessels.csv)
EASY = {"cancelled_sailings": e01, "weather_cancellations": e02, "lord_sailings": e03}
EASY |= {"busy_sailings": e04, "july_sailings": e05, "old_vessels": f01}
MEDIUM = {"total_passengers": m01, "top_route": m02, "craignure_mean_passengers": m03}
MEDIUM |= {"mean_fuel_litres": m04, "total_revenue": m05, "top_vessel": m06}
MEDIUM |= {"median_delay_minutes": m07}
HARD = {"top_load_factor": h01, "hybrid_mean_fuel": h02, "full_car_decks": h03}
HARD |= {"august_late_pct": h04, "june_july_growth_pct": h05, "latest_route": h06}
HARD |= {"stornoway_cars_revenue_corr": h07}
FRESH23: list[tuple[str, str, str, QFn]] = [
    (f"fresh23_{name}", level, VESSELS_CSV if fn is f01 else CROSSINGS, fn)
    for level, table in (("easy", EASY), ("medium", MEDIUM), ("hard", HARD))
    for name, fn in table.items()
]
#: questions that need another file besides their own (uploaded and described with it)
JOINS = {f"fresh23_{q}": (VESSELS_CSV,) for q in list(HARD)[:3]}  # the first three hard ones


def build_fresh23_questions(files: dict[str, bytes]) -> list[Question]:
    """The twenty questions with answers computed from ``files`` (split ``fresh23``)."""
    built = build_split(FRESH23, _frames(files), "fresh23")
    return [replace(q, other_files=JOINS.get(q.id, ())) for q in built]


def problems(seed: int) -> list[str]:
    """Why the data of ``seed`` would make a question ambiguous or fragile (empty: fine)."""
    files = generate_fresh23_files(seed)
    d, v = _frames(files).values()
    answers = [a for q in build_fresh23_questions(files) for a in q.answers]
    near = {a.name: abs(a.value * 10**n % 1 - 0.5) / 10**n for a in answers if (n := a.decimals)}
    out = [f"{name} near a rounding boundary" for name, x in near.items() if x <= 0.00051]
    out += [f"{n} tie" for n, (by, gap) in RANKED.items() if _gap(by(d)) < gap]
    tops = {str(by(d).idxmax()) for by, _ in RANKED.values()}
    blank, names = r"|^(N/A)$|^(--)$|^()$", "|".join(VESSELS)
    forms = {  # every value has one of these forms, and every form is used
        "Date": r"^(2024-0[5-9]-\d\d)$|^(\d\d-(?:May|Jun|Jul|Aug|Sep)-24)$",
        "Vessel": rf"^({names})$|^MV ({names})$|^({names.upper()})$|^MV ({names.upper()})$",
        "Actual Dep": r"^([012]\d:[0-5]\d)$" + blank,
        "Status": rf"^({SAILED})$|^({WEATHER})$|^({TECHNICAL})$",
        "Passengers": r"^(\d{1,3})$" + blank,
        "Fuel Used": r"^(\d{1,3}(?:,\d{3})? L)$|^(\d+ L)$|^(\d{1,3}(?:,\d{3})? litres)$" + blank,
        "Revenue (£)": r"^(£\d{1,3}(?:,\d{3})*\.\d\d)$|^(\d+\.\d\d)$|^(£\d+\.\d\d)$" + blank,
    }
    found = {c: d[c].str.extract(p).notna() for c, p in forms.items()}
    checks = {f"a {c} form": x.any(axis=1).all() and x.any().all() for c, x in found.items()}
    done = d[d.sailed]
    checks |= {
        "a value unread": done[["day", "vessel", "late", "pax", "cars", "paid"]]
        .notna()
        .all()
        .all(),
        "a blank unread": d.pax.count() == len(done) and d.fuel.count() < len(done),
        "a plain read fails": pd.read_csv(io.BytesIO(files[CROSSINGS])).shape[1] == 11,
        "the header": d.attrs["header"][3] == " Vessel" and d.attrs["header"][7] == "Passengers ",
        "a comma unused": d["Fuel Used"].str.contains(",").any() and (d.paid >= 1000).any(),
        "on a threshold": not (d.pax == 500).any()
        and not (d.late == 10).any()
        and not (d.cars == 0.9 * d["Car Capacity"]).any()
        and not (v.Built == 2000).any(),
        "an early or late-night sailing": (done.late >= 0).all() and (d.day.notna()).all(),
        "nothing to count": min(h03(d)[1][0].value, e02(d)[1][0].value, e04(d)[1][0].value) > 0,
        "never sailed": set(done.vessel) == set(VESSELS) and set(done.Route) == set(ROUTES),
        "an example is an answer": not EXAMPLES & (tops | {a.expected_text() for a in answers}),
    }
    return out + [name for name, ok in checks.items() if not ok]


if __name__ == "__main__":  # the seed scan: the first seed from 9 that passes every check
    print(next(s for s in range(9, 1000) if not problems(s)))
