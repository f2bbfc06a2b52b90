"""A merge ``on=`` a name only one table has, when the files note pairs the two key columns
(``_joinfix.on_key_fix``), and numbers stored as text a cell never converts
(``_textnumfix``): fresh14 (blind) merged ``loans.merge(library_members, on='Member')``
against ``Member No`` three times over, then summed ``'£1.40'`` fines as text. The cell is
re-run naming each side's key with the note's key line, then with the note's conversion:
one fix uncovering the next, each run once."""

from __future__ import annotations

import io

import pandas as pd
import pytest

from codeact._execution import CellError, ExecutionResult
from codeact.agents._codeforms import code_forms_problem
from codeact.agents._datarules import text_number_problem
from codeact.agents._joinfix import on_key_fix
from codeact.agents._textnumfix import empty_zero_problem, gaps_filled_problem, text_number_fix
from codeact.agents.code import describe_files
from tests.helpers import exec_with_files, run_one_cell

pytestmark = [pytest.mark.anyio, pytest.mark.filterwarnings("ignore::UserWarning")]

MEMBERS = "Member No,Branch\n" + "".join(
    f"{n},{['Central', 'Oakwood', 'Hillcrest'][n % 3]}\n" for n in range(1, 13)
)
FINES = ["£1.40", "£0", "none", "", "£2.75", "£0.50", "£12.00"]
LOANS = "Loan,Member,Fine\n" + "".join(
    f"L{i},{['M-', 'm-', 'M'][i // 12 % 3]}{1 + i % 12:04d},{FINES[i % 7]}\n" for i in range(90)
)
FILES = {"loans.csv": LOANS.encode(), "library_members.csv": MEMBERS.encode()}
QUESTION = (
    "Question: Members of which branch were charged the most in fines, and how much?\n"
    f"Format: @branch[b] @fines[f]\n\n{describe_files(FILES)}"
)
CELL = (
    "import pandas as pd\nloans = pd.read_csv('loans.csv')\n"
    "members = pd.read_csv('library_members.csv')\n"
    "loans = loans.merge(members, on='Member', how='left')\n"
    "totals = loans.groupby('Branch')['Fine'].sum()\n"
    "print(totals.idxmax(), totals.max().round(2))"
)


def _expected() -> str:
    fine = [float(f.strip("£")) if f.startswith("£") else 0.0 for f in FINES]
    totals: dict[str, float] = {}
    for i in range(90):
        branch = ["Central", "Oakwood", "Hillcrest"][(1 + i % 12) % 3]
        totals[branch] = totals.get(branch, 0.0) + fine[i % 7]
    best = max(totals, key=lambda b: totals[b])
    return f"{best} {round(totals[best], 2)}"


def _key_error(name: str, line: int) -> ExecutionResult:
    trace = f'File "<cell-1>", line {line}, in <module>\nKeyError: {name!r}'
    return ExecutionResult(error=CellError(type="KeyError", message=repr(name), traceback=trace))


async def test_a_merge_on_one_sides_name_is_re_run_with_both_keys_then_the_fines_converted() -> (
    None
):
    assert "- Keys written differently: 'Member' of 'loans.csv'" in QUESTION
    result = await run_one_cell(FILES, CELL, QUESTION)
    content = str(result.tool_output.content)
    assert not result.tool_output.is_error, content
    assert "loans['Member'] = loans['Member'].str.extract(r'(\\d+)')[0].astype(int)" in content
    assert "left_on='Member', right_on='Member No'" in content
    assert "loans['Fine'] = pd.to_numeric(loans['Fine'].str.replace(" in content, content
    assert content.rstrip().endswith(_expected()), content


async def test_a_fixed_merge_failing_on_a_names_spaces_is_re_run_with_the_name() -> None:
    """fresh16 (blind): the merge's keys fixed, the re-run failed on 'Delivered On' (the
    header is ' Delivered On') and the model was left with the KeyError."""
    spaced = {"loans.csv": LOANS.replace("Loan,Member,Fine", "Loan,Member, Fine").encode()}
    files = {**FILES, **spaced}
    question = QUESTION.split("\n\n")[0] + "\n\n" + describe_files(files)
    cell = CELL.replace("['Fine'].sum()", "['Fine'].count()").replace(".round(2)", "")
    result = await run_one_cell(files, cell, question)
    content = str(result.tool_output.content)
    assert "left_on='Member', right_on='Member No'" in content
    assert "That re-run failed: KeyError" in content and "' Fine'" in content, content
    counts: dict[str, int] = {}
    for i in range(90):
        if FINES[i % 7]:  # (count() leaves the empty ones out)
            branch = ["Central", "Oakwood", "Hillcrest"][(1 + i % 12) % 3]
            counts[branch] = counts.get(branch, 0) + 1
    branch, count = content.rstrip().splitlines()[-1].split()
    assert int(count) == counts[branch] == max(counts.values()), content


