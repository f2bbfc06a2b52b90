"""The files note on more ways an export writes a column: amounts with currency codes, dates
with month names, several values in one cell, one value spelled with and without spaces, and
keys written with different prefixes in two files. Each hint's pandas call is run here on the
data it describes, so a hint that reads wrong fails."""

from __future__ import annotations

import contextlib
import io

import pandas as pd

from codeact.agents._datarules import case_problem
from codeact.agents._textdates import text_date_problem
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
    tight = b"a,b\n1,12.50EUR\n2,EUR3\n3,-4EUR\n"  # (no space between amount and code)
    line = _call(describe_files({"t.csv": tight}), "b")
    code = line.split("convert with ", 1)[1].split(", e.g.", 1)[0]
    assert eval(code, {"df": pd.read_csv(io.BytesIO(tight))}).tolist() == [12.5, 3.0, -4.0]
    assert "more than one currency" not in line
    two = describe_files({"m.csv": b"a,b\n1,12.50 EUR\n2,3 USD\n3,\xe2\x82\xac4\n"})
    assert "(amounts in more than one currency: do not add them up as one)" in two
    # a sign and the code of its own currency are one currency (fresh16: '£52.74', 'GBP 47.94')
    for one in ("\u00a352.74\nGBP 47.94\n", "$3.50\nUSD 4\n"):
        note = describe_files({"o.csv": f"b\n{one}".encode()})
        assert "codes: convert with" in note and "more than one currency" not in note, one
    pounds_euros = describe_files({"p.csv": "b\n\u00a352.74\nEUR 47.94\n".encode()})
    assert "more than one currency" in pounds_euros


def _run(code: str, df: pd.DataFrame) -> object:
    """What the note's ``values = ...; values = ...`` statements leave in ``values``."""
    scope = {"df": df, "pd": pd}
    exec(code, scope)
    return scope["values"]


def test_dates_with_month_names_get_a_format_that_reads_them() -> None:
    cases = {
        "17 Sep 2017\n04 May 2015\n29 Aug 2018\n": "%d %b %Y",
        "17-Sep-2017\n4-May-2015\n29-Aug-2018\n": "%d-%b-%Y",
        "17-September-2017\n4-May-2015\n29-August-2018\n": "mixed",
        "Sep 17, 2017\nMay 4, 2015\nAug 29, 2018\n": "mixed",
        "17 Sept 2017\n4 May 2015\n29 Aug. 2018\n": "mixed",
        "17 Sep 2017\n4-May-2015\n29 Aug 2018\n": "mixed",
        " 17 Sep 2017\n4 May 2015 \n29 Aug 2018\n": "mixed",  # (padded cells as read_csv keeps them)
    }
    for rows, form in cases.items():
        text = "opened\n" + "\n".join(f'"{r}"' for r in rows.splitlines()) + "\n"
        line = _call(describe_files({"b.csv": text.encode()}), "opened")
        call = f"pd.to_datetime(df['opened'], format={form!r})"
        assert f"dates with month names as text: {call}" in line, line
        got = eval(call, {"df": pd.read_csv(io.StringIO(text)), "pd": pd})
        assert [d.strftime("%Y-%m-%d") for d in got] == ["2017-09-17", "2015-05-04", "2018-08-29"]
    for words in ("May be\nSep\n", "4 Janitor 2015\n17 Marchh 2017\n"):
        assert "month names" not in describe_files({"p.csv": f"a\n{words}".encode()})


