"""A Czech brewing log (fresh20, read after its blind run started): amounts with a space
between thousands and a decimal comma (``'57 265,34 Kč'``), dates ``'5. 3. 2023'`` beside
``'2023-03-05'``, codes with a space inside (``'L 12'`` is ``'l12'``) keyed ``'L-12'`` in a
lookup file, volumes in litres or hectolitres, brewhouse times written three ways and a
subtotal row after each month. Each test fails on the code before its change."""

from __future__ import annotations

import io

import pandas as pd
import pytest

from codeact.agents._clockmins import one_way_problem
from codeact.agents._datarules import case_problem
from codeact.agents._mixedunits import mixed_units_problem
from codeact.agents._money import spaced_hint
from codeact.agents._totals import totals_hint, totals_problem
from codeact.agents.code import describe_files
from tests.helpers import exec_with_files, question_of, run_one_cell
from tests.helpers import rule_note as said

DATES = ["3. 1. 2023", "2023-01-04", "17. 1. 2023", "2023-02-02", "28. 2. 2023"]
BEERS = ["L12 ", "l 12", "D12", "d 12", "w 12"]
VOLUMES = ['"47,4 hl"', "4910 l", "2 800 l", '"24,1 hl"', "5040 l"]
TIMES = ['"7,25 h"', "6:45", "390 min", "6:00", '"6,5 h"', "435 min"]
COSTS = ['"57 265,34"', '"37897,74"', '"53 422,56 Kč"', '"1 045,00"', '"12,50"']
ROWS = [
    f"23-{i:03d},{DATES[i % 5]},{BEERS[i % 5]},{VOLUMES[i % 5]},{TIMES[i % 6]},{COSTS[i % 5]}"
    for i in range(1, 31)
]
ROWS.insert(15, 'Total 01/2023,,,"1 234,5 hl",,"987 654,32"')
ROWS.append('Total 02/2023,,,"2 345,6 hl",,"1 876 543,21"')
CSV = "Batch No,Brew Date, Beer ,Volume,Brewhouse Time,Cost (Kč)\n" + "\n".join(ROWS) + "\n"
LOOKUP = "Code,Beer,Fermentation,List Price\nL-12,Ležák,Bottom,3 350\nD-12,Tmavý,Bottom,3 450\n"
LOOKUP += "W-12,Pšeničné,Top,3 800\nI-14,IPA,Top,4 600\n"
FILES = {"b.csv": CSV.encode()}
BOTH = {**FILES, "beers.csv": LOOKUP.encode()}
NOTE = describe_files(FILES)
READ = "import pandas as pd\ndf = pd.read_csv('b.csv')\n"
RECORDS = "df = df[~df['Batch No'].str.startswith('Total')]\n"
E = "A subtotal row after each month has 'Total' in 'Batch No': leave those rows out"


def _line(column: str, note: str = NOTE) -> str:
    return next(ln for ln in note.splitlines() if ln.strip().startswith(f"- {column!r}"))


def _frame() -> pd.DataFrame:
    return pd.read_csv(io.StringIO(CSV))


def _records() -> pd.DataFrame:
    df = _frame()
    return df[~df["Batch No"].str.startswith("Total")]


def test_amounts_with_spaces_between_thousands_and_decimal_commas_are_read() -> None:
    line = _line("Cost (Kč)")
    assert "a space between thousands and a decimal comma ('53 422,56 Kč' is 53422.56)" in line
    assert "some with 'Kč' after" in line
    got = eval(line.split("convert with ")[1].split(", e.g.")[0], {"df": _frame()})
    assert got.tolist()[:5] == [37897.74, 53422.56, 1045.0, 12.5, 57265.34]
    assert got.isna().sum() == 0  # (the subtotals' '1 876 543,21' too)
    plain = spaced_hint(["2 850", "3 050", "850"], "Price")
    assert "('2 850' is 2850)" in plain and "[^\\d.-]" in plain
    assert spaced_hint(["1\u00a0250,50", "980,10"], "x")  # (a no-break space)
    assert spaced_hint(["1 250.50", "1,5"], "x") == ""  # (both marks: not one reading)
    assert spaced_hint(["1250,50", "980,10"], "x") == ""  # (no space: another note's)
    assert spaced_hint(["12 kg", "3 500 l"], "x") == ""  # (two units: another note's)


