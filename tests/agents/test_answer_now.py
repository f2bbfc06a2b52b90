"""A cell that breaks no rule re-run unchanged: the model is told to answer with what it
printed (fresh17: the right count, 132, re-run twice; then the model drifted to another make
and answered 8). A cell a rule finds wanting is not told so."""

from __future__ import annotations

import re

import pytest

from codeact.agents.code import describe_files
from tests.agents.test_labelcount import FILES  # (the same sales: four by card)

pytestmark = [pytest.mark.anyio, pytest.mark.filterwarnings("ignore::UserWarning")]

QUESTION = (
    "Question: How many sales were paid by card?\n"
    'Format: @card_sales[card_sales_value] where "card_sales_value" is an integer.\n\n'
    + describe_files(FILES)
)
CELL = "import pandas as pd\ndf = pd.read_csv('s.csv')\nprint((df['Payment'] == 'Card').sum())"


async def _second_result(question: str) -> str:
    from codeact.agents.validators import rules_validator
    from tests.helpers import run_scripted

    replies = [f"<execute>\n{CELL}\n</execute>"] * 2 + ["@card_sales[4]"] * 2
    results, _llm = await run_scripted(FILES, question, replies, [rules_validator()])
    assert len(results) == 2, results
    return results[1]


async def test_a_re_run_cell_breaking_no_rule_is_told_to_answer_with_its_values() -> None:
    told = await _second_result(QUESTION)
    assert "answer now with the printed values, @card_sales[4]" in told, told


async def test_a_re_run_cell_a_rule_finds_wanting_is_not_told_to_answer() -> None:
    # the question names a filter the cell never applies ('North')
    question = QUESTION.replace("paid by card?", "paid by card in the 'North' region?")
    told = await _second_result(question)
    assert "answer now" not in told, told


async def test_a_re_run_of_the_code_a_note_suggested_is_told_to_answer_too() -> None:
    """fresh17 (tuned run): the model ran the alias note's code itself (81, right), then
    re-ran it; the waiting suggestion (the same code) ran again instead of the note to answer,
    and the model wandered off to another job type."""
    from codeact.agents.validators import rules_validator
    from tests.helpers import run_scripted

    pays = ["Card", "Cash", "Credit card", "Card", "Voucher", "Card", "Cash"]
    rows = "Sale,Payment\n" + "".join(f"{i},{p}\n" for i, p in enumerate(pays))
    files = {"s.csv": rows.encode()}
    question = (
        "Question: How many sales were paid by card?\nConstraints: Card is also written "
        "'Credit card'.\n"
        'Format: @card_sales[card_sales_value] where "card_sales_value" is an integer.\n\n'
        + describe_files(files)
    )
    first = "import pandas as pd\ndf = pd.read_csv('s.csv')\nprint((df['Payment'] == 'Card').sum())"
    mended = first.replace(
        "print(",
        "df['Payment'] = df['Payment'].mask(df['Payment'].str.strip().str.lower().str.replace("
        "r'[\\s_-]+', '', regex=True).isin(['creditcard', 'card']), 'Card')\nprint(",
    )
    replies = [f"<execute>\n{first}\n</execute>", "@card_sales[3]"]
    replies += [f"<execute>\n{mended}\n</execute>"] * 2 + ["@card_sales[4]"]
    results, _llm = await run_scripted(files, question, replies, [rules_validator()])
    assert results[-1].rstrip().endswith("answer now with the printed values, @card_sales[4]. "
                                         "If not, write the code that computes what the "
                                         "question asks."), results  # fmt: skip


async def test_a_cell_re_sent_as_it_was_after_a_rule_with_code_runs_that_code() -> None:
    """fresh17 (tuned run): job types counted as written; the alias note (seven spellings,
    runnable code) sent it back, the model re-sent the count twice, and on each re-send the
    case rule (no code) spoke instead: 'Service 117' was answered for 219."""
    from codeact.agents.validators import rules_validator
    from tests.helpers import run_scripted

    types = ["Service", "service", "Servicing", "Repair", "REPAIR ", "Servicing", "repair"]
    rows = "Ref,Job Type\n" + "".join(f"J{i},{types[i % 7]}\n" for i in range(21))
    files = {"g.csv": rows.encode()}
    question = (
        "Question: Which job type was done most often, and how many times?\nConstraints: Job "
        "Type is Service or Repair, typed in any case; Service is also written 'Servicing'.\n"
        'Format: @job_type[type] @jobs[count] where "count" is an integer.\n\n'
        + describe_files(files)
    )
    cell = "import pandas as pd\ndf = pd.read_csv('g.csv')\nprint(df['Job Type'].value_counts())"
    replies = [f"<execute>\n{cell}\n</execute>", "@job_type[Servicing] @jobs[6]"]
    replies += [f"<execute>\n{cell}\n</execute>", "@job_type[Service] @jobs[12]"]
    results, _llm = await run_scripted(files, question, replies, [rules_validator()])
    assert len(results) == 2, results
    assert "So I ran this instead" in results[1] and ".isin(['servicing', 'service'])" in results[1]
    assert re.search(r"Service\s+12\b", results[1]), results[1]
