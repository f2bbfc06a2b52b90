"""Twenty more fresh questions (split ``fresh9``), in the public benchmark's instruction style,
over a pizzeria chain's point-of-sale export, written blind (without looking at how the agent
handles data) and never used to tune anything (run it with ``--split fresh9``); keep it that way.
``pos_orders.csv`` (a fixed seed; orders placed January to June 2024) writes money as text with a
currency sign or code, either way (``"€12.50"``, ``"12.50 EUR"``); Placed day first
(``"05/03/2024 19:42"`` is 5 March); Channel typed inconsistently (``"Uber Eats"``,
``"UberEats"``, ``"uber eats "``); an order's items in one cell (``"2x Margherita; 1x Cola"``);
refunds as rows of their own with a negative Subtotal; empty Tip, Rating and Discount Code cells.
``branches.csv`` (opened dates with month names, ``"14 Mar 2019"``) is keyed by a code the
orders spell differently (``"BR-03"`` is ``br3``); three questions join it
(``Question.other_files``). Every answer is computed here with pandas; the seed (11) is
the first that ``problems`` passes (``python answer_data_fresh9.py`` scans from 0): no asked top
ties or nearly ties, nothing lies on an asked threshold, no float within 0.0005 of a rounding
boundary at its decimals.
"""

from __future__ import annotations

import io
import random
from collections.abc import Callable
from dataclasses import replace
from datetime import date, datetime, timedelta
from typing import Any

import pandas as pd
from answer_data import Answer, Question, _csv
from answer_data_fresh2 import build_split
from answer_data_fresh7 import QFn, _gap
from answer_data_styled import _num, _q

SEED = 11
ORDERS, BRANCHES = "pos_orders.csv", "branches.csv"
#: item: (price in euros, how often it is ordered)
NAMES = "Margherita,Pepperoni,Quattro Formaggi,Diavola,Carbonara,Lasagne,Caesar Salad"
NAMES += ",Garlic Bread,Tiramisu,Cola,Lemonade,Water"
WEIGHTS = [16, 11, 7, 8, 7, 6, 6, 10, 6, 12, 7, 8]
PRICES = [9.5, 11.0, 12.5, 11.5, 11.5, 12.0, 8.0, 4.5, 5.5, 2.8, 3.2, 2.0]
MENU = dict(zip(NAMES.split(","), zip(PRICES, WEIGHTS, strict=True), strict=True))
#: channel: (share of orders, how the tills type it, chance of a tip)
CHANNELS = {
    "Dine-in": (36, ["Dine-in", "dine-in", "Dine in", "DINE-IN", "Dine-In "], 0.6),
    "Takeaway": (17, ["Takeaway", "takeaway", "Take-away", "TAKEAWAY "], 0.1),
    "Uber Eats": (21, ["Uber Eats", "UberEats", "uber eats", "UBER EATS "], 0.35),
    "Deliveroo": (15, ["Deliveroo", "deliveroo", "Deliveroo "], 0.35),
    "Just Eat": (11, ["Just Eat", "JustEat", "just eat "], 0.35),
}
APPS = ("ubereats", "deliveroo", "justeat")
CODES = {"WELCOME10": 5, "LUNCH15": 7, "STUDENT": 4, "FREEDRINK": 3}
CITIES = {"Lisbon": 4, "Porto": 3, "Braga": 2, "Coimbra": 2, "Faro": 1}
MANAGERS = "Ana Sousa,Rui Martins,Marta Lopes,Tiago Ferreira,Joana Pires,Nuno Rocha,Sofia Neves"
MANAGERS += ",Pedro Alves,Ines Cardoso,Hugo Teixeira"
HOURS = [4, 14, 16, 8, 3, 3, 5, 9, 15, 14, 9, 4]  # 11:00 to 22:59
BUSY = [0.6, 0.65, 0.7, 0.8, 1.0, 1.0, 0.75]  # Monday to Sunday
HEADER = ["Order ID", "Placed", "Branch", "Channel", "Items", "Subtotal", "Tip"]
HEADER += ["Discount Code", "Delivery Minutes", "Rating"]


