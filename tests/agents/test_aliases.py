"""Values the question says are written other ways that no folding joins (``_aliases``):
fresh15 (blind) counted 'Canceled' bookings apart from 'Cancelled' (50 for 63) and
'Telephone' apart from 'Phone' (57 for 70), comparing the folded text the note gives."""

from __future__ import annotations

import pytest

from codeact.agents._aliases import alias_problem, stated_aliases
from codeact.agents.code import describe_files
from tests.helpers import exec_with_files

STATUSES = ["Checked out", "checked out", "Cancelled", "Canceled", "CANCELLED", "No show"]
ROWS = "Ref,Status,Channel\n" + "".join(
    f"B{i},{STATUSES[i % 6]},{['Phone', 'Telephone', ' phone', 'Expedia'][i % 4]}\n"
    for i in range(48)
)
FILES = {"b.csv": ROWS.encode()}
SAID = (
    "Status is Checked out, Cancelled or No-show, spelt several ways: 'checked out' is Checked "
    "out, 'Canceled' and 'CANCELLED' are Cancelled, 'No show' is No-show. Phone is also "
    "written 'Telephone'."
)
QUESTION = (
    f"Question: How many bookings were cancelled?\nConstraints: {SAID}\n\n{describe_files(FILES)}"
)
FOLDED = "df['Status'].str.strip().str.lower()"


def test_the_spellings_no_folding_joins_are_read_from_the_question() -> None:
    assert [(a, v) for a, v, _ in stated_aliases(SAID)] == [
        ("Canceled", "Cancelled"),
        ("Telephone", "Phone"),
    ]
    together = "the UK is written both 'GB' and 'UK' (count them together as GB)."
    assert [(a, v) for a, v, _ in stated_aliases(together)] == [("UK", "GB")]
    # examples of how a value is written, codes and phrases: not other spellings
    for said in (
        "'Uber Eats', 'UberEats' and 'uber eats ' are the same",
        "'Rm 204' and 'room 204' are all room 204",
        "'€12.50' and '12.50 EUR' are both 12.50",
        "'M-0042' is member 42",
    ):
        assert stated_aliases(said) == [], said


def test_a_count_of_one_spelling_is_sent_back_with_the_others_made_that_value() -> None:
    cell = f"import pandas as pd\ndf = pd.read_csv('b.csv')\nprint(({FOLDED} == 'cancelled').sum())"
    problem = alias_problem(QUESTION, cell)
    assert problem is not None and "'Canceled' is Cancelled too" in problem
    assert problem.code is not None
    as_written, fixed = exec_with_files(FILES, cell, problem.code)
    cancelled = sum(1 for i in range(48) if i % 6 in (2, 3, 4))
    assert (as_written, fixed) == (str(cancelled - 8), str(cancelled))
    # a grouping is made right the same way ('Telephone' with Phone)
    grouped = (
        "import pandas as pd\ndf = pd.read_csv('b.csv')\n"
        "print(df['Channel'].str.strip().str.lower().value_counts()['phone'])"
    )
    phone = alias_problem(QUESTION.replace("were cancelled", "came by phone"), grouped)
    assert phone is not None and phone.code is not None and "'Telephone'" in phone
    assert exec_with_files(FILES, phone.code) == [str(sum(1 for i in range(48) if i % 4 < 3))]


def test_code_naming_the_other_spelling_or_not_using_the_column_is_left_alone() -> None:
    named = f"import pandas as pd\ndf = pd.read_csv('b.csv')\nprint({FOLDED}.isin(['cancelled', 'canceled']).sum())"
    other = "import pandas as pd\ndf = pd.read_csv('b.csv')\nprint(len(df))"
    assert alias_problem(QUESTION.replace(" Phone is also written 'Telephone'.", ""), named) is None
    assert alias_problem(QUESTION.replace(" Phone is also written 'Telephone'.", ""), other) is None


