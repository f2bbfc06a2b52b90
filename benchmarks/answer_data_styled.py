"""Twenty held-out questions in the public benchmark's instruction style, over messy data.

Each question is written the way the public data-analysis benchmark words its tasks: the
question, its constraints, a ``Format`` line with ``@name[name_value]`` placeholders described
by their type and rounding, and the benchmark's closing instruction with its generic
``@answer_name[answer]`` and an example placeholder that is *not* asked for. The two CSVs are
generated from a fixed seed and carry what trips small models: headers with leading or trailing
spaces, numbers stored as text with thousands separators, and missing values. Every expected
answer is computed here with pandas. All twenty are held out: they were written after the
answer mechanisms and never used to tune them.
"""

from __future__ import annotations

import io
import random
from collections.abc import Callable

import pandas as pd
from answer_data import Answer, Question, _csv

CLOSING = (
    'Your final answer should contain all the "@answer_name[answer]" in the order mentioned, '
    'each "answer" should be in the range of value as required. For example: @mean_fare[34.65]'
)
STATIONS = ["Alder", "Birch", "Cedar", "Dunes"]


def generate_styled_files(seed: int = 11) -> dict[str, bytes]:
    """``stations.csv`` (daily readings) and ``shops.csv`` (sales as text with separators)."""
    rnd = random.Random(seed)
    rows = []
    population = {s: rnd.randint(200_000, 6_000_000) for s in STATIONS}
    for day in pd.date_range("2022-01-01", "2022-06-30"):
        for s in STATIONS:
            wind = "" if rnd.random() < 0.06 else round(rnd.uniform(0, 25), 1)
            rain = "" if rnd.random() < 0.1 else round(rnd.expovariate(0.5), 1)
            temp = round(8 + day.month * 2 + rnd.gauss(0, 3), 1)
            rows.append(
                [
                    day.date().isoformat(),
                    s,
                    wind,
                    temp,
                    rain,
                    f"{population[s]:,}",
                    rnd.choice(["ok", "ok", "ok", "faulty"]),
                ]
            )
    shops = []
    for i in range(150):
        rating = "" if rnd.random() < 0.12 else round(rnd.uniform(1, 5), 1)
        shops.append(
            [
                i + 1,
                f"Shop {i + 1}",
                rnd.choice(["Lyon", "Porto", "Graz"]),
                f"{rnd.randint(50_000, 3_000_000):,}",
                rnd.randint(2, 60),
                rnd.randint(1990, 2021),
                rating,
            ]
        )
    return {
        "stations.csv": _csv(
            ["DATE", "STATION", " WINDSPEED", "TEMP ", " RAIN", "POPULATION", "STATUS"], rows
        ),
        "shops.csv": _csv(
            ["shop_id", "Shop Name", "city", "Annual Sales", "employees", "opened", "rating"],
            shops,
        ),
    }


def _frames(files: dict[str, bytes]) -> dict[str, pd.DataFrame]:
    return {
        n: pd.read_csv(io.BytesIO(files[n]), thousands=",") for n in ("stations.csv", "shops.csv")
    }


def _q(question: str, constraints: str, fmt: str) -> str:
    return f"Question: {question}\nConstraints: {constraints}\nFormat: {fmt}\n{CLOSING}"


def _num(name: str, what: str, decimals: int | None) -> str:
    rounded = f" rounded to {decimals} decimal places" if decimals is not None else ""
    kind = "a float" if decimals is not None else "an integer"
    return f'@{name}[{name}_value] where "{name}_value" is {kind}{rounded} ({what}).'


F = dict[str, pd.DataFrame]
QFn = Callable[[F], tuple[str, list[Answer]]]


def _s(f: F) -> pd.DataFrame:
    return f["stations.csv"]


def _h(f: F) -> pd.DataFrame:
    return f["shops.csv"]


def q01(f: F) -> tuple[str, list[Answer]]:
    v = _s(f)[" WINDSPEED"].mean()
    return _q(
        "What is the mean wind speed over all readings?",
        "Use the WINDSPEED column; ignore missing values.",
        _num("mean_wind", "the mean wind speed", 2),
    ), [Answer("mean_wind", v, 2)]


def q02(f: F) -> tuple[str, list[Answer]]:
    n = int(_s(f)[" RAIN"].isna().sum())
    return _q(
        "How many readings have no rain value recorded?",
        "Count missing values of RAIN.",
        _num("missing_rain", "the count", None),
    ), [Answer("missing_rain", n)]


