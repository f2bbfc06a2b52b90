"""Twenty more fresh questions (split ``fresh16``), in the public benchmark's instruction style,
over a plant nursery's sales export, written blind (without looking at how the agent handles
data) and never used to tune anything (run it with ``--split fresh16``); keep it that way.

``nursery_sales.csv`` (a fixed seed; 540 sales March to July 2024 to gardeners and to trade
customers) mixes header styles: ``ordered_at`` (day first with slashes and a time of day,
``"03/04/2024 10:42"``), ``Customer Type `` with a trailing space, ``PLANT`` in capitals,
`` Delivered On`` with a leading space, written ``"2024-04-05"`` or ``"05.04.2024"`` and empty,
``"n/a"`` or ``"-"`` when the plants were taken away; PLANT is ``"P-017"``, ``"p017"`` or ``"17"``;
Customer Type is in any case with stray spaces, Trade also ``"Wholesale"``; so is Payment, with
Card also ``"Credit card"``, Voucher ``"Gift voucher"``, Invoice ``"On account"``; Loyalty Card is
``Yes``/``Y``/``yes``/``1`` or ``No``/``N``/``0``/empty; Total is pounds as ``"£1,234.50"``,
``"GBP 1234.50"`` or ``"1,234.50"``. ``plants.csv`` (Name, Category, Pot Litres, Evergreen) is
keyed by Plant No, a plain number (``17``); three questions join it (``Question.other_files``).
Every answer is computed here with pandas; the seed (0) is the first that ``problems`` passes
(``python answer_data_fresh16.py`` scans from 0): no asked top ties or nearly ties, nothing lies
on an asked threshold, no float within 0.0005 of a rounding boundary at its decimals.
"""

from __future__ import annotations

import io
import random
from collections.abc import Callable
from dataclasses import replace
from datetime import date, datetime, time, timedelta

import pandas as pd
from answer_data import Answer, Question, _csv
from answer_data_fresh2 import build_split
from answer_data_fresh7 import QFn, _gap
from answer_data_fresh11 import Num, _count, _value
from answer_data_styled import _num, _q

SEED = 0
SALES, PLANTS = "nursery_sales.csv", "plants.csv"
#: category: (its plants, pot sizes in litres, price base and per litre, chance it is evergreen)
CATEGORIES = {
    "Perennial": ("Catmint Geranium Salvia Echinacea Hosta Astrantia Penstemon", [2, 3], 5, 2, 0.2),
    "Shrub": ("Lavender Hebe Hydrangea Pieris Box Viburnum Choisya", [5, 10, 15], 10, 2.2, 0.6),
    "Tree": ("Birch Maple Rowan Olive Magnolia Cherry Hazel", [10, 15, 20, 35], 20, 3.5, 0.15),
    "Herb": ("Rosemary Thyme Sage Mint Chives Oregano Bay", [1, 2], 3, 1.5, 0.4),
    "Grass": ("Stipa Miscanthus Carex Festuca Pennisetum", [3, 5], 6, 2, 0.5),
    "Climber": ("Clematis Honeysuckle Jasmine Wisteria Rose Ivy", [3, 5, 10], 8, 2.5, 0.4),
}
#: how often each category is bought, by retail and by trade customers
BOUGHT = {"Retail": [30, 22, 9, 20, 10, 9], "Trade": [25, 30, 15, 5, 20, 5]}
#: payment: (share of the retail sales, of the trade sales, chance of a loyalty card, spellings)
PAYMENTS = {
    "Card": (65, 30, 0.45, ["Card", "card", "Credit card", "CARD "]),
    "Cash": (28, 0, 0.25, ["Cash", "cash", " Cash"]),
    "Voucher": (7, 0, 0.6, ["Voucher", "voucher", "Gift voucher"]),
    "Invoice": (0, 70, 0.0, ["Invoice", "invoice", "On account"]),
}
CUSTOMERS = {"Retail": ["Retail", "retail", "RETAIL", "Retail "], "Trade": ["Trade", "trade"]}
CUSTOMERS["Trade"] += ["Wholesale", " TRADE"]
MONTHS = {3: 0.9, 4: 1.5, 5: 1.6, 6: 1.1, 7: 0.8}  # how busy each month is
WEEK = {"Retail": [0.7, 0.7, 0.8, 0.9, 1.0, 1.8, 1.5], "Trade": [1.2] * 5 + [0.5, 0.1]}
HEADER = ["Sale No", "ordered_at", "Customer Type ", "PLANT", "Qty", "Total", "Payment"]
HEADER += ["Loyalty Card", " Delivered On"]
ALIAS = ("Credit card", "Gift voucher", "On account")