def test_the_made_one_cell_passes_the_other_rules() -> None:
    """After the fix the cell was sent back again: "The question names 'checked out'" (a
    spelling the question explains) and "about 'No'" (the No of No-show, a value of a
    Breakfast column of Yes and No)."""
    from tests.agents.test_rules import candidate, check

    rows = "Ref,Status,Breakfast\n" + "".join(
        f"B{i},{STATUSES[i % 6]},{['Yes', 'No'][i % 2]}\n" for i in range(48)
    )
    files = {"b.csv": rows.encode()}
    said = (
        "Status is Checked out (the guest came and stayed), Cancelled or No-show, spelt several "
        "ways: 'checked out' and 'Checked-Out' are Checked out, 'Canceled' and 'CANCELLED' are "
        "Cancelled, 'No show' is No-show. Count the bookings whose Status is Cancelled."
    )
    question = f"Question: How many were cancelled?\nConstraints: {said}\n\n{describe_files(files)}"
    cell = f"import pandas as pd\ndf = pd.read_csv('b.csv')\nprint(({FOLDED} == 'cancelled').sum())"
    problem = alias_problem(question, cell)
    assert problem is not None and problem.code is not None
    assert check(candidate(question, problem.code)) is None


def test_a_rule_speaks_once_per_subject_and_at_most_twice_a_run() -> None:
    """fresh15 (blind): the case rule sent the Expedia cell back for Channel, and the next
    cell, Channel folded, still compared Status as written ('Cancelled': 11.32 for 15.09);
    the rule had spoken once for the run, so nothing said so."""
    from codeact.agents.validators import AnswerCandidate, CellRun
    from tests.agents.test_rules import check

    rows = "Ref,Status,Channel,Breakfast\n" + "".join(
        f"B{i},{['Cancelled', 'cancelled ', 'Done'][i % 3]},{['Expedia', 'expedia '][i % 2]},"
        f"{['Yes', 'yes ', 'No'][i % 3]}\n"
        for i in range(30)
    )
    question = f"Question: How many Expedia bookings were cancelled?\n\n{describe_files({'b.csv': rows.encode()})}"
    first = CellRun(code="import pandas as pd\ndf = pd.read_csv('b.csv')", stdout="")

    def told(code: str) -> str:
        cell = CellRun(code=code, stdout="3")
        return check(AnswerCandidate(text="@n[3]", question=question, cells=(first, cell))) or ""

    unfolded = "print(len(df[(df['Channel'] == 'Expedia') & (df['Status'] == 'Cancelled')]))"
    status = "print(len(df[(df['Channel'] == 'Expedia') & (df['Status'].str.strip().str.lower() == 'cancelled')]))"
    assert "'Status' holds one value written in several cases" in told(unfolded)
    assert "'Channel' holds one value written in several cases" in told(status)
    assert told(status) == ""  # (once per subject)
    third = status + "\nprint(df['Breakfast'] == 'Yes')"
    assert "several cases" not in told(third)  # (twice a run at most)


def test_cells_matching_their_own_way_or_asking_another_value_are_left_alone() -> None:
    """Review: a cell matching with .str.startswith / .str.contains(case=False), a cell
    asking for Checked out (the question's other spellings are of Cancelled), and "Status is
    'Cancelled' are Expedia bookings" read as a spelling, were all sent back."""
    read = "import pandas as pd\ndf = pd.read_csv('b.csv')\n"
    own = [
        f"{read}print(df['Status'].str.lower().str.startswith('cancel').sum())",
        f"{read}print(df['Status'].str.contains('cancel', case=False).sum())",
    ]
    for code in own:
        assert alias_problem(QUESTION, code) is None, code
    checked = QUESTION.replace("How many bookings were cancelled?", "How many checked out?")
    assert alias_problem(checked, f"{read}print(({FOLDED} == 'checked out').sum())") is None
    sentence = "How many bookings whose Status is 'Cancelled' are Expedia bookings?"
    assert stated_aliases(sentence) == []