def _money(rnd: random.Random, value: float) -> str:
    sign = "-" if value < 0 else ""
    return f"{sign}€{abs(value):.2f}" if rnd.random() < 0.6 else f"{value:.2f} EUR"


def generate_fresh9_files(seed: int = SEED) -> dict[str, bytes]:
    """``pos_orders.csv`` (January to June 2024) and ``branches.csv``."""
    rnd = random.Random(seed)
    cities = rnd.sample(list(CITIES), 5) + rnd.choices(list(CITIES), list(CITIES.values()), k=2)
    rnd.shuffle(cities)
    branches, bosses = [], rnd.sample(MANAGERS.split(","), 7)
    for i, num in enumerate(sorted(rnd.sample(range(1, 13), 7))):
        opened = (date(2015, 1, 1) + timedelta(days=rnd.randrange(9 * 365))).strftime("%d %b %Y")
        branches.append([num, cities[i], opened, rnd.randrange(28, 121), bosses[i]])
    pull = [b[3] * rnd.lognormvariate(0, 0.3) for b in branches]
    speed = {b[0]: rnd.lognormvariate(0, 0.15) for b in branches}
    care = {b[0]: rnd.gauss(0, 0.3) for b in branches}
    rows: list[tuple[datetime, list[Any]]] = []
    for _ in range(1500):
        at = datetime(2024, 1, 1) + timedelta(days=rnd.randrange(182))
        if rnd.random() > BUSY[at.weekday()]:
            continue
        at += timedelta(hours=rnd.choices(range(11, 23), HOURS)[0], minutes=rnd.randrange(60))
        num = rnd.choices(branches, pull)[0][0]
        channel = rnd.choices(list(CHANNELS), [c[0] for c in CHANNELS.values()])[0]
        _, spellings, tips = CHANNELS[channel]
        picks: dict[str, int] = {}
        for _ in range(rnd.choices([1, 2, 3, 4], [25, 35, 28, 12])[0]):
            item = rnd.choices(list(MENU), [m[1] for m in MENU.values()])[0]
            picks[item] = picks.get(item, 0) + rnd.choices([1, 2, 3], [70, 22, 8])[0]
        items = "; ".join(f"{n}x {item}" for item, n in picks.items())
        subtotal = round(sum(n * MENU[item][0] for item, n in picks.items()), 2)
        tip = max(0.5, round(subtotal * rnd.uniform(0.04, 0.15) * 2) / 2)
        code = rnd.choices(list(CODES), list(CODES.values()))[0] if rnd.random() < 0.14 else ""
        minutes: int | str = ""
        if channel in ("Uber Eats", "Deliveroo", "Just Eat"):
            slow = (1.15 if at.month <= 2 else 1) * speed[num] * rnd.lognormvariate(0, 0.3)
            minutes = round(24 * slow + 6 * (at.hour in (19, 20)))
        late = max(0, minutes - 35) if isinstance(minutes, int) else 0
        score = 4.3 + care[num] - 0.05 * late + rnd.gauss(0, 0.8)
        row = [at.strftime("%d/%m/%Y %H:%M"), f"br{num}", rnd.choice(spellings), items]
        row += [_money(rnd, subtotal), _money(rnd, tip) if rnd.random() < tips else "", code]
        row += [minutes, round(min(5, max(1, score))) if rnd.random() < 0.45 else ""]
        rows.append((at, row))
        if rnd.random() < 0.035 and at < datetime(2024, 6, 27):  # a refund, a while later
            back = at + timedelta(hours=rnd.randrange(1, 48), minutes=rnd.randrange(60))
            refund = [back.strftime("%d/%m/%Y %H:%M"), *row[1:3], items, _money(rnd, -subtotal)]
            rows.append((back, [*refund, "", "", "", ""]))
    rows.sort(key=lambda r: r[0])
    body = _csv(HEADER, [[240001 + i, *r] for i, (_, r) in enumerate(rows)])
    branches = [[f"BR-{b[0]:02d}", *b[1:]] for b in branches]
    return {
        ORDERS: body,
        BRANCHES: _csv(["branch_code", *"city opened seats manager".split()], branches),
    }


