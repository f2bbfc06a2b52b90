"""The data questions of ``answer_quality.py``: four generated CSVs and 44 closed-form questions.

The CSVs are generated from a fixed seed with Python's own ``random`` (identical on every
machine). Every expected answer is *computed* from the generated data with pandas here, never
written down by hand. Questions are split in two halves: ``tune`` (used while adjusting prompts)
and ``heldout`` (reported, never used for tuning). Answers use the ``@name[value]`` format of
public data-analysis benchmarks; the checker accepts exactly the value asked for (floats at the
stated number of decimals), no near-misses.
"""

from __future__ import annotations

import csv
import io
import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

CITIES = ["Lyon", "Porto", "Graz", "Turku", "Ghent"]
DEPTS = ["Sales", "Engineering", "HR", "Marketing", "Finance"]


def _csv(header: list[str], rows: list[list[Any]]) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue().encode()


def generate_files(seed: int = 7) -> dict[str, bytes]:
    """The four CSVs, as bytes by file name."""
    rnd = random.Random(seed)
    employees = []
    for i in range(300):
        dept = rnd.choice(DEPTS)
        base = {"Engineering": 80000, "Finance": 70000, "Sales": 55000}.get(dept, 50000)
        employees.append(
            [
                i + 1,
                f"emp{i + 1:03d}",
                dept,
                rnd.randint(22, 64),
                base + rnd.randint(-15000, 45000),
                rnd.randint(0, 30),
                rnd.choice(CITIES),
                rnd.choice(["yes", "no", "no"]),
            ]
        )
    orders = []
    for i in range(800):
        month, day = rnd.randint(1, 12), rnd.randint(1, 28)
        orders.append(
            [
                10000 + i,
                f"2023-{month:02d}-{day:02d}",
                rnd.choice(["North", "South", "East", "West"]),
                rnd.choice("ABCDEF"),
                rnd.randint(1, 20),
                round(rnd.uniform(2, 60), 2),
                rnd.choice([0, 0, 0.05, 0.1, 0.2]),
            ]
        )
    weather = []
    for city in CITIES[:3]:
        for d in pd.date_range("2023-01-01", "2023-12-31"):
            season = -10 * (1 if d.month in (12, 1, 2) else 0) + 8 * (
                1 if d.month in (6, 7, 8) else 0
            )
            rain = round(rnd.expovariate(0.3), 1) if rnd.random() < 0.35 else 0.0
            weather.append(
                [
                    d.date().isoformat(),
                    city,
                    round(12 + season + rnd.gauss(0, 4), 1),
                    rain,
                    rnd.randint(0, 60),
                ]
            )
    passengers = []
    for i in range(600):
        pclass = rnd.choice([1, 2, 3, 3])
        sex = rnd.choice(["male", "female"])
        chance = 0.25 + (0.35 if sex == "female" else 0) + (0.2 if pclass == 1 else 0)
        age = "" if rnd.random() < 0.15 else rnd.randint(1, 80)
        fare = round({1: 80, 2: 25, 3: 9}[pclass] * rnd.uniform(0.5, 2.5), 2)
        embarked = "" if rnd.random() < 0.02 else rnd.choice("SSSCQ")
        passengers.append([i + 1, int(rnd.random() < chance), pclass, sex, age, fare, embarked])
    return {
        "employees.csv": _csv(
            ["id", "name", "department", "age", "salary", "years", "city", "remote"], employees
        ),
        "orders.csv": _csv(
            ["order_id", "date", "region", "product", "units", "unit_price", "discount"], orders
        ),
        "weather.csv": _csv(["date", "city", "temp_c", "rain_mm", "wind_kmh"], weather),
        "passengers.csv": _csv(
            ["passenger_id", "survived", "pclass", "sex", "age", "fare", "embarked"], passengers
        ),
    }


@dataclass(frozen=True)
class Answer:
    """One expected ``@name[value]``: its value and how to compare it."""

    name: str
    value: Any
    decimals: int | None = None  # floats: compared at this many decimals; None: exact

    def expected_text(self) -> str:
        """The value as the question asks for it."""
        if self.decimals is not None:
            return f"{float(self.value):.{self.decimals}f}"
        return str(self.value)