async def test_the_members_side_first_gets_the_keys_the_other_way_round() -> None:
    cell = CELL.replace(
        "loans = loans.merge(members, on='Member', how='left')",
        "loans = pd.merge(members, loans, on=['Member No'])",
    ).replace("print(totals.idxmax(), totals.max().round(2))", "print(len(loans))")
    fix = on_key_fix(QUESTION, _key_error("Member No", 4), cell)
    assert fix is not None
    assert "pd.merge(members, loans, left_on='Member No', right_on='Member')" in fix.code
    result = await run_one_cell(FILES, cell, QUESTION)
    assert str(result.tool_output.content).rstrip().endswith("90"), result.tool_output.content


def test_merges_the_fix_cannot_vouch_for_are_left_to_the_model() -> None:
    assert on_key_fix(QUESTION, _key_error("Member", 4), CELL) is not None
    twice = CELL.replace("print(", "members = pd.read_csv('library_members.csv')\nprint(")
    rebuilt = CELL.replace(
        "loans = loans.merge", "loans = loans[loans['Fine'] != 'none']\nloans = loans.merge"
    )
    own = CELL.replace(
        "loans = loans.merge",
        "loans['Member'] = loans['Member'].str.extract(r'(\\d+)')[0]\nloans = loans.merge",
    )
    assert on_key_fix(QUESTION, _key_error("Member", 5), rebuilt) is None  # (rows dropped)
    assert on_key_fix(QUESTION, _key_error("Loan", 4), CELL.replace("'Member'", "'Loan'")) is None
    assert on_key_fix(QUESTION, _key_error("Member", 5), CELL) is None  # (not the merge line)
    other = ExecutionResult(error=CellError(type="ValueError", message="'Member'", traceback=""))
    assert on_key_fix(QUESTION, other, CELL) is None
    fix = on_key_fix(QUESTION, _key_error("Member", 4), twice)  # (read again after the merge)
    assert fix is None
    made = on_key_fix(QUESTION, _key_error("Member", 5), own)
    assert made is not None and len(made.lines) == 1  # (the model made the keys its way)
    assert made.code.count(".str.extract") == 1


DRIVERS = [f"D{i:02d}" for i in range(1, 9)]
PARCELS = "Parcel, Driver ,Status\n" + "".join(
    f"P{i},{[str.lower, str.upper][i % 2](DRIVERS[i % 8])}{' ' * (i % 3 == 0)},"
    f"{['Delivered', 'Failed'][i % 5 == 0]}\n"
    for i in range(80)
)
CREW = "Driver ID,Depot\n" + "".join(
    f"{d},{['North', 'East'][n % 2]}\n" for n, d in enumerate(DRIVERS)
)


async def test_keys_in_other_case_under_another_name_are_folded_on_both_sides() -> None:
    files = {"parcels.csv": PARCELS.encode(), "drivers.csv": CREW.encode()}
    question = f"Question: Which depot delivered the most?\n\n{describe_files(files)}"
    assert "- Keys written in other case: ' Driver ' of 'parcels.csv'" in question
    cell = (
        "import pandas as pd\ncrew = pd.read_csv('drivers.csv')\n"
        "parcels = pd.read_csv('parcels.csv')\n"
        "df = parcels.merge(crew, on='Driver ID')\n"
        "counts = df[df['Status'] == 'Delivered'].groupby('Depot').size()\n"
        "print(counts.idxmax(), counts.max())"
    )
    fix = on_key_fix(question, _key_error("Driver ID", 4), cell)
    assert fix is not None
    lines = fix.code.splitlines()
    assert lines[2] == "crew['Driver ID'] = crew['Driver ID'].str.strip().str.upper()", lines
    assert lines[4] == "parcels[' Driver '] = parcels[' Driver '].str.strip().str.upper()", lines
    assert "parcels.merge(crew, left_on=' Driver ', right_on='Driver ID')" in fix.code
    result = await run_one_cell(files, cell, question)
    east = sum(1 for i in range(80) if i % 5 and (i % 8) % 2)
    assert str(result.tool_output.content).rstrip().endswith(f"East {east}")