def test_dates_with_month_names_taken_as_text_are_sent_back() -> None:
    data = b"branch,opened\nBR-01,17 Sep 2017\nBR-02,04 May 2019\nBR-03,29 Aug 2015\n"
    q = f"Which branch opened first? @branch[code]\n\n{describe_files({'b.csv': data})}"
    read = "import pandas as pd\ndf = pd.read_csv('b.csv')\n"
    as_text = read + "print(df[df['opened'] == df['opened'].min()]['branch'].iloc[0])"
    said = text_date_problem(q, as_text)
    assert said is not None and "written with month names" in said
    assert "pd.to_datetime(df['opened'], format='%d %b %Y')" in said
    df = pd.read_csv(io.BytesIO(data))
    assert df[df["opened"] == df["opened"].min()]["branch"].iloc[0] == "BR-02"  # (text order)
    dates = pd.to_datetime(df["opened"], format="%d %b %Y")
    assert df.loc[dates.idxmin(), "branch"] == "BR-03"
    fixed = read + "d = pd.to_datetime(df['opened'], format='%d %b %Y')\nprint(df.loc[d.idxmin()])"
    assert text_date_problem(q, fixed) is None
    assert text_date_problem(q, read + "print(df['branch'].tolist())") is None
    # the text used whole, or read as dates another way, is fine
    for fine in (
        "print((df['opened'] == '17 Sep 2017').sum())",
        "print(df['opened'].nunique())",
        "print(df['opened'].str.endswith('2017').sum())",
        "from datetime import datetime\nprint([datetime.strptime(s, '%d %b %Y') for s in df['opened']])",
    ):
        assert text_date_problem(q, read + fine) is None, fine
    for ordered in ("print(df.sort_values('opened').iloc[0])", "print(df[df['opened'] < '2018'])"):
        assert text_date_problem(q, read + ordered) is not None, ordered


MENU = ["2x Margherita; 1x Cola", "1x Margherita", "3x Water; 1x Cola; 1x Tiramisu", "", "1x Cola;"]


def test_several_values_in_one_cell_split_into_rows_and_quantities() -> None:
    text = "order,Items\n" + "".join(f"{i},{MENU[i % 5]}\n" for i in range(20))
    line = _call(describe_files({"o.csv": text.encode()}), "Items")
    assert "several values in one cell, separated by ';'" in line
    assert "each is a quantity and a name" in line
    values = _run(
        line.split("one row per value is ", 1)[1].split("; each", 1)[0],
        pd.read_csv(io.StringIO(text)),
    )
    assert isinstance(values, pd.Series)
    parts = values.str.extract(r"(\d+)\s*[xX]\s*(.+)")  # (as the note says; empty cells gone)
    totals = parts[0].astype(int).groupby(parts[1]).sum().to_dict()
    assert totals == {"Cola": 12, "Margherita": 12, "Tiramisu": 4, "Water": 12}
    rows = ["vpn|remote", "wifi", "vpn", "wifi|slow", "dns", "vpn|dns", "remote", "wifi"]
    tags = describe_files(
        {"t.csv": ("id,tags\n" + "".join(f"{i},{t}\n" for i, t in enumerate(rows))).encode()}
    )
    assert "separated by '|': one row per value" in tags and "quantity" not in tags
    sizes = describe_files(
        {"s.csv": b"id,sizes\n1,1920x1080; 1280x720\n2,800x600\n3,640x480; 1x1\n"}
    )
    assert "quantity" not in sizes  # (a screen size is not a count of things)
    prose = "id,note\n" + "".join(f"{i},call back; said {i} things today\n" for i in range(9))
    assert "several values" not in describe_files({"n.csv": prose.encode()})
    mostly_ok = ["ok"] * 80 + [f"arrived late; customer upset #{i}" for i in range(20)]
    notes = "id,note\n" + "".join(f"{i},{t}\n" for i, t in enumerate(mostly_ok))
    assert "several values" not in describe_files({"m.csv": notes.encode()})


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
    read = "df = pd.read_csv('c.csv')\n"
    money = "df['Subtotal'] = df['Subtotal'].str.replace('€', '')\n"
    careless = f"{read}{money}print((df['Channel'].str.strip().str.lower() == 'uber eats').sum())"
    assert case_problem(question, careless) is not None  # (a replace elsewhere folds nothing)
    for right in (  # each counts all four
        "print((df['Channel'].str.lower().str.replace(' ', '') == 'ubereats').sum())",
        "print(df['Channel'].str.lower().str.contains('uber').sum())",
        "print(df['Channel'].str.strip().str.lower().isin(['uber eats', 'ubereats']).sum())",
        "print((df['Channel'].str.lower().str.split().str.join('') == 'ubereats').sum())",
        "print(df['Channel'].str.contains('uber', case=False).sum())",
    ):
        assert case_problem(question, read + right) is None, right
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(right, {"df": df})
        assert out.getvalue().strip() == "4", right
    grades = "id,grade\n" + "".join(
        f"{i},{g}\n" for i, g in enumerate("A A- B+ B B- C A A-".split())
    )
    line = _call(describe_files({"g.csv": grades.encode()}), "grade")
    assert "ignoring case" not in line  # (A- is not A)
    signs = _call(describe_files({"s.csv": b"id,x\n1,1\n2,-1\n3,none\n4,0\n"}), "x")
    assert "ignoring case" not in signs
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
    both = "n,Branch\n" + "".join(f"{i},br{i}\n" for i in range(1, 8))  # (a key each side)
    note = describe_files({"one.csv": both.encode(), "branches.csv": branches.encode()})
    assert note.count("Keys written differently") == 1
    staff = "id,dept,name\n" + "".join(f"E{i:03d},D{i % 5 + 1:02d},n{i}\n" for i in range(1, 21))
    depts = "id,dept_name\n" + "".join(f"D{i:02d},x{i}\n" for i in range(1, 6))
    assert "Keys written" not in describe_files({"s.csv": staff.encode(), "d.csv": depts.encode()})
    same = branches.replace("BR-0", "br")
    plain = describe_files({"orders.csv": orders.encode(), "branches.csv": same.encode()})
    assert "Keys written" not in plain  # (written alike: a plain merge works)