@dataclass(frozen=True)
class Question:
    """A question over one file (or more, ``other_files``) with its computed answers."""

    id: str
    split: str  # "tune" or "heldout"
    level: str  # "easy", "medium" or "hard"
    file: str
    text: str
    answers: tuple[Answer, ...] = field(default_factory=tuple)
    #: other files the question needs (a join), uploaded and described along with ``file``
    other_files: tuple[str, ...] = ()


_TOKEN = re.compile(r"@(\w+)\[([^\]]*)\]")


def found_answers(text: str) -> dict[str, str]:
    """Every ``@name[value]`` in a reply (the last one of a name wins)."""
    return {name: value.strip() for name, value in _TOKEN.findall(text or "")}


def _matches(answer: Answer, given: str) -> bool:
    given = given.strip().strip("'\"").replace(",", "") if answer.decimals is not None else given
    if answer.decimals is not None:
        try:
            return f"{float(given):.{answer.decimals}f}" == answer.expected_text() and (
                _decimals_of(given) == answer.decimals
            )
        except ValueError:
            return False
    if isinstance(answer.value, int):
        try:
            return int(given.strip().replace(",", "")) == answer.value
        except ValueError:
            return False
    return given.strip().strip("'\"").lower() == str(answer.value).lower()


def _decimals_of(text: str) -> int:
    return len(text.split(".", 1)[1]) if "." in text else 0


def check(question: Question, reply: str) -> bool:
    """True when the reply gives every expected value exactly (floats at the asked decimals)."""
    got = found_answers(reply)
    return all(a.name in got and _matches(a, got[a.name]) for a in question.answers)


def _frames(files: dict[str, bytes]) -> dict[str, pd.DataFrame]:
    return {name: pd.read_csv(io.BytesIO(data)) for name, data in files.items()}


QuestionFn = Callable[[dict[str, pd.DataFrame]], tuple[str, list[Answer]]]


def _q_emp_mean_age(f: dict[str, pd.DataFrame]) -> tuple[str, list[Answer]]:
    return (
        "What is the mean age of the employees? Answer as @mean_age[value], rounded to two "
        "decimals.",
        [Answer("mean_age", f["employees.csv"].age.mean(), 2)],
    )


def _q_emp_count_remote(f: dict[str, pd.DataFrame]) -> tuple[str, list[Answer]]:
    n = int((f["employees.csv"].remote == "yes").sum())
    return (
        "How many employees work remotely (remote is 'yes')? Answer as @remote_count[value].",
        [Answer("remote_count", n)],
    )


def _q_emp_max_salary_dept(f: dict[str, pd.DataFrame]) -> tuple[str, list[Answer]]:
    df = f["employees.csv"]
    row = df.loc[df.salary.idxmax()]
    return (
        "Which department does the best-paid employee work in, and what is that salary? "
        "Answer as @department[name] @salary[value].",
        [Answer("department", row.department), Answer("salary", int(row.salary))],
    )


def _q_emp_dept_mean_salary(f: dict[str, pd.DataFrame]) -> tuple[str, list[Answer]]:
    means = f["employees.csv"].groupby("department").salary.mean()
    return (
        "Which department has the highest average salary, and what is it? Answer as "
        "@department[name] @avg_salary[value] with the average rounded to two decimals.",
        [Answer("department", means.idxmax()), Answer("avg_salary", means.max(), 2)],
    )


def _q_emp_median_years(f: dict[str, pd.DataFrame]) -> tuple[str, list[Answer]]:
    v = f["employees.csv"].years.median()
    return (
        "What is the median number of years of service? Answer as @median_years[value] "
        "rounded to one decimal.",
        [Answer("median_years", v, 1)],
    )


def _q_emp_city_count(f: dict[str, pd.DataFrame]) -> tuple[str, list[Answer]]:
    counts = f["employees.csv"].city.value_counts()
    return (
        "Which city has the most employees, and how many? Answer as @city[name] @count[value].",
        [Answer("city", counts.idxmax()), Answer("count", int(counts.max()))],
    )