@pytest.mark.parametrize(
    "fold",
    [
        "df['Status'] = df['Status'].astype(str).str.strip().str.lower()",
        "df['Status'] = df['Status'].fillna('').str.strip().str.lower()",
        "for c in ['Status', 'Channel']:\n    df[c] = df[c].str.strip().str.lower()",
    ],
)
def test_a_column_folded_through_other_calls_or_a_loop_is_folded(fold: str) -> None:
    """Review: the per-column case rule saw only folds chained straight onto df['Status']."""
    from codeact.agents._datarules import case_problem

    rows = "Ref,Status,Channel\n" + "".join(
        f"B{i},{['Cancelled', 'cancelled ', 'Done'][i % 3]},{['Expedia', 'expedia '][i % 2]}\n"
        for i in range(30)
    )
    question = f"Question: How many were cancelled?\n\n{describe_files({'b.csv': rows.encode()})}"
    code = f"import pandas as pd\ndf = pd.read_csv('b.csv')\n{fold}\nprint((df['Status'] == 'cancelled').sum())"
    assert case_problem(question, code) is None


def test_values_in_brackets_after_their_column_say_what_it_holds() -> None:
    """fresh14 (blind): "Age Band (Under 18, 18-34, 35-59 or 60+)" sent a right total of
    fines by branch back for never filtering on 'Under 18'."""
    from tests.agents.test_rules import candidate, check

    rows = "Member No,Branch,Age Band\n" + "".join(
        f"{n},{['Central', 'Oakwood'][n % 2]},{['Under 18', '18-34', '60+'][n % 3]}\n"
        for n in range(1, 31)
    )
    said = (
        "members.csv has one row per member: Member No, Branch and Age Band (Under 18, 18-34 "
        "or 60+). Count the members of each branch."
    )
    question = f"Question: Which branch has most members?\nConstraints: {said}\n\n{describe_files({'members.csv': rows.encode()})}"
    code = "import pandas as pd\ndf = pd.read_csv('members.csv')\nprint(df['Branch'].value_counts().idxmax())"
    assert check(candidate(question, code)) is None
    asked = question.replace(
        "Count the members of each branch.", "Count the Under 18 members of each branch."
    )
    assert "'Under 18'" in (check(candidate(asked, code)) or "")


def test_a_column_named_as_whatever_its_value_is_not_asked_for() -> None:
    """fresh15 (blind): "Count the bookings (whatever their Status) whose Check-In is in July
    2024" sent a right count back for never using Status."""
    from tests.agents.test_rules import candidate, check

    rows = "Ref,Status,Month\n" + "".join(
        f"B{i},{['Done', 'Cancelled'][i % 2]},{1 + i % 12}\n" for i in range(30)
    )
    note = describe_files({"b.csv": rows.encode()})
    said = "Count the bookings (whatever their Status) whose Month is 7."
    question = f"Question: How many in July?\nConstraints: {said}\n\n{note}"
    code = "import pandas as pd\ndf = pd.read_csv('b.csv')\nprint((df['Month'] == 7).sum())"
    assert check(candidate(question, code)) is None
    asked = question.replace("(whatever their Status)", "by Status")
    assert "'Status'" in (check(candidate(asked, code)) or "")


def test_the_made_one_value_takes_its_case_and_spacings_too() -> None:
    """fresh15 (after this pass's first tuning): the cell compared ``== 'Cancelled'`` as
    written; the rule's code made 'Canceled' Cancelled but left 'CANCELLED' (55 for 63)."""
    cell = (
        "import pandas as pd\ndf = pd.read_csv('b.csv')\nprint((df['Status'] == 'Cancelled').sum())"
    )
    problem = alias_problem(QUESTION, cell)
    assert problem is not None and problem.code is not None
    assert exec_with_files(FILES, problem.code) == [
        str(sum(1 for i in range(48) if i % 6 in (2, 3, 4)))
    ]


def test_a_fold_inside_a_mask_test_leaves_the_column_as_written() -> None:
    """fresh15 (after this pass's first tuning): ``df['Channel'] = df['Channel'].mask(
    df['Channel'].str.strip().str.lower() == 'telephone', 'Phone')`` then ``== 'Phone'``
    missed ' phone' and 'phone ' (51 for 70); the fold in the mask's test counted as the
    column's own, so the case rule said nothing."""
    from codeact.agents._datarules import case_problem

    masked = (
        "import pandas as pd\ndf = pd.read_csv('b.csv')\n"
        "df['Channel'] = df['Channel'].mask(df['Channel'].str.strip().str.lower() == 'telephone', 'Phone')\n"
        "print((df['Channel'] == 'Phone').sum())"
    )
    assert case_problem(QUESTION, masked) is not None