def _frames(files: dict[str, bytes]) -> dict[str, pd.DataFrame]:
    o = pd.read_csv(io.BytesIO(files[ORDERS]), dtype={"Subtotal": str, "Tip": str})
    money = o[["Subtotal", "Tip"]].replace(r"€|EUR", "", regex=True).astype(float)
    o["subtotal"], o["tip"] = money.Subtotal, money.Tip
    when = pd.to_datetime(o.Placed, format="%d/%m/%Y %H:%M")
    o["month"], o["weekday"] = when.dt.month, when.dt.day_name()
    o["channel"] = o.Channel.str.lower().str.replace(r"[\s-]", "", regex=True)
    o["refund"], o["app"] = o.subtotal < 0, o.channel.isin(APPS)
    o["late"] = o["Delivery Minutes"] > 45
    br = pd.read_csv(io.BytesIO(files[BRANCHES]))
    br["opened_on"] = pd.to_datetime(br.opened, format="%d %b %Y")
    o["branch_code"] = "BR-" + o.Branch.str[2:].str.zfill(2)
    return {ORDERS: o.merge(br, on="branch_code", how="left"), BRANCHES: br}


MONEY = (
    "Subtotal and Tip are amounts in euros written as text with a currency sign or code, either "
    "way ('€12.50' and '12.50 EUR' are both 12.50); an empty Tip is no tip"
)
REFUND = "A refund is a row with a negative Subtotal ('-€12.50' or '-12.50 EUR'), not an order"
SALES = f"{REFUND}: leave the refunds out"
PLACED = (
    "Placed is the date and time the order was placed, day first ('05/03/2024 19:42' is 5 March "
    "2024 at 19:42)"
)
CHANNEL = (
    "Channel is typed inconsistently: ignore case, spaces and hyphens ('Uber Eats', 'UberEats' and "
    "'uber eats ' are the same channel; the channels are Dine-in, Takeaway, Uber Eats, Deliveroo "
    "and Just Eat)"
)
APPS_TEXT = (
    "The delivery apps are Uber Eats, Deliveroo and Just Eat; Delivery Minutes (minutes from the "
    "order to the door) is filled for their orders only"
)
ITEMS = (
    "Items lists an order's items separated by '; ', each as a quantity, an 'x' and the item's "
    "name ('2x Margherita; 1x Cola' is two Margherita and one Cola)"
)
JOIN = (
    "branches.csv has one row per branch; its branch_code is the orders' Branch written another "
    "way ('br3' in pos_orders.csv is 'BR-03' in branches.csv): join each order to its branch"
)
RATING = (
    "Rating is the customer's score from 1 to 5, empty when the customer gave none; leave the "
    "empty ones out"
)
OPENED = "opened is the date the branch opened, written with the month's name ('14 Mar 2019')"
KEYS = {
    "code": '@code[discount_code] where "discount_code" is the code as written, e.g. SPRING5. ',
    "month": _num("month", "the month's number, 1-12", None) + " ",
    "city": '@city[city_name] where "city_name" is the city as written in branches.csv. ',
    "branch": '@branch[branch_code] where "branch_code" is as in branches.csv, e.g. BR-03. ',
    "item": '@item[item_name] where "item_name" is the item as written in Items, e.g. Cola. ',
    "weekday": '@weekday[day_name] where "day_name" is the weekday in English, e.g. Monday. ',
}
Num = tuple[str, str, int | None]  # an answer's name, what it is and its decimals (None: int)
ORDERS_N: Num = ("orders", "the count", None)


def _s(d: pd.DataFrame) -> pd.DataFrame:
    return d[~d.refund]