def _q_emp_corr(f: dict[str, pd.DataFrame]) -> tuple[str, list[Answer]]:
    df = f["employees.csv"]
    return (
        "What is the Pearson correlation between age and salary? Answer as "
        "@correlation[value] rounded to three decimals.",
        [Answer("correlation", df.age.corr(df.salary), 3)],
    )


def _q_emp_pct_over(f: dict[str, pd.DataFrame]) -> tuple[str, list[Answer]]:
    df = f["employees.csv"]
    pct = (df.salary > 90000).mean() * 100
    return (
        "What percentage of employees earn more than 90000? Answer as @percentage[value] "
        "rounded to two decimals.",
        [Answer("percentage", pct, 2)],
    )


def _q_emp_eng_young(f: dict[str, pd.DataFrame]) -> tuple[str, list[Answer]]:
    df = f["employees.csv"]
    n = int(((df.department == "Engineering") & (df.age < 30)).sum())
    return (
        "How many employees in Engineering are younger than 30? Answer as @count[value].",
        [Answer("count", n)],
    )


def _q_emp_salary_std_hr(f: dict[str, pd.DataFrame]) -> tuple[str, list[Answer]]:
    df = f["employees.csv"]
    v = df[df.department == "HR"].salary.std()
    return (
        "What is the standard deviation (sample, ddof=1) of salaries in HR? Answer as "
        "@std_salary[value] rounded to two decimals.",
        [Answer("std_salary", v, 2)],
    )


def _q_emp_remote_gap(f: dict[str, pd.DataFrame]) -> tuple[str, list[Answer]]:
    df = f["employees.csv"]
    m = df.groupby("remote").salary.mean()
    return (
        "How much higher (or lower, as a negative number) is the mean salary of remote "
        "employees than of non-remote ones? Answer as @difference[value] rounded to two "
        "decimals.",
        [Answer("difference", m["yes"] - m["no"], 2)],
    )


def _orders(f: dict[str, pd.DataFrame]) -> pd.DataFrame:
    df = f["orders.csv"].copy()
    df["revenue"] = df.units * df.unit_price * (1 - df.discount)
    df["month"] = pd.to_datetime(df.date).dt.month
    return df


def _q_ord_total_units(f: dict[str, pd.DataFrame]) -> tuple[str, list[Answer]]:
    return (
        "How many units were ordered in total? Answer as @total_units[value].",
        [Answer("total_units", int(f["orders.csv"].units.sum()))],
    )


def _q_ord_mean_price(f: dict[str, pd.DataFrame]) -> tuple[str, list[Answer]]:
    return (
        "What is the mean unit price? Answer as @mean_price[value] rounded to two decimals.",
        [Answer("mean_price", f["orders.csv"].unit_price.mean(), 2)],
    )


def _q_ord_region_units(f: dict[str, pd.DataFrame]) -> tuple[str, list[Answer]]:
    s = f["orders.csv"].groupby("region").units.sum()
    return (
        "Which region ordered the most units, and how many? Answer as @region[name] @units[value].",
        [Answer("region", s.idxmax()), Answer("units", int(s.max()))],
    )


def _q_ord_discounted(f: dict[str, pd.DataFrame]) -> tuple[str, list[Answer]]:
    n = int((f["orders.csv"].discount > 0).sum())
    return (
        "How many orders have a discount greater than zero? Answer as @discounted[value].",
        [Answer("discounted", n)],
    )


def _q_ord_revenue(f: dict[str, pd.DataFrame]) -> tuple[str, list[Answer]]:
    df = _orders(f)
    return (
        "Revenue of an order is units * unit_price * (1 - discount). What is the total "
        "revenue? Answer as @revenue[value] rounded to two decimals.",
        [Answer("revenue", df.revenue.sum(), 2)],
    )


def _q_ord_best_month(f: dict[str, pd.DataFrame]) -> tuple[str, list[Answer]]:
    df = _orders(f)
    s = df.groupby("month").revenue.sum()
    return (
        "Revenue of an order is units * unit_price * (1 - discount). In which month number "
        "(1-12) was revenue highest, and what was it? Answer as @month[value] "
        "@revenue[value] with revenue rounded to two decimals.",
        [Answer("month", int(s.idxmax())), Answer("revenue", s.max(), 2)],
    )