def _run(code: str) -> str:
    (printed,) = exec_with_files(FILES, code)
    return printed


def test_text_numbers_never_converted_are_converted_after_the_read() -> None:
    joined = CELL.replace(
        "loans = loans.merge(members, on='Member', how='left')",
        "loans['Member'] = loans['Member'].str.extract(r'(\\d+)')[0].astype(int)\n"
        "loans = loans.merge(members, left_on='Member', right_on='Member No')",
    )
    trace = "File \"<cell-1>\", line 7, in <module>\nAttributeError: 'str' object has no attribute 'round'"
    failed = ExecutionResult(
        error=CellError(
            type="AttributeError", message="'str' object has no attribute 'round'", traceback=trace
        )
    )
    fix = text_number_fix(QUESTION, failed, joined)
    assert fix is not None and fix.code.splitlines()[2].startswith("loans['Fine'] = pd.to_numeric(")
    assert _run(fix.code) == _expected()
    # a successful cell that sums the text: the rule carries the same code
    summed = joined.replace("totals.max().round(2)", "totals.max()")
    problem = text_number_problem(QUESTION, summed)
    assert problem is not None and getattr(problem, "code", None) is not None
    branch, total = _run(problem.code).split()
    assert f"{branch} {round(float(total), 2)}" == _expected()
    # converted its own way, another error, or a failing line on a column the note keeps
    own = joined.replace(
        "totals =", "loans['Fine'] = loans['Fine'].str.strip('£').astype(float)\ntotals ="
    )
    assert text_number_fix(QUESTION, failed, own) is None
    key = ExecutionResult(error=CellError(type="KeyError", message="'Fine'", traceback=trace))
    assert text_number_fix(QUESTION, key, joined) is None
    member_line = 'File "<cell-1>", line 5\nTypeError: unsupported operand type(s)'
    on_member = ExecutionResult(
        error=CellError(
            type="TypeError", message="unsupported operand type(s)", traceback=member_line
        )
    )
    assert text_number_fix(QUESTION, on_member, joined) is None


def test_codes_written_several_ways_are_counted_on_their_number() -> None:
    """fresh14 (blind): 'Which member borrowed the most?' counted 'M-0230' (23 loans) apart
    from 'm-0230' and 'M0230' (37 in all); the note showed three examples and nothing else."""
    note = describe_files({"loans.csv": LOANS.encode()})
    assert "codes written several ways ('M-0001' and 'm-0001' and 'M0001' are one)" in note
    assert "36 as written, 12 codes" in note  # (the loans' 90 rows: 12 members, 3 ways)
    same = describe_files({"l.csv": b"Loan\n" + b"".join(b"LN%03d\n" % i for i in range(40))})
    cased = describe_files(
        {
            "l.csv": b"Code\n"
            + b"".join(b"%s%02d\n" % ([b"D", b"d"][i % 2], i % 30) for i in range(60))
        }
    )
    assert "written several ways" not in same and "written several ways" not in cased
    question = f"Question: Which member borrowed the most, and how many?\n\n{note}"
    cell = (
        "import pandas as pd\ndf = pd.read_csv('loans.csv')\ncounts = df['Member'].value_counts()\n"
        "print(counts.idxmax(), counts.max())"
    )
    problem = code_forms_problem(question, cell)
    assert problem is not None and "written several ways for one code" in problem
    assert problem.code is not None
    counts: dict[int, int] = {}
    for i in range(90):
        counts[1 + i % 12] = counts.get(1 + i % 12, 0) + 1
    top = max(counts, key=lambda n: (counts[n], -n))
    assert _run(cell).split()[1] != str(counts[top])  # (as written: a third of the loans)
    assert _run(problem.code) == f"{top} {counts[top]}"
    # the number taken out, or the column only shown: nothing to say
    own = cell.replace("counts = df['Member']", "counts = df['Member'].str.extract(r'(\\d+)')[0]")
    shown = "import pandas as pd\ndf = pd.read_csv('loans.csv')\nprint(df['Member'].head())"
    assert code_forms_problem(question, own) is None
    assert code_forms_problem(question, shown) is None