def test_a_grouping_of_another_column_does_not_ask_for_the_other_spelling() -> None:
    """fresh16 (blind): the Retail rows grouped by Category were sent back because Trade is
    also written 'Wholesale' (a spelling of Customer Type, which the code only compares with
    'Retail')."""
    said = "Type is Retail or Trade; Trade is also written 'Wholesale'."
    rows = "Ref,Type,Category\n" + "".join(
        f"{i},{['Retail', 'Trade', 'Wholesale'][i % 3]},{'AB'[i % 2]}\n" for i in range(12)
    )
    files = {"t.csv": rows.encode()}
    question = f"Question: Which category sold most to retail?\nConstraints: {said}\n\n"
    question += describe_files(files)
    by_category = (
        "import pandas as pd\ndf = pd.read_csv('t.csv')\n"
        "print(df[df['Type'] == 'Retail'].groupby('Category').size().idxmax())"
    )
    assert alias_problem(question, by_category) is None
    # review: the column filtered, another counted on the same line
    for other in (
        "print(df[df['Type'] == 'Retail']['Category'].value_counts().idxmax())",
        "print(df.loc[df['Type'] == 'Retail', 'Category'].mode()[0])",
    ):
        code = f"import pandas as pd\ndf = pd.read_csv('t.csv')\n{other}"
        assert alias_problem(question, code) is None, other
    # grouping or counting the column itself still asks for every spelling
    for grouped in (
        "df.groupby('Type').size()",
        "df['Type'].str.lower().value_counts()",
        "df.groupby(\n    'Type').size()",
        "df.value_counts('Type')",
    ):
        code = f"import pandas as pd\ndf = pd.read_csv('t.csv')\nprint({grouped})"
        assert alias_problem(question, code) is not None, grouped


def test_the_note_shows_the_folding_it_means_in_code_that_runs() -> None:
    """fresh16: the note said ``mask(<the folded text> == 'creditcard', ...)``; the model
    folded with strip and lower only, so 'Credit card' (with its space) stayed apart. The
    note now writes the whole folding out, for the cell's own table name."""
    import pandas as pd

    cell = (
        "import pandas as pd\nsales = pd.read_csv('b.csv')\n"
        "print((sales['Status'].str.strip().str.lower() == 'cancelled').sum())"
    )
    problem = alias_problem(QUESTION, cell)
    assert problem is not None and "<" not in str(problem), problem
    example = str(problem).split("e.g. ", 1)[1].split("; run your code", 1)[0]
    assert example.startswith("sales['Status'] = "), example
    sales = pd.DataFrame({"Status": ["Cancelled", " canceled ", "CANCELED", "Checked out"]})
    exec(example, {"sales": sales})
    assert sales["Status"].tolist() == ["Cancelled"] * 3 + ["Checked out"]


def test_a_list_of_other_spellings_and_spellings_of_two_values_in_turn() -> None:
    """fresh17 (blind): "('service' and ' REPAIR' are Service and Repair)" was read as
    ' REPAIR' being Service (the model's mask then counted repairs as services), and of
    "Service is also written 'Servicing', Repair 'Repairs', Tyres 'Tires' or 'Tyre change'"
    only the first was read."""
    said = (
        "'Job Type' is Service, Repair or Tyres, typed in any case ('service' and ' REPAIR' "
        "are Service and Repair); Service is also written 'Servicing', Repair 'Repairs', "
        "Tyres 'Tires' or 'Tyre change' and Diagnostics 'DIAG'. Labour is 'h' or 'min'."
    )
    assert [(a, v) for a, v, _ in stated_aliases(said)] == [
        ("Servicing", "Service"),
        ("Repairs", "Repair"),
        ("Tires", "Tyres"),
        ("Tyre change", "Tyres"),
        ("DIAG", "Diagnostics"),
    ]
    # in turn only when the counts match: three spellings for two values say nothing
    three = "Status is written several ways: 'a', 'b' and 'c' are Open and Closed."
    assert stated_aliases(three) == []