def _q_ord_product_avg_units(f: dict[str, pd.DataFrame]) -> tuple[str, list[Answer]]:
    s = f["orders.csv"].groupby("product")["units"].mean()
    return (
        "Which product has the lowest average units per order, and what is that average? "
        "Answer as @product[name] @avg_units[value] rounded to two decimals.",
        [Answer("product", s.idxmin()), Answer("avg_units", s.min(), 2)],
    )


def _q_ord_p90(f: dict[str, pd.DataFrame]) -> tuple[str, list[Answer]]:
    v = f["orders.csv"].unit_price.quantile(0.9)
    return (
        "What is the 90th percentile of unit_price (pandas' default linear interpolation)? "
        "Answer as @p90[value] rounded to two decimals.",
        [Answer("p90", v, 2)],
    )


def _q_ord_share_west(f: dict[str, pd.DataFrame]) -> tuple[str, list[Answer]]:
    df = _orders(f)
    share = df[df.region == "West"].revenue.sum() / df.revenue.sum() * 100
    return (
        "Revenue of an order is units * unit_price * (1 - discount). What share of total "
        "revenue, in percent, comes from the West region? Answer as @share[value] rounded "
        "to one decimal.",
        [Answer("share", share, 1)],
    )


def _q_ord_q4_orders(f: dict[str, pd.DataFrame]) -> tuple[str, list[Answer]]:
    df = _orders(f)
    n = int((df.month >= 10).sum())
    return (
        "How many orders were placed in October, November or December? Answer as "
        "@q4_orders[value].",
        [Answer("q4_orders", n)],
    )


def _q_ord_big_orders_product(f: dict[str, pd.DataFrame]) -> tuple[str, list[Answer]]:
    df = f["orders.csv"]
    s = df[df.units >= 15]["product"].value_counts().sort_index()
    top = s[s == s.max()].index[0]
    return (
        "Among orders of at least 15 units, which product appears most often (the "
        "alphabetically first on a tie), and how often? Answer as @product[name] "
        "@orders[value].",
        [Answer("product", top), Answer("orders", int(s.max()))],
    )


def _q_wea_mean_temp(f: dict[str, pd.DataFrame]) -> tuple[str, list[Answer]]:
    return (
        "What is the mean temperature (temp_c) over all rows? Answer as @mean_temp[value] "
        "rounded to two decimals.",
        [Answer("mean_temp", f["weather.csv"].temp_c.mean(), 2)],
    )


def _q_wea_rainy_days(f: dict[str, pd.DataFrame]) -> tuple[str, list[Answer]]:
    df = f["weather.csv"]
    n = int(((df.city == "Porto") & (df.rain_mm > 0)).sum())
    return (
        "On how many days did it rain (rain_mm > 0) in Porto? Answer as @rainy_days[value].",
        [Answer("rainy_days", n)],
    )


def _q_wea_wettest_city(f: dict[str, pd.DataFrame]) -> tuple[str, list[Answer]]:
    s = f["weather.csv"].groupby("city").rain_mm.sum()
    return (
        "Which city had the most total rain, and how much? Answer as @city[name] "
        "@rain[value] rounded to one decimal.",
        [Answer("city", s.idxmax()), Answer("rain", s.max(), 1)],
    )


def _q_wea_max_temp_date(f: dict[str, pd.DataFrame]) -> tuple[str, list[Answer]]:
    df = f["weather.csv"]
    row = df.loc[df.temp_c.idxmax()]
    return (
        "On which date and in which city was the highest temperature recorded (the first "
        "such row on a tie)? Answer as @date[YYYY-MM-DD] @city[name].",
        [Answer("date", row.date), Answer("city", row.city)],
    )