MASKED = (
    "import pandas as pd\nloans = pd.read_csv('loans.csv')\n"
    "members = pd.read_csv('library_members.csv')\n"
    "central = loans[members['Branch'] == 'Central']\n"
    "print(len(central), central['Fine'].astype(float).sum().round(2))"
)


async def test_rows_picked_by_another_tables_column_are_re_run_on_the_join() -> None:
    """fresh14 (blind): ``df_loans[df_members['Age Band'] == '60+']`` failed three times
    (Unalignable boolean Series), then its raw ``.astype(float)`` of '£0.00' fines."""
    result = await run_one_cell(FILES, MASKED, QUESTION)
    content = str(result.tool_output.content)
    assert not result.tool_output.is_error, content
    join = "loans = loans.merge(members, left_on='Member', right_on='Member No', how='left')"
    assert join in content and "central = loans[loans['Branch'] == 'Central']" in content
    assert "pd.to_numeric(central['Fine'].str.replace(" in content, content
    fine = [float(f.strip("£")) if f.startswith("£") else 0.0 for f in FINES]
    rows = [i for i in range(90) if (1 + i % 12) % 3 == 0]  # (Central: members 3, 6, 9, 12)
    total = round(sum(fine[i % 7] for i in rows), 2)
    assert content.rstrip().endswith(f"{len(rows)} {total}"), content


def test_masks_the_join_cannot_vouch_for_are_left_to_the_model() -> None:
    trace = 'File "<cell-1>", line 4, in <module>\nIndexingError: Unalignable boolean Series'
    failed = ExecutionResult(
        error=CellError(
            type="IndexingError", message="Unalignable boolean Series provided", traceback=trace
        )
    )
    from codeact.agents._joinfix import mask_join_fix

    assert mask_join_fix(QUESTION, failed, MASKED) is not None
    same = MASKED.replace("loans[members['Branch']", "loans[loans['Branch']")
    other = ExecutionResult(error=CellError(type="KeyError", message="'x'", traceback=trace))
    shared = QUESTION.replace("Member No,Branch", "Member No,Fine")  # (a column in both files)
    assert mask_join_fix(QUESTION, failed, same) is None
    assert mask_join_fix(QUESTION, other, MASKED) is None
    assert mask_join_fix(shared.replace("'Branch'", "'Fine'"), failed, MASKED) is None


async def test_dates_written_two_ways_never_read_are_re_run_with_the_notes_reading() -> None:
    """fresh14 (blind): ``late_dates['RETURN DATE'] - df['Loan Date ']`` on the text of
    dates written '2024-03-05' and '05/03/2024' failed four times (str minus str, then
    DatetimeArray minus object once the model had read one of the two)."""

    def written(day: int, iso: bool) -> str:
        return f"2024-03-{day:02d}" if iso else f"{day:02d}/03/2024"

    rows = "".join(
        f"{i},{written(1 + i % 9, i % 2 == 1)},{written(20 + i % 10, i % 3 > 0)}\n"
        for i in range(30)
    )
    files = {"l.csv": f"Loan,Loan Date ,RETURN DATE\n{rows}".encode()}
    question = f"Question: How many days were loans kept in all?\n\n{describe_files(files)}"
    assert "dates as text written two ways" in question
    cell = (
        "import pandas as pd\ndf = pd.read_csv('l.csv')\n"
        "df['Loan Date '] = pd.to_datetime(df['Loan Date '], format='ISO8601', errors='coerce')"
        ".fillna(pd.to_datetime(df['Loan Date '], format='mixed', dayfirst=True, errors='coerce'))\n"
        "kept = (df['RETURN DATE'] - df['Loan Date ']).dt.days\nprint(kept.sum())"
    )
    result = await run_one_cell(files, cell, question)
    content = str(result.tool_output.content)
    assert not result.tool_output.is_error, content
    assert "`df['RETURN DATE'] = pd.to_datetime(df['RETURN DATE'], format='ISO8601'" in content
    assert "`df['Loan Date '] = " not in content  # (read by the cell already)
    kept = sum(20 + i % 10 - (1 + i % 9) for i in range(30))
    assert content.rstrip().endswith(str(kept)), content