def test_czech_dates_beside_iso_ones_are_named_and_read() -> None:
    line = _line("Brew Date")
    assert "dates as text written two ways ('2023-01-04' and '17. 1. 2023'), day first" in line
    reading = line.split("day first: ")[1].split(", e.g.")[0]
    got = eval(reading, {"pd": pd, "df": _records()})
    assert got.notna().all() and got.dt.month.tolist()[:5] == [1, 1, 2, 2, 1]


def test_codes_with_a_space_inside_fold_as_one_code() -> None:
    line = _line(" Beer ")
    assert "3 ignoring case and spaces (and hyphens)" in line
    question = question_of("How many batches of beer L12?", "Count the L12 batches.", FILES)
    code = READ + "print((df[' Beer '].str.strip().str.lower() == 'l12').sum())"
    problem = case_problem(question, code)
    assert problem is not None and problem.code is not None
    before, after = exec_with_files(FILES, code, problem.code)
    assert (int(before), int(after)) == (6, 12)  # ('l 12' counted too)


def test_volumes_in_litres_and_hectolitres_are_read_with_the_unit() -> None:
    line = _line("Volume")
    assert "numbers with units ('hl' and 'l') as text" in line
    reading = line.split("as text: ", 1)[1].split("; bring")[0].replace("; ", "\n")
    scope = {"pd": pd, "df": _frame()}
    exec(reading, scope)
    assert scope["value"].tolist()[:3] == [4910.0, 2800.0, 24.1]
    assert scope["value"].isna().sum() == 0 and set(scope["unit"]) == {"hl", "l"}
    question = question_of(
        "How many hectolitres were brewed?", f"{E}. Add up the Volume in hectolitres.", FILES
    )
    code = (
        READ + RECORDS + "df['Volume'] = pd.to_numeric(df['Volume'].str.replace(r'[^\\d,]', '', "
        "regex=True).str.replace(',', '.'))\nprint(round(df['Volume'].sum(), 2))"
    )
    problem = mixed_units_problem(question, code)
    assert problem is not None and "value / 100" in problem and problem.code is not None
    want = sum([49.1, 28.0, 24.1, 50.4, 47.4] * 6)
    assert abs(float(exec_with_files(FILES, problem.code)[0]) - want) < 0.01


def test_brewhouse_times_written_three_ways_are_read_every_way() -> None:
    line = _line("Brewhouse Time")
    assert "durations written three ways, hours:minutes, hours and minutes" in line
    reading = line.split("minutes, like ")[1].split(": ", 1)[1].split(", e.g.")[0]
    scope = {"pd": pd, "df": _records()}
    exec(reading.replace("; ", "\n"), scope)
    assert scope["minutes"].tolist()[:6] == [405.0, 390.0, 360.0, 390.0, 435.0, 435.0]
    question = question_of("How many batches took more than 7 hours?", f"{E}. Count them.", FILES)
    code = (
        READ + RECORDS + "t = df['Brewhouse Time'].str.extract(r'(\\d+):(\\d+)').astype(float)\n"
        "df['m'] = t[0] * 60 + t[1]\nprint((df['m'] > 420).sum())"
    )
    problem = one_way_problem(question, code)
    assert problem is not None and "'2:05' form" in problem and "'2,5 h'" in problem
    assert problem.code is None  # (read over two lines: no one line to put the reading in)
    both = code.replace(
        "df['m'] = t[0] * 60 + t[1]",
        "m = pd.to_numeric(df['Brewhouse Time'].str.extract(r'(\\d+) min')[0])\n"
        "df['m'] = (t[0] * 60 + t[1]).add(m, fill_value=0)",
    )
    told = one_way_problem(question, both)
    assert told is not None and "reads only the '2:05' and '125 min' form" in told
    assert "'2,5 h' become NaN" in told


def test_keys_written_with_a_hyphen_and_spaces_get_a_folded_join() -> None:
    note = describe_files(BOTH)
    hint = next(ln for ln in note.splitlines() if "Keys written differently" in ln)
    assert "' Beer ' of 'b.csv'" in hint and "'Code' of 'beers.csv' (e.g. " in hint
    fold = hint.split("df['key'] = ")[1].split(" in 'b.csv'")[0]
    df, beers = _records(), pd.read_csv(io.StringIO(LOOKUP))
    df["key"] = eval(fold, {"df": df})
    beers["key"] = eval(fold.replace("' Beer '", "'Code'"), {"df": beers})
    assert df.merge(beers, on="key")["Fermentation"].notna().sum() == len(df)
    # (keys written the same way in both need no hint)
    same = {"a.csv": b"id,x\nL-12,1\nD-12,2\nL-12,3\n", "beers.csv": LOOKUP.encode()}
    assert "Keys written differently" not in describe_files(same)