def _q_wea_july_mean(f: dict[str, pd.DataFrame]) -> tuple[str, list[Answer]]:
    df = f["weather.csv"]
    v = df[(df.city == "Lyon") & (pd.to_datetime(df.date).dt.month == 7)].temp_c.mean()
    return (
        "What was the mean temperature in Lyon in July? Answer as @july_mean[value] rounded "
        "to two decimals.",
        [Answer("july_mean", v, 2)],
    )


def _q_wea_windy(f: dict[str, pd.DataFrame]) -> tuple[str, list[Answer]]:
    n = int((f["weather.csv"].wind_kmh > 50).sum())
    return ("How many rows have wind_kmh above 50? Answer as @windy[value].", [Answer("windy", n)])


def _q_wea_streak(f: dict[str, pd.DataFrame]) -> tuple[str, list[Answer]]:
    df = f["weather.csv"]
    rain = (df[df.city == "Graz"].sort_values("date").rain_mm > 0).tolist()
    best = run = 0
    for r in rain:
        run = run + 1 if r else 0
        best = max(best, run)
    return (
        "What is the longest run of consecutive rainy days (rain_mm > 0) in Graz? Answer "
        "as @longest_streak[value].",
        [Answer("longest_streak", best)],
    )


def _q_wea_temp_range(f: dict[str, pd.DataFrame]) -> tuple[str, list[Answer]]:
    s = f["weather.csv"].groupby("city").temp_c.agg(lambda x: x.max() - x.min())
    return (
        "Which city has the largest difference between its highest and lowest temperature, "
        "and what is the difference? Answer as @city[name] @range[value] rounded to one "
        "decimal.",
        [Answer("city", s.idxmax()), Answer("range", s.max(), 1)],
    )


def _q_wea_rain_wind_corr(f: dict[str, pd.DataFrame]) -> tuple[str, list[Answer]]:
    df = f["weather.csv"]
    return (
        "What is the Pearson correlation between rain_mm and wind_kmh? Answer as "
        "@correlation[value] rounded to three decimals.",
        [Answer("correlation", df.rain_mm.corr(df.wind_kmh), 3)],
    )


def _q_wea_cold_days(f: dict[str, pd.DataFrame]) -> tuple[str, list[Answer]]:
    df = f["weather.csv"]
    n = int((df.temp_c < 0).sum())
    return (
        "How many rows have a temperature below zero? Answer as @cold_rows[value].",
        [Answer("cold_rows", n)],
    )


def _q_pas_survival_rate(f: dict[str, pd.DataFrame]) -> tuple[str, list[Answer]]:
    v = f["passengers.csv"].survived.mean() * 100
    return (
        "What percentage of passengers survived? Answer as @survival_rate[value] rounded to "
        "two decimals.",
        [Answer("survival_rate", v, 2)],
    )


def _q_pas_missing_age(f: dict[str, pd.DataFrame]) -> tuple[str, list[Answer]]:
    n = int(f["passengers.csv"].age.isna().sum())
    return (
        "How many passengers have no age recorded? Answer as @missing_age[value].",
        [Answer("missing_age", n)],
    )


def _q_pas_mean_fare_class(f: dict[str, pd.DataFrame]) -> tuple[str, list[Answer]]:
    v = f["passengers.csv"].groupby("pclass").fare.mean()[1]
    return (
        "What is the mean fare of first-class passengers (pclass 1)? Answer as "
        "@mean_fare[value] rounded to two decimals.",
        [Answer("mean_fare", v, 2)],
    )


def _q_pas_female_survival(f: dict[str, pd.DataFrame]) -> tuple[str, list[Answer]]:
    df = f["passengers.csv"]
    v = df[df.sex == "female"].survived.mean() * 100
    return (
        "What percentage of female passengers survived? Answer as @female_rate[value] "
        "rounded to two decimals.",
        [Answer("female_rate", v, 2)],
    )


def _q_pas_median_age(f: dict[str, pd.DataFrame]) -> tuple[str, list[Answer]]:
    v = f["passengers.csv"].age.median()
    return (
        "What is the median age of passengers whose age is known? Answer as "
        "@median_age[value] rounded to one decimal.",
        [Answer("median_age", v, 1)],
    )