def test_a_mean_of_fines_whose_words_for_none_the_question_counts_as_zero_is_filled() -> None:
    """fresh14 (blind): "'£0', 'none' and an empty Fine all mean no fine (count them as 0)";
    the mean of the converted fines skipped the gaps (1.03 for 0.46), and nothing said so."""
    question = QUESTION.replace(
        "Format:",
        "Constraints: 'none' and an empty Fine all mean no fine (count them as 0).\nFormat:",
    )
    conversion = (
        "pd.to_numeric(loans['Fine'].str.replace(r'[£,\\s]', '', regex=True), errors='coerce')"
    )
    mean = f"import pandas as pd\nloans = pd.read_csv('loans.csv')\nprint(round({conversion}.mean(), 2))"
    problem = empty_zero_problem(question, mean)
    assert problem is not None and problem.code is not None
    assert f"{conversion}.fillna(0).mean()" in problem.code
    fine = [float(f.strip("£")) if f.startswith("£") else 0.0 for f in FINES]
    assert _run(problem.code) == str(round(sum(fine[i % 7] for i in range(90)) / 90, 2))
    assert _run(mean) != _run(problem.code)
    # a sum, or a test, skips the gaps as 0 would count: nothing to say
    assert empty_zero_problem(question, mean.replace(".mean()", ".sum()")) is None
    assert empty_zero_problem(question, mean.replace(".mean()", ".gt(0).sum()")) is None


def test_a_mean_of_gaps_filled_with_zero_the_question_leaves_out_is_sent_back() -> None:
    """fresh15 (blind): "Review ... is empty, 'n/a' or '-' when there is none: leave the
    bookings without a score out and take the mean Review", and the cell took
    ``pd.to_numeric(df['Review'], errors='coerce').fillna(0).mean()``: 3.67 for 8.24."""
    reviews = ["8.5", "", "n/a", "9.0", "-", "7.5"]
    files = {
        "r.csv": ("Ref,Review\n" + "".join(f"B{i},{reviews[i % 6]}\n" for i in range(30))).encode()
    }
    said = (
        "Review is the guest's score out of 10; it is empty, 'n/a' or '-' when there is none: "
        "leave the bookings without a score out and take the mean Review."
    )
    question = f"Question: What is the mean review?\nConstraints: {said}\n\n{describe_files(files)}"
    cell = (
        "import pandas as pd\ndf = pd.read_csv('r.csv')\n"
        "df['Review'] = pd.to_numeric(df['Review'], errors='coerce').fillna(0)\n"
        "print(round(df['Review'].mean(), 2))"
    )
    problem = gaps_filled_problem(question, cell)
    assert problem is not None and problem.code is not None and "fillna" not in problem.code
    assert exec_with_files(files, cell, problem.code) == ["4.17", "8.33"]
    # counted as zeros where the question says so, or summed: nothing to say
    zeros = question.replace("leave the bookings without a score out and take", "count it as 0 in")
    assert gaps_filled_problem(zeros, cell) is None
    assert gaps_filled_problem(question, cell.replace(".mean()", ".sum()")) is None


def test_numbers_as_text_compared_with_a_quoted_number_are_converted_and_compared() -> None:
    """fresh15 (blind): "Children is '0', '-' or empty when there were none. Count the
    bookings with at least one child" ran ``df[df['Children'] != '0']``: 277 for 151 (the
    '-' and empty rows kept); the note's conversion, the gaps as none and ``!= 0``."""
    kids = ["0", "-", "", "1", "2", "0"]
    files = {
        "k.csv": ("Ref,Children\n" + "".join(f"B{i},{kids[i % 6]}\n" for i in range(30))).encode()
    }
    said = "Children is '0', '-' or empty when there were none. Count the bookings with a child."
    question = f"Question: How many had children?\nConstraints: {said}\n\n{describe_files(files)}"
    cell = "import pandas as pd\ndf = pd.read_csv('k.csv')\nprint(len(df[df['Children'] != '0']))"
    from tests.agents.test_rules import candidate, check

    # ("'0', '-' or empty when there were none" says what '-' is: not a filter to apply)
    assert "holds numbers stored as text" in (check(candidate(question, cell)) or "")
    problem = text_number_problem(question, cell)
    assert problem is not None and getattr(problem, "code", None) is not None
    assert "df[df['Children'] != 0]" in problem.code and ".fillna(0)" in problem.code
    assert exec_with_files(files, cell, problem.code) == ["20", "10"]
    # no sentence saying the markers are none: converted, the gaps left as they are
    plain = question.replace(" when there were none", "")
    kept = text_number_problem(plain, cell)
    assert kept is not None and ".fillna(0)" not in (getattr(kept, "code", "") or "")