def test_keys_written_in_another_case_get_the_join_on_the_folded_keys() -> None:
    plates = [f"AB-{i:02d}-CD" for i in range(10)]
    rentals = "Rental,Plate\n" + "".join(
        f"{i},{plates[i % 10].lower() if i % 3 == 0 else plates[i % 10]}\n" for i in range(40)
    )
    fleet = "Plate,Category\n" + "".join(
        f"{p},{'Van' if i % 2 else 'SUV'}\n" for i, p in enumerate(plates)
    )
    note = describe_files({"r.csv": rentals.encode(), "f.csv": fleet.encode()})
    (hint,) = [ln for ln in note.splitlines() if ln.startswith("- Keys written in other case")]
    assert "'Plate' of 'r.csv' (e.g. 'ab-00-cd') is 'Plate' of 'f.csv' (e.g. 'AB-00-CD')" in hint
    r, f = pd.read_csv(io.StringIO(rentals)), pd.read_csv(io.StringIO(fleet))
    assert len(r.merge(f, on="Plate")) == 26  # (a plain merge loses the lower-case rows)
    left, right = hint.split("Join on the folded keys: ", 1)[1].split(" in 'r.csv' and ")
    r["k"], f["k"] = eval(left, {"df": r}), eval(right.split(" in 'f.csv'")[0], {"df": f})
    assert len(r.merge(f, on="k")) == 40
    # written alike (or a few rows off): no hint; nor for columns of other names
    alike = rentals.replace("ab-", "AB-").replace("-cd", "-CD")
    assert "other case" not in describe_files({"r.csv": alike.encode(), "f.csv": fleet.encode()})
    other = fleet.replace("Plate,", "Code,")
    assert "other case" not in describe_files({"r.csv": rentals.encode(), "f.csv": other.encode()})


def test_few_values_written_many_ways_are_folded_even_past_twenty_as_written() -> None:
    codes = ["PT", "ES", "GB", "DE", "FR", "NL", "US"]
    forms = [str.upper, str.lower, str.title]
    rows = "id,Country\n" + "".join(f"{i},{forms[i % 3](codes[i % 7])}\n" for i in range(63))
    line = _call(describe_files({"c.csv": rows.encode()}), "Country")
    assert "21 distinct values as written, 7 ignoring case and spaces" in line
    many = "id,Name\n" + "".join(f"{i},Name{i} {'X' if i % 2 else 'x'}\n" for i in range(60))
    assert "ignoring case" not in _call(describe_files({"n.csv": many.encode()}), "Name")