def test_subtotal_rows_are_named_and_left_out_when_the_question_says_so() -> None:
    line = next(ln for ln in NOTE.splitlines() if "not records" in ln)
    assert line.startswith("  2 rows are totals, not records ('Total 01/2023' in 'Batch No'")
    question = question_of("How much did the batches cost?", f"{E}. Add up the Cost.", FILES)
    cost = "df['Cost (Kč)'].str.replace(r'[^\\d,-]', '', regex=True).str.replace(',', '.')"
    code = READ + f"print(round({cost}.astype(float).sum(), 2))"
    told = said(question, code)
    assert told is not None and "leave the total rows out" in told
    problem = totals_problem(question, code)
    assert problem is not None and problem.code is not None
    before, after = exec_with_files(FILES, code, problem.code)
    assert round(float(before) - float(after), 2) == 987654.32 + 1876543.21
    assert totals_problem(question, READ + RECORDS + code.split("\n", 2)[2]) is None
    exact = READ + "df = df[df['Batch No'] != 'Total']\n" + code.split("\n", 2)[2]
    wrong = totals_problem(question, exact)
    assert wrong is not None and "!= 'Total' keeps them: they read 'Total 01/2023'" in wrong
    assert "most other columns empty, only 'Volume' and 'Cost (Kč)' filled in)" in line
    counted = READ + "print((df[' Beer '].str.strip() == 'D12').sum())"
    assert totals_problem(question, counted) is None  # (a total's Beer is empty: never 'D12')
    text = READ + "print((df['Brewhouse Time'] > '7:00').sum())"  # (NaN > '7:00' is False)
    assert totals_problem(question, text) is None
    assert totals_problem(question, counted.replace("== 'D12'", "!= 'D12'")) is not None
    unasked = question_of("How much did the batches cost?", "Add up the Cost.", FILES)
    assert totals_problem(unasked, code) is None
    # a record whose text starts with "Total" is no total row: its other columns are filled
    assert (
        totals_hint(["Item", "Qty", "Price"], [["Totalizer", "Pump"], ["2", "1"], ["9", "4"]]) == ""
    )
    assert totals_hint(["Item", "Qty"], [["Total", "Total"], ["", ""]]) == ""  # (every row)


def test_a_year_every_date_of_the_file_is_in_needs_no_filter() -> None:
    line = _line("Brew Date")
    assert line.startswith("  - 'Brew Date': text, 2 missing, all in 2023, dates as text")
    question = question_of(
        "How many batches failed?", "Every row is a batch of a brewery in 2023. Count them.", FILES
    )
    code = READ + RECORDS + "print(len(df))"
    assert said(question, code) is None
    other = {"b.csv": CSV.replace("2023-02-02", "2022-02-02").encode()}
    told = said(
        question_of("How many batches?", "Batches brewed in 2023. Count them.", other), code
    )
    assert told is not None and "never uses that year" in told


def test_decimal_commas_of_a_comma_separated_file_are_read_column_by_column() -> None:
    files = {"g.csv": (b'Batch,OG,Cost\n1,"12,3","37897,74"\n2,12,"57 265,34"\n3,"11,8",10\n')}
    line = _line("OG", describe_files(files))
    assert "decimal=','" not in line  # (the whole file read so would garble Cost)
    reading = line.split("convert with ")[1].split(", e.g.")[0]
    got = eval(reading, {"pd": pd, "df": pd.read_csv(io.BytesIO(files["g.csv"]))})
    assert got.tolist() == [12.3, 12.0, 11.8]
    semi = {"s.csv": b"Batch;OG\n1;12,3\n2;12\n3;11,8\n"}
    assert "sep=';', decimal=','" in describe_files(semi)  # (a European export: read so)