def test_every_spelling_of_the_column_is_made_its_value_for_a_count_through_a_name() -> None:
    """fresh17 (blind): the job types counted through a name (``types = df['Job  Type']
    .str.strip().str.lower()``, ``types.value_counts()``) missed seven spellings; the filter
    rule took 'Repairs' for a filter instead. One note now makes them all their values."""
    from codeact.agents._filters import filter_problem

    kinds = ["Service", "Servicing", "Repair", "Repairs", " service", "Tires", "Tyres"]
    rows = "Job,Job  Type\n" + "".join(f"J{i},{kinds[i % 7]}\n" for i in range(35))
    files = {"g.csv": rows.encode()}
    question = (
        "Question: Which job type was done most often, and how many times?\nConstraints: "
        "Service is also written 'Servicing', Repair 'Repairs' and Tyres 'Tires'.\n\n"
        + describe_files(files)
    )
    cell = (
        "import pandas as pd\ndf = pd.read_csv('g.csv')\n"
        "types = df['Job  Type'].str.strip().str.lower()\ncounts = types.value_counts()\n"
        "print(counts.idxmax(), counts.max())"
    )
    assert filter_problem(question, cell) is None
    problem = alias_problem(question, cell)
    assert problem is not None and "(and 2 more spellings the question names)" in problem
    assert problem.code is not None
    as_written, fixed = exec_with_files(files, cell, problem.code)
    assert (as_written, fixed) == ("service 10", "service 15")


def test_a_spelling_compared_without_its_spaces_on_text_that_keeps_them_is_missed() -> None:
    """fresh16 (on re-reading it for the eighteenth pass): ``.mask(df['Payment'].str.strip()
    .str.lower() == 'creditcard', 'Card')`` names 'Credit card' without its space on text that
    keeps it: nothing matches (265 card sales for 311). A filter rule's false alarm had sent
    the cell back by chance; the alias rule now does."""
    pays = ["Card", "Credit card", "card", "Cash", "CARD ", "Credit Card"]
    rows = "Sale,Payment\n" + "".join(f"S{i},{pays[i % 6]}\n" for i in range(24))
    files = {"p.csv": rows.encode()}
    question = (
        "Question: How many sales were paid by card?\nConstraints: Card is also written "
        f"'Credit card'.\n\n{describe_files(files)}"
    )
    read = "import pandas as pd\ndf = pd.read_csv('p.csv')\n"
    count = "print((df['Payment'].str.strip().str.lower() == 'card').sum())"
    broken = "df['Payment'] = df['Payment'].mask(df['Payment'].str.strip().str.lower() == 'creditcard', 'Card')\n"
    problem = alias_problem(question, read + broken + count)
    assert problem is not None and problem.code is not None
    assert exec_with_files(files, read + broken + count, problem.code) == ["12", "20"]
    squeezed = broken.replace(".str.lower() ==", ".str.lower().str.replace(' ', '') ==")
    assert alias_problem(question, read + squeezed + count) is None


def test_a_value_in_the_list_of_other_spellings_is_not_a_filter() -> None:
    """fresh17 (tuned run): tyre jobs counted right (81) were sent to select 'Inspection',
    named only in "Service is also written 'Servicing', Inspection 'Safety check'"."""
    from codeact.agents._category import category_problem

    kinds = ["Service", "Inspection", "Tyres", "Tires", "Safety check", "Servicing"]
    rows = "Job,Job Type\n" + "".join(f"J{i},{kinds[i % 6]}\n" for i in range(24))
    files = {"g.csv": rows.encode()}
    said = "Service is also written 'Servicing', Inspection 'Safety check' and Tyres 'Tires'."
    question = f"Question: How many tyre jobs?\nConstraints: {said}\n\n{describe_files(files)}"
    cell = (
        "import pandas as pd\ndf = pd.read_csv('g.csv')\nprint((df['Job Type'] == 'Tyres').sum())"
    )
    assert category_problem(question, cell) is None
    asked = question.replace("How many tyre jobs?", "How many Inspection jobs were tyres?")
    assert category_problem(asked, cell) is not None  # (named in the question itself)