async def test_dates_written_one_way_never_read_are_re_run_read() -> None:
    """fresh15 (blind): ``df['Check-Out '] - df['booked_on']`` with booked_on never read
    ('Timestamp' and 'str', three times); the note says only "pd.to_datetime() them"."""
    rows = "".join(f"{i},2024-0{1 + i % 3}-1{i % 10} 09:30,2024-05-2{i % 10}\n" for i in range(20))
    files = {"b.csv": f"Ref,booked_on,Check-In\n{rows}".encode()}
    question = f"Question: How many days ahead were rooms booked?\n\n{describe_files(files)}"
    cell = (
        "import pandas as pd\ndf = pd.read_csv('b.csv')\n"
        "df['Check-In'] = pd.to_datetime(df['Check-In'])\n"
        "print((df['Check-In'] - df['booked_on']).dt.days.sum())"
    )
    result = await run_one_cell(files, cell, question)
    content = str(result.tool_output.content)
    assert "`df['booked_on'] = pd.to_datetime(df['booked_on'], errors='coerce')`" in content
    frame = pd.read_csv(io.BytesIO(files["b.csv"]))
    days = (pd.to_datetime(frame["Check-In"]) - pd.to_datetime(frame["booked_on"])).dt.days.sum()
    assert content.rstrip().endswith(str(days)), content


async def test_numbers_written_plain_or_after_a_word_are_the_other_files_plain_keys() -> None:
    """fresh15 (blind): ROOM is '204', 'Rm 204' or 'room 204' and rooms.csv's Room No is 204;
    the note said nothing (the plain ones matched as text), and ``pd.merge(bookings, rooms,
    on='ROOM')`` failed, then on str and int64 after a rename."""
    rooms = "Room No,View\n" + "".join(f"{n},{['Sea', 'Garden'][n % 2]}\n" for n in range(101, 109))
    written = ["{}", "Rm {}", "room {}"]
    bookings = "Ref,ROOM\n" + "".join(
        f"B{i},{written[i % 3].format(101 + i % 8)}\n" for i in range(48)
    )
    files = {"b.csv": bookings.encode(), "rooms.csv": rooms.encode()}
    note = describe_files(files)
    assert "- Keys written differently: 'ROOM' of 'b.csv' (e.g. '101') is 'Room No'" in note
    assert "Join on the number: df['ROOM'].str.extract(r'(\\d+)')[0].astype(int)" in note
    cell = (
        "import pandas as pd\nbookings = pd.read_csv('b.csv')\nrooms = pd.read_csv('rooms.csv')\n"
        "m = pd.merge(bookings, rooms, on='ROOM')\nprint((m['View'] == 'Sea').sum())"
    )
    result = await run_one_cell(files, cell, f"Question: How many sea views?\n\n{note}")
    sea = sum(1 for i in range(48) if (101 + i % 8) % 2 == 0)
    assert str(result.tool_output.content).rstrip().endswith(str(sea))
    # the numbers all written plain: a plain merge works, nothing to say
    plain = "Ref,ROOM\n" + "".join(f"B{i},{101 + i % 8}\n" for i in range(48))
    assert "Keys written" not in describe_files(
        {"b.csv": plain.encode(), "rooms.csv": rooms.encode()}
    )


@pytest.mark.parametrize(
    "conversion",
    [
        # cleaned, then made numbers with .astype(float): fails on 'none'
        "loans['Fine'] = loans['Fine'].str.replace(r'[£,\\s]', '', regex=True).astype(float)",
        # cleaned as text only: then compared with a number
        "loans['Fine'] = loans['Fine'].str.replace(r'[£,\\s]', '', regex=True)",
    ],
)
async def test_fines_cleaned_the_cells_own_way_are_re_run_with_the_notes_conversion(
    conversion: str,
) -> None:
    """fresh14 (blind, after this pass's first fixes): 'How many loans were fined?' failed
    four times on the cell's own clean-up of '£1.40', 'none' and empty fines."""
    cell = (
        f"import pandas as pd\nloans = pd.read_csv('loans.csv')\n{conversion}\n"
        "print((loans['Fine'] > 0).sum())"
    )
    result = await run_one_cell(FILES, cell, QUESTION)
    content = str(result.tool_output.content)
    assert "pd.to_numeric(" in content and "the files note's conversion" in content, content
    fined = sum(1 for i in range(90) if FINES[i % 7].startswith("£") and FINES[i % 7] != "£0")
    assert content.rstrip().endswith(str(fined)), content


