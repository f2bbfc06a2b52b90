"""Twenty more fresh questions (split ``fresh8``), in the public benchmark's instruction style,
over an IT service desk's export, written blind (without looking at how the agent handles data)
and never used to tune anything (run it with ``--split fresh8``); keep it that way.
``support_tickets.csv`` (a fixed seed; tickets opened January to June 2024) has a title and a
note line, padded with commas as a spreadsheet saves them, above its header; Opened on a 12-hour
clock (``"2024-03-05 09:41 PM"``); Time to Resolve as text written three ways (``"2h 15m"``,
``"135 min"``, ``"2:15:30"``); tags in one cell (``"vpn|remote"``); empty CSAT scores.
``agents.csv`` is keyed by a number the tickets spell differently (``"AG-007"`` is ``7``); three
questions join it (``Question.other_files``). Every answer is computed here with pandas; the
seed (793) is the first that ``problems`` passes (``python answer_data_fresh8.py`` scans from 0):
no asked top ties or nearly ties, nothing lies on an asked threshold, no float within 0.0005 of
a rounding boundary at its decimals.
"""

from __future__ import annotations

import io
import random
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

import pandas as pd
from answer_data import Answer, Question, _csv
from answer_data_fresh2 import build_split
from answer_data_fresh7 import QFn, _gap
from answer_data_styled import _num, _q

SEED = 793
TICKETS, AGENTS = "support_tickets.csv", "agents.csv"
#: category: (share of tickets, its tags, how long it takes, the team that usually takes it)
CATEGORIES = {
    "Hardware": (22, "laptop printer monitor docking", 1.35, "Field Support"),
    "Software": (24, "install license crash update", 1.0, "Service Desk"),
    "Network": (18, "vpn wifi dns slow", 1.15, "Network Ops"),
    "Access": (21, "password mfa account permissions", 0.6, "Service Desk"),
    "Email": (15, "outlook mailbox spam calendar", 0.85, "Service Desk"),
}
#: priority: (share of tickets, median minutes to resolve, target in hours)
PRIORITIES = {"P1": (7, 170, 4), "P2": (19, 300, 8), "P3": (45, 760, 24), "P4": (29, 1500, 72)}
SLA = {p: v[2] for p, v in PRIORITIES.items()}
TEAMS, SITES = ["Service Desk", "Field Support", "Network Ops"], ["Leeds", "Austin", "Manila"]
LEVELS = ["L1", "L2", "L3"]
HOURS = [1, 1, 1, 1, 1, 1, 2, 4, 9, 11, 14, 10, 8, 10, 11, 9, 8, 6, 4, 3, 2, 2, 1, 1]
FIRST = "Alex Sam Priya Tomas Mei Omar Lena Diego Hana Ivan Nora Kofi Ruth Yuki Paul Ada Femi Zoe "
FIRST += "Raj Elsa Marco Ines Theo Lila"
LAST = "Shah Novak Okafor Berg Tanaka Silva Moreau Kowal Reyes Haddad Lind Mensah Costa Ito Byrne "
LAST += "Varga Nair Dumont Quinn Ferro Adeyemi Holt Sato Marsh"
TITLE = b"Helpdesk Pro incident export,,,,,,,,\nOpened Jan to Jun 2024 (local time),,,,,,,,\n"
HEADER = [*"Ticket Opened Priority Category Tags Agent Status".split(), "Time to Resolve", "CSAT"]


def _duration(rnd: random.Random, secs: int) -> str:
    h, m, s, r = secs // 3600, secs // 60 % 60, secs % 60, rnd.random()
    return [f"{h}h {m}m", f"{secs // 60} min", f"{h}:{m:02d}:{s:02d}"][(r > 0.45) + (r > 0.75)]


