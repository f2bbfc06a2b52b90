"""Twenty more fresh questions (split ``fresh21``), in the public benchmark's instruction style,
over a Pune car dealership's booking register, written blind (without looking at how the agent
handles data) and never used to tune anything (run it with ``--split fresh21``); keep it that way.

``vehicle_bookings.csv`` (a fixed seed; 600 bookings of India's fiscal year 2023-24, April to
March) repeats 14 rows, which questions say to drop; dates are ``"05/03/2024"`` or a spreadsheet's
``"2024-03-05 00:00:00"``; Delivery Time is on a 12-hour clock (``"3:05 PM"``, ``"03:05 pm"``);
rupees are grouped in lakhs (``"₹ 7,38,412.50"``), plain or in lakh (``"6.45 L"``); no discount is
``"Nil"``, ``"-"``, ``"0"`` or empty; Finance is ``Y``/``N``, ``Yes``/``No`` or ``1``/``0``;
Promised Wait is a range (``"10 - 12 wks"``); Fuel and Status are hand-typed (``"Electric"``,
``"Deliverd "``); ``Sales  Executive`` has two spaces. The model, the first word of ``Model /
Variant`` (``"Tara VXi CNG"``), is in capitals in ``car_models.csv``; three questions join it
(``Question.other_files``), one is about it alone. Answers are computed with pandas; the seed (7)
is the first ``problems`` passes (``python answer_data_fresh21.py`` scans from 0): no asked top
ties or near ties, nothing on an asked threshold, no float within 0.0005 of a rounding boundary,
no example value that is an answer.
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

SEED = 7
BOOKINGS, MODELS_CSV = "vehicle_bookings.csv", "car_models.csv"
#: model: (segment, seats, {fuel: how often}, lakh, share of bookings, weeks' wait low and high)
MODELS: dict[str, tuple[str, int, dict[str, int], float, int, tuple[int, int]]] = {
    "PIKO": ("Hatchback", 5, {"Petrol": 60, "CNG": 40}, 4.99, 14, (2, 4)),
    "TARA": ("Hatchback", 5, {"Petrol": 65, "CNG": 35}, 6.35, 22, (3, 5)),
    "SAFAR": ("Sedan", 5, {"Petrol": 50, "Diesel": 25, "CNG": 25}, 7.8, 12, (2, 4)),
    "VEGA": ("Compact SUV", 5, {"Petrol": 60, "Diesel": 40}, 9.2, 20, (8, 10)),
    "KAVACH": ("SUV", 5, {"Petrol": 45, "Diesel": 55}, 12.6, 10, (4, 6)),
    "SHERPA": ("SUV", 7, {"Diesel": 100}, 15.9, 6, (10, 12)),
    "YATRI": ("MPV", 7, {"Petrol": 55, "CNG": 45}, 9.7, 10, (12, 16)),
    "BIJLI": ("Compact SUV", 5, {"EV": 100}, 14.5, 6, (6, 8)),
}
#: fuel: (its variants, lakh on top of the petrol price, road tax); a variant's price multiplier
TRIMS = {"Petrol": ("LXi VXi ZXi ZXi+", 0, 0.11), "Diesel": ("LDi VDi ZDi ZDi+", 1.2, 0.13)}
TRIMS |= {"CNG": ("LXi VXi", 0.9, 0.07), "EV": ("Plus Max", 0, 0.0)}
MULT, TRIM_MIX = [1.0, 1.12, 1.25, 1.34], [25, 40, 25, 10]
FUEL_TEXT = {"Petrol": ["Petrol", "PETROL", "petrol"], "Diesel": ["Diesel", "DIESEL", "diesel"]}
FUEL_TEXT |= {"CNG": ["CNG", "cng", "Cng"], "EV": ["EV", "Electric", "ELECTRIC"]}
DISCOUNTS = [0, 5000, 7500, 10000, 12500, 15000, 21000, 25000, 31000, 35000, 45000, 51000]
EXECS = {"Amit Patil": 22, "Sneha Kulkarni": 26, "Rahul Deshmukh": 15, "Pooja Joshi": 14}
EXECS |= {"Vikram Shinde": 12, "Neha Gokhale": 11}
COLOURS = ["Pearl White", "Silky Silver", "Fire Red", "Midnight Black", "Nexa Blue", "Grey"]
MONTHS = dict(enumerate([0.9, 0.85, 1.1, 0.9, 0.85, 0.8, 0.75, 0.9, 1.1, 1.5, 1.3, 0.9], 1))
WEEK = [0.8, 0.7, 0.8, 0.8, 0.9, 1.3, 1.5]  # Monday first
#: Akshaya Tritiya, Ganesh Chaturthi, Dussehra and Dhanteras: many book, many take delivery
FESTIVALS = {date(2023, m, d): x for m, d, x in [(4, 22, 6), (9, 19, 4), (10, 24, 8), (11, 10, 8)]}
STATUS_TEXT = {"Delivered": ["Delivered", "DELIVERED", "delivered", "Deliverd", "Delivered "]}
STATUS_TEXT |= {"Cancelled": ["Cancelled", "CANCELLED", "Canceled", "cancelled "]}
STATUS_TEXT |= {"Pending": ["Pending", "pending", "PENDING"]}
BLANK, NIL, EXPORT, REPEATS = ["-", "NA", ""], ["Nil", "-", "0", ""], date(2024, 4, 6), 14
HEADER = "Booking No,Booking Date,Model / Variant,Fuel,Colour,Ex-Showroom (₹),Discount (Rs),"
HEADER += "On-Road (₹),Finance,Promised Wait,Status,Delivery Date,Delivery Time,Sales  Executive"


def _inr(x: float, decimals: int = 0) -> str:  # grouped the Indian way: lakhs (6,45,000)
    whole, _, frac = f"{x:.{decimals}f}".partition(".")
    lakhs = [whole[max(0, i - 2) : i] for i in range(len(whole) - 3, 0, -2)][::-1]
    return ",".join([*lakhs, whole[-3:]]) + (f".{frac}" if frac else "")


def _day(rnd: random.Random, day: date) -> str:
    return f"{day:%d/%m/%Y}" if rnd.random() < 0.6 else f"{day.isoformat()} 00:00:00"


def _booking(rnd: random.Random, day: date) -> list[str]:  # booked on day: a row, no number
    model = rnd.choices(list(MODELS), [m[4] for m in MODELS.values()])[0]
    _, _, fuels, base, _, (lo, hi) = MODELS[model]
    fuel = rnd.choices(list(fuels), list(fuels.values()))[0]
    names, extra, tax = TRIMS[fuel]
    k = rnd.choices(range(len(names.split())), TRIM_MIX[: len(names.split())])[0]
    variant = names.split()[k] + " CNG" * (fuel == "CNG")
    price = round((base * MULT[k] + extra) * 100) * 1000
    target = price / 160000 + {10: 1, 11: 1, 12: 2, 3: 1}.get(day.month, 0) - 2 * (fuel == "EV")
    discount = rnd.choices(DISCOUNTS, [1 / (1 + (i - target) ** 2) for i in range(12)])[0]
    discount *= rnd.random() < (0.4 if hi >= 8 else 0.9)  # little off a car with a waiting list
    paid = price * (1 + tax) + round(price * rnd.uniform(0.028, 0.036), 2) + 15000 - discount
    financed = rnd.random() < 0.5 + 0.015 * price / 1e5
    wait = rnd.randint(7 * lo - 7, 7 * hi + 5)
    if rnd.random() < 0.35:  # to a weekend
        wait += (5 - (day + timedelta(days=wait)).weekday()) % 7 + rnd.randint(0, 1)
    soon = [f for f in FESTIVALS if 0 < (f - day).days - wait < 6]  # delivered on a festival
    wait = (soon[0] - day).days if soon and rnd.random() < 0.7 else wait
    wait += wait == 7 * hi  # never the end of the promised wait exactly
    handed = day + timedelta(days=wait)
    status = "Cancelled" if rnd.random() < 0.05 + 0.008 * hi else "Delivered"
    status = "Pending" if status == "Delivered" and handed > EXPORT else status
    hour = rnd.choices(range(10, 20), [2, 3, 3, 3, 3, 4, 5, 6, 5, 3])[0]
    minute = rnd.randrange(0, 60, 5) or 5 * (hour == 17)  # never 5 PM exactly
    clock = [f"{(hour - 1) % 12 + 1}:{minute:02d} {'AM' if hour < 12 else 'PM'}"]
    clock += [f"{(hour - 1) % 12 + 1:02d}:{minute:02d} {'am' if hour < 12 else 'pm'}"]
    name = f"{model.title()} {variant}"
    row = [_day(rnd, day), name.upper() if rnd.random() < 0.15 else name]
    row += [rnd.choice(FUEL_TEXT[fuel]), rnd.choice(COLOURS)]
    row += [rnd.choices([_inr(price), str(price), f"{price / 1e5:.2f} L"], [5, 2, 3])[0]]
    off = [_inr(discount), str(discount)] if discount else NIL
    row += [rnd.choice(off), rnd.choices([_inr(paid, 2), f"{paid:.2f}", f"₹ {_inr(paid, 2)}"])[0]]
    row += [rnd.choice(["Y", "Yes", "1"] if financed else ["N", "No", "0"])]
    row += [rnd.choice([f"{lo}-{hi} weeks", f"{lo} - {hi} wks", f"{lo}-{hi} Weeks"])]
    row += [rnd.choices(STATUS_TEXT[status], [8, 1, 1, 1, 1][: len(STATUS_TEXT[status])])[0]]
    done = status == "Delivered"
    row += [_day(rnd, handed), rnd.choice(clock)] if done else [rnd.choice(BLANK)] * 2
    return [*row, rnd.choices(list(EXECS), list(EXECS.values()))[0]]


def generate_fresh21_files(seed: int = SEED) -> dict[str, bytes]:
    """``vehicle_bookings.csv`` (bookings of the fiscal year 2023-24) and ``car_models.csv``."""
    rnd, days = random.Random(seed), [date(2023, 4, 1) + timedelta(days=i) for i in range(366)]
    weights = [MONTHS[d.month] * WEEK[d.weekday()] * FESTIVALS.get(d, 1) for d in days]
    booked = sorted(rnd.choices(days, weights, k=600))
    body = [[f"BK/23-24/{i:04d}", *_booking(rnd, day)] for i, day in enumerate(booked, 1)]
    for i in sorted(rnd.sample(range(len(body)), REPEATS), reverse=True):
        body.insert(i + 1, list(body[i]))  # the export wrote this booking twice
    head = "Model,Segment,Seating,Fuel Options,Base Price (₹ lakh)".split(",")
    t = [[k, m[0], f"{m[1]} Seater", " / ".join(m[2]), f"{m[3]:.2f}"] for k, m in MODELS.items()]
    return {BOOKINGS: _csv(HEADER.split(","), body), MODELS_CSV: _csv(head, t)}


def _date(text: pd.Series) -> pd.Series:
    slashes = pd.to_datetime(text, format="%d/%m/%Y", errors="coerce")
    return slashes.fillna(pd.to_datetime(text, format="%Y-%m-%d %H:%M:%S", errors="coerce"))


def _rupees(text: pd.Series) -> pd.Series:
    lakh = text.str.extract(r"^([\d.]+) L$")[0].astype(float) * 1e5
    plain = pd.to_numeric(text.str.replace(r"^₹ |,", "", regex=True), errors="coerce")
    return lakh.round().fillna(plain)


def _frames(files: dict[str, bytes]) -> dict[str, pd.DataFrame]:
    raw = pd.read_csv(io.BytesIO(files[BOOKINGS]), dtype=str, keep_default_na=False)
    d = raw.drop_duplicates().copy()
    d["day"], d["handed"] = _date(d["Booking Date"]), _date(d["Delivery Date"])
    d["quarter"] = "Q" + ((d.day.dt.month - 4) % 12 // 3 + 1).astype(str)
    d["weekday"], d["wait"] = d.handed.dt.day_name(), (d.handed - d.day).dt.days
    spelt = {s.strip().lower(): k for k, v in STATUS_TEXT.items() for s in v}
    fuels = {s.upper(): k for k, v in FUEL_TEXT.items() for s in v}
    d["status"] = d.Status.str.strip().str.lower().map(spelt)
    d["fuel"] = d.Fuel.str.upper().map(fuels)
    d["model"] = d["Model / Variant"].str.extract(r"^(\w+) ")[0].str.upper()
    d["done"], d["financed"] = d.status == "Delivered", d.Finance.isin(["Y", "Yes", "1"])
    d["price"], d["paid"] = _rupees(d["Ex-Showroom (₹)"]), _rupees(d["On-Road (₹)"])
    d["discount"] = _rupees(d["Discount (Rs)"].replace({"Nil": "0", "-": "0", "": "0"}))
    d["upper"] = d["Promised Wait"].str.extract(r"-\s*(\d+)")[0].astype(float)
    t = pd.to_datetime(d["Delivery Time"].str.upper(), format="%I:%M %p", errors="coerce")
    d["clock"] = t.dt.hour * 60 + t.dt.minute
    m = pd.read_csv(io.BytesIO(files[MODELS_CSV]), dtype=str)
    d = d.merge(m, left_on="model", right_on="Model", how="left")
    d.attrs["repeats"] = int(raw.duplicated().sum())
    return {BOOKINGS: d, MODELS_CSV: m}


E, MODEL, STATUS, BOOKED, HANDED, TIME = (
    "Every row of vehicle_bookings.csv is one car booking taken by a dealership in Pune, India, in "
    "the fiscal year 2023-24 (1 April 2023 to 31 March 2024). The export repeats some bookings as "
    "identical rows: drop the exact duplicate rows first, keeping one copy of each",
    "'Model / Variant' is the car's model name and then its variant, in title case or capitals "
    "('Tara VXi', 'TARA VXI CNG'); the model is its first word",
    "Status was typed by hand in any case, some with a trailing space or misspelt: Delivered (or "
    "'Deliverd'), Cancelled (or 'Canceled'), or Pending if not handed over yet when exported",
    "'Booking Date' is the day the car was booked, written day first with slashes ('05/03/2024' "
    "is 5 March 2024) or as a date with a midnight time ('2024-03-05 00:00:00')",
    "'Delivery Date' is the day the car was handed over, written the same two ways, or '-', 'NA' "
    "or empty if it was not (the booking is Cancelled or Pending)",
    "'Delivery Time' is on a 12-hour clock, AM or PM in either case ('3:05 PM' and '03:05 pm' are "
    "15:05, '12:30 PM' is half past noon), or '-', 'NA' or empty if the car was not handed over",
)
WAITED = f"{BOOKED}. {HANDED}. A car's wait is the days from its Booking Date to its Delivery Date"
FUEL = "Fuel is Petrol, Diesel, CNG or EV (electric, also written 'Electric'), in any case"
PRICE, DISCOUNT, PAID = (  # in Indian rupees
    "'Ex-Showroom (₹)' is the price before tax and discount in rupees, with Indian commas "
    "('6,45,000' is 645000), none ('645000') or in lakh ('6.45 L'; one lakh is 100000 rupees)",
    "'Discount (Rs)' is the discount given, in rupees, with or without commas ('25,000' and "
    "'25000' are both 25000), or 'Nil', '-', '0' or empty if none was given (count it as 0)",
    "'On-Road (₹)' is the price the customer pays, in rupees, with commas the Indian way or none, "
    "some with '₹ ' in front ('7,38,412.50', '738412.50' and '₹ 7,38,412.50' are all 738412.50)",
)
FINANCE = "Finance is 'Y', 'Yes' or '1' if the car was bought with a loan, 'N', 'No' or '0' if not"
WAIT = "'Promised Wait' is the wait promised at booking, in weeks ('10-12 weeks', '10 - 12 wks')"
EXEC = "'Sales  Executive' (with two spaces in its header) is the salesperson who took the booking"
JOIN = (
    f"{MODEL}. car_models.csv has one row per model: Model (its name in capitals, 'TARA'), "
    "Segment, Seating ('5 Seater' or '7 Seater'), 'Fuel Options' and 'Base Price (₹ lakh)'; join "
    "each booking to the row of its model, ignoring case"
)
DONE = "the delivered bookings (Status Delivered)"
KEYS = {
    "executive": '@executive[exec_name] where "exec_name" is as written, e.g. Pooja Joshi. ',
    "quarter": '@quarter[quarter_label] where "quarter_label" is Q1, Q2, Q3 or Q4. ',
    "weekday": '@weekday[weekday_name] where "weekday_name" is the day in English, e.g. Monday. ',
    "segment": '@segment[segment_name] where "segment_name" is as in car_models.csv, e.g. MPV. ',
    "model": '@model[model_name] where "model_name" is the model in capitals, e.g. PIKO. ',
}
EXAMPLES = {"Pooja Joshi", "Q1", "Monday", "MPV", "PIKO", "TARA", "645000", "6.45", "738412.50"}
#: what each "which ... the most" question ranks, and how far its top must lie above the next
#: (cars are handed over from April 2023 to April 2024: the calendar's Q4 is October to December)
RANKED: dict[str, tuple[Callable[[pd.DataFrame], pd.Series], float]] = {
    "executive": (lambda d: d[d.done]["Sales  Executive"].value_counts(), 3),
    "quarter": (lambda d: d.quarter.value_counts(), 3),
    "weekday": (lambda d: d[d.done].weekday.value_counts(), 3),
    "segment": (lambda d: d[d.done].Segment.value_counts(), 3),
    "model": (lambda d: d[d.handed.dt.quarter == 4].groupby("model").paid.sum() / 1e5, 1),
}


def _top(question: str, constraints: str, key: str, num: Num) -> QFn:
    """Which ``key`` has the largest value of ``RANKED[key]``, and that value."""

    def fn(d: pd.DataFrame) -> tuple[str, list[Answer]]:
        values = RANKED[key][0](d)
        top = values.max() if num[2] else int(values.max())
        answers = [Answer(key, str(values.idxmax())), Answer(num[0], top, num[2])]
        return _q(question, constraints, KEYS[key] + _num(*num)), answers

    return fn


e01 = _count(
    "How many bookings were cancelled?",
    f"{E}. {STATUS}. Count the bookings whose Status is Cancelled.",
    "cancelled_bookings",
    lambda d: d.status == "Cancelled",
)
e02 = _count(
    "How many bookings were for electric cars?",
    f"{E}. {FUEL}. Count the bookings whose Fuel is EV.",
    "ev_bookings",
    lambda d: d.fuel == "EV",
)
e03 = _count(
    "How many bookings were for cars bought with a loan?",
    f"{E}. {FINANCE}. Count the bookings of cars bought with a loan.",
    "financed_bookings",
    lambda d: d.financed,
)
e04 = _count(
    "How many cars were handed over after 5 PM?",
    f"{E}. {TIME}. Count the bookings whose Delivery Time is later than 5:00 PM (17:00).",
    "evening_deliveries",
    lambda d: d.clock > 17 * 60,
)
e05 = _count(
    "How many bookings got a discount of more than ₹30,000?",
    f"{E}. {DISCOUNT}. Count the bookings whose Discount is more than 30000 rupees.",
    "big_discounts",
    lambda d: d.discount > 30000,
)
f01 = _count(
    "How many of the dealership's car models can be bought with a CNG engine?",
    "car_models.csv has one row per car model a dealership in Pune sells; 'Fuel Options' lists its "
    "fuels ('Petrol / CNG'). Count the models with CNG among them.",
    "cng_models",
    lambda m: m["Fuel Options"].str.split(" / ").apply(lambda f: "CNG" in f),
)
m01 = _value(
    "How much, in lakh rupees, did the customers of the delivered cars pay on the road in all?",
    f"{E}. {STATUS}. {PAID}. Add up the On-Road of {DONE}, in lakh rupees (one lakh is 100000).",
    ("delivered_lakh", "the total in lakh rupees", 2),
    lambda d: d.paid[d.done].sum() / 1e5,
)
m02 = _top(
    "Which sales executive's bookings led to the most delivered cars, and how many?",
    f"{E}. {STATUS}. {EXEC}. Count {DONE} of each Sales Executive.",
    "executive",
    ("deliveries", "the count", None),
)
m03 = _value(
    "What was the mean discount on a delivered car, in rupees?",
    f"{E}. {STATUS}. {DISCOUNT}. Take the mean Discount of {DONE}.",
    ("mean_discount", "the mean in rupees", 2),
    lambda d: d.discount[d.done].mean(),
)
m04 = _top(
    "In which quarter of the fiscal year were the most cars booked, and how many?",
    f"{E}. {BOOKED}. The fiscal year's quarters: Q1 (April to June 2023), Q2 (July to September), "
    "Q3 (October to December), Q4 (January to March 2024); count the bookings made in each.",
    "quarter",
    ("bookings", "the count", None),
)
m05 = _value(
    "What is the median number of days a customer waited for a delivered car?",
    f"{E}. {STATUS}. {WAITED}. Take the median wait of {DONE}.",
    ("median_wait_days", "the median number of days", 2),
    lambda d: d.wait[d.done].median(),
)
m06 = _top(
    "On which day of the week were the most cars handed over, and how many?",
    f"{E}. {BOOKED}. {HANDED}. Count the bookings with a Delivery Date on each day of the week.",
    "weekday",
    ("handovers", "the count", None),
)
m07 = _value(
    "What is the mean ex-showroom price of the diesel cars booked, in lakh rupees?",
    f"{E}. {FUEL}. {PRICE}. Take the mean Ex-Showroom, in lakh, of the bookings with Fuel Diesel.",
    ("diesel_mean_lakh", "the mean in lakh rupees", 2),
    lambda d: d.price[d.fuel == "Diesel"].mean() / 1e5,
)
h01 = _top(
    "Cars of which segment were delivered most often, and how many?",
    f"{E}. {JOIN}. {STATUS}. Count {DONE} of each Segment.",
    "segment",
    ("segment_deliveries", "the count", None),
)
h02 = _value(
    "What percentage of the delivered SUVs were bought with a loan?",
    f"{E}. {JOIN}. {STATUS}. {FINANCE}. Of {DONE} whose model's Segment is SUV (not Compact SUV), "
    "take the percentage bought with a loan.",
    ("suv_financed_pct", "the percentage", 2),
    lambda d: d.financed[d.done & (d.Segment == "SUV")].mean() * 100,
)
h03 = _value(
    "What did a delivered seven-seater cost on the road on average, in lakh rupees?",
    f"{E}. {JOIN}. {STATUS}. {PAID}. Take the mean On-Road, in lakh rupees (one lakh is 100000), "
    f"of {DONE} whose model's Seating is 7 Seater.",
    ("seven_seater_lakh", "the mean in lakh rupees", 2),
    lambda d: d.paid[d.done & (d.Seating == "7 Seater")].mean() / 1e5,
)
h04 = _count(
    "How many delivered cars came later than the end of their promised waiting period?",
    f"{E}. {STATUS}. {WAITED}. {WAIT}. Count {DONE} whose wait is more than 7 times the larger "
    "number of weeks of their Promised Wait (more than 84 days for '10-12 weeks').",
    "late_deliveries",
    lambda d: d.done & (d.wait > 7 * d.upper),
)
h05 = _count(
    "How many cars bought with a loan and a discount over ₹20,000 were handed over in March 2024?",
    f"{E}. {BOOKED}. {HANDED}. {FINANCE}. {DISCOUNT}. Count the bookings bought with a loan "
    "whose Discount is more than 20000 rupees and whose Delivery Date is in March 2024.",
    "march_loan_discounts",
    lambda d: d.financed & (d.discount > 20000) & (d.handed.dt.strftime("%Y-%m") == "2024-03"),
)
h06 = _top(
    "Which model's cars handed over in Oct-Dec 2023 cost the most on the road, and how much?",
    f"{E}. {MODEL}. {STATUS}. {BOOKED}. {HANDED}. {PAID}. For each model, add up the On-Road, "
    f"in lakh rupees (one lakh is 100000), of {DONE} handed over October to December 2023.",
    "model",
    ("q3_lakh", "the total in lakh rupees", 2),
)
h07 = _value(
    "What is the Pearson correlation between a delivered car's ex-showroom price and its discount?",
    f"{E}. {STATUS}. {PRICE}. {DISCOUNT}. Over {DONE}, take the Pearson correlation coefficient "
    "of Ex-Showroom and Discount.",
    ("price_discount_corr", "the correlation coefficient", 2),
    lambda d: d.price[d.done].corr(d.discount[d.done]),
)

#: the questions of each level, keyed by their ids without "fresh21_" (f01 is over car_models.csv)
EASY = {"cancelled_bookings": e01, "ev_bookings": e02, "financed_bookings": e03}
EASY |= {"evening_deliveries": e04, "big_discounts": e05, "cng_models": f01}
MEDIUM = {"delivered_lakh": m01, "top_executive": m02, "mean_discount": m03, "top_quarter": m04}
MEDIUM |= {"median_wait_days": m05, "top_weekday": m06, "diesel_mean_lakh": m07}
HARD = {"top_segment": h01, "suv_financed_pct": h02, "seven_seater_lakh": h03}
HARD |= {"late_deliveries": h04, "march_loan_discounts": h05, "top_q3_model": h06}
HARD |= {"price_discount_corr": h07}
FRESH21: list[tuple[str, str, str, QFn]] = [
    (f"fresh21_{name}", level, MODELS_CSV if fn is f01 else BOOKINGS, fn)
    for level, table in (("easy", EASY), ("medium", MEDIUM), ("hard", HARD))
    for name, fn in table.items()
]
#: questions that need another file besides their own (uploaded and described with it)
JOINS = {f"fresh21_{q}": (MODELS_CSV,) for q in list(HARD)[:3]}  # the first three hard ones


def build_fresh21_questions(files: dict[str, bytes]) -> list[Question]:
    """The twenty questions with answers computed from ``files`` (split ``fresh21``)."""
    built = build_split(FRESH21, _frames(files), "fresh21")
    return [replace(q, other_files=JOINS.get(q.id, ())) for q in built]


def problems(seed: int) -> list[str]:
    """Why the data of ``seed`` would make a question ambiguous or fragile (empty: fine)."""
    files = generate_fresh21_files(seed)
    d = _frames(files)[BOOKINGS]
    answers = [a for q in build_fresh21_questions(files) for a in q.answers]
    near = {a.name: abs(a.value * 10**n % 1 - 0.5) / 10**n for a in answers if (n := a.decimals)}
    out = [f"{name} near a rounding boundary" for name, x in near.items() if x <= 0.00051]
    out += [f"{n} tie" for n, (by, gap) in RANKED.items() if _gap(by(d)) < gap]
    tops = {str(by(d).idxmax()) for by, _ in RANKED.values()}
    blank, inr = r"|^(-)$|^(NA)$|^()$", r"\d{1,2}(?:,\d\d)?,\d{3}"
    forms = {  # every value has one of these forms, and every form is used
        "Ex-Showroom (₹)": rf"^({inr})$|^(\d{{6,7}})$|^(\d+\.\d\d L)$",
        "Discount (Rs)": r"^(\d\d?,\d{3})$|^([1-9]\d{3,4})$|^(Nil)$|^(-)$|^(0)$|^()$",
        "On-Road (₹)": rf"^({inr}\.\d\d)$|^(\d{{6,7}}\.\d\d)$|^(₹ {inr}\.\d\d)$",
        "Finance": r"^(Y|N)$|^(Yes|No)$|^(1|0)$",
        "Promised Wait": r"^(\d+-\d+ weeks)$|^(\d+ - \d+ wks)$|^(\d+-\d+ Weeks)$",
        "Delivery Time": r"^(\d{1,2}:\d\d [AP]M)$|^(\d\d:\d\d [ap]m)$" + blank,
    }
    found = {c: d[c].str.extract(p).notna() for c, p in forms.items()}
    checks = {f"a {c} form": x.any(axis=1).all() and x.any().all() for c, x in found.items()}
    read = d[["day", "price", "paid", "discount", "fuel", "status", "Segment"]].notna().all()
    checks |= {
        "a Status form": set(d.Status) == {s for v in STATUS_TEXT.values() for s in v},
        "on a threshold": not (d.clock == 17 * 60).any() and not d.discount.isin([2e4, 3e4]).any(),
        "on the promised wait": not (d.wait == 7 * d.upper).any() and h04(d)[1][0].value > 0,
        "a value unread": read.all() and (d.done == d.handed.notna()).all(),
        "a delivery unread": (d.done == d.clock.notna()).all() and (d.wait.dropna() > 0).all(),
        "a repeat lost": d.attrs["repeats"] == REPEATS,
        "nothing to count": min(e02(d)[1][0].value, e04(d)[1][0].value, h05(d)[1][0].value) > 0,
        "never booked": set(d.model) == set(MODELS) and set(d["Sales  Executive"]) == set(EXECS),
        "an example is an answer": not EXAMPLES & (tops | {a.expected_text() for a in answers}),
    }
    return out + [name for name, ok in checks.items() if not ok]


if __name__ == "__main__":  # the seed scan: the first seed that passes every check
    print(next(s for s in range(1000) if not problems(s)))
