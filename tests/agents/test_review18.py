"""What a review of the eighteenth pass found (each a case the pass's changes got wrong, now
a test): a value paired with the wrong spelling, a phrase read as a spelling, right code
rewritten, a half fold taken for a whole one, a count suggested for a mean, kilograms read
as thousands, 'min' taken for a look at the unit, missing keys taken for keys written
another way, and US dates read day first."""

from __future__ import annotations

from codeact.agents._aliases import stated_aliases
from codeact.agents._candidate import CellRun
from codeact.agents._cellforms import month_name_dates
from codeact.agents._datarules import case_problem
from codeact.agents._groupassign import group_assign_fix
from codeact.agents._labelcount import label_value
from codeact.agents._mixedunits import mixed_units_problem
from codeact.agents.code import describe_files
from codeact.executors.base import ExecutionResult
from tests.agents.test_datarules import READ, ask, run


def test_spellings_of_two_values_in_turn_only_when_the_clause_ends_there() -> None:
    said = "Status is written several ways: 'Canceled' and 'Cxl' are Cancelled and {}."
    ended = said.format("Confirmed")  # (each its own value, in turn)
    assert [(a, v) for a, v, _ in stated_aliases(ended)] == [
        ("Canceled", "Cancelled"),
        ("Cxl", "Confirmed"),
    ]
    going = said.format("Confirmed is 'OK'")
    assert [(a, v) for a, v, _ in stated_aliases(going)] == [
        ("Canceled", "Cancelled"),
        ("Cxl", "Cancelled"),
    ]


def test_a_list_after_also_written_only_when_it_runs_to_the_sentences_end() -> None:
    said = "Service is also written 'Servicing', Status 'Done' marks a finished job."
    assert [(a, v) for a, v, _ in stated_aliases(said)] == [("Servicing", "Service")]


def test_an_aggregate_used_further_on_its_line_is_not_rewritten() -> None:
    read = "import pandas as pd\ndf = pd.read_csv('s.csv')\n"
    for line in (
        "df['t'] = df.groupby('k')['v'].sum().reindex(df['k']).to_numpy()",
        "df['t'] = df.groupby('k')['v'].sum().loc[df['k']].values",
    ):
        assert group_assign_fix(read + line, ExecutionResult()) is None, line
    rounded = read + "df['t'] = df.groupby('k')['v'].sum().round(2)  # per group"
    assert group_assign_fix(rounded, ExecutionResult()) is not None


def test_a_mask_that_folds_only_part_of_the_spellings_is_still_sent_back() -> None:
    q = ask("How many orders are in the Books category?")
    base = f"{READ}print(df[df['category'] == 'Books'].shape[0])"
    for mask in (
        "df['category'].str.lower() == 'books'",  # (' books' keeps its space)
        "df['category'].isin(['BOOKS', 'books'])",
    ):
        code = base.replace(
            "print(", f"df['category'] = df['category'].mask({mask}, 'Books')\nprint("
        )
        assert run(code) == "3" and case_problem(q, code) is not None, mask


def test_the_labels_count_only_for_a_count_asked_after_the_label() -> None:
    cell = (
        "import pandas as pd\ndf = pd.read_csv('s.csv')\ncounts = df['Category'].value_counts()\n"
        "top = counts.idxmax()\nprint(top)"
    )
    ran = [CellRun(code=cell, stdout="Books\n")]
    mean = "Question: Which category has the most orders, and what is its mean price?\n"
    mean += "Format: @category[category_value] @mean_price[mean_price_value]"
    assert label_value(mean, ran, ["mean_price"]) is None
    count = mean.replace("what is its mean price", "how many orders has it")
    count = count.replace("@mean_price[mean_price_value]", "@orders[orders_value]")
    assert label_value(count, ran, ["orders"]) == "print(counts[top])"
    assert label_value(count, ran, ["category"]) is None  # (the label printed, left out)


def _note(name: str, values: list[str]) -> str:
    rows = f"id,{name}\n" + "".join(f'{i},"{v}"\n' for i, v in enumerate(values))
    return describe_files({"a.csv": rows.encode()})


def test_three_decimals_alone_are_decimals_and_bare_thousands_say_otherwise() -> None:
    kilos = ["1.250 kg", "2.125 kg", "3.500 kg", "4.750 kg", "5.000 kg", "6.250 kg"]
    assert "thousands" not in _note("Weight", kilos)
    miles = ["45 km", "180.640 km", "88.871 km", "9.005 km", "120.000 km", "7.250 km", "45210"]
    assert "a dot between thousands ('180.640 km' is 180640)" in _note("Mileage", miles)


def test_an_aggregate_named_min_is_no_look_at_a_unit() -> None:
    weights = ["850 g", "1.2 kg", "300 g", "2 kg", "450 g", "1.5 kg", "700 g", "3 kg"]
    rows = "id,shop,Weight\n" + "".join(f"{i},{'AB'[i % 2]},{w}\n" for i, w in enumerate(weights))
    q = "Question: What is the lightest parcel weight per shop, in kg?\nFormat: @x[v]\n\n"
    q += describe_files({"p.csv": rows.encode()})
    code = (
        "import pandas as pd\ndf = pd.read_csv('p.csv')\n"
        "df['Weight'] = df['Weight'].str.extract(r'([\\d.]+)')[0].astype(float)\n"
        "low = df.groupby('shop')['Weight'].agg('min')\nprint(low)"
    )
    assert mixed_units_problem(q, code) is not None


def test_missing_keys_are_not_keys_written_another_way() -> None:
    orders = "Order,Customer\n" + "".join(f"O{i},C{(i % 12) + 1:03d}\n" for i in range(48))
    people = "Customer ID,Name\n" + "".join(f"C{n:03d},N{n}\n" for n in range(1, 11))
    note = describe_files({"orders.csv": orders.encode(), "customers.csv": people.encode()})
    assert "Keys written" not in note


def test_dates_undecided_by_their_numbers_follow_the_named_ones() -> None:
    us = month_name_dates(["Jan 3, 2024", "01/04/2024", "02/11/2024"], "d")
    assert "month first" in us and "dayfirst" not in us
    uk = month_name_dates(["3 Jan 2024", "01/04/2024", "02/11/2024"], "d")
    assert "day first" in uk and "dayfirst=True" in uk