def test_a_filter_the_cells_own_later_test_contradicts_is_sent_back() -> None:
    from codeact.agents._contradict import contradiction_problem

    rows = "Batch,QC\n" + "".join(f"{i},{['OK', 'FAIL', 'ok', 'fail'][i % 4]}\n" for i in range(20))
    files = {"q.csv": rows.encode()}
    question = question_of("How many batches failed?", "Count the FAIL batches.", files)
    read = "import pandas as pd\ndf = pd.read_csv('q.csv')\n"
    code = (
        read + "df = df[df['QC'] == 'OK']  # keep the checked ones\n"
        "print((df['QC'].str.strip().str.lower() == 'fail').sum())"
    )
    told = said(question, code)
    assert told is not None and "keeps only the rows whose 'QC' is 'OK'" in told
    problem = contradiction_problem(question, code)
    assert problem is not None and problem.code is not None
    assert exec_with_files(files, code, problem.code) == ["0", "10"]
    for fine in (
        code.replace("'fail'", "'ok'"),  # (the kept value itself)
        code.replace("== 'OK'", "!= 'OK'"),  # (another filter)
        code.replace("print(", "df = pd.read_csv('q.csv')\nprint("),  # (read again)
    ):
        assert contradiction_problem(question, fine) is None, fine
    isin = code.replace(" == 'fail'", ".isin(['fail', 'FAIL'])")
    assert contradiction_problem(question, isin) is not None


def test_a_row_after_each_month_is_no_grouping_by_month() -> None:
    question = question_of(
        "Which beer was brewed most often?", f"{E}. Count the batches of each beer.", FILES
    )
    code = READ + RECORDS + "print(df[' Beer '].str.strip().str.upper().value_counts())"
    assert "asks per month" not in (said(question, code) or "")
    monthly = question_of("How many batches were brewed each month?", "Count them.", FILES)
    assert "asks per month" in (said(monthly, code) or "")


def test_rows_dropped_for_values_missing_in_columns_nothing_uses_are_sent_back() -> None:
    from codeact.agents._dropna import extra_dropna_problem

    rows = "Batch,Volume,QC,Cost\n" + "".join(
        f"{i},{10 + i},{'' if i % 3 else 'OK'},{'' if i % 4 else 5}\n" for i in range(12)
    )
    files = {"v.csv": rows.encode()}
    question = question_of("How much was brewed?", "Add up the Volume of every batch.", files)
    read = "import pandas as pd\ndf = pd.read_csv('v.csv')\n"
    code = read + (
        "df = df.dropna(subset=['Volume', 'QC', 'Cost'])\n"
        "df['Cost'] = df['Cost'].astype(float)\nprint(df['Volume'].sum())"
    )
    told = said(question, code)
    assert told is not None and "missing a value in 'QC', 'Cost'" in told
    problem = extra_dropna_problem(question, code)
    assert problem is not None and problem.code is not None
    assert "dropna(subset=['Volume'])" in problem.code
    assert exec_with_files(files, code, problem.code) == ["10", str(sum(range(10, 22)))]
    alone = code.replace("'Volume', 'QC', 'Cost'", "'QC'")
    fixed = extra_dropna_problem(question, alone)
    assert fixed is not None and fixed.code is not None and "dropna" not in fixed.code
    used = code.replace("print(df['Volume'].sum())", "print(df['Volume'].sum(), df['QC'].count())")
    assert "'QC'" not in (extra_dropna_problem(question, used) or "")
    asked = question_of(
        "How much was brewed by checked batches?", "Batches whose QC is known.", files
    )
    assert "'QC'" not in (extra_dropna_problem(asked, code) or "")


def test_words_pandas_reads_as_missing_looked_for_with_isin_are_sent_back() -> None:
    from codeact.agents._isinna import isin_marker_problem

    marks = ["OK", "-", "n/a", "", "FAIL", "ok"]
    rows = "Batch,QC\n" + "".join(f"{i},{marks[i % 6]}\n" for i in range(24))
    files = {"q.csv": rows.encode()}
    question = question_of("How many were not checked?", "QC is '-', 'n/a' or empty.", files)
    read = "import pandas as pd\ndf = pd.read_csv('q.csv')\n"
    code = read + (
        "df = df[df['QC'].notna()]\nprint(df[df['QC'].str.strip().isin(['-', 'n/a', ''])].shape[0])"
    )
    told = said(question, code)
    assert told is not None and "misses the cells written 'n/a' and ''" in told
    problem = isin_marker_problem(question, code)
    assert problem is not None and problem.code is not None and "notna" not in problem.code
    assert exec_with_files(files, code, problem.code) == ["4", "12"]
    words = read + "print(df['QC'].isin(['-']).sum())"
    assert isin_marker_problem(question, words) is None
    raw = read.replace("'q.csv')", "'q.csv', keep_default_na=False)") + code.split("\n", 2)[2]
    assert isin_marker_problem(question, raw) is None