def test_a_comparison_with_the_other_spelling_alone_is_sent_back() -> None:
    """fresh17 (tuned run): Volkswagen jobs counted as ``== 'vw'`` (34 of 132), the rows
    written 'Volkswagen' left out; the code's name ``volkswagen_jobs`` is no comparison."""
    makes = ["VW", "Volkswagen", "vw ", "Ford", " volkswagen"]
    rows = "Job,make\n" + "".join(f"J{i},{makes[i % 5]}\n" for i in range(20))
    files = {"g.csv": rows.encode()}
    said = "make is written in any case; Volkswagen is also written 'VW'."
    question = (
        f"Question: How many Volkswagen jobs?\nConstraints: {said}\n\n{describe_files(files)}"
    )
    read = "import pandas as pd\ndf = pd.read_csv('g.csv')\n"
    alone = read + "volkswagen_jobs = (df['make'].str.strip().str.lower() == 'vw').sum()"
    problem = alias_problem(question, alone + "\nprint(volkswagen_jobs)")
    assert problem is not None and "with 'VW' alone" in problem
    both = alone.replace("== 'vw')", ".isin(['vw', 'volkswagen']))")
    assert alias_problem(question, both + "\nprint(volkswagen_jobs)") is None


def test_a_mask_written_in_place_of_the_filter_is_no_filter() -> None:
    """fresh17 (tuned run): told to make 'Repairs' Repair, the model wrote the mask in place
    of its filter: a correlation over every job for the repair jobs' (0.46 for 0.65). The
    value named only as what the mask makes is no filter; a grouping after it needs none."""
    from codeact.agents._rules import category_problem

    types = ["Repair", "Repairs", "Service", "repair", "Service"]
    rows = "Ref,Job Type,Labour\n" + "".join(f"J{i},{types[i % 5]},{i}\n" for i in range(20))
    files = {"g.csv": rows.encode()}
    said = "Job Type is Repair or Service; Repair is also written 'Repairs'."
    question = (
        f"Question: Mean Labour of repair jobs?\nConstraints: {said} Over the jobs whose Job "
        f"Type is Repair, take the mean Labour.\n\n{describe_files(files)}"
    )
    mask = (
        "import pandas as pd\ndf = pd.read_csv('g.csv')\ndf['Job Type'] = df['Job Type'].mask("
        "df['Job Type'].str.strip().str.lower().str.replace(r'[\\s_-]+', '', regex=True)"
        ".isin(['repairs', 'repair']), 'Repair')\n"
    )
    problem = category_problem(question, mask + "print(df['Labour'].mean())")
    assert problem is not None and "never filters on it" in problem
    filtered = mask + "print(df[df['Job Type'] == 'Repair']['Labour'].mean())"
    assert category_problem(question, filtered) is None
    grouped = mask + "print(df.groupby('Job Type')['Labour'].mean())"
    assert category_problem(question, grouped) is None


def test_several_spellings_of_one_value_and_values_starting_with_digits_are_read() -> None:
    """fresh18 (blind): "Online is also written 'Web' or 'Website', App 'Mobile App'" read
    only 'Web' (the channel count left 'Website' apart); "Standard is also written '2D' or
    'STD', 3D '3-D' or 'RealD 3D'" read nothing (a spelling with a digit, a value starting
    with one)."""
    said = (
        "Online is also written 'Web' or 'Website', App 'Mobile App', and Box Office "
        "'Counter'. Standard is also written '2D' or 'STD', 3D '3-D' or 'RealD 3D', and "
        "Dolby 'Dolby Cinema'."
    )
    assert [(a, v) for a, v, _ in stated_aliases(said)] == [
        ("Web", "Online"),
        ("Website", "Online"),
        ("Mobile App", "App"),
        ("Counter", "Box Office"),
        ("2D", "Standard"),
        ("STD", "Standard"),
        ("3-D", "3D"),
        ("RealD 3D", "3D"),
        ("Dolby Cinema", "Dolby"),
    ]
