"""Twenty more fresh questions (split ``fresh22``), in the public benchmark's instruction style,
over a wine cooperative's grape intake in the Pfalz, written blind (without looking at how the
agent handles data) and never used to tune anything (run it with ``--split fresh22``); keep it so.

``grape_deliveries.csv`` (a fixed seed; 600 deliveries, September to early November 2023) repeats
its header at each page break and ends with a ``"Summe"`` row, which questions say to leave out;
dates are ``"03.10.2023"`` or ``"3. Oktober 2023"`` (German month names); member numbers keep
leading zeros (``"0042"``); Rebsorte is in any case, some with a trailing space, Riesling at times
``"Reisling"``; Menge is kilograms with a dot between thousands (``"1.240 kg"``) or tonnes with a
decimal comma (``"1,240 t"``); Säure has a decimal comma; Handlese is ``ja``/``nein`` in any
case; not measured is ``"k.A."``, ``"-"`` or empty; euros are ``"1.234,56"``, ``"1234,56"`` or
``"1.234,56 €"``. ``growers.csv`` is keyed by the member numbers; three questions join it
(``Question.other_files``), one is about it alone. Answers are computed with pandas; the seed
(8) passes ``problems`` (``python answer_data_fresh22.py`` checks it): no asked top ties or near
ties, nothing on an asked threshold, no float within 0.0005 of a rounding boundary, no example
value an answer.
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

SEED = 8
DELIVERIES, GROWERS_CSV = "grape_deliveries.csv", "growers.csv"
#: variety: (share of the deliveries, °Oechsle and acidity (g/l) on its first day, euros a
#: kilogram, first and last day of its harvest, how often it is picked by hand)
VARIETIES: dict[str, tuple[int, float, float, float, date, date, float]] = {
    "Müller-Thurgau": (16, 70, 7.4, 0.55, date(2023, 9, 4), date(2023, 9, 26), 0.15),
    "Dornfelder": (12, 72, 6.8, 0.60, date(2023, 9, 11), date(2023, 10, 6), 0.10),
    "Silvaner": (12, 76, 8.0, 0.70, date(2023, 9, 14), date(2023, 10, 10), 0.30),
    "Grauburgunder": (14, 80, 7.6, 0.95, date(2023, 9, 18), date(2023, 10, 14), 0.35),
    "Spätburgunder": (16, 82, 7.8, 1.25, date(2023, 9, 20), date(2023, 10, 18), 0.55),
    "Riesling": (30, 76, 10.5, 1.10, date(2023, 9, 25), date(2023, 11, 6), 0.45),
}
VILLAGES = {"Deidesheim": 9, "Forst": 4, "Wachenheim": 7, "Ruppertsberg": 6, "Niederkirchen": 5}
FIRST = "Anna Bernd Claudia Dieter Elke Frank Gisela Heinz Ingrid Jürgen Karin Lukas Maria".split()
LAST = "Bassermann Becker Fischer Hauck Koch Müller Neumann Schäfer Wagner Weber Zimmer".split()
MONTHS, PAGE, GROWERS = {9: "September", 10: "Oktober", 11: "November"}, 150, 44
WEEK, BLANK = [1.0, 1.0, 1.0, 1.0, 1.0, 0.8, 0.15], ["k.A.", "-", ""]  # Monday first; few Sundays
HEADER = "Lieferschein,Datum,Mitglied-Nr.,Rebsorte,Menge,Mostgewicht (°Oe),Säure (g/l),Handlese,"
HEADER += "Auszahlung (€)"


def _de(x: float, decimals: int = 2) -> str:  # a dot between thousands, a decimal comma
    return f"{x:,.{decimals}f}".translate(str.maketrans(",.", ".,"))


def _growers(rnd: random.Random) -> list[tuple[str, str, str, float, bool, list[str]]]:
    """Member number, name, village, hectares, organic, and the varieties each grows."""
    numbers = sorted(rnd.sample([n for n in range(3, 400) if n != 42], GROWERS))
    out = []
    for n in numbers:
        ha = round(rnd.uniform(0.8, 9.5), 2)
        ha += 0.07 * (ha == 5.0)  # never 5 hectares exactly
        grown = set(rnd.choices(list(VARIETIES), [v[0] for v in VARIETIES.values()], k=4))
        name = f"{rnd.choice(FIRST)} {rnd.choice(LAST)}"
        village = rnd.choices(list(VILLAGES), list(VILLAGES.values()))[0]
        out.append((f"{n:04d}", name, village, ha, rnd.random() < 0.25, sorted(grown)))
    return out


def _delivery(rnd: random.Random, grower: tuple, variety: str, day: date) -> list[str]:
    """One delivery of ``variety`` by ``grower`` on ``day``: a row without its number."""
    _, oe0, acid0, euros, start, _, hand_share = VARIETIES[variety]
    days, organic = (day - start).days, grower[4]
    oe = round(oe0 + 0.45 * days + rnd.gauss(0, 4))
    oe += oe in (90, 95)  # never on a threshold asked about
    acid = round(acid0 - 0.06 * days + rnd.gauss(0, 0.5), 1)
    hand = rnd.random() < hand_share + 0.25 * organic
    kg = 10 * round(rnd.uniform(25, 150) if hand else max(rnd.gauss(420, 120), 180))
    paid = round(kg * (euros * (1 + 0.015 * (oe - oe0)) + 0.12 * hand + 0.10 * organic), 2)
    when = f"{day:%d.%m.%Y}" if rnd.random() < 0.6 else f"{day.day}. {MONTHS[day.month]} 2023"
    name = rnd.choices([variety, variety.upper(), variety.lower(), f"{variety} "], [7, 1, 1, 2])[0]
    name = "Reisling" if variety == "Riesling" and rnd.random() < 0.08 else name
    weight = rnd.choices([f"{_de(kg, 0)} kg", f"{kg} kg", f"{_de(kg / 1000, 3)} t"], [5, 2, 3])[0]
    must = rnd.choice(BLANK) if rnd.random() < 0.04 else str(oe)
    sour = rnd.choice(BLANK) if rnd.random() < 0.06 else _de(acid, 1)
    picked = rnd.choices(["ja", "Ja", "JA"] if hand else ["nein", "Nein"], [6, 3, 1][: 2 + hand])
    money = rnd.choices([_de(paid), f"{paid:.2f}".replace(".", ","), f"{_de(paid)} €"], [5, 2, 3])
    return [when, grower[0], name, weight, must, sour, picked[0], money[0], kg, paid]


def generate_fresh22_files(seed: int = SEED) -> dict[str, bytes]:
    """``grape_deliveries.csv`` (the 2023 harvest) and ``growers.csv``."""
    rnd, rows = random.Random(seed), list[tuple[date, list[str]]]()
    growers = _growers(rnd)
    for _ in range(600):
        grower = rnd.choices(growers, [g[3] for g in growers])[0]
        shares = [VARIETIES[v][0] for v in grower[5]]
        variety = rnd.choices(grower[5], shares)[0]
        start, end = VARIETIES[variety][4:6]
        days = [start + timedelta(days=i) for i in range((end - start).days + 1)]
        day = rnd.choices(days, [WEEK[d.weekday()] for d in days])[0]
        rows.append((day, _delivery(rnd, grower, variety, day)))
    rows.sort(key=lambda r: r[0])
    body = [[f"WG-23-{i:04d}", *r[1][:8]] for i, r in enumerate(rows, 1)]
    kg, paid = sum(r[1][8] for r in rows), sum(r[1][9] for r in rows)
    body.append(["Summe", "", "", "", f"{_de(kg, 0)} kg", "", "", "", _de(paid)])
    for i in range(len(body) - 1 - PAGE, 0, -PAGE):
        body.insert(i, HEADER.split(","))  # the export's page breaks
    head = ["Mitglied-Nr.", "Name", "Ort", "Rebfläche (ha)", "Bio"]
    table = [[g[0], g[1], g[2], _de(g[3]), "ja" if g[4] else "nein"] for g in growers]
    return {DELIVERIES: _csv(HEADER.split(","), body), GROWERS_CSV: _csv(head, table)}


def _date(text: pd.Series) -> pd.Series:  # "3. Oktober 2023" as "3.10.2023"
    number = {name: m for m, name in MONTHS.items()}
    text = text.str.replace(r"\. (\w+) ", lambda m: f".{number.get(m[1], 0)}.", regex=True)
    return pd.to_datetime(text, format="%d.%m.%Y", errors="coerce")


def _comma(text: pd.Series) -> pd.Series:
    text = text.str.replace(r"\.| €$", "", regex=True).str.replace(",", ".")
    return pd.to_numeric(text, errors="coerce")


def _frames(files: dict[str, bytes]) -> dict[str, pd.DataFrame]:
    raw = pd.read_csv(io.BytesIO(files[DELIVERIES]), dtype=str, keep_default_na=False)
    d = raw[~raw.Lieferschein.isin(["Lieferschein", "Summe"])].copy()
    d["day"], d["member"] = _date(d.Datum), d["Mitglied-Nr."]
    spelt = {v.lower(): v for v in VARIETIES} | {"reisling": "Riesling"}
    d["variety"] = d.Rebsorte.str.strip().str.lower().map(spelt)
    w = d.Menge.str.extract(r"^([\d.,]+) (kg|t)$")
    tonnes = pd.to_numeric(w[0].str.replace(",", "."), errors="coerce") * 1000
    d["kg"] = _comma(w[0].where(w[1] == "kg")).fillna(tonnes.where(w[1] == "t")).round()
    d["oe"] = pd.to_numeric(d["Mostgewicht (°Oe)"], errors="coerce")
    d["acid"] = _comma(d["Säure (g/l)"])
    d["hand"], d["paid"] = d.Handlese.str.lower() == "ja", _comma(d["Auszahlung (€)"])
    g = pd.read_csv(io.BytesIO(files[GROWERS_CSV]), dtype=str)
    g["ha"], g["organic"] = _comma(g["Rebfläche (ha)"]), g.Bio == "ja"
    d = d.merge(g, on="Mitglied-Nr.", how="left")
    d.attrs["extra"] = raw[raw.Lieferschein.isin(["Lieferschein", "Summe"])]
    return {DELIVERIES: d, GROWERS_CSV: g}


E = (
    "Every row of grape_deliveries.csv is one delivery of grapes by a member grower to a wine "
    "cooperative in the Pfalz, Germany, in the 2023 harvest, except that the export repeats its "
    "header row at each page break (a row reading 'Lieferschein', 'Datum', ...) and ends with a "
    "total row with 'Summe' in 'Lieferschein': leave the repeated header rows and the Summe row out"
)
DATE = (
    "Datum is the day of the delivery, written day first with dots ('03.10.2023') or with the "
    "month's German name ('3. Oktober 2023'; September, Oktober, November), both 3 October 2023"
)
VARIETY = (
    "Rebsorte is the grape variety, Riesling, Müller-Thurgau, Silvaner, Grauburgunder, "
    "Spätburgunder or Dornfelder, typed in any case, some with a trailing space; 'Reisling' is a "
    "misspelling of Riesling"
)
WEIGHT = (
    "Menge is the grapes' weight in kilograms, with or without a dot between thousands ('1.240 "
    "kg' and '1240 kg' are both 1240 kg), or in tonnes with a decimal comma ('1,240 t' is 1240 kg)"
)
OE, ACID = (
    "'Mostgewicht (°Oe)' is the must weight in degrees Oechsle, a whole number, or 'k.A.', '-' or "
    "empty if it was not measured",
    "'Säure (g/l)' is the acidity in grams per litre with a decimal comma ('7,8' is 7.8), or "
    "'k.A.', '-' or empty if it was not measured",
)
HAND = "Handlese is 'ja' (in any case) if the grapes were picked by hand, 'nein' if by machine"
PAID = (
    "'Auszahlung (€)' is what the cooperative pays for the delivery, in euros with a decimal "
    "comma, some with a dot between thousands or ' €' after ('1.234,56', '1234,56' and '1.234,56 "
    "€' are all 1234.56)"
)
GROWER = (
    "'Mitglied-Nr.' is the grower's member number, four digits with leading zeros ('0042'); keep "
    "it as written, leading zeros included"
)
JOIN = (
    f"{GROWER}. growers.csv has one row per member grower: 'Mitglied-Nr.' (the same four digits), "
    "Name, Ort (the village), 'Rebfläche (ha)' (the vineyard area in hectares, with a decimal "
    "comma) and Bio ('ja' if the grower farms organically, 'nein' if not); join each delivery to "
    "the row of its grower by 'Mitglied-Nr.'"
)
KEYS = {
    "variety": '@variety[variety_name] where "variety_name" is the variety spelt correctly as in '
    "the constraints, e.g. Silvaner. ",
    "grower": '@grower[member_no] where "member_no" is the Mitglied-Nr. with its leading zeros, '
    "e.g. 0042. ",
    "village": '@village[village_name] where "village_name" is the Ort as in growers.csv, e.g. '
    "Forst. ",
}
EXAMPLES = {"Silvaner", "0042", "Forst", "1234.56", "1240", "1.24", "7.80", "5.00"}
#: what each "which ... the most" question ranks, and how far its top must lie above the next
RANKED: dict[str, tuple[Callable[[pd.DataFrame], pd.Series], float]] = {
    "variety": (lambda d: d.groupby("variety").kg.sum() / 1000, 1),
    "grower": (lambda d: d.groupby("member").paid.sum(), 50),
    "village": (lambda d: d.groupby("Ort").kg.sum() / 1000, 1),
    "yield": (lambda d: d.groupby("member").kg.sum() / d.groupby("member").ha.max(), 10),
    "span": (lambda d: d.groupby("variety").day.agg(lambda x: (x.max() - x.min()).days), 2),
    "price": (lambda d: d.groupby("variety").paid.sum() / d.groupby("variety").kg.sum(), 0.02),
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
    "How many deliveries were picked by hand?",
    f"{E}. {HAND}. Count the deliveries whose Handlese is 'ja'.",
    "hand_picked",
    lambda d: d.hand,
)
e02 = _count(
    "How many deliveries were of Riesling grapes?",
    f"{E}. {VARIETY}. Count the deliveries whose Rebsorte is Riesling.",
    "riesling_deliveries",
    lambda d: d.variety == "Riesling",
)
e03 = _count(
    "How many deliveries had a must weight of more than 90 degrees Oechsle?",
    f"{E}. {OE}. Count the deliveries whose Mostgewicht is more than 90.",
    "high_must_weight",
    lambda d: d.oe > 90,
)
e04 = _count(
    "For how many deliveries was the must weight not measured?",
    f"{E}. {OE}. Count the deliveries whose Mostgewicht is 'k.A.', '-' or empty.",
    "unmeasured_must",
    lambda d: d.oe.isna(),
)
e05 = _count(
    "How many deliveries arrived in October 2023?",
    f"{E}. {DATE}. Count the deliveries whose Datum is in October 2023.",
    "october_deliveries",
    lambda d: d.day.dt.month == 10,
)
f01 = _count(
    "How many of the cooperative's growers have more than 5 hectares of vineyards?",
    "growers.csv has one row per member grower of a wine cooperative in the Pfalz, Germany; "
    "'Rebfläche (ha)' is the grower's vineyard area in hectares with a decimal comma ('3,25' is "
    "3.25). Count the growers whose Rebfläche is more than 5.",
    "large_growers",
    lambda g: g.ha > 5,
)
m01 = _value(
    "How many tonnes of grapes were delivered in the 2023 harvest?",
    f"{E}. {WEIGHT}. Add up the Menge, in tonnes (one tonne is 1000 kg), of every delivery.",
    ("total_tonnes", "the total in tonnes", 2),
    lambda d: d.kg.sum() / 1000,
)
m02 = _top(
    "Of which grape variety were the most tonnes delivered, and how many?",
    f"{E}. {VARIETY}. {WEIGHT}. Add up the Menge, in tonnes (one tonne is 1000 kg), of each "
    "variety's deliveries.",
    "variety",
    ("tonnes", "the total in tonnes", 2),
)
m03 = _value(
    "What was the mean must weight of the Riesling deliveries?",
    f"{E}. {VARIETY}. {OE}. Take the mean Mostgewicht of the Riesling deliveries where it was "
    "measured.",
    ("riesling_mean_oechsle", "the mean in degrees Oechsle", 2),
    lambda d: d.oe[d.variety == "Riesling"].mean(),
)
m04 = _top(
    "Which grower was paid the most for their deliveries in all, and how much?",
    f"{E}. {GROWER}. {PAID}. Add up the Auszahlung of each grower's deliveries.",
    "grower",
    ("paid_euros", "the total in euros", 2),
)
m05 = _value(
    "What was the mean acidity of the grapes delivered?",
    f"{E}. {ACID}. Take the mean Säure of the deliveries where it was measured.",
    ("mean_acidity", "the mean in grams per litre", 2),
    lambda d: d.acid.mean(),
)
m06 = _value(
    "What is the median weight of a delivery, in kilograms?",
    f"{E}. {WEIGHT}. Take the median Menge, in kilograms, of all the deliveries.",
    ("median_delivery_kg", "the median in kilograms", 2),
    lambda d: d.kg.median(),
)
m07 = _value(
    "How much did the cooperative pay for all the grapes delivered, in euros?",
    f"{E}. {PAID}. Add up the Auszahlung of every delivery.",
    ("total_payout", "the total in euros", 2),
    lambda d: d.paid.sum(),
)
h01 = _top(
    "Growers of which village delivered the most tonnes of grapes, and how many?",
    f"{E}. {JOIN}. {WEIGHT}. Add up the Menge, in tonnes (one tonne is 1000 kg), of the deliveries "
    "of each Ort's growers.",
    "village",
    ("village_tonnes", "the total in tonnes", 2),
)
h02 = _value(
    "What percentage of the weight delivered by organic growers was picked by hand?",
    f"{E}. {JOIN}. {WEIGHT}. {HAND}. Of the deliveries of growers whose Bio is 'ja', take the "
    "total Menge of those with Handlese 'ja' as a percentage of their total Menge.",
    ("organic_hand_pct", "the percentage", 2),
    lambda d: d.kg[d.organic & d.hand].sum() / d.kg[d.organic].sum() * 100,
)
h03 = _top(
    "Which grower delivered the most grapes per hectare of vineyard, and how many kilograms?",
    f"{E}. {JOIN}. {WEIGHT}. For each grower, divide the total Menge of their deliveries, in "
    "kilograms, by their Rebfläche in hectares.",
    "grower",
    ("kg_per_hectare", "kilograms per hectare", 2),
    "yield",
)
h04 = _count(
    "How many hand-picked Riesling deliveries in October 2023 had over 95 degrees Oechsle?",
    f"{E}. {DATE}. {VARIETY}. {OE}. {HAND}. Count the Riesling deliveries with Handlese 'ja', a "
    "Datum in October 2023 and a Mostgewicht of more than 95.",
    "late_riesling",
    lambda d: (d.variety == "Riesling") & d.hand & (d.day.dt.month == 10) & (d.oe > 95),
)
h05 = _top(
    "Which grape variety's harvest lasted the longest, and for how many days?",
    f"{E}. {DATE}. {VARIETY}. For each variety, take the number of days from the Datum of its "
    "first delivery to the Datum of its last (2 if the first was on 3 and the last on 5 October).",
    "variety",
    ("harvest_days", "the number of days", None),
    "span",
)
h06 = _top(
    "For which grape variety did the cooperative pay the most per kilogram, and how much?",
    f"{E}. {VARIETY}. {WEIGHT}. {PAID}. For each variety, divide the total Auszahlung of its "
    "deliveries by their total Menge in kilograms.",
    "variety",
    ("euros_per_kg", "euros per kilogram", 2),
    "price",
)
h07 = _value(
    "What is the Pearson correlation between a Riesling delivery's must weight and its acidity?",
    f"{E}. {VARIETY}. {OE}. {ACID}. Over the Riesling deliveries where both were measured, take "
    "the Pearson correlation coefficient of Mostgewicht and Säure.",
    ("riesling_oechsle_acid_corr", "the correlation coefficient", 2),
    lambda d: d.oe[d.variety == "Riesling"].corr(d.acid[d.variety == "Riesling"]),
)

#: the questions of each level, keyed by their ids without "fresh22_" (f01 is over growers.csv)
EASY = {"hand_picked": e01, "riesling_deliveries": e02, "high_must_weight": e03}
EASY |= {"unmeasured_must": e04, "october_deliveries": e05, "large_growers": f01}
MEDIUM = {"total_tonnes": m01, "top_variety": m02, "riesling_mean_oechsle": m03}
MEDIUM |= {"top_paid_grower": m04, "mean_acidity": m05, "median_delivery_kg": m06}
MEDIUM |= {"total_payout": m07}
HARD = {"top_village": h01, "organic_hand_pct": h02, "top_yield_grower": h03}
HARD |= {"late_riesling": h04, "longest_harvest": h05, "top_price_variety": h06}
HARD |= {"riesling_oechsle_acid_corr": h07}
FRESH22: list[tuple[str, str, str, QFn]] = [
    (f"fresh22_{name}", level, GROWERS_CSV if fn is f01 else DELIVERIES, fn)
    for level, table in (("easy", EASY), ("medium", MEDIUM), ("hard", HARD))
    for name, fn in table.items()
]
#: questions that need another file besides their own (uploaded and described with it)
JOINS = {f"fresh22_{q}": (GROWERS_CSV,) for q in list(HARD)[:3]}  # the first three hard ones


def build_fresh22_questions(files: dict[str, bytes]) -> list[Question]:
    """The twenty questions with answers computed from ``files`` (split ``fresh22``)."""
    built = build_split(FRESH22, _frames(files), "fresh22")
    return [replace(q, other_files=JOINS.get(q.id, ())) for q in built]


def problems(seed: int) -> list[str]:
    """Why the data of ``seed`` would make a question ambiguous or fragile (empty: fine)."""
    files = generate_fresh22_files(seed)
    d, g = _frames(files).values()
    answers = [a for q in build_fresh22_questions(files) for a in q.answers]
    near = {a.name: abs(a.value * 10**n % 1 - 0.5) / 10**n for a in answers if (n := a.decimals)}
    out = [f"{name} near a rounding boundary" for name, x in near.items() if x <= 0.00051]
    out += [f"{n} tie" for n, (by, gap) in RANKED.items() if _gap(by(d)) < gap]
    tops = {str(by(d).idxmax()) for by, _ in RANKED.values()}
    blank, spelt = r"|^(k\.A\.)$|^(-)$|^()$", "|".join(VARIETIES)
    forms = {  # every value has one of these forms, and every form is used
        "Datum": r"^(\d\d\.\d\d\.2023)$|^(\d{1,2}\. (?:September|Oktober|November) 2023)$",
        "Mitglied-Nr.": r"^(0\d{3})$",
        "Rebsorte": rf"^({spelt})$|^({spelt.upper()})$|^({spelt.lower()})$|^((?:{spelt}) )$"
        r"|^(Reisling)$",
        "Menge": r"^(\d{1,2}\.\d{3} kg)$|^(\d{3,5} kg)$|^(\d{1,2},\d{3} t)$",
        "Mostgewicht (°Oe)": r"^(\d{2,3})$" + blank,
        "Säure (g/l)": r"^(\d{1,2},\d)$" + blank,
        "Handlese": r"^(ja)$|^(Ja)$|^(JA)$|^(nein)$|^(Nein)$",
        "Auszahlung (€)": r"^(\d{1,2}\.\d{3},\d\d)$|^(\d{2,5},\d\d)$|^([\d.]+,\d\d €)$",
    }
    found = {c: d[c].str.extract(p).notna() for c, p in forms.items()}
    checks = {f"a {c} form": x.any(axis=1).all() and x.any().all() for c, x in found.items()}
    extra = d.attrs["extra"]
    total = extra[extra.Lieferschein == "Summe"]
    checks |= {
        "a value unread": d[["day", "variety", "kg", "paid", "Ort"]].notna().all().all(),
        "a blank unread": d.oe.count() == d["Mostgewicht (°Oe)"].str.match(r"\d").sum(),
        "a page break lost": len(extra) == 1 + (len(d) - 1) // PAGE,
        "the total off": total.Menge.tolist() == [f"{_de(d.kg.sum(), 0)} kg"],
        "on a threshold": not d.oe.isin([90, 95]).any() and not (g.ha == 5).any(),
        "nothing to count": min(h04(d)[1][0].value, e04(d)[1][0].value) > 0,
        "never delivered": set(d.variety) == set(VARIETIES) and set(d.Ort) == set(VILLAGES),
        "a grower idle": set(d["Mitglied-Nr."]) == set(g["Mitglied-Nr."]),
        "an example is an answer": not EXAMPLES & (tops | {a.expected_text() for a in answers}),
    }
    return out + [name for name, ok in checks.items() if not ok]


if __name__ == "__main__":  # what, if anything, makes the seed's data unfit
    print(problems(SEED) or f"seed {SEED} passes every check")