def _q_pas_embarked_top(f: dict[str, pd.DataFrame]) -> tuple[str, list[Answer]]:
    s = f["passengers.csv"].embarked.value_counts()
    return (
        "Which embarkation port (embarked) is the most common, and how many passengers "
        "embarked there? Answer as @port[letter] @count[value].",
        [Answer("port", s.idxmax()), Answer("count", int(s.max()))],
    )


def _q_pas_fill_age_mean(f: dict[str, pd.DataFrame]) -> tuple[str, list[Answer]]:
    age = f["passengers.csv"].age
    v = age.fillna(age.median()).mean()
    return (
        "Fill missing ages with the median age, then give the mean age. Answer as "
        "@mean_age[value] rounded to two decimals.",
        [Answer("mean_age", v, 2)],
    )


def _q_pas_class_survival_gap(f: dict[str, pd.DataFrame]) -> tuple[str, list[Answer]]:
    r = f["passengers.csv"].groupby("pclass").survived.mean() * 100
    return (
        "By how many percentage points does the survival rate of class 1 exceed that of "
        "class 3? Answer as @gap[value] rounded to two decimals.",
        [Answer("gap", r[1] - r[3], 2)],
    )


def _q_pas_children(f: dict[str, pd.DataFrame]) -> tuple[str, list[Answer]]:
    df = f["passengers.csv"]
    n = int((df.age < 18).sum())
    return (
        "How many passengers are younger than 18? Answer as @children[value].",
        [Answer("children", n)],
    )


def _q_pas_fare_zscore(f: dict[str, pd.DataFrame]) -> tuple[str, list[Answer]]:
    fare = f["passengers.csv"].fare
    z = (fare - fare.mean()) / fare.std()
    n = int((z.abs() > 3).sum())
    return (
        "How many passengers have a fare more than 3 standard deviations (sample std) from "
        "the mean fare? Answer as @outliers[value].",
        [Answer("outliers", n)],
    )


def _q_pas_max_fare(f: dict[str, pd.DataFrame]) -> tuple[str, list[Answer]]:
    df = f["passengers.csv"]
    row = df.loc[df.fare.idxmax()]
    return (
        "What is the highest fare, and which passenger_id paid it? Answer as "
        "@max_fare[value] rounded to two decimals and @passenger_id[value].",
        [Answer("max_fare", row.fare, 2), Answer("passenger_id", int(row.passenger_id))],
    )


def _q_pas_survived_by_sex_class(f: dict[str, pd.DataFrame]) -> tuple[str, list[Answer]]:
    df = f["passengers.csv"]
    n = int(((df.sex == "male") & (df.pclass == 3) & (df.survived == 1)).sum())
    return (
        "How many male third-class passengers survived? Answer as @survivors[value].",
        [Answer("survivors", n)],
    )


def _q_emp_oldest_city(f: dict[str, pd.DataFrame]) -> tuple[str, list[Answer]]:
    s = f["employees.csv"].groupby("city").age.mean()
    return (
        "Which city has the oldest employees on average, and what is their mean age? "
        "Answer as @city[name] @mean_age[value] rounded to two decimals.",
        [Answer("city", s.idxmax()), Answer("mean_age", s.max(), 2)],
    )


def _q_ord_unique_dates(f: dict[str, pd.DataFrame]) -> tuple[str, list[Answer]]:
    n = int(f["orders.csv"].date.nunique())
    return (
        "On how many distinct dates were orders placed? Answer as @dates[value].",
        [Answer("dates", n)],
    )