def _spelt(rnd: random.Random, forms: list[str]) -> str:
    return rnd.choices(forms, [55, 20, 15, 10][: len(forms)])[0]


def _catalogue(rnd: random.Random) -> dict[int, tuple[str, str, int, float, str]]:
    """Plant No: (name, category, pot litres, list price, evergreen)."""
    plants = [(n, c, *rest) for c, (names, *rest) in CATEGORIES.items() for n in names.split()]
    numbers = rnd.sample(range(1, 130), len(plants))
    out = {}
    for no, (name, kind, pots, base, per, ever) in zip(numbers, plants, strict=True):
        pot = rnd.choice(pots)
        price = int(base + per * pot * rnd.uniform(0.8, 1.2)) + 0.99
        out[no] = (name, kind, pot, price, "Yes" if rnd.random() < ever else "No")
    return dict(sorted(out.items()))


def generate_fresh16_files(seed: int = SEED) -> dict[str, bytes]:
    """``nursery_sales.csv`` (sales March to July 2024) and ``plants.csv``."""
    rnd = random.Random(seed)
    plants = _catalogue(rnd)
    days = [date(2024, 3, 1) + timedelta(days=i) for i in range(153)]
    rows: list[tuple[datetime, list[object]]] = []
    for _ in range(540):
        who = "Trade" if rnd.random() < 0.25 else "Retail"
        day = rnd.choices(days, [MONTHS[d.month] * WEEK[who][d.weekday()] for d in days])[0]
        kind = rnd.choices(list(CATEGORIES), BOUGHT[who])[0]
        no = rnd.choice([n for n, p in plants.items() if p[1] == kind])
        if who == "Retail":
            qty = rnd.choices([1, 2, 3, 4, 5, 6, 8, 10, 12], [35, 22, 12, 9, 6, 5, 4, 4, 3])[0]
            unit = plants[no][3] * (0.8 if rnd.random() < 0.1 else 1)
        else:
            qty = min(250, max(5, round(rnd.lognormvariate(3.3 - 0.5 * (kind == "Tree"), 0.6))))
            qty += qty == 40  # no trade sale of exactly 40 plants
            unit = plants[no][3] * 0.8
        total = qty * round(unit, 2)
        pay = rnd.choices(
            list(PAYMENTS), [p[0 if who == "Retail" else 1] for p in PAYMENTS.values()]
        )
        loyal = who == "Retail" and rnd.random() < PAYMENTS[pay[0]][2]
        sent = 0.7 if who == "Trade" else 0.06 + 0.3 * (kind == "Tree") + 0.15 * (qty >= 8)
        lag = min(21, 1 + round(rnd.lognormvariate(1.1 + 0.4 * (kind == "Tree"), 0.5)))
        lag += lag == 7  # no delivery a week to the day after its sale
        when = datetime.combine(day, time(rnd.randint(8, 17), rnd.randint(0, 59)))
        if rnd.random() < sent:
            there = day + timedelta(days=lag)
            there_text = there.isoformat() if rnd.random() < 0.6 else f"{there:%d.%m.%Y}"
        else:
            there_text = _spelt(rnd, ["", "n/a", "-"])
        money = rnd.choices([f"£{total:,.2f}", f"GBP {total:.2f}", f"{total:,.2f}"], [6, 2, 2])
        code = rnd.choices([f"P-{no:03d}", f"p{no:03d}", str(no)], [6, 2, 2])[0]
        yes = _spelt(rnd, ["Yes", "Y", "yes", "1"] if loyal else ["No", "N", "0", ""])
        row = [f"{when:%d/%m/%Y %H:%M}", _spelt(rnd, CUSTOMERS[who]), code, qty, money[0]]
        row += [_spelt(rnd, PAYMENTS[pay[0]][3]), yes, there_text]
        rows.append((when, row))
    rows.sort(key=lambda r: r[0])
    body = _csv(HEADER, [[f"NS{3101 + i}", *r] for i, (_, r) in enumerate(rows)])
    table = [[n, name, k, pot, ever] for n, (name, k, pot, _, ever) in plants.items()]
    head = ["Plant No", "Name", "Category", "Pot Litres", "Evergreen"]
    return {SALES: body, PLANTS: _csv(head, table)}