def test_values_defined_by_what_they_mean_are_no_filters() -> None:
    rows = "Id,QC\n" + "".join(f"{i},{['OK', 'FAIL', '-', ''][i % 4]}\n" for i in range(20))
    files = {"q.csv": rows.encode()}
    legend = "QC is OK if the batch passed, FAIL if it failed, or '-' or empty if not checked"
    question = question_of("How many were not checked?", f"{legend}. Count them.", files)
    code = "import pandas as pd\ndf = pd.read_csv('q.csv')\nprint((df['QC'].isna() | (df['QC'] == '-')).sum())"
    assert said(question, code) is None
    asked = question_of("How many passed?", f"{legend}. Count the batches whose QC is OK.", files)
    told = said(asked, code)
    assert told is not None and "The question is about 'OK'" in told


def test_the_total_rows_description_is_no_filter_for_a_count_they_never_meet() -> None:
    rows = "Batch No,QC,Volume\n" + "".join(
        f"23-{i:03d},{['OK', 'FAIL'][i % 2]},5\n" for i in range(9)
    )
    rows += "Total 01/2023,,45\n"
    files = {"q.csv": rows.encode()}
    legend = (
        "A subtotal row after each month, with 'Total' and the month in 'Batch No' "
        "('Total 01/2023'): leave those rows out"
    )
    question = question_of("How many batches failed?", f"{legend}. Count the FAIL ones.", files)
    code = "import pandas as pd\ndf = pd.read_csv('q.csv')\nprint((df['QC'] == 'FAIL').sum())"
    assert said(question, code) is None


def test_rows_left_out_by_a_value_nobody_asked_about_are_sent_back() -> None:
    rows = "Id,Package,OG,ABV\n" + "".join(
        f"{i},{['Keg', 'BOTTLE', 'Can'][i % 3]},{10 + i % 5},{4 + i % 4}\n" for i in range(15)
    )
    files = {"p.csv": rows.encode()}
    question = question_of("What is the correlation of OG and ABV?", "Use every batch.", files)
    read = "import pandas as pd\ndf = pd.read_csv('p.csv')\n"
    code = read + "df = df[df['Package'] != 'BOTTLE']\nprint(df['OG'].corr(df['ABV']))"
    told = said(question, code)
    assert told is not None and "leaves out the rows where 'Package' is 'BOTTLE'" in told
    for cleaning in ("'-'", "'TOTAL'", "'n/a'"):
        kept = code.replace("'BOTTLE'", cleaning)
        assert "leaves out the rows" not in (said(question, kept) or ""), cleaning


def test_a_month_placeholder_holding_a_row_label_is_sent_back() -> None:
    files = {"o.csv": b"date,units\n2024-01-05,3\n2024-02-07,9\n2024-02-09,1\n"}
    question = question_of(
        "In which month was revenue highest?", "@month[month_number] @revenue[x]", files
    )
    from codeact.agents._checks import value_problem

    told = value_problem(question, "@month[710] @revenue[1113.20]")
    assert told is not None and "@month[710] is no month" in told
    assert value_problem(question, "@month[11] @revenue[25975.94]") is None
    assert value_problem(question, "@best_month[2024] @revenue[1]") is not None
    counted = question_of("How many stores sold something every month?", "@every_month[n]", files)
    assert (
        value_problem(counted, "@every_month[99]") is None
    )  # (a count, named after "every month")


def test_columns_named_for_the_total_rows_or_in_alcohol_by_volume_are_not_asked() -> None:
    from codeact.agents._rules import column_problem

    rows = "Batch No,Volume,ABV\n" + "".join(f"23-{i:03d},{40 + i},{4 + i % 4}\n" for i in range(9))
    rows += "Total 01/2023,369,\n"
    files = {"a.csv": rows.encode()}
    legend = (
        "A subtotal row after each month, with 'Total' and the month in 'Batch No' "
        "('Total 01/2023') and only Volume filled in: leave those rows out"
    )
    question = question_of(
        "How many batches were stronger than 6 % alcohol by volume?",
        f"{legend}. ABV is the alcohol by volume in percent. Count the ABV above 6.",
        files,
    )
    code = "import pandas as pd\ndf = pd.read_csv('a.csv')\nprint((df['ABV'] > 6).sum())"
    assert column_problem(question, code) is None
    asked = question_of("What volume was brewed?", "Add up the Volume.", files)
    assert column_problem(asked, code) is not None