def _two_part_join(visits: str, members: str) -> tuple[str, pd.DataFrame]:
    """The files note's two-part key hint for the two files, and the frame its code joins
    (each step run as written, the members file read from the text)."""
    note = describe_files({"visits.csv": visits.encode(), "members.csv": members.encode()})
    (hint,) = [ln for ln in note.splitlines() if ln.startswith("- Keys in two parts")]
    code = hint.split("Join on both: ", 1)[1].replace("pd.read_csv('members.csv')", "m")
    scope = {"df": pd.read_csv(io.StringIO(visits)), "m": pd.read_csv(io.StringIO(members))}
    scope["pd"] = pd
    *steps, last = code.split("; ")
    for step in steps:
        exec(step, scope)
    return hint, eval(last.removeprefix("then "), scope)


def test_codes_made_of_two_key_columns_get_the_join_on_both_parts() -> None:
    """fresh11 (blind): 'RIV-0042' in Member Card is Club RIV and Member No 42 of members.csv,
    numbers starting again at each club; the note's code, run, joins every visit once."""
    clubs = ["RIV", "OLD", "NOR"]
    members = "Member No,Club,Plan\n" + "".join(
        f"{n},{c},{['Standard', 'Student'][(n + k) % 2]}\n"
        for k, c in enumerate(clubs)
        for n in range(1, 9)
    )
    visits = "Visit,Club,Member Card\n" + "".join(
        f"{i},{clubs[i % 2]},{clubs[i % 3]}-{i % 8 + 1:04d}\n" for i in range(40)
    )
    hint, joined = _two_part_join(visits, members)
    assert "'Member Card' of 'visits.csv' (e.g. 'RIV-0001') is 'Club' and 'Member No'" in hint
    assert len(joined) == 40 and joined["Plan"].notna().all()
    expected = [["Standard", "Student"][(i % 8 + 1 + i % 3) % 2] for i in range(40)]
    assert joined["Plan"].tolist() == expected
    # a number that is a key alone, or codes of one label, get no two-part hint
    unique = "Member No,Club\n" + "".join(
        f"{k * 8 + n},{c}\n" for k, c in enumerate(clubs) for n in range(1, 9)
    )
    coded = "Visit,Member Card\n" + "".join(
        f"{i},{clubs[i % 3]}-{(i % 3) * 8 + i % 8 + 1:04d}\n" for i in range(40)
    )
    assert "Keys in two parts" not in describe_files(
        {"visits.csv": coded.encode(), "members.csv": unique.encode()}
    )
    one = visits.replace("OLD-", "RIV-").replace("NOR-", "RIV-")
    assert "Keys in two parts" not in describe_files(
        {"visits.csv": one.encode(), "members.csv": members.encode()}
    )


def test_two_part_keys_survive_blanks_and_huge_numbers() -> None:
    """Review: a blank card made the note's join code fail (NaN to int), and a code of 5,000
    digits made the note itself raise (int() refuses past 4,300 digits)."""
    clubs = ["RIV", "OLD"]
    members = "Member No,Club,Plan\n" + "".join(
        f"{n},{c},P{n % 2}\n" for c in clubs for n in range(1, 7)
    )
    visits = "Visit,Member Card\n" + "".join(
        f"{i},{'' if i == 3 else f' {clubs[i % 2]}-{i % 6 + 1:04d}'}\n" for i in range(20)
    )
    _, joined = _two_part_join(visits, members)
    assert len(joined) == 19 and joined["Plan"].notna().all()  # (the blank card joins nothing)
    huge = visits.replace("RIV-0001", "RIV-" + "1" * 5000)
    assert "'Member Card'" in describe_files({"v.csv": huge.encode(), "m.csv": members.encode()})