def _dates(text: pd.Series) -> pd.Series:
    iso = pd.to_datetime(text, format="%Y-%m-%d", errors="coerce")
    return iso.fillna(pd.to_datetime(text, format="%d.%m.%Y", errors="coerce"))


def _frames(files: dict[str, bytes]) -> dict[str, pd.DataFrame]:
    d = pd.read_csv(io.BytesIO(files[SALES]), dtype=str, keep_default_na=False)
    d["ordered"] = pd.to_datetime(d.ordered_at, format="%d/%m/%Y %H:%M")
    d["month"], d["weekend"] = d.ordered.dt.month_name(), d.ordered.dt.day_of_week >= 5
    d["delivered"] = _dates(d[" Delivered On"])
    d["lag"], d["sent"] = (d.delivered - d.ordered.dt.normalize()).dt.days, d.delivered.notna()
    d["plant"] = d.PLANT.str.extract(r"(\d+)", expand=False).astype(int)
    d["customer"] = d["Customer Type "].str.strip().str.title().replace({"Wholesale": "Trade"})
    names = {s.strip().lower(): p for p, (*_, spelt) in PAYMENTS.items() for s in spelt}
    d["payment"] = d.Payment.str.strip().str.lower().map(names)
    d["qty"] = d.Qty.astype(int)
    d["total"] = d.Total.str.replace(r"[£,]|GBP", "", regex=True).str.strip().astype(float)
    d["loyal"] = d["Loyalty Card"].str.lower().isin(["yes", "y", "1"])
    d["trade"] = d.customer == "Trade"
    p = pd.read_csv(io.BytesIO(files[PLANTS]))
    return {SALES: d.merge(p, left_on="plant", right_on="Plant No", how="left"), PLANTS: p}


EVERY = "Every row of nursery_sales.csv is one sale at a plant nursery: some plants of one kind"
ORDERED = (
    "ordered_at is when the sale was made, a date written day first with slashes and a time of "
    "day: '03/04/2024 10:42' is 3 April 2024 at 10:42"
)
DELIVERED = (
    "' Delivered On' (its header starts with a space) is the day the plants were delivered, "
    "written as YYYY-MM-DD or day first with dots ('2024-04-05' and '05.04.2024' are both 5 April "
    "2024); it is empty, 'n/a' or '-' when the customer took the plants away (no delivery)"
)
LAG = (
    "A delivery's lead time is the number of days from the date of its ordered_at to its "
    "Delivered On"
)
CUSTOMER = (
    "'Customer Type ' (its header ends with a space) is Retail or Trade, typed in any case with "
    "stray spaces ('retail' and 'Retail ' are Retail); Trade is also written 'Wholesale'"
)
PAYMENT = (
    "Payment is Card, Cash, Voucher or Invoice, typed in any case with stray spaces ('card' and "
    "'CARD ' are Card); Card is also written 'Credit card', Voucher 'Gift voucher' and Invoice "
    "'On account'"
)
QTY = "Qty is the number of plants in the sale"
TOTAL = (
    "Total is what the sale cost in pounds, written with a pound sign and a comma between "
    "thousands ('£1,234.50'), after 'GBP' without the comma ('GBP 1234.50') or bare with the comma "
    "('1,234.50')"
)
LOYALTY = (
    "Loyalty Card says whether the customer showed a loyalty card, written 'Yes', 'Y', 'yes' or "
    "'1' for yes and 'No', 'N', '0' or empty for no"
)
JOIN = (
    "PLANT is the plant's catalogue number, written 'P-017', 'p017' or plain '17' (all plant 17). "
    "plants.csv has one row per plant: Plant No (the plain number, like 17), Name, Category "
    "(Perennial, Shrub, Tree, Herb, Grass or Climber), Pot Litres (the pot size in litres) and "
    "Evergreen (Yes or No); join each sale to the row of its plant"
)
KEYS = {
    "payment": '@payment[payment_method] where "payment_method" is written like Cash. ',
    "month": '@month[month_name] where "month_name" is the month in English, e.g. March. ',
    "category": '@category[category_name] where "category_name" is as in plants.csv, e.g. Grass. ',
}


