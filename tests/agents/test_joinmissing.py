"""A column of another file used by a cell that never joins it (``_joinmissing``): fresh15
(blind) filtered the bookings on ``df['Type'] == 'Suite'``, Type being rooms.csv's, then
merged on a name only one side has, then filtered on 'Rm'; the cell is re-run with the other
file joined after its own read, on the keys the files note pairs."""

from __future__ import annotations

import pytest

from codeact._execution import CellError, ExecutionResult
from codeact.agents._joinmissing import join_missing_fix
from codeact.agents.code import describe_files
from tests.helpers import run_one_cell

pytestmark = [pytest.mark.anyio, pytest.mark.filterwarnings("ignore::UserWarning")]

ROOMS = "Room No,Type\n" + "".join(f"{n},{['Suite', 'Double'][n % 2]}\n" for n in range(101, 109))
SCORES = ["8.0", "9.0", "", "7.0", "6.5"]
BOOKINGS = "Ref,ROOM,Review\n" + "".join(
    f"B{i},{['{}', 'Rm {}', 'room {}'][i % 3].format(101 + i % 8)},{SCORES[i % 5]}\n"
    for i in range(40)
)
FILES = {"b.csv": BOOKINGS.encode(), "rooms.csv": ROOMS.encode()}
QUESTION = f"Question: What is the mean review of suites?\n\n{describe_files(FILES)}"
CELL = (
    "import pandas as pd\ndf = pd.read_csv('b.csv')\n"
    "df['Review'] = pd.to_numeric(df['Review'], errors='coerce')\n"
    "print(round(df[df['Type'] == 'Suite']['Review'].mean(), 2))"
)


def _expected() -> str:
    scores = [float(SCORES[i % 5]) for i in range(40) if SCORES[i % 5] and (101 + i % 8) % 2 == 0]
    return str(round(sum(scores) / len(scores), 2))


async def test_a_column_of_the_other_file_is_used_after_the_join_the_note_gives() -> None:
    result = await run_one_cell(FILES, CELL, QUESTION)
    content = str(result.tool_output.content)
    assert not result.tool_output.is_error, content
    assert "`_rooms = pd.read_csv('rooms.csv')`" in content
    assert "`df = df.merge(_rooms, left_on='ROOM', right_on='Room No', how='left')`" in content
    assert content.rstrip().endswith(_expected()), content


def test_cells_the_join_cannot_vouch_for_are_left_to_the_model() -> None:
    trace = "File \"<cell-1>\", line 4, in <module>\nKeyError: 'Type'"
    failed = ExecutionResult(error=CellError(type="KeyError", message="'Type'", traceback=trace))
    assert join_missing_fix(QUESTION, failed, CELL) is not None
    reads = CELL.replace(
        "import pandas as pd\n", "import pandas as pd\nrooms = pd.read_csv('rooms.csv')\n"
    )
    own = ExecutionResult(error=CellError(type="KeyError", message="'Ref'", traceback=trace))
    both = ROOMS.replace("Room No,Type\n", "Room No,Type,Review\n").replace("\n", ",9\n")
    both = both.replace("Room No,Type,Review,9\n", "Room No,Type,Review\n")
    shared = (
        f"Question: ?\n\n{describe_files({'b.csv': BOOKINGS.encode(), 'rooms.csv': both.encode()})}"
    )
    assert "'Type'" in shared and "Keys written differently" in shared
    read = join_missing_fix(QUESTION, failed, reads)  # (read, never joined: joined after both)
    assert read is not None and "_rooms" not in read.code
    assert "df = df.merge(rooms, left_on='ROOM', right_on='Room No', how='left')" in read.code
    joins = reads.replace("print(", "m = df.merge(rooms, on='ROOM')\nprint(")
    assert join_missing_fix(QUESTION, failed, joins) is None  # (its own join is at fault)
    assert join_missing_fix(QUESTION, own, CELL) is None  # (a column of its own file)
    assert join_missing_fix(shared, failed, CELL) is None  # (Review in both: renamed)
