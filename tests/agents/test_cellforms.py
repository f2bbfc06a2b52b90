"""The files note on more ways an export writes a column: amounts with currency codes, dates
with month names, several values in one cell, one value spelled with and without spaces, and
keys written with different prefixes in two files. Each hint's pandas call is run here on the
data it describes, so a hint that reads wrong fails."""

from __future__ import annotations

import contextlib
import io

import pandas as pd

from codeact.agents._datarules import case_problem
from codeact.agents.code import describe_files


def _call(note: str, column: str) -> str:
    """The note's line on ``column``."""
    return next(ln for ln in note.splitlines() if ln.startswith(f"  - {column!r}:"))


def test_amounts_with_currency_codes_and_signs_convert_to_their_numbers() -> None:
    data = b"id,Subtotal\n1,\xe2\x82\xac14.20\n2,22.00 EUR\n3,-12.50 EUR\n4,-\xe2\x82\xac3.10\n5,7 EUR\n"
    note = describe_files({"pos.csv": data})
    line = _call(note, "Subtotal")
    assert "numbers stored as text with '€' signs and 'EUR' codes: convert with" in line
    code = line.split("convert with ", 1)[1].split(", e.g.", 1)[0]
    df = pd.read_csv(io.BytesIO(data))
    assert eval(code, {"df": df}).tolist() == [14.2, 22.0, -12.5, -3.1, 7.0]
    usd = describe_files({"u.csv": b"a,b\n1,USD 3.50\n2,USD 4\n"})
    assert "'USD' codes: convert with" in usd
    # a word that merely starts like a code is not an amount
    words = describe_files({"w.csv": b"a,b\n1,12 EURO-BONDS\n2,3 EURX\n"})
    assert "codes" not in words


def test_dates_with_month_names_get_the_format_that_reads_them() -> None:
    cases = {
        b"17 Sep 2017\n04 May 2015\n29 Aug 2018\n": "%d %b %Y",
        b"17-September-2017\n4-May-2015\n29-August-2018\n": "%d-%B-%Y",
        b"Sep 17, 2017\nMay 4, 2015\nAug 29, 2018\n": "%b %d, %Y",
        b"17 Sep 2017\n4 May 2015\n29 August 2018\n": "mixed",
    }
    for rows, form in cases.items():
        text = "opened\n" + "\n".join(f'"{r}"' for r in rows.decode().splitlines()) + "\n"
        note = describe_files({"b.csv": text.encode()})
        line = _call(note, "opened")
        assert f"dates with month names as text: pd.to_datetime(df['opened'], format={form!r})" in (
            line
        ), line
        code = line.split("as text: ", 1)[1].split(", e.g.", 1)[0]
        df = pd.read_csv(io.StringIO(text))
        got = eval(code, {"df": df, "pd": pd})
        assert [d.strftime("%Y-%m-%d") for d in got] == ["2017-09-17", "2015-05-04", "2018-08-29"]
    plain = describe_files({"p.csv": b"a,word\n1,May be\n2,Sep\n"})
    assert "month names" not in plain


def test_several_values_in_one_cell_split_into_rows_and_quantities() -> None:
    text = (
        "order,Items\n1,2x Margherita; 1x Cola\n2,1x Margherita\n3,3x Water; 1x Cola; 1x Tiramisu\n"
        "4,1x Cola\n5,2x Water\n"
    )
    note = describe_files({"o.csv": text.encode()})
    line = _call(note, "Items")
    assert "several values in one cell, separated by ';'" in line
    assert "each is a quantity and a name" in line
    df = pd.read_csv(io.StringIO(text))
    values = eval(line.split("values = ", 1)[1].split("; each", 1)[0], {"df": df})
    parts = values.str.extract(r"(\d+)\s*[xX]\s*(.+)")
    totals = parts[0].astype(int).groupby(parts[1]).sum().to_dict()
    assert totals == {"Cola": 3, "Margherita": 3, "Tiramisu": 1, "Water": 5}
    rows = ["vpn|remote", "wifi", "vpn", "wifi|slow", "dns", "vpn|dns", "remote", "wifi"]
    tags = describe_files(
        {"t.csv": ("id,tags\n" + "".join(f"{i},{t}\n" for i, t in enumerate(rows))).encode()}
    )
    assert "separated by '|': one row per value" in tags and "quantity" not in tags
    prose = "id,note\n" + "".join(f"{i},call back; said {i} things today\n" for i in range(9))
    assert "several values" not in describe_files({"n.csv": prose.encode()})


CHANNELS = (
    "id,Channel\n1,Uber Eats\n2,UberEats\n3,uber eats \n4,Dine-in\n5,dine in\n6,Take-away\n"
    "7,Takeaway\n8,UBER EATS\n9,Dine-In \n"
)


def test_a_value_spelled_with_and_without_inner_spaces_is_compared_squeezed() -> None:
    note = describe_files({"c.csv": CHANNELS.encode()})
    line = _call(note, "Channel")
    assert "3 ignoring case and spaces (and hyphens)" in line
    assert "(folded, the values are 'ubereats', 'dinein', 'takeaway')" in line
    df = pd.read_csv(io.StringIO(CHANNELS))
    compare = line.split("compare ", 1)[1].split(" (folded", 1)[0]
    assert int(eval(compare, {"df": df}).sum()) == 4  # every Uber Eats spelling
    question = f"Question: How many orders came through Uber Eats?\n\n{note}"
    for code in (
        "df = pd.read_csv('c.csv')\nprint((df['Channel'] == 'Uber Eats').sum())",
        "df = pd.read_csv('c.csv')\nprint((df['Channel'].str.strip().str.lower() == 'uber eats').sum())",
    ):
        problem = case_problem(question, code)
        assert problem is not None and problem.code is not None, code
        fixed = problem.code.replace("pd.read_csv('c.csv')", "pd.read_csv(io.StringIO(CSV))")
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(fixed, {"pd": pd, "io": io, "CSV": CHANNELS})
        assert out.getvalue().strip() == "4", fixed
    folded = "print((df['Channel'].str.lower().str.replace(' ', '') == 'ubereats').sum())"
    assert case_problem(question, folded) is None
    cases = describe_files({"k.csv": b"id,kind\n1,Books\n2,books \n3,Toys\n"})
    assert "(and hyphens)" not in cases and "ignoring case and spaces: compare" in cases


def test_keys_with_other_prefixes_and_padding_get_the_join_on_the_number() -> None:
    orders = "Order,Branch\n" + "".join(f"{i},br{i % 7 + 1}\n" for i in range(30))
    branches = "branch_code,city\n" + "".join(f"BR-{i:02d},C{i}\n" for i in range(1, 8))
    note = describe_files({"orders.csv": orders.encode(), "branches.csv": branches.encode()})
    (hint,) = [ln for ln in note.splitlines() if ln.startswith("- Keys written differently")]
    assert "'Branch' of 'orders.csv' (e.g. 'br1') is 'branch_code' of 'branches.csv'" in hint
    o, b = pd.read_csv(io.StringIO(orders)), pd.read_csv(io.StringIO(branches))
    left, right = hint.split("Join on the number: ", 1)[1].split(" in 'orders.csv' and ")
    o["n"] = eval(left, {"df": o})
    b["n"] = eval(right.split(" in 'branches.csv'")[0], {"df": b})
    assert len(o.merge(b, on="n")) == 30
    same = branches.replace("BR-0", "br")
    plain = describe_files({"orders.csv": orders.encode(), "branches.csv": same.encode()})
    assert "Keys written" not in plain  # (written alike: a plain merge works)