def _loyal_share(d: pd.DataFrame) -> pd.Series:
    return d.groupby("payment").loyal.mean() * 100


#: what each "which ... the most" question ranks, and how far its top must lie above the next
RANKED: dict[str, tuple[Callable[[pd.DataFrame], pd.Series], float]] = {
    "payment": (lambda d: d.payment.value_counts(), 3),
    "month": (lambda d: d.groupby("month").total.sum(), 1),
    "category": (lambda d: d[~d.trade].groupby("Category").total.sum(), 1),
    "loyal_share": (_loyal_share, 2),
}


def _top(question: str, constraints: str, key: str, num: Num, ranked: str = "") -> QFn:
    """Which ``key`` has the largest value of ``RANKED[ranked or key]``, and that value."""

    def fn(d: pd.DataFrame) -> tuple[str, list[Answer]]:
        values = RANKED[ranked or key][0](d)
        best, top = values.idxmax(), values.max()
        top = top if num[2] else int(top)
        text = _q(question, constraints, KEYS[key] + _num(*num))
        return text, [Answer(key, str(best)), Answer(num[0], top, num[2])]

    return fn


e01 = _count(
    "How many sales were paid by card?",
    f"{EVERY}. {PAYMENT}. Count the sales whose Payment is Card.",
    "card_sales",
    lambda d: d.payment == "Card",
)
e02 = _count(
    "How many sales were made with a loyalty card?",
    f"{EVERY}. {LOYALTY}. Count the sales with a loyalty card.",
    "loyalty_sales",
    lambda d: d.loyal,
)
e03 = _count(
    "How many sales were made to trade customers?",
    f"{EVERY}. {CUSTOMER}. Count the sales whose Customer Type is Trade.",
    "trade_sales",
    lambda d: d.trade,
)
e04 = _count(
    "How many sales were delivered?",
    f"{EVERY}. {DELIVERED}. Count the sales that were delivered.",
    "delivered",
    lambda d: d.sent,
)
e05 = _count(
    "How many sales were of more than 40 plants?",
    f"{EVERY}. {QTY}. Count the sales whose Qty is more than 40.",
    "big_sales",
    lambda d: d.qty > 40,
)
f01 = _count(
    "How many plants in the catalogue are evergreen?",
    "plants.csv has one row per plant a nursery sells; Evergreen is Yes or No. Count the plants "
    "whose Evergreen is Yes.",
    "evergreen_plants",
    lambda p: p.Evergreen == "Yes",
)
m01 = _value(
    "How much did the trade sales bring in, in total?",
    f"{EVERY}. {CUSTOMER}. {TOTAL}. Add up the Total of the sales whose Customer Type is Trade, "
    "in pounds.",
    ("trade_total", "the total in pounds", 2),
    lambda d: d.total[d.trade].sum(),
)
m02 = _top(
    "Which payment method was used for the most sales, and how many?",
    f"{EVERY}. {PAYMENT}. Count the sales of each payment method.",
    "payment",
    ("sales", "the count", None),
)
m03 = _count(
    "How many sales were made in May 2024?",
    f"{EVERY}. {ORDERED}. Count the sales whose ordered_at is in May 2024.",
    "may_sales",
    lambda d: d.month == "May",
)
m04 = _value(
    "What is the mean number of plants in a retail sale?",
    f"{EVERY}. {CUSTOMER}. {QTY}. Take the mean Qty of the sales whose Customer Type is Retail.",
    ("retail_mean_qty", "the mean number of plants", 2),
    lambda d: d.qty[~d.trade].mean(),
)
m05 = _value(
    "What is the median total of the sales paid by card?",
    f"{EVERY}. {PAYMENT}. {TOTAL}. Take the median Total of the sales whose Payment is Card, in "
    "pounds.",
    ("median_card_total", "the median in pounds", 2),
    lambda d: d.total[d.payment == "Card"].median(),
)
m06 = _top(
    "In which month did the sales bring in the most, and how much?",
    f"{EVERY}. {ORDERED}. {TOTAL}. Add up the Total of the sales for each month of their "
    "ordered_at.",
    "month",
    ("month_total", "the total in pounds", 2),
)
m07 = _value(
    "On average, how many days after the sale were the plants delivered?",
    f"{EVERY}. {ORDERED}. {DELIVERED}. {LAG}. Take the mean lead time of the sales that were "
    "delivered.",
    ("mean_lead_days", "the mean number of days", 2),
    lambda d: d.lag.mean(),
)
h01 = _top(
    "Among retail sales, plants of which category brought in the most, and how much?",
    f"{EVERY}. {JOIN}; a sale's category is the Category of its plant. {CUSTOMER}. {TOTAL}. Add "
    "up the Total of the sales whose Customer Type is Retail, for each category.",
    "category",
    ("retail_total", "the total in pounds", 2),
)
h02 = _count(
    "How many sales of plants in pots of 10 litres or more were delivered?",
    f"{EVERY}. {JOIN}. {DELIVERED}. Count the sales that were delivered and whose plant's Pot "
    "Litres is 10 or more.",
    "big_pots_delivered",
    lambda d: d.sent & (d["Pot Litres"] >= 10),
)
h03 = _count(
    "How many trees were delivered in June 2024?",
    f"{EVERY}. {JOIN}. {DELIVERED}. {QTY}. Add up the Qty of the sales whose plant's Category is "
    "Tree and whose Delivered On is in June 2024.",
    "june_trees",
    lambda d: d.qty[(d.Category == "Tree") & (d.delivered.dt.strftime("%Y-%m") == "2024-06")],
)
h04 = _value(
    "What percentage of the trade sales were delivered?",
    f"{EVERY}. {CUSTOMER}. {DELIVERED}. Divide the number of Trade sales that were delivered by "
    "the number of all Trade sales, times 100.",
    ("trade_delivered_pct", "the percentage", 2),
    lambda d: d.sent[d.trade].mean() * 100,
)
h05 = _count(
    "How many deliveries came more than 7 days after the sale?",
    f"{EVERY}. {ORDERED}. {DELIVERED}. {LAG}. Count the delivered sales whose lead time is more "
    "than 7 days.",
    "slow_deliveries",
    lambda d: d.lag > 7,
)
h06 = _value(
    "How much did the sales made on a Saturday or a Sunday bring in, in total?",
    f"{EVERY}. {ORDERED}. {TOTAL}. Add up the Total of the sales whose ordered_at falls on a "
    "Saturday or a Sunday, in pounds.",
    ("weekend_total", "the total in pounds", 2),
    lambda d: d.total[d.weekend].sum(),
)
h07 = _top(
    "Which payment method has the largest share of its sales made with a loyalty card, and what "
    "is that share?",
    f"{EVERY}. {PAYMENT}. {LOYALTY}. For each payment method divide the number of its sales with "
    "a loyalty card by the number of all its sales, times 100.",
    "payment",
    ("loyalty_pct", "the percentage", 2),
    "loyal_share",
)