def test_percentages_made_fractions_then_compared_as_percent_are_sent_back() -> None:
    from codeact.agents._pctfix import fraction_compare_problem

    files = {"a.csv": b"Id,ABV\n1,4.9\n2,6.3\n3,7.8\n4,5.0\n"}
    question = question_of("How many are stronger than 6 %?", "Count ABV above 6.", files)
    code = (
        "import pandas as pd\ndf = pd.read_csv('a.csv')\ndf['ABV'] = df['ABV'] / 100\n"
        "print((df['ABV'] > 6).sum())"
    )
    told = said(question, code)
    assert told is not None and "makes 'ABV' a fraction" in told
    problem = fraction_compare_problem(question, code)
    assert problem is not None and problem.code is not None
    assert exec_with_files(files, code, problem.code) == ["0", "2"]
    assert fraction_compare_problem(question, code.replace("> 6", "> 0.06")) is None


def test_the_substance_a_unit_measures_is_no_column() -> None:
    from codeact.agents._rules import column_problem

    files = {"v.csv": b"Batch,Beer,Volume\n1,L12,40\n2,D12,50\n3,L10,45\n"}
    code = "import pandas as pd\ndf = pd.read_csv('v.csv')\nprint(df['Volume'].sum())"
    brewed = question_of("How many hectolitres of beer were brewed?", "Add up Volume.", files)
    assert column_problem(brewed, code) is None
    per_beer = question_of("How many hectolitres of each beer were brewed?", "Per Beer.", files)
    assert column_problem(per_beer, code) is not None


def test_codes_grouped_as_written_are_sent_back_though_other_text_is_stripped() -> None:
    question = question_of("Which beer was brewed most often?", "Count each beer's batches.", FILES)
    code = READ + "df.columns = df.columns.str.strip()\nprint(df['Beer'].value_counts().idxmax())"
    told = said(question, code)
    assert told is not None and "holds one value written in several cases" in told
    folded = code.replace(
        "df['Beer'].value_counts()",
        "df['Beer'].str.strip().str.lower().str.replace(' ', '').value_counts()",
    )
    assert "several cases" not in (said(question, folded) or "")


@pytest.mark.anyio
async def test_durations_read_into_the_column_step_by_step_are_re_run_with_the_reading() -> None:
    question = question_of(
        "On average, how many hours did a batch take?", f"{E}. Take the mean in hours.", FILES
    )
    t = "df['Brewhouse Time']"
    cell = (
        READ
        + RECORDS
        + (
            f"{t} = {t}.str.extract(r'^(\\d+):(\\d+)$').astype(float).apply("
            "lambda x: x[0] * 60 + x[1], axis=1)\n"
            f"{t} = {t}.fillna({t}.str.extract(r'(\\d+) min')[0])\n"
            f"print(round({t}.astype(float).mean() / 60, 2))"
        )
    )
    result = await run_one_cell(FILES, cell, question)
    content = str(result.tool_output.content)
    assert "whose durations are written several ways" in content, content
    want = round(sum([435, 405, 390, 360, 390, 435] * 5) / 30 / 60, 2)
    assert content.rstrip().endswith(str(want)), content


def test_a_legend_of_a_column_with_marked_blanks_and_a_verb_named_like_a_column() -> None:
    packages = ["Keg", "Bottle", "BOTTLE", "Can", "n/a", "Tank", "keg ", "-"]
    rows = "Id,Packaged,Package,Cost\n" + "".join(
        f"{i},2023-0{1 + i % 9}-01,{packages[i % 8]},{100 + i}\n" for i in range(40)
    )
    files = {"k.csv": rows.encode()}
    legend = "Package is Keg, Bottle, Can or Tank (tank beer for pubs), in any case"
    question = question_of(
        "How much did the batches packaged in kegs cost?",
        f"{legend}. Add up the Cost of the batches whose Package is Keg.",
        files,
    )
    code = (
        "import pandas as pd\ndf = pd.read_csv('k.csv')\n"
        "print(df[df['Package'].str.strip().str.lower() == 'keg']['Cost'].sum())"
    )
    assert said(question, code) is None
    dated = question_of("When was the last batch packaged?", "Use Packaged.", files)
    told = said(dated, code)
    assert told is not None and "column 'Packaged'" in told