#: (id, level, file, question function); ids alternate between the two splits per level.
QUESTIONS: list[tuple[str, str, str, QuestionFn]] = [
    ("emp_mean_age", "easy", "employees.csv", _q_emp_mean_age),
    ("emp_count_remote", "easy", "employees.csv", _q_emp_count_remote),
    ("emp_median_years", "easy", "employees.csv", _q_emp_median_years),
    ("ord_total_units", "easy", "orders.csv", _q_ord_total_units),
    ("ord_mean_price", "easy", "orders.csv", _q_ord_mean_price),
    ("ord_discounted", "easy", "orders.csv", _q_ord_discounted),
    ("wea_mean_temp", "easy", "weather.csv", _q_wea_mean_temp),
    ("wea_windy", "easy", "weather.csv", _q_wea_windy),
    ("pas_survival_rate", "easy", "passengers.csv", _q_pas_survival_rate),
    ("pas_missing_age", "easy", "passengers.csv", _q_pas_missing_age),
    ("pas_children", "easy", "passengers.csv", _q_pas_children),
    ("wea_cold_days", "easy", "weather.csv", _q_wea_cold_days),
    ("ord_unique_dates", "easy", "orders.csv", _q_ord_unique_dates),
    ("emp_max_salary_dept", "medium", "employees.csv", _q_emp_max_salary_dept),
    ("emp_dept_mean_salary", "medium", "employees.csv", _q_emp_dept_mean_salary),
    ("emp_city_count", "medium", "employees.csv", _q_emp_city_count),
    ("emp_eng_young", "medium", "employees.csv", _q_emp_eng_young),
    ("emp_pct_over", "medium", "employees.csv", _q_emp_pct_over),
    ("ord_region_units", "medium", "orders.csv", _q_ord_region_units),
    ("ord_product_avg_units", "medium", "orders.csv", _q_ord_product_avg_units),
    ("ord_q4_orders", "medium", "orders.csv", _q_ord_q4_orders),
    ("wea_rainy_days", "medium", "weather.csv", _q_wea_rainy_days),
    ("wea_wettest_city", "medium", "weather.csv", _q_wea_wettest_city),
    ("wea_july_mean", "medium", "weather.csv", _q_wea_july_mean),
    ("pas_mean_fare_class", "medium", "passengers.csv", _q_pas_mean_fare_class),
    ("pas_female_survival", "medium", "passengers.csv", _q_pas_female_survival),
    ("pas_median_age", "medium", "passengers.csv", _q_pas_median_age),
    ("pas_embarked_top", "medium", "passengers.csv", _q_pas_embarked_top),
    ("pas_max_fare", "medium", "passengers.csv", _q_pas_max_fare),
    ("pas_survived_by_sex_class", "medium", "passengers.csv", _q_pas_survived_by_sex_class),
    ("emp_corr", "hard", "employees.csv", _q_emp_corr),
    ("emp_salary_std_hr", "hard", "employees.csv", _q_emp_salary_std_hr),
    ("emp_remote_gap", "hard", "employees.csv", _q_emp_remote_gap),
    ("emp_oldest_city", "hard", "employees.csv", _q_emp_oldest_city),
    ("ord_revenue", "hard", "orders.csv", _q_ord_revenue),
    ("ord_best_month", "hard", "orders.csv", _q_ord_best_month),
    ("ord_p90", "hard", "orders.csv", _q_ord_p90),
    ("ord_share_west", "hard", "orders.csv", _q_ord_share_west),
    ("ord_big_orders_product", "hard", "orders.csv", _q_ord_big_orders_product),
    ("wea_max_temp_date", "hard", "weather.csv", _q_wea_max_temp_date),
    ("wea_streak", "hard", "weather.csv", _q_wea_streak),
    ("wea_temp_range", "hard", "weather.csv", _q_wea_temp_range),
    ("wea_rain_wind_corr", "hard", "weather.csv", _q_wea_rain_wind_corr),
    ("pas_fill_age_mean", "hard", "passengers.csv", _q_pas_fill_age_mean),
    ("pas_class_survival_gap", "hard", "passengers.csv", _q_pas_class_survival_gap),
    ("pas_fare_zscore", "hard", "passengers.csv", _q_pas_fare_zscore),
]


def build_questions(files: dict[str, bytes]) -> list[Question]:
    """Every question with answers computed from ``files``; alternate ones per level are held
    out."""
    frames = _frames(files)
    out, seen = [], {"easy": 0, "medium": 0, "hard": 0}
    for qid, level, file, fn in QUESTIONS:
        text, answers = fn(frames)
        split = "tune" if seen[level] % 2 == 0 else "heldout"
        seen[level] += 1
        out.append(Question(qid, split, level, file, text, tuple(answers)))
    return out