def q03(f: F) -> tuple[str, list[Answer]]:
    n = int((_s(f).STATUS == "faulty").sum())
    return _q(
        "How many readings have the status 'faulty'?",
        "Count rows of STATUS equal to 'faulty'.",
        _num("faulty", "the count", None),
    ), [Answer("faulty", n)]


def q04(f: F) -> tuple[str, list[Answer]]:
    v = _h(f)["Annual Sales"].sum()
    return _q(
        "What are the total annual sales of all shops?",
        "Annual Sales are numbers written with thousands separators; sum them as numbers.",
        _num("total_sales", "the total", None),
    ), [Answer("total_sales", int(v))]


def q05(f: F) -> tuple[str, list[Answer]]:
    v = _h(f).employees.median()
    return _q(
        "What is the median number of employees per shop?",
        "Use the employees column.",
        _num("median_employees", "the median", 1),
    ), [Answer("median_employees", v, 1)]


def q06(f: F) -> tuple[str, list[Answer]]:
    v = _s(f)["TEMP "].max()
    return _q(
        "What is the highest temperature recorded?",
        "Use the TEMP column.",
        _num("max_temp", "the maximum", 1),
    ), [Answer("max_temp", v, 1)]


def q07(f: F) -> tuple[str, list[Answer]]:
    s = _s(f).groupby("STATION")[" WINDSPEED"].mean()
    return _q(
        "Which station has the highest mean wind speed, and what is it?",
        "Group by STATION; ignore missing wind speeds.",
        '@station[station_name] @station_wind[wind_value] where "station_name" is the '
        'station\'s name and "wind_value" is a float rounded to 2 decimal places.',
    ), [Answer("station", s.idxmax()), Answer("station_wind", s.max(), 2)]


def q08(f: F) -> tuple[str, list[Answer]]:
    d = _s(f)
    v = d[d.STATION == "Cedar"].POPULATION.iloc[0]
    return _q(
        "What is the population served by the Cedar station?",
        "POPULATION is written with thousands separators; give it as a plain integer.",
        _num("population", "the population", None),
    ), [Answer("population", int(v))]


def q09(f: F) -> tuple[str, list[Answer]]:
    s = _h(f).groupby("city")["Annual Sales"].sum()
    return _q(
        "Which city has the largest total annual sales, and how much?",
        "Convert Annual Sales to numbers, then sum per city.",
        '@city[city_name] @city_sales[sales_value] where "city_name" is the city and '
        '"sales_value" is an integer.',
    ), [Answer("city", s.idxmax()), Answer("city_sales", int(s.max()))]


def q10(f: F) -> tuple[str, list[Answer]]:
    v = _h(f).rating.mean()
    return _q(
        "What is the mean rating of the shops that have a rating?",
        "Skip missing ratings.",
        _num("mean_rating", "the mean", 3),
    ), [Answer("mean_rating", v, 3)]


def q11(f: F) -> tuple[str, list[Answer]]:
    d = _h(f)
    n = int(((d.opened < 2000) & (d.city == "Graz")).sum())
    return _q(
        "How many shops in Graz opened before the year 2000?",
        "Filter city equal to 'Graz' and opened < 2000.",
        _num("old_graz", "the count", None),
    ), [Answer("old_graz", n)]


def q12(f: F) -> tuple[str, list[Answer]]:
    d = _s(f)
    v = d[d.STATION == "Birch"][" RAIN"].sum()
    return _q(
        "What is the total rain at the Birch station?",
        "Missing rain values count as nothing.",
        _num("birch_rain", "the total", 1),
    ), [Answer("birch_rain", v, 1)]


def q13(f: F) -> tuple[str, list[Answer]]:
    d = _s(f).copy()
    d["month"] = pd.to_datetime(d.DATE).dt.month
    s = d.groupby("month")[" RAIN"].sum()
    return _q(
        "In which month (1-12) was the total rain over all stations highest, and how much fell?",
        "Group by the month of DATE, not by day; missing rain counts as nothing.",
        '@month[month_number] @month_rain[rain_value] where "month_number" is an integer '
        'and "rain_value" is a float rounded to 1 decimal place.',
    ), [Answer("month", int(s.idxmax())), Answer("month_rain", s.max(), 1)]


def q14(f: F) -> tuple[str, list[Answer]]:
    d = _s(f)
    v = d[" WINDSPEED"].corr(d["TEMP "])
    return _q(
        "What is the Pearson correlation between wind speed and temperature?",
        "Use rows where both are present.",
        _num("wind_temp_corr", "the coefficient", 3),
    ), [Answer("wind_temp_corr", v, 3)]