def test_fills_the_question_asks_for_and_counts_of_positives_are_left_alone() -> None:
    """Review: "count a missing Discount as 0" with ``.fillna(0).mean()``, "an empty Tip
    means no tip" with ``df['Price'] + df['Tip'].fillna(0)``, and a count of ``> 0`` rows of
    a column "an empty Children means no children" were sent back."""
    rows = "Ref,Discount,Price,Tip,Children\n" + "".join(
        f"B{i},{['', 5, 10][i % 3]},{10 + i},{['', 1, 2][i % 3]},{['0', '-', '', 2][i % 4]}\n"
        for i in range(30)
    )
    note = describe_files({"b.csv": rows.encode()})

    def asked(constraints: str) -> str:
        return f"Question: ?\nConstraints: {constraints}\n\n{note}"

    read = "import pandas as pd\ndf = pd.read_csv('b.csv')\n"
    zero = asked("Exclude cancelled bookings and count a missing Discount as 0.")
    assert gaps_filled_problem(zero, f"{read}print(df['Discount'].fillna(0).mean())") is None
    tip = asked("Leave out the orders without a Price, and an empty Tip means no tip.")
    paid = f"{read}print((df['Price'] + df['Tip'].fillna(0)).mean())"
    assert gaps_filled_problem(tip, paid) is None
    kids = asked("An empty Children means no children.")
    count = (
        f"{read}df['Children'] = pd.to_numeric(df['Children'], errors='coerce')\n"
        "print(df[df['Children'] > 0]['Ref'].count())"
    )
    assert empty_zero_problem(kids, count) is None
    # the fill of another column on the line stays when the left-out column's goes
    both = asked("Leave the orders without a Discount out.")
    mixed = f"{read}print((df['Discount'].fillna(0) + df['Tip'].fillna(0)).mean())"
    problem = gaps_filled_problem(both, mixed)
    assert problem is not None and problem.code is not None
    assert "df['Discount'] + df['Tip'].fillna(0)" in problem.code


async def test_a_second_fix_waits_when_the_first_re_run_wrote_something_before_failing() -> None:
    """Review: chaining fixes re-ran lines past the first failure that no one had checked
    (a column popped, a file written) a third time; the .astype(int) fix checks nothing
    itself, so the chain must."""
    cell = (
        "import pandas as pd\nloans = pd.read_csv('loans.csv')\n"
        "members = pd.read_csv('library_members.csv')\n"
        "loans = loans.merge(members, on='Member', how='left')\n"
        "loans.pop('Loan')\n"
        "print(loans['Branch'].map({'Central': 1}).astype(int).sum())"
    )
    result = await run_one_cell(FILES, cell, QUESTION)
    content = str(result.tool_output.content)
    assert "left_on='Member', right_on='Member No'" in content  # (the first fix ran)
    assert ".astype(float)" not in content  # (the second did not: .pop ran before)
    assert result.tool_output.is_error
    # without the write, the second fix runs after the first
    result = await run_one_cell(FILES, cell.replace("loans.pop('Loan')\n", ""), QUESTION)
    assert ".astype(float)" in str(result.tool_output.content)


async def test_a_column_converted_twice_loses_the_second_conversion() -> None:
    """fresh14 (blind): ``df['Pages'] = df['Pages'].str.replace(',', '').astype(float)``
    then ``df['Pages'] = df['Pages'].str.extract(r'([\\d.,]+)')[0].astype(int)``: .str on
    floats, five times over."""
    pages = ["1,024", "350", "", "2,100"]
    files = {
        "p.csv": ("Ref,Pages\n" + "".join(f'B{i},"{pages[i % 4]}"\n' for i in range(20))).encode()
    }
    cell = (
        "import pandas as pd\ndf = pd.read_csv('p.csv')\n"
        "df['Pages'] = df['Pages'].str.replace(',', '').astype(float)\n"
        "df['Pages'] = df['Pages'].str.extract(r'([\\d.,]+)')[0].astype(int)\n"
        "print(df['Pages'].sum())"
    )
    result = await run_one_cell(files, cell, f"Question: Pages?\n\n{describe_files(files)}")
    content = str(result.tool_output.content)
    assert "I re-ran your cell without the line `df['Pages'] = df['Pages'].str.extract(" in content
    assert content.rstrip().endswith(str(5 * (1024 + 350 + 2100)) + ".0"), content