def _dine(d: pd.DataFrame) -> pd.DataFrame:
    """Each branch's dine-in orders: their total subtotal and tip (empty: 0), and its seats."""
    by = _s(d)[_s(d).channel == "dinein"].groupby("branch_code")
    return by.agg(subtotal=("subtotal", "sum"), tip=("tip", "sum"), seats=("seats", "first"))


def _qty(d: pd.DataFrame) -> pd.Series:
    """Units of each item over the orders of ``d``."""
    pairs = d.Items.str.findall(r"(\d+)x ([^;]+)").explode().dropna()
    qty = pd.Series([int(n) for n, _ in pairs], index=[name.strip() for _, name in pairs])
    return qty.groupby(level=0).sum()


#: what each "which ... the most" question ranks, and how far its top must lie above the next
RANKED: dict[str, tuple[Callable[[pd.DataFrame], pd.Series], float]] = {
    "code": (lambda d: _s(d)["Discount Code"].value_counts(), 3),
    "month": (lambda d: _s(d).month.value_counts(), 3),
    "city": (lambda d: d.groupby("city").subtotal.sum(), 20),
    "branch": (lambda d: _dine(d).subtotal / _dine(d).seats, 0.5),
    "item": (lambda d: _qty(_s(d)[_s(d).app]), 3),
    "late_month": (lambda d: _s(d)[_s(d).app].groupby("month").late.mean() * 100, 0.5),
    "weekday": (lambda d: _s(d).groupby("weekday").subtotal.mean(), 0.1),
}


def _value(question: str, constraints: str, num: Num, fn: Callable[[Any], Any]) -> QFn:
    """A question asking for the one number ``fn`` computes from the frame."""
    return lambda d: (_q(question, constraints, _num(*num)), [Answer(num[0], fn(d), num[2])])


def _count(question: str, constraints: str, name: str, rows: Callable[[Any], Any]) -> QFn:
    """A question asking how many rows (orders, refunds or branches) ``rows`` picks."""
    return _value(question, constraints, (name, "the count", None), lambda d: int(rows(d).sum()))


def _top(question: str, constraints: str, key: str, num: Num, ranked: str = "") -> QFn:
    """Which ``key`` has the largest value of ``RANKED[ranked or key]``, and that value."""

    def fn(d: pd.DataFrame) -> tuple[str, list[Answer]]:
        values = RANKED[ranked or key][0](d)
        best, top = values.idxmax(), values.max()
        best, top = best if isinstance(best, str) else int(best), top if num[2] else int(top)
        text = _q(question, constraints, KEYS[key] + _num(*num))
        return text, [Answer(key, best), Answer(num[0], top, num[2])]

    return fn


e01 = _count("How many refunds are in the export?", f"{REFUND}.", "refunds", lambda d: d.refund)
e02 = _count(
    "How many orders are in the export, refunds left out?",
    f"Every row of pos_orders.csv is an order or a refund. {SALES}.",
    "orders",
    lambda d: ~d.refund,
)
e03 = _value(
    "What is the mean rating of the orders that have one?",
    f"{RATING}.",
    ("mean_rating", "the mean rating", 2),
    lambda d: d.Rating.mean(),
)
e04 = _top(
    "Which discount code was used on the most orders, and on how many?",
    f"{SALES}. Discount Code is empty when the order used none; count the orders of each code.",
    "code",
    ORDERS_N,
)
b01 = _count(
    "How many branches have more than 60 seats?",
    "branches.csv has one row per branch; count the rows whose seats is greater than 60.",
    "big_branches",
    lambda d: d.seats > 60,
)


def b02(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "Which branch opened first?",
        f"branches.csv has one row per branch; {OPENED}.",
        KEYS["branch"].rstrip(),
    ), [Answer("branch", d.branch_code[d.opened_on.idxmin()])]


