"""The count of a label the code found but never printed (``_labelcount``): fresh16 asked for
the payment method of most sales and its number of sales; the cell printed
``payment_counts.idxmax()`` alone and the count never came."""

from __future__ import annotations

import pytest

from codeact.agents._candidate import CellRun
from codeact.agents._labelcount import label_value, label_value_hint
from codeact.agents.code import describe_files

pytestmark = [pytest.mark.anyio, pytest.mark.filterwarnings("ignore::UserWarning")]

PAY = ["Card", "Cash", "Card", "Voucher", "Card", "Cash", "Card"]
FILES = {"s.csv": ("Sale,Payment\n" + "".join(f"{i},{p}\n" for i, p in enumerate(PAY))).encode()}
QUESTION = (
    "Question: Which payment method was used for the most sales, and for how many?\n"
    'Format: @payment[payment_value] @sales[sales_value] where "payment_value" is the method '
    'and "sales_value" is an integer (its number of sales).\n\n' + describe_files(FILES)
)
CELL = (
    "import pandas as pd\ndf = pd.read_csv('s.csv')\n"
    "payment_counts = df['Payment'].value_counts()\n"
    "most_common_payment = payment_counts.idxmax()\nprint(most_common_payment)"
)


def test_the_line_printing_the_labels_value_is_found() -> None:
    cells = [CellRun(code=CELL, stdout="Card\n")]
    assert label_value(QUESTION, cells, ["sales"]) == "print(payment_counts[most_common_payment])"
    note, code = label_value_hint(QUESTION, cells, ["sales"])
    assert "printed no value for @sales" in note
    assert code is not None and code.endswith("print(payment_counts[most_common_payment])")
    # nothing when the value is printed, two values are missing, or one value is asked
    shown = CELL + "\nprint(payment_counts.max())"
    assert label_value(QUESTION, [CellRun(code=shown)], ["sales"]) is None
    assert label_value(QUESTION, cells, ["payment", "sales"]) is None
    one = QUESTION.replace(" @sales[sales_value]", "")
    assert label_value(one, cells, ["sales"]) is None
    # the top of a sorted series counts too; a failed cell does not
    top = CELL.replace("payment_counts.idxmax()", "payment_counts.index[0]")
    assert label_value(QUESTION, [CellRun(code=top)], ["sales"]) is not None
    assert label_value(QUESTION, [CellRun(code=CELL, error="boom")], ["sales"]) is None


async def test_a_made_up_count_is_sent_back_and_the_re_sent_cell_prints_it() -> None:
    from codeact.agents.validators import placeholder_validator, traced_validator
    from tests.helpers import run_scripted

    replies = [f"<execute>\n{CELL}\n</execute>", "@payment[Card] @sales[10]"] * 2
    replies[-1] = "@payment[Card] @sales[4]"
    validators = [placeholder_validator(), traced_validator()]
    results, llm = await run_scripted(FILES, QUESTION, replies, validators)
    told = str(llm.requests[2].messages[-1].content)
    assert "add print(payment_counts[most_common_payment])" in told, told
    assert len(results) == 2, results
    assert results[1].rstrip().endswith("4"), results[1]  # (the count ran, not the cell)
    # the answer with the printed count was taken: no reply left, none asked for after it
    assert llm.remaining == 0 and len(llm.requests) == len(replies), len(llm.requests)