def generate_fresh8_files(seed: int = SEED) -> dict[str, bytes]:
    """``support_tickets.csv`` (January to June 2024) and ``agents.csv``."""
    rnd = random.Random(seed)
    firsts, lasts = rnd.sample(FIRST.split(), 24), rnd.sample(LAST.split(), 24)
    agents = []
    for i, num in enumerate(sorted(rnd.sample(range(1, 60), 24))):
        team, level = rnd.choices(TEAMS, [10, 7, 7])[0], rnd.choices(LEVELS, [50, 35, 15])[0]
        agents.append([num, f"{firsts[i]} {lasts[i]}", team, level, rnd.choice(SITES)])
    speed = {a[0]: rnd.lognormvariate(0, 0.25) for a in agents}
    mood = {t: rnd.gauss(0, 0.3) for t in TEAMS}
    rows: list[tuple[datetime, list[Any]]] = []
    for _ in range(900):
        day = rnd.randrange(182)
        at = datetime(2024, 1, 1) + timedelta(days=day, hours=rnd.choices(range(24), HOURS)[0])
        at += timedelta(minutes=rnd.randrange(60))
        cat = rnd.choices(list(CATEGORIES), [c[0] for c in CATEGORIES.values()])[0]
        _, pool, slow, team = CATEGORIES[cat]
        prio = rnd.choices(list(PRIORITIES), [p[0] for p in PRIORITIES.values()])[0]
        staff = [a for a in agents if a[2] == team] if rnd.random() < 0.85 else agents
        agent = rnd.choice(staff or agents)
        tags = rnd.sample(pool.split(), rnd.choices([0, 1, 2, 3], [6, 48, 34, 12])[0])
        tags += [rnd.choice(["vip", "remote", "urgent"])] if rnd.random() < 0.15 else []
        slow *= 0.8 if cat == "Network" and at.month >= 4 else 1  # a new VPN from April
        med, target = PRIORITIES[prio][1:]
        secs = max(120, int(med * slow * speed[agent[0]] * rnd.lognormvariate(0, 0.6) * 60))
        score = 4.4 - 1.3 * (secs > target * 3600) + mood[agent[2]] + rnd.gauss(0, 0.8)
        done = rnd.random() >= 0.04 + 0.5 * (day >= 165) + 0.05 * (agent[3] == "L1")
        row = [at.strftime("%Y-%m-%d %I:%M %p"), prio, cat, "|".join(tags), f"AG-{agent[0]:03d}"]
        row += ["Resolved" if done else "Open", _duration(rnd, secs) if done else ""]
        row += [round(min(5, max(1, score))) if done and rnd.random() < 0.6 else ""]
        rows.append((at, row))
    rows.sort(key=lambda r: r[0])
    body = _csv(HEADER, [[f"INC{1001 + i:07d}", *r] for i, (_, r) in enumerate(rows)])
    agents_csv = _csv(["agent_id", "name", "team", "level", "site"], agents)
    return {TICKETS: TITLE + body, AGENTS: agents_csv}


def _frames(files: dict[str, bytes]) -> dict[str, pd.DataFrame]:
    t = pd.read_csv(io.BytesIO(files[TICKETS]), skiprows=2, dtype={"Agent": str, "Tags": str})
    when = pd.to_datetime(t.Opened, format="%Y-%m-%d %I:%M %p")
    t["hour"], t["minute"], t["month"] = when.dt.hour, when.dt.minute, when.dt.month
    hm = t["Time to Resolve"].str.extract(r"^(\d+)h (\d+)m$").astype(float)
    mn = t["Time to Resolve"].str.extract(r"^(\d+) min$").astype(float)[0]
    ck = t["Time to Resolve"].str.extract(r"^(\d+):(\d\d):(\d\d)$").astype(float)
    t["minutes"] = (hm[0] * 60 + hm[1]).fillna(mn).fillna(ck[0] * 60 + ck[1] + ck[2] / 60)
    t["tags"] = t.Tags.fillna("").str.split("|").map(lambda x: [v for v in x if v])
    t["after"] = (t.hour >= 18) | (t.hour < 8)
    ag = pd.read_csv(io.BytesIO(files[AGENTS]))
    t = t.merge(ag, left_on=t.Agent.str[3:].astype(int), right_on="agent_id", how="left")
    t["within"] = t.minutes <= t.Priority.map(SLA) * 60
    return {TICKETS: t, AGENTS: ag}


HEAD = (
    "The first two lines of support_tickets.csv are a title and a note, not data: the column "
    "header is on the third line and every line below it is one ticket"
)
DONE = "Use only the tickets whose Status is 'Resolved' (open ones have no Time to Resolve)"
DUR = (
    "Time to Resolve is written in three ways: '2h 15m' (hours and minutes), '135 min' "
    "(minutes) and '2:15:30' (hours:minutes:seconds, so 2 h 15 min 30 s)"
)
OPENED = (
    "Opened is the date and local time the ticket was opened, on a 12-hour clock ('2024-03-05 "
    "09:41 PM' is 21:41; '12:10 AM' is 00:10 and '12:10 PM' is 12:10)"
)
TAGS = (
    "Tags holds a ticket's tags separated by '|' ('vpn|remote' is the two tags vpn and remote; a "
    "ticket with no tags has an empty cell)"
)
AFTER = "A ticket is opened after hours when Opened is at or after 6:00 PM or before 8:00 AM"
JOIN = (
    "agents.csv has one row per agent; its agent_id is the number in the tickets' Agent column "
    "('AG-007' is agent_id 7): join each ticket to its agent"
)
SLA_TEXT = (
    "The resolution target is 4 hours for Priority P1, 8 hours for P2, 24 hours for P3 and 72 "
    "hours for P4; a ticket is within target when its Time to Resolve is at most its target"
)
COUNT = _num("tickets", "the count", None)
CAT_FMT = '@category[category_name] where "category_name" is the Category as written, e.g. Email. '
TAG_FMT = '@tag[tag_name] where "tag_name" is the tag as written, such as vpn. '


