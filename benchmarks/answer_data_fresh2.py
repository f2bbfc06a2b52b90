"""Twenty more fresh questions (split ``fresh2``), in the public benchmark's instruction style,
over two new files with the messiness of real-world CSVs.

Written after every answer mechanism and never used to tune one: the untuned measure of the
agent (run with ``--split fresh2``). Keep it that way — a mechanism built from these
transcripts makes the split a tuning set; add new fresh questions instead.

``hr.csv`` (generated from a fixed seed) has hire dates written day-first as text
(``"15/03/2019"``), salaries as text with thousands separators under a header with a trailing
space (``'Salary '``), bonuses as percentage text (``"7.5%"``), missing performance ratings and
a Yes/No ``remote`` column. ``sensors.csv`` has hourly readings over three weeks, missing
temperatures, a humidity sentinel (``-999`` means a missing reading), a status text and a few
temperature glitches. Every expected answer is computed here with pandas; the seed was chosen
so that no asked maximum or minimum has a tie or near-tie and no float lies within 0.0005 of
a rounding boundary at its asked decimals.
"""

from __future__ import annotations

import io
import math
import random
from collections.abc import Callable

import pandas as pd
from answer_data import Answer, Question, _csv
from answer_data_styled import _num, _q

DEPARTMENTS = ["Sales", "Engineering", "Support", "Finance", "Operations", "Legal"]
SENSORS = ["TH-01", "TH-02", "TH-03", "TH-04", "TH-05"]


