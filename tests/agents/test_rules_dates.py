"""Rules on dates: dates written day or month first (``15/03/2019``) flagged by the files note
and sent back when code matches or compares them as text; a question per day over readings
with times of day sent back when the code groups per reading. Cells from transcripts of the
1.5B model on the ``fresh2`` split."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pandas as pd
import pytest

from codeact.agents._checks import fill_problem
from codeact.agents.code import describe_files
from tests.agents.test_rules import candidate
from tests.agents.test_rules import check as check_candidate

HR = (
    b"emp_id,hire_date,Salary \n"
    b'E1,15/03/2019,"52,300"\nE2,03/06/2016,"61,400"\nE3,05/12/2019,"48,000"\n'
    b'E4,21/03/2017,"70,100"\n'
)
SENSORS = b"timestamp,sensor_id,temperature_c\n" + b"".join(
    f"2024-03-0{4 + h // 24} {h % 24:02d}:00,TH-0{h % 3 + 1},{15 + (h * 7) % 11}\n".encode()
    for h in range(72)
)


def check(question: str, code: str) -> str | None:
    return check_candidate(candidate(question, code))


def hr_question(text: str) -> str:
    return text + " Answer as @n[value].\n\n" + describe_files({"hr.csv": HR})


def test_the_note_tells_which_of_day_and_month_comes_first() -> None:
    note = describe_files({"hr.csv": HR})
    assert "'hire_date': text, dates as text, day first: " in note
    assert "pd.to_datetime(df['hire_date'], dayfirst=True)" in note
    month_first = describe_files({"m.csv": b"d,x\n03/15/2020,1\n04/01/2020,2\n"})
    assert (
        "'d': text, all in 2020, dates as text, month first: pd.to_datetime(df['d'])" in month_first
    )
    unknown = describe_files({"u.csv": b"d,x\n03/04/2020,1\n04/01/2020,2\n"})
    assert "day and month order unknown" in unknown
    iso = describe_files({"i.csv": b"d,x\n2020-03-04,1\n2020-04-01,2\n"})
    assert "'d': text, all in 2020, dates as text: pd.to_datetime() them" in iso


def test_day_first_dates_matched_or_compared_as_text_are_sent_back() -> None:
    q = hr_question("How many employees were hired in March (any year)?")
    matched = "df = pd.read_csv('hr.csv')\nprint(df[df['hire_date'].str.contains('03/0')].shape[0])"
    said = check(q, matched) or ""
    assert "holds dates written day first" in said
    assert "pd.to_datetime(df['hire_date'], dayfirst=True)" in said
    compared = "df = pd.read_csv('hr.csv')\nprint((df['hire_date'] < '2018-01-01').sum())"
    assert "dates written day first" in (check(q, compared) or "")
    no_dayfirst = "d = pd.to_datetime(df['hire_date'])\nprint((d.dt.month == 3).sum())"
    assert "dates written day first" in (check(q, no_dayfirst) or "")
    right = "d = pd.to_datetime(df['hire_date'], dayfirst=True)\nprint((d.dt.month == 3).sum())"
    assert check(q, right) is None
    day_format = right.replace("dayfirst=True", "format='%d/%m/%Y'")
    assert check(q, day_format) is None
    month_format = right.replace("dayfirst=True", "format='%m/%d/%Y'")
    assert "dates written day first" in (check(q, month_format) or "")
    df = pd.read_csv(io.BytesIO(HR))
    assert (pd.to_datetime(df["hire_date"], dayfirst=True).dt.month == 3).sum() == 2


def test_a_question_per_day_over_hourly_readings_is_sent_back_with_the_day_grouping() -> None:
    q = (
        "On which day was the mean temperature over all sensors highest, and what was it? "
        "Answer as @hottest_day[date] @hottest_mean[value].\n\n"
        + describe_files({"sensors.csv": SENSORS})
    )
    per_reading = (
        "sensors = pd.read_csv('sensors.csv')\n"
        "daily_mean = sensors.groupby('timestamp')['temperature_c'].mean().reset_index()\n"
        "print(daily_mean)"
    )
    problem = check_candidate(candidate(q, per_reading))
    assert problem is not None and "asks per day" in problem
    suggested = (
        "s = sensors.groupby(pd.to_datetime(sensors['timestamp']).dt.date)['temperature_c']"
        ".mean(); print(s.idxmax(), s.max())"
    )
    assert suggested in problem
    per_day = per_reading.replace("groupby('timestamp')", "groupby(sensors['timestamp'].str[:10])")
    assert check(q, per_day) is None
    weekday = q.replace("On which day", "On which day of the week")
    assert check(weekday, per_reading) is None


def test_filling_from_a_per_group_table_is_sent_back_with_transform(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``fillna`` with a groupby result: its index is the groups, so nothing lines up."""
    data = b"department,rating\nA,1\nA,\nA,3\nB,5\nB,\nB,4\nB,5\n"
    q = (
        "Fill missing ratings with the median rating of the employee's department, then "
        "give the mean rating. Answer as @filled[value].\n\n" + describe_files({"hr.csv": data})
    )
    cell = (
        "import pandas as pd\n"
        "df = pd.read_csv('hr.csv')\n"
        "median_ratings = df.groupby('department')['rating'].median().reset_index()\n"
        "df['rating'] = df['rating'].fillna(median_ratings['rating'])\n"
        "print(df['rating'].mean())"
    )
    said = check(q, cell) or ""
    fixed = (
        "df['rating'] = df['rating'].fillna(df.groupby('department')['rating'].transform('median'))"
    )
    assert "one row per group" in said and fixed in said
    runnable = getattr(fill_problem(q, cell), "code", None)
    assert runnable is not None and fixed in runnable and "fillna(median_ratings" not in runnable
    (tmp_path / "hr.csv").write_bytes(data)
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(runnable, {})
    assert float(out.getvalue()) == (1 + 2 + 3 + 5 + 5 + 4 + 5) / 7
    assert check(q, cell.replace("fillna(median_ratings['rating'])", "fillna(3)")) is None