FRESH16: list[tuple[str, str, str, QFn]] = [
    ("fresh16_card_sales", "easy", SALES, e01),
    ("fresh16_loyalty_sales", "easy", SALES, e02),
    ("fresh16_trade_sales", "easy", SALES, e03),
    ("fresh16_delivered", "easy", SALES, e04),
    ("fresh16_big_sales", "easy", SALES, e05),
    ("fresh16_evergreen_plants", "easy", PLANTS, f01),
    ("fresh16_trade_total", "medium", SALES, m01),
    ("fresh16_top_payment", "medium", SALES, m02),
    ("fresh16_may_sales", "medium", SALES, m03),
    ("fresh16_retail_mean_qty", "medium", SALES, m04),
    ("fresh16_median_card_total", "medium", SALES, m05),
    ("fresh16_top_month", "medium", SALES, m06),
    ("fresh16_mean_lead_days", "medium", SALES, m07),
    ("fresh16_retail_category", "hard", SALES, h01),
    ("fresh16_big_pots_delivered", "hard", SALES, h02),
    ("fresh16_june_trees", "hard", SALES, h03),
    ("fresh16_trade_delivered", "hard", SALES, h04),
    ("fresh16_slow_deliveries", "hard", SALES, h05),
    ("fresh16_weekend_total", "hard", SALES, h06),
    ("fresh16_loyalty_payment", "hard", SALES, h07),
]
#: questions that need another file besides their own (uploaded and described with it)
JOINS = {f"fresh16_{q}": (PLANTS,) for q in ("retail_category", "big_pots_delivered", "june_trees")}


