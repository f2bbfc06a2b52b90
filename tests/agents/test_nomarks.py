"""Signs standing for no value that pandas keeps as text (``_cellforms.date_marks``,
``_nomarks``): fresh16 (blind) counted ``df[' Delivered On'].notna()`` with 72 '-' among the
dates (210 for 138): the note did not even call the column dates."""

from __future__ import annotations

import io
import re

import pandas as pd
import pytest

from codeact.agents._nomarks import marked_missing_problem
from codeact.agents._rules import passes_rules
from codeact.agents.code import describe_files
from tests.agents.test_rules import candidate
from tests.agents.test_rules import check as check_candidate
from tests.helpers import exec_with_files

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

DAYS = ["2024-03-09", "05.03.2024", "", "n/a", "-", "2024-04-01", "-", "11.04.2024", ""]
ROWS = "Sale,Qty, Delivered On\n" + "".join(f"S{i},{i % 5},{DAYS[i % 9]}\n" for i in range(36))
FILES = {"s.csv": ROWS.encode()}
NOTE = describe_files(FILES)
QUESTION = (
    "Question: How many sales were delivered?\nConstraints: ' Delivered On' is empty, 'n/a' "
    f"or '-' when nothing was delivered. Count the sales that were delivered.\n\n{NOTE}"
)
DELIVERED = str(sum(1 for i in range(36) if DAYS[i % 9] not in ("", "n/a", "-")))


def test_signs_for_no_date_are_counted_and_the_dates_still_read_as_dates() -> None:
    line = next(ln for ln in NOTE.splitlines() if "Delivered On" in ln and ln.startswith("  -"))
    assert "8 values '-' standing for no date" in line, line
    assert "dates as text written two ways" in line
    # the note's conversion runs on the file: the signs become NaT, the dates dates
    read = re.search(r": (pd\.to_datetime\(df.*?\)), e\.g\.", line)
    assert read is not None and "errors='coerce'" in read.group(1)
    dates = eval(read.group(1), {"pd": pd, "df": pd.read_csv(io.BytesIO(FILES["s.csv"]))})
    assert str(int(dates.notna().sum())) == DELIVERED
    # a sign among numbers is still told the numbers' way; words that are values are not signs
    words = [("2024-03-09", "pending"), ("2024-03-09", "collected")]
    assert "standing for no date" in describe_files({"a.csv": _rows(*words[0])})
    assert "standing for no date" not in describe_files({"b.csv": _rows(*words[1])})


def _rows(day: str, other: str) -> bytes:
    return ("id,d\n" + "".join(f"{i},{day if i % 3 else other}\n" for i in range(12))).encode()


READ_TWO_WAYS = (
    "import pandas as pd\ndf = pd.read_csv('s.csv')\nd = pd.to_datetime(df[' Delivered On'], "
    "format='ISO8601', errors='coerce').fillna(pd.to_datetime(df[' Delivered On'], "
    "format='mixed', dayfirst=True, errors='coerce'))\n"
)
CELL = "import pandas as pd\ndf = pd.read_csv('s.csv')\nprint(df[' Delivered On'].notna().sum())"


def test_a_test_for_missing_values_with_the_signs_left_as_text_is_sent_back() -> None:
    problem = marked_missing_problem(QUESTION, CELL)
    assert problem is not None and "'-' in ' Delivered On' stands for no date" in problem
    assert problem.code is not None
    as_written, fixed = exec_with_files(FILES, CELL, problem.code)
    assert fixed == DELIVERED and int(as_written) == int(DELIVERED) + 8
    assert not passes_rules(QUESTION, CELL) and passes_rules(QUESTION, problem.code)
    counted = CELL.replace(".notna().sum()", ".count()")
    assert marked_missing_problem(QUESTION, counted) is not None


def test_code_that_converts_names_or_reads_the_sign_as_missing_is_left_alone() -> None:
    for cell in (
        CELL.replace(
            "df[' Delivered On'].notna()",
            "pd.to_datetime(df[' Delivered On'], errors='coerce').notna()",
        ),
        CELL.replace(".notna().sum()", ".ne('-').sum()"),
        CELL.replace("pd.read_csv('s.csv')", "pd.read_csv('s.csv', na_values=['-'])"),
        CELL.replace(".notna().sum()", ".nunique()"),  # (no test for missing values)
    ):
        assert marked_missing_problem(QUESTION, cell) is None, cell
    # the question gives the sign a meaning of its own: a value to filter on, not "none"
    courier = QUESTION.replace("when nothing was delivered", "when a courier took them")
    courier = courier.replace("empty, 'n/a' or '-' when", "'-' when")
    assert marked_missing_problem(courier, CELL) is None
    assert marked_missing_problem(QUESTION, CELL) is not None


def test_the_filter_rule_leaves_a_sign_the_note_and_the_question_call_none_to_this_one() -> None:
    """fresh16 (blind): "it is empty, 'n/a' or '-' when the customer took the plants away (no
    delivery)" made "The question names '-'" a filter the code should apply."""
    said = QUESTION.replace(
        "when nothing was delivered", "when the customer took the plants away (no delivery)"
    )
    converted = READ_TWO_WAYS + "print(d.notna().sum())"
    assert check_candidate(candidate(said, converted)) is None
    # a sign the question gives another meaning stays a filter
    other = said.replace("(no delivery)", "(a collection)").replace("took", "collected")
    assert "names '-'" in (check_candidate(candidate(other, converted)) or "")


def test_a_read_over_several_lines_gets_no_line_inside_it() -> None:
    """Review: the made-missing line was inserted after the read's first line, splitting a
    read_csv written over two lines (a SyntaxError as the suggested code)."""
    split = CELL.replace("pd.read_csv('s.csv')", "pd.read_csv('s.csv',\n    sep=',')")
    problem = marked_missing_problem(QUESTION, split)
    assert problem is not None and problem.code is None


def test_iso_dates_with_signs_get_a_conversion_that_coerces_them() -> None:
    """Review: "dates as text: pd.to_datetime() them" beside '-' signs: the obvious call
    fails on '-'; the note now writes the call with errors='coerce'."""
    rows = "id,d\n" + "".join(
        f"{i},{'-' if i % 4 == 0 else f'2024-05-{i + 1:02d}'}\n" for i in range(12)
    )
    line = describe_files({"d.csv": rows.encode()}).splitlines()[-1]
    assert "3 values '-' standing for no date" in line
    assert "pd.to_datetime(df['d'], errors='coerce')" in line, line