def generate_fresh2_files(seed: int = 58) -> dict[str, bytes]:
    """``hr.csv`` (300 employees) and ``sensors.csv`` (504 hourly readings from March 2024)."""
    rnd = random.Random(seed)
    base = {"Engineering": 68_000, "Finance": 60_000, "Legal": 64_000, "Sales": 48_000}
    staff = []
    for i in range(300):
        dept = rnd.choice(DEPARTMENTS)
        hired = pd.Timestamp("2012-01-01") + pd.Timedelta(days=rnd.randint(0, 12 * 365))
        tenure = (pd.Timestamp("2024-01-01") - hired).days / 365
        salary = 100 * round((base.get(dept, 45_000) + 1_200 * tenure + rnd.gauss(0, 7_000)) / 100)
        bonus = max(0.0, round(salary / 9_000 + rnd.gauss(0, 1.5), 1))
        staff.append(
            [
                f"E{1001 + i}",
                dept,
                hired.strftime("%d/%m/%Y"),
                f"{salary:,}",
                f"{bonus:g}%",
                "" if rnd.random() < 0.1 else rnd.choice([1, 2, 3, 3, 3, 4, 4, 4, 5]),
                rnd.choice(["Yes", "No", "No"]),
                rnd.randint(23, 63),
            ]
        )
    readings = []
    offset = {s: rnd.uniform(-2, 2) for s in SENSORS}
    damp = [rnd.uniform(-8, 8) for _ in range(21)]
    for h in range(21 * 24):
        when = pd.Timestamp("2024-03-04") + pd.Timedelta(hours=h)
        s = rnd.choice(SENSORS)
        temp = 21 + offset[s] + 3 * math.sin((when.hour - 9) / 24 * 2 * math.pi)
        temp += rnd.gauss(0, 1) + (rnd.choice([-16, 18]) if rnd.random() < 0.01 else 0)
        humidity = round(55 + damp[h // 24] - (temp - 21) + rnd.gauss(0, 5), 1)
        status = rnd.choices(["OK", "WARN", "FAIL"], [80, 14, 6])[0]
        readings.append(
            [
                when.strftime("%Y-%m-%d %H:%M"),
                s,
                "" if rnd.random() < 0.05 else round(temp, 1),
                -999 if rnd.random() < 0.06 else humidity,
                status,
                round(4.1 - h / 504 * 0.6 + rnd.gauss(0, 0.05), 3),
            ]
        )
    return {
        "hr.csv": _csv(
            ["emp_id", "department", "hire_date", "Salary ", "bonus", "rating", "remote", "age"],
            staff,
        ),
        "sensors.csv": _csv(
            ["timestamp", "sensor_id", "temperature_c", "humidity", "status", "battery_v"],
            readings,
        ),
    }


def _frames(files: dict[str, bytes]) -> dict[str, pd.DataFrame]:
    hr = pd.read_csv(io.BytesIO(files["hr.csv"]))
    hr["salary"] = hr["Salary "].str.replace(",", "").astype(float)
    hr["bonus_pct"] = hr.bonus.str.rstrip("%").astype(float)
    hr["hired"] = pd.to_datetime(hr.hire_date, format="%d/%m/%Y")
    sensors = pd.read_csv(io.BytesIO(files["sensors.csv"]))
    sensors["humidity"] = sensors.humidity.mask(sensors.humidity == -999)
    sensors["ts"] = pd.to_datetime(sensors.timestamp)
    return {"hr.csv": hr, "sensors.csv": sensors}


QFn = Callable[[pd.DataFrame], tuple[str, list[Answer]]]
SENTINEL = "A humidity of -999 means a missing reading: leave those readings out"


def g01(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "How many employees work remotely?",
        "Count rows whose remote column is 'Yes'.",
        _num("remote_count", "the count", None),
    ), [Answer("remote_count", int((d.remote == "Yes").sum()))]


def g02(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "What is the mean age of the employees?",
        "Use all employees.",
        _num("mean_age", "the mean age", 2),
    ), [Answer("mean_age", d.age.mean(), 2)]


def g03(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "How many employees have no performance rating recorded?",
        "Count missing values of rating.",
        _num("unrated", "the count", None),
    ), [Answer("unrated", int(d.rating.isna().sum()))]


def g04(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "What is the highest temperature recorded by any sensor?",
        "Use the temperature_c column; ignore missing values.",
        _num("max_temp", "the maximum in degrees Celsius", 1),
    ), [Answer("max_temp", d.temperature_c.max(), 1)]


def g05(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "How many readings have the status 'FAIL'?",
        "Count rows whose status is 'FAIL'.",
        _num("fail_count", "the count", None),
    ), [Answer("fail_count", int((d.status == "FAIL").sum()))]


def g06(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "What is the mean battery voltage over all readings?",
        "Use the battery_v column and every reading.",
        _num("mean_battery", "the mean in volts", 2),
    ), [Answer("mean_battery", d.battery_v.mean(), 2)]


def g07(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "What is the mean salary of the employees?",
        "The Salary column holds text with thousands separators such as '52,300'; use every "
        "employee.",
        _num("mean_salary", "the mean salary", 2),
    ), [Answer("mean_salary", d.salary.mean(), 2)]


def g08(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "How many employees were hired in the month of March, in any year?",
        "hire_date is written day first, as day/month/year (15/03/2019 is 15 March 2019).",
        _num("march_hires", "the count", None),
    ), [Answer("march_hires", int((d.hired.dt.month == 3).sum()))]


def g09(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    v = d.loc[d.department == "Engineering", "bonus_pct"].mean()
    return _q(
        "What is the mean bonus, in percent, of the employees of the Engineering department?",
        "The bonus column holds text such as '7.5%'; read '7.5%' as 7.5. Only rows whose "
        "department is 'Engineering'.",
        _num("engineering_bonus", "the mean bonus in percent", 2),
    ), [Answer("engineering_bonus", v, 2)]


def g10(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    v = d.loc[d.sensor_id == "TH-03", "humidity"].mean()
    return _q(
        "What is the mean humidity measured by sensor TH-03?",
        f"Only rows whose sensor_id is 'TH-03'. {SENTINEL}.",
        _num("th03_humidity", "the mean humidity", 2),
    ), [Answer("th03_humidity", v, 2)]


def g11(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    counts = d.loc[d.status == "WARN", "sensor_id"].value_counts()
    return _q(
        "Which sensor reported the most 'WARN' statuses, and how many?",
        "Count the readings whose status is 'WARN' per sensor_id.",
        '@sensor[sensor_id] where "sensor_id" is the sensor\'s id. '
        + _num("warn_count", "the number of WARN readings", None),
    ), [Answer("sensor", counts.idxmax()), Answer("warn_count", int(counts.max()))]


def g12(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    v = d.loc[d.remote == "Yes", "rating"].mean()
    return _q(
        "What is the mean performance rating of the employees who work remotely?",
        "Only rows whose remote is 'Yes'; ignore missing ratings.",
        _num("remote_rating", "the mean rating", 2),
    ), [Answer("remote_rating", v, 2)]


def g13(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    v = d.loc[d.status == "OK", "temperature_c"].mean()
    return _q(
        "What is the mean temperature of the readings whose status is 'OK'?",
        "Only rows whose status is 'OK'; ignore missing temperatures.",
        _num("ok_temp", "the mean in degrees Celsius", 2),
    ), [Answer("ok_temp", v, 2)]


def g14(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    share = d.groupby("department").remote.apply(lambda r: (r == "Yes").mean() * 100)
    return _q(
        "Which department has the highest share of employees working remotely, and what is "
        "that share as a percentage?",
        "For each department, divide the number of employees whose remote is 'Yes' by the "
        "department's number of employees, times 100.",
        '@department[department_name] where "department_name" is the department. '
        + _num("remote_pct", "the percentage", 2),
    ), [Answer("department", share.idxmax()), Answer("remote_pct", share.max(), 2)]


def g15(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "What is the Pearson correlation coefficient between salary and bonus?",
        "Salary is text such as '52,300' and bonus is text such as '7.5%': convert both to "
        "numbers first. Use every employee.",
        _num("r_salary_bonus", "the coefficient", 2),
    ), [Answer("r_salary_bonus", d.salary.corr(d.bonus_pct), 2)]


def g16(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    median = d.groupby("department").rating.transform("median")
    v = d.rating.fillna(median).mean()
    return _q(
        "After filling each missing performance rating with the median rating of the "
        "employee's department, what is the mean rating over all employees?",
        "The median of a department is taken over its known ratings; fill the missing "
        "ratings with it, then average over every employee.",
        _num("filled_rating", "the mean rating", 2),
    ), [Answer("filled_rating", v, 2)]


def g17(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    early = d.hired < "2018-01-01"
    v = d.salary[early].mean() - d.salary[~early].mean()
    return _q(
        "How much higher is the mean salary of employees hired before 2018 than that of "
        "employees hired in 2018 or later?",
        "hire_date is written day/month/year; salary is text with thousands separators. "
        "Subtract the mean of the later group from the mean of the earlier group.",
        _num("salary_gap", "the difference", 2),
    ), [Answer("salary_gap", v, 2)]


def g18(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    daily = d.groupby(d.ts.dt.date).temperature_c.mean()
    return _q(
        "On which day was the mean temperature over all sensors highest, and what was it?",
        "Group the readings by the calendar date of timestamp; ignore missing temperatures.",
        '@hottest_day[date] where "date" is the day in YYYY-MM-DD format. '
        + _num("hottest_mean", "the mean temperature of that day", 2),
    ), [Answer("hottest_day", str(daily.idxmax())), Answer("hottest_mean", daily.max(), 2)]


def g19(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    t = d.temperature_c
    n = int(((t - t.mean()).abs() > 3 * t.std()).sum())
    return _q(
        "How many temperature readings lie more than 3 standard deviations away from the mean "
        "temperature?",
        "Use the mean and the sample standard deviation (ddof=1) of the non-missing "
        "temperatures; missing temperatures are not outliers.",
        _num("temp_outliers", "the count", None),
    ), [Answer("temp_outliers", n)]


def g20(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    weekly = d.groupby(d.ts.dt.isocalendar().week).humidity.mean()
    return _q(
        "Which ISO week of 2024 had the lowest mean humidity, and what was that mean?",
        f"{SENTINEL}. Group the readings by the ISO week number of timestamp (weeks start "
        "on Monday).",
        _num("driest_week", "the ISO week number", None)
        + " "
        + _num("driest_humidity", "the mean humidity of that week", 2),
    ), [Answer("driest_week", int(weekly.idxmin())), Answer("driest_humidity", weekly.min(), 2)]


FRESH2: list[tuple[str, str, str, QFn]] = [
    ("fresh2_remote_count", "easy", "hr.csv", g01),
    ("fresh2_mean_age", "easy", "hr.csv", g02),
    ("fresh2_unrated", "easy", "hr.csv", g03),
    ("fresh2_max_temp", "easy", "sensors.csv", g04),
    ("fresh2_fail_count", "easy", "sensors.csv", g05),
    ("fresh2_mean_battery", "easy", "sensors.csv", g06),
    ("fresh2_mean_salary", "medium", "hr.csv", g07),
    ("fresh2_march_hires", "medium", "hr.csv", g08),
    ("fresh2_engineering_bonus", "medium", "hr.csv", g09),
    ("fresh2_th03_humidity", "medium", "sensors.csv", g10),
    ("fresh2_warn_sensor", "medium", "sensors.csv", g11),
    ("fresh2_remote_rating", "medium", "hr.csv", g12),
    ("fresh2_ok_temp", "medium", "sensors.csv", g13),
    ("fresh2_remote_share", "hard", "hr.csv", g14),
    ("fresh2_salary_bonus_corr", "hard", "hr.csv", g15),
    ("fresh2_filled_rating", "hard", "hr.csv", g16),
    ("fresh2_salary_gap", "hard", "hr.csv", g17),
    ("fresh2_hottest_day", "hard", "sensors.csv", g18),
    ("fresh2_temp_outliers", "hard", "sensors.csv", g19),
    ("fresh2_driest_week", "hard", "sensors.csv", g20),
]


def build_split(
    table: list[tuple[str, str, str, QFn]], frames: dict[str, pd.DataFrame], split: str
) -> list[Question]:
    """The questions of ``table`` (id, level, file, question function over that file's
    frame) with their answers computed, in split ``split``."""
    out = []
    for qid, level, file, fn in table:
        text, answers = fn(frames[file])
        out.append(Question(qid, split, level, file, text, tuple(answers)))
    return out


def build_fresh2_questions(files: dict[str, bytes]) -> list[Question]:
    """The twenty questions with answers computed from ``files`` (split ``fresh2``)."""
    return build_split(FRESH2, _frames(files), "fresh2")