def _r(d: pd.DataFrame) -> pd.DataFrame:
    return d[d.Status == "Resolved"]


def _tag_counts(d: pd.DataFrame) -> pd.Series:
    return d.tags.explode().value_counts()


def _count(question: str, constraints: str, name: str, rows: Callable[[Any], Any]) -> QFn:
    """A question asking how many tickets (or agents) ``rows`` picks."""
    return lambda d: (
        _q(question, constraints, _num(name, "the count", None)),
        [Answer(name, int(rows(d).sum()))],
    )


def e01(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q("How many tickets are in the export?", f"{HEAD}.", COUNT), [Answer("tickets", len(d))]


e02 = _count(
    "How many tickets are still open?",
    f"{HEAD}. Count the tickets whose Status is 'Open'.",
    "open_tickets",
    lambda d: d.Status == "Open",
)


def e03(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    n = d.Category.value_counts()
    return _q(
        "Which category has the most tickets, and how many?",
        f"{HEAD}. Count the tickets of each value of the Category column.",
        CAT_FMT + COUNT,
    ), [Answer("category", n.idxmax()), Answer("tickets", int(n.max()))]


def e04(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "What is the mean CSAT score of the tickets that have one?",
        f"{HEAD}. CSAT is the customer's score from 1 to 5, empty when the customer gave none; "
        "leave the empty ones out.",
        _num("mean_csat", "the mean score", 2),
    ), [Answer("mean_csat", d.CSAT.mean(), 2)]


a01 = _count(
    "How many agents are at level L3?",
    "agents.csv has one row per agent; count the rows whose level is 'L3'.",
    "l3_agents",
    lambda d: d.level == "L3",
)


def a02(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "Which team has the most agents?",
        "agents.csv has one row per agent; count the agents of each value of the team column.",
        '@team[team_name] where "team_name" is the team as written in agents.csv.',
    ), [Answer("team", d.team.value_counts().idxmax())]


m01 = _count(
    "How many tickets carry the tag vpn?",
    f"{HEAD}. {TAGS}. Count the tickets that have vpn among their tags.",
    "vpn_tickets",
    lambda d: d.tags.map(lambda x: "vpn" in x),
)


def m02(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    n = _tag_counts(d)
    return _q(
        "Which tag is on the most tickets, and on how many?",
        f"{HEAD}. {TAGS}. Count, for each tag, the tickets that carry it.",
        TAG_FMT + COUNT,
    ), [Answer("tag", n.idxmax()), Answer("tickets", int(n.max()))]


def m03(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    return _q(
        "What is the mean time to resolve a ticket, in minutes?",
        f"{HEAD}. {DONE}. {DUR}.",
        _num("mean_minutes", "the mean in minutes", 2),
    ), [Answer("mean_minutes", _r(d).minutes.mean(), 2)]


m04 = _count(
    "How many tickets were opened after hours?",
    f"{HEAD}. {OPENED}. {AFTER}, on any day of the week.",
    "after_hours",
    lambda d: d.after,
)


def m05(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    n = d.hour.value_counts()
    return _q(
        "In which hour of the day were the most tickets opened, and how many?",
        f"{HEAD}. {OPENED}. The hour of a ticket is the hour of its Opened time on a 24-hour "
        "clock (09:41 PM is hour 21); count the tickets of each hour over all days.",
        _num("hour", "the hour, 0-23", None) + " " + COUNT,
    ), [Answer("hour", int(n.idxmax())), Answer("tickets", int(n.max()))]


def m06(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    p1 = _r(d)[_r(d).Priority == "P1"]
    return _q(
        "What is the median time to resolve of the P1 tickets, in hours?",
        f"{HEAD}. {DONE}; of those, only the P1 ones (Priority 'P1'). {DUR}.",
        _num("p1_median_hours", "the median in hours", 2),
    ), [Answer("p1_median_hours", p1.minutes.median() / 60, 2)]


m07 = _count(
    "How many tickets took more than 8 hours to resolve?",
    f"{HEAD}. {DONE}. {DUR}. Count the tickets whose Time to Resolve is longer than 8 hours.",
    "over_8h",
    lambda d: _r(d).minutes > 480,
)


def h01(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    med = _r(d).groupby("Category").minutes.median() / 60
    return _q(
        "Which category has the longest median time to resolve, and what is that median in hours?",
        f"{HEAD}. {DONE}. {DUR}. Take the median Time to Resolve of each Category.",
        CAT_FMT + _num("median_hours", "the median in hours", 2),
    ), [Answer("category", med.idxmax()), Answer("median_hours", med.max(), 2)]


def h02(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    mean = d.groupby("team").CSAT.mean()
    return _q(
        "Which agent team has the highest mean CSAT score, and what is it?",
        f"{HEAD}. {JOIN}; a ticket's team is the team of its agent in agents.csv. CSAT is the "
        "customer's score from 1 to 5, empty when the customer gave none; leave those out and "
        "average the scores of each team's tickets.",
        '@team[team_name] where "team_name" is the team as written in agents.csv. '
        + _num("team_csat", "the mean score", 2),
    ), [Answer("team", mean.idxmax()), Answer("team_csat", mean.max(), 2)]


def _agent_medians(d: pd.DataFrame) -> tuple[pd.Series, pd.Series]:
    g = _r(d).groupby("name").minutes
    return g.size(), g.median()[g.size() >= 30]


def h03(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    med = _agent_medians(d)[1]
    return _q(
        "Among the agents with at least 30 resolved tickets, who has the shortest median time to "
        "resolve, and what is it in minutes?",
        f"{HEAD}. {JOIN}. {DONE}. {DUR}. Keep the agents with 30 or more resolved tickets and "
        "take each one's median Time to Resolve.",
        '@agent[agent_name] where "agent_name" is the name in agents.csv, such as Jane Doe. '
        + _num("median_minutes", "the median in minutes", 1),
    ), [Answer("agent", med.idxmin()), Answer("median_minutes", med.min(), 1)]


def h04(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    net = _r(d)[_r(d).Category == "Network"]
    q1, q2 = net.minutes[net.month <= 3].mean(), net.minutes[net.month >= 4].mean()
    return _q(
        "By what percentage did the mean time to resolve of Network tickets change from the "
        "first quarter of 2024 to the second?",
        f"{HEAD}. {DONE}; of those, only the Network ones (Category 'Network'). {DUR}. "
        f"{OPENED}; a ticket belongs to the quarter in which it was opened: January to March "
        "is the first, April to June the second. The change is (second quarter mean - first "
        "quarter mean) / first quarter mean * 100 (negative if it fell).",
        _num("network_change_pct", "the percentage change", 2),
    ), [Answer("network_change_pct", (q2 - q1) / q1 * 100, 2)]


def h05(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    rate = _r(d).groupby("Priority").within.mean() * 100
    return _q(
        "Which priority has the lowest share of resolved tickets within their resolution target, "
        "and what is that share in percent?",
        f"{HEAD}. {DONE}. {DUR}. {SLA_TEXT}. For each Priority, divide its tickets within "
        "target by its resolved tickets, times 100.",
        '@priority[priority_code] where "priority_code" is the Priority as written, such as P3. '
        + _num("within_pct", "the percentage", 2),
    ), [Answer("priority", rate.idxmin()), Answer("within_pct", rate.min(), 2)]


def h06(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    n = _tag_counts(after := d[d.after])
    return _q(
        "Which tag is the most common among the tickets opened after hours, and what percentage "
        "of the after-hours tickets carry it?",
        f"{HEAD}. {OPENED}. {AFTER}. {TAGS}. Count, for each tag, the after-hours tickets that "
        "carry it; divide the largest count by the number of all after-hours tickets (tagged or "
        "not), times 100.",
        TAG_FMT + _num("after_hours_pct", "the percentage", 2),
    ), [Answer("tag", n.idxmax()), Answer("after_hours_pct", n.max() / len(after) * 100, 2)]


def _open_pct(d: pd.DataFrame) -> pd.Series:
    return (d.Status == "Open").groupby(d.level).mean() * 100


def h07(d: pd.DataFrame) -> tuple[str, list[Answer]]:
    rate = _open_pct(d)
    return _q(
        "Which agent level has the highest percentage of its tickets still open, and what is it?",
        f"{HEAD}. {JOIN}; a ticket's level is the level (L1, L2 or L3) of its agent in agents.csv. "
        "For each level, divide the number of its tickets whose Status is 'Open' by the number "
        "of all its tickets, times 100.",
        '@level[level_code] where "level_code" is the level as written, such as L2. '
        + _num("open_pct", "the percentage", 2),
    ), [Answer("level", rate.idxmax()), Answer("open_pct", rate.max(), 2)]


FRESH8: list[tuple[str, str, str, QFn]] = [
    ("fresh8_tickets", "easy", TICKETS, e01),
    ("fresh8_open_tickets", "easy", TICKETS, e02),
    ("fresh8_top_category", "easy", TICKETS, e03),
    ("fresh8_mean_csat", "easy", TICKETS, e04),
    ("fresh8_l3_agents", "easy", AGENTS, a01),
    ("fresh8_biggest_team", "easy", AGENTS, a02),
    ("fresh8_vpn_tickets", "medium", TICKETS, m01),
    ("fresh8_top_tag", "medium", TICKETS, m02),
    ("fresh8_mean_minutes", "medium", TICKETS, m03),
    ("fresh8_after_hours", "medium", TICKETS, m04),
    ("fresh8_busiest_hour", "medium", TICKETS, m05),
    ("fresh8_p1_median", "medium", TICKETS, m06),
    ("fresh8_over_8h", "medium", TICKETS, m07),
    ("fresh8_slowest_category", "hard", TICKETS, h01),
    ("fresh8_team_csat", "hard", TICKETS, h02),
    ("fresh8_fastest_agent", "hard", TICKETS, h03),
    ("fresh8_network_change", "hard", TICKETS, h04),
    ("fresh8_worst_target", "hard", TICKETS, h05),
    ("fresh8_after_hours_tag", "hard", TICKETS, h06),
    ("fresh8_open_by_level", "hard", TICKETS, h07),
]
#: questions that need another file besides their own (uploaded and described with it)
JOINS = {q: (AGENTS,) for q in ("fresh8_team_csat", "fresh8_fastest_agent", "fresh8_open_by_level")}


def build_fresh8_questions(files: dict[str, bytes]) -> list[Question]:
    """The twenty questions with answers computed from ``files`` (split ``fresh8``)."""
    built = build_split(FRESH8, _frames(files), "fresh8")
    return [replace(q, other_files=JOINS.get(q.id, ())) for q in built]


def problems(seed: int) -> list[str]:
    """Why the data of ``seed`` would make a question ambiguous or fragile (empty: fine)."""
    files = generate_fresh8_files(seed)
    t, ag = _frames(files).values()
    answers = [a for q in build_fresh8_questions(files) for a in q.answers if a.decimals]
    near = {a.name: abs(a.value * 10**a.decimals % 1 - 0.5) / 10**a.decimals for a in answers}
    out = [f"{name} near a rounding boundary" for name, n in near.items() if n < 0.0005]
    r, (sizes, med) = _r(t), _agent_medians(t)
    checks = {
        "category tie": _gap(t.Category.value_counts()) >= 3,
        "team tie": _gap(ag.team.value_counts()) >= 1,
        "tag tie": _gap(_tag_counts(t)) >= 3,
        "hour tie": _gap(t.hour.value_counts()) >= 3,
        "median category tie": _gap(r.groupby("Category").minutes.median()) >= 6,
        "team csat tie": _gap(t.groupby("team").CSAT.mean()) >= 0.03,
        "agent tie": _gap(-med) >= 2 and len(med) >= 5,
        "30-ticket threshold": not (sizes == 30).any(),
        "target tie": _gap(-r.groupby("Priority").within.mean()) >= 0.01,
        "on a target": not (r.minutes == r.Priority.map(SLA) * 60).any(),
        "8 hour threshold": not (r.minutes == 480).any(),
        "after-hours tag tie": _gap(_tag_counts(t[t.after])) >= 2,
        "open level tie": _gap(_open_pct(t)) >= 0.5,
        "6 PM / 8 AM threshold": not (t.minute.eq(0) & t.hour.isin([8, 18])).any(),
        "a duration unread": r.minutes.notna().all() and t.minutes[t.Status == "Open"].isna().all(),
    }
    return out + [name for name, ok in checks.items() if not ok]


if __name__ == "__main__":  # the seed scan: the first seed that passes every check
    print(next(s for s in range(1000) if not problems(s)))