def q15(f: F) -> tuple[str, list[Answer]]:
    d = _h(f)
    v = (d["Annual Sales"] / d.employees).mean()
    return _q(
        "What are the mean annual sales per employee over all shops?",
        "Compute Annual Sales divided by employees for each shop, then take the mean.",
        _num("sales_per_employee", "the mean", 2),
    ), [Answer("sales_per_employee", v, 2)]


def q16(f: F) -> tuple[str, list[Answer]]:
    d = _s(f)
    ok = d[d.STATUS == "ok"]
    v = ok[" WINDSPEED"].std()
    return _q(
        "What is the sample standard deviation of wind speed over readings whose status is 'ok'?",
        "Only rows with STATUS 'ok'; ignore missing wind speeds; ddof=1.",
        _num("std_wind_ok", "the standard deviation", 2),
    ), [Answer("std_wind_ok", v, 2)]


def q17(f: F) -> tuple[str, list[Answer]]:
    d = _h(f)
    filled = d.rating.fillna(d.rating.median())
    v = filled.mean()
    return _q(
        "Fill missing ratings with the median rating, then give the mean rating.",
        "Median of the known ratings; then the mean of all shops.",
        _num("filled_mean", "the mean", 3),
    ), [Answer("filled_mean", v, 3)]


def q18(f: F) -> tuple[str, list[Answer]]:
    d = _s(f)
    s = d.groupby("STATION")["TEMP "].agg(lambda x: x.max() - x.min())
    return _q(
        "Which station has the largest temperature range (max minus min), and what is it?",
        "Group by STATION.",
        '@range_station[station_name] @temp_range[range_value] where "station_name" is '
        'the station and "range_value" is a float rounded to 1 decimal place.',
    ), [Answer("range_station", s.idxmax()), Answer("temp_range", s.max(), 1)]


def q19(f: F) -> tuple[str, list[Answer]]:
    d = _h(f)
    top = d.nlargest(10, "Annual Sales")
    v = top.employees.mean()
    return _q(
        "What is the mean number of employees of the 10 shops with the largest annual sales?",
        "Rank shops by Annual Sales as numbers.",
        _num("top10_employees", "the mean", 1),
    ), [Answer("top10_employees", v, 1)]


def q20(f: F) -> tuple[str, list[Answer]]:
    d = _s(f)
    w = d[" WINDSPEED"]
    z = (w - w.mean()) / w.std()
    n = int((z.abs() > 1.5).sum())
    return _q(
        "How many readings have a wind speed more than 1.5 standard deviations from the mean "
        "wind speed?",
        "Use the sample standard deviation; missing wind speeds are not outliers.",
        _num("wind_outliers", "the count", None),
    ), [Answer("wind_outliers", n)]


STYLED: list[tuple[str, str, str, QFn]] = [
    ("dab_mean_wind", "easy", "stations.csv", q01),
    ("dab_missing_rain", "easy", "stations.csv", q02),
    ("dab_faulty", "easy", "stations.csv", q03),
    ("dab_total_sales", "easy", "shops.csv", q04),
    ("dab_median_employees", "easy", "shops.csv", q05),
    ("dab_max_temp", "easy", "stations.csv", q06),
    ("dab_station_wind", "medium", "stations.csv", q07),
    ("dab_population", "medium", "stations.csv", q08),
    ("dab_city_sales", "medium", "shops.csv", q09),
    ("dab_mean_rating", "medium", "shops.csv", q10),
    ("dab_old_graz", "medium", "shops.csv", q11),
    ("dab_birch_rain", "medium", "stations.csv", q12),
    ("dab_month_rain", "hard", "stations.csv", q13),
    ("dab_wind_temp_corr", "hard", "stations.csv", q14),
    ("dab_sales_per_employee", "hard", "shops.csv", q15),
    ("dab_std_wind_ok", "hard", "stations.csv", q16),
    ("dab_filled_mean", "hard", "shops.csv", q17),
    ("dab_temp_range", "hard", "stations.csv", q18),
    ("dab_top10_employees", "hard", "shops.csv", q19),
    ("dab_wind_outliers", "hard", "stations.csv", q20),
]


def build_styled_questions(files: dict[str, bytes]) -> list[Question]:
    """The twenty questions with answers computed from ``files``; all held out."""
    frames = _frames(files)
    out = []
    for qid, level, file, fn in STYLED:
        text, answers = fn(frames)
        out.append(Question(qid, "heldout", level, file, text, tuple(answers)))
    return out