m01 = _count(
    "How many orders came through Uber Eats?",
    f"{SALES}. {CHANNEL}.",
    "uber_eats_orders",
    lambda d: ~d.refund & (d.channel == "ubereats"),
)
m02 = _value(
    "What are the net sales of the export: the subtotals of the orders minus the refunds?",
    f"{MONEY}. {REFUND}; net sales are the sum of every row's Subtotal, refunds included (they "
    "are negative).",
    ("net_sales", "euros", 2),
    lambda d: d.subtotal.sum(),
)
m03 = _value(
    "How many Margherita pizzas were sold?",
    f"{SALES}. {ITEMS}. Add up the quantities of Margherita over all orders.",
    ("margheritas", "the number of pizzas", None),
    lambda d: int(_qty(_s(d))["Margherita"]),
)
m04 = _top(
    "In which month of 2024 were the most orders placed, and how many?",
    f"{SALES}. {PLACED}. Count the orders placed in each month.",
    "month",
    ORDERS_N,
)
m05 = _value(
    "What is the mean tip of the dine-in orders that left a tip?",
    f"{SALES}. {CHANNEL}. {MONEY}; leave out the orders with no tip.",
    ("mean_tip", "euros", 2),
    lambda d: _s(d).tip[_s(d).channel == "dinein"].mean(),
)
m06 = _value(
    "What is the median delivery time of the Deliveroo orders, in minutes?",
    f"{SALES}. {CHANNEL}. {APPS_TEXT}.",
    ("median_minutes", "the median in minutes", 1),
    lambda d: _s(d)["Delivery Minutes"][_s(d).channel == "deliveroo"].median(),
)
m07 = _count(
    "How many orders had a subtotal over 50 euros?",
    f"{SALES}. {MONEY}. Count the orders whose Subtotal is greater than 50.00.",
    "over_50",
    lambda d: _s(d).subtotal > 50,
)
h01 = _top(
    "Which city had the highest net sales, and what were they?",
    f"{JOIN}; an order's city is the city of its branch. {MONEY}. {REFUND}; a city's net sales "
    "are the sum of the Subtotal of all its rows, refunds included (they are negative).",
    "city",
    ("net_sales", "euros", 2),
)
h02 = _top(
    "Which branch had the highest dine-in sales per seat, and how much per seat?",
    f"{SALES}. {CHANNEL}. {MONEY}. {JOIN}. For each branch, divide the total Subtotal of its "
    "dine-in orders by its seats in branches.csv.",
    "branch",
    ("sales_per_seat", "euros per seat", 2),
)
h03 = _top(
    "Which item was ordered in the largest quantity through the delivery apps, and how many?",
    f"{SALES}. {CHANNEL}. {APPS_TEXT}. {ITEMS}. Add up each item's quantities over the "
    "delivery-app orders.",
    "item",
    ("quantity", "the total quantity", None),
)
h04 = _top(
    "In which month was the share of delivery-app orders taking longer than 45 minutes the "
    "highest, and what was it in percent?",
    f"{SALES}. {CHANNEL}. {APPS_TEXT}. {PLACED}. For each month, divide the number of its "
    "delivery-app orders whose Delivery Minutes is greater than 45 (exactly 45 is not) by the "
    "number of its delivery-app orders, times 100.",
    "month",
    ("late_pct", "the percentage", 2),
    "late_month",
)
h05 = _value(
    "What is the median, over the branches, of the dine-in tips as a percentage of the dine-in "
    "subtotals?",
    f"{SALES}. {CHANNEL}. {MONEY}. For each branch (the Branch column), divide the total Tip "
    "of its dine-in orders (an empty Tip counts as 0) by their total Subtotal, times 100; "
    "then take the median of those percentages.",
    ("median_tip_pct", "the median percentage", 2),
    lambda d: (_dine(d).tip / _dine(d).subtotal * 100).median(),
)
h06 = _value(
    "What percentage of the orders were placed at branches that opened before 2020?",
    f"{SALES}. {JOIN}. {OPENED}. Divide the number of orders of the branches opened before 1 "
    "January 2020 by the number of all orders, times 100.",
    ("pre_2020_pct", "the percentage", 2),
    lambda d: (_s(d).opened_on < "2020-01-01").mean() * 100,
)
h07 = _top(
    "On which day of the week is the mean order subtotal highest, and what is it?",
    f"{SALES}. {PLACED}. {MONEY}. Take the mean Subtotal of the orders placed on each day of "
    "the week.",
    "weekday",
    ("mean_subtotal", "euros", 2),
)