def build_fresh16_questions(files: dict[str, bytes]) -> list[Question]:
    """The twenty questions with answers computed from ``files`` (split ``fresh16``)."""
    built = build_split(FRESH16, _frames(files), "fresh16")
    return [replace(q, other_files=JOINS.get(q.id, ())) for q in built]


def problems(seed: int) -> list[str]:
    """Why the data of ``seed`` would make a question ambiguous or fragile (empty: fine)."""
    files = generate_fresh16_files(seed)
    d, p = _frames(files).values()
    answers = [a for q in build_fresh16_questions(files) for a in q.answers if a.decimals]
    near = {a.name: abs(a.value * 10**a.decimals % 1 - 0.5) / 10**a.decimals for a in answers}
    out = [f"{name} near a rounding boundary" for name, n in near.items() if n <= 0.00051]
    out += [f"{n} tie" for n, (by, gap) in RANKED.items() if _gap(by(d)) < gap]
    raw = pd.read_csv(io.BytesIO(files[SALES]), dtype=str, keep_default_na=False)
    forms = raw.Total.str.extract(r"(£)|(GBP)|^(\d)").notna().any()
    tops = {str(by(d).idxmax()) for by, _ in RANKED.values()}
    when, wholesale = raw[" Delivered On"], raw["Customer Type "].eq("Wholesale")
    checks = {
        "on 40 plants": not (d.qty == 40).any() and (d.qty > 40).any(),
        "on 7 days": not (d.lag == 7).any() and (d.lag > 7).any() and (d.lag[d.sent] > 0).all(),
        "a date unread": d.sent.sum() == when.str.match(r"\d").sum() and d.lag.max() < 30,
        "both date forms": when.str.contains(r"\.").any() and when.str.contains(r"-\d").any(),
        "no missing form": all(when.eq(m).any() for m in ("", "n/a", "-")),
        "a total unread": d.total.notna().all() and forms.all(),
        "no thousands comma": raw.Total.str.contains(r"\d,\d{3}\.").any(),
        "a payment unread": d.payment.notna().all() and all(raw.Payment.eq(a).any() for a in ALIAS),
        "a customer unread": d.customer.isin(["Retail", "Trade"]).all() and wholesale.any(),
        "a loyalty unread": d.loyal.sum() == raw["Loyalty Card"].str.match("[Yy1]").sum(),
        "a plant unjoined": d["Plant No"].notna().all() and raw.PLANT.str.startswith("p").any(),
        "no june trees": ((d.Category == "Tree") & (d.delivered.dt.month == 6)).any(),
        "an example is an answer": not {"Cash", "March", "Grass"} & tops,
        "a plant twice": p["Plant No"].is_unique,
    }
    return out + [name for name, ok in checks.items() if not ok]


if __name__ == "__main__":  # the seed scan: the first seed that passes every check
    print(next(s for s in range(1000) if not problems(s)))
