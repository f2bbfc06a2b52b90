"""A merge on a key only the other table has, when the files note says how to cut it out of
this table's codes (``_joinfix``): fresh12 (blind) merged ``listings.merge(areas,
on='District')`` three times over, KeyError each time. The cell is re-run with the note's
line on the frame read from the file holding the codes, just before the merge."""

from __future__ import annotations

import pytest

from codeact._execution import CellError, ExecutionResult
from codeact.agents._joinfix import join_key_fix
from codeact.agents.code import describe_files
from tests.helpers import run_one_cell

pytestmark = [pytest.mark.anyio, pytest.mark.filterwarnings("ignore::UserWarning")]

DISTRICTS = [f"KB{i}" for i in range(1, 7)]
LISTINGS = (
    "Ref,Postcode,Beds\n"
    + "".join(
        f"{i},{[str.lower, str.upper][i % 2](DISTRICTS[i % 6])}{' ' * (i % 3 == 0)}{i % 9}AB,"
        f"{1 + i % 4}\n"
        for i in range(60)
    )
).encode()
AREAS = (
    "District,Zone\n" + "".join(f"{d},{1 + n % 3}\n" for n, d in enumerate(DISTRICTS))
).encode()
FILES = {"listings.csv": LISTINGS, "areas.csv": AREAS}
QUESTION = (
    "Question: Which zone has the most listings with three or more beds?\nConstraints: join "
    f"each listing to the row of its district.\nFormat: @zone[z]\n\n{describe_files(FILES)}"
)
CELL = (
    "import pandas as pd\nlistings = pd.read_csv('listings.csv')\nareas = pd.read_csv('areas.csv')"
    "\nmerged = listings.merge(areas, on='District')\n"
    "print(merged[merged['Beds'] >= 3].groupby('Zone').size().idxmax())"
)


def _failed(line: int) -> ExecutionResult:
    trace = f"File \"<cell-1>\", line {line}, in <module>\nKeyError: 'District'"
    return ExecutionResult(error=CellError(type="KeyError", message="'District'", traceback=trace))


async def test_the_merge_is_re_run_with_the_key_the_note_cuts_out() -> None:
    assert "Keys inside codes: 'District' of 'areas.csv'" in QUESTION
    result = await run_one_cell(FILES, CELL, QUESTION, "@zone[1]")
    content = str(result.tool_output.content)
    assert not result.tool_output.is_error, content
    assert "with `listings['District'] = listings['Postcode']" in content
    import io

    import pandas as pd

    df = pd.read_csv(io.BytesIO(LISTINGS))
    df["District"] = df["Postcode"].str.strip().str.upper().str.replace(" ", "").str[:-3]
    merged = df.merge(pd.read_csv(io.BytesIO(AREAS)), on="District")
    assert content.rstrip().endswith(
        str(merged[merged["Beds"] >= 3].groupby("Zone").size().idxmax())
    )


def test_other_failures_and_unsafe_cells_are_left_to_the_model() -> None:
    assert join_key_fix(QUESTION, _failed(4), CELL) is not None
    assert join_key_fix(QUESTION, _failed(5), CELL) is None  # (not the merge line)
    assert join_key_fix(QUESTION.partition("\n\n")[0], _failed(4), CELL) is None  # (no note)
    made = CELL.replace("\nmerged", "\nlistings['District'] = listings['Postcode']\nmerged")
    assert join_key_fix(QUESTION, _failed(5), made) is None  # (its own key: another fault)
    popped = CELL.replace("\nmerged", "\nareas.pop('Zone')\nmerged")
    assert join_key_fix(QUESTION, _failed(5), popped) is None  # (not safe to run twice)
    # review: another frame merged, the frame rebuilt, or its codes changed by the cell
    big = CELL.replace("merged = listings.merge", "big = listings\nmerged = big.merge")
    assert join_key_fix(QUESTION, _failed(5), big) is None
    rebuilt = CELL.replace("\nmerged", "\nlistings = listings[['Ref', 'Beds']]\nmerged")
    assert join_key_fix(QUESTION, _failed(5), rebuilt) is None
    changed = CELL.replace(
        "\nmerged", "\nlistings['Postcode'] = listings['Postcode'].str[:3]\nmerged"
    )
    assert join_key_fix(QUESTION, _failed(5), changed) is None
    both = CELL.replace("listings.merge(areas,", "pd.merge(listings, areas,")
    assert join_key_fix(QUESTION, _failed(4), both) is not None