FRESH9: list[tuple[str, str, str, QFn]] = [
    ("fresh9_refunds", "easy", ORDERS, e01),
    ("fresh9_orders", "easy", ORDERS, e02),
    ("fresh9_mean_rating", "easy", ORDERS, e03),
    ("fresh9_top_code", "easy", ORDERS, e04),
    ("fresh9_big_branches", "easy", BRANCHES, b01),
    ("fresh9_first_branch", "easy", BRANCHES, b02),
    ("fresh9_uber_eats", "medium", ORDERS, m01),
    ("fresh9_net_sales", "medium", ORDERS, m02),
    ("fresh9_margheritas", "medium", ORDERS, m03),
    ("fresh9_busiest_month", "medium", ORDERS, m04),
    ("fresh9_dine_in_tip", "medium", ORDERS, m05),
    ("fresh9_deliveroo_median", "medium", ORDERS, m06),
    ("fresh9_over_50", "medium", ORDERS, m07),
    ("fresh9_top_city", "hard", ORDERS, h01),
    ("fresh9_sales_per_seat", "hard", ORDERS, h02),
    ("fresh9_top_app_item", "hard", ORDERS, h03),
    ("fresh9_late_month", "hard", ORDERS, h04),
    ("fresh9_median_tip_pct", "hard", ORDERS, h05),
    ("fresh9_pre_2020_share", "hard", ORDERS, h06),
    ("fresh9_best_weekday", "hard", ORDERS, h07),
]
#: questions that need another file besides their own (uploaded and described with it)
JOINS = {
    q: (BRANCHES,) for q in ("fresh9_top_city", "fresh9_sales_per_seat", "fresh9_pre_2020_share")
}


def build_fresh9_questions(files: dict[str, bytes]) -> list[Question]:
    """The twenty questions with answers computed from ``files`` (split ``fresh9``)."""
    built = build_split(FRESH9, _frames(files), "fresh9")
    return [replace(q, other_files=JOINS.get(q.id, ())) for q in built]


def problems(seed: int) -> list[str]:
    """Why the data of ``seed`` would make a question ambiguous or fragile (empty: fine)."""
    files = generate_fresh9_files(seed)
    o, br = _frames(files).values()
    answers = [a for q in build_fresh9_questions(files) for a in q.answers if a.decimals]
    near = {a.name: abs(a.value * 10**a.decimals % 1 - 0.5) / 10**a.decimals for a in answers}
    out = [f"{name} near a rounding boundary" for name, n in near.items() if n < 0.0005]
    out += [f"{name} tie" for name, (by, gap) in RANKED.items() if _gap(by(o)) < gap]
    s, days = _s(o), (br.opened_on - br.opened_on.min()).dt.days
    checks = {
        "60-seat threshold": not (br.seats == 60).any(),
        "first branch tie": _gap(-days) >= 1,
        "50 euro threshold": not (s.subtotal - 50).abs().lt(0.005).any(),
        "opened on 1 January 2020": not (br.opened_on == "2020-01-01").any(),
        "a money value unread": o.subtotal.notna().all() and o.tip.count() == o.Tip.count(),
        "a channel unread": set(o.channel) == {"dinein", "takeaway", *APPS},
        "a branch unjoined": o.city.notna().all(),
        "a minute unread": s["Delivery Minutes"].notna().eq(s.app).all(),
    }
    return out + [name for name, ok in checks.items() if not ok]


if __name__ == "__main__":  # the seed scan: the first seed that passes every check
    print(next(s for s in range(1000) if not problems(s)))
