"""Every value of the answer comes from a cell, with a scripted model and a real restricted
executor: boilerplate placeholders ignored, a fabricated value sent back, the last step answered
from printed values, and the traced fallback when the model cannot be sent back any more."""

from __future__ import annotations

from typing import Any

import pytest

from codeact import CodeActAgent, RestrictedExecutor
from codeact.agents._answers import command_line_options
from codeact.events import AnswerRetry, Event
from codeact.llms import ScriptedLLM
from tests.helpers import collect

pytestmark = pytest.mark.anyio

BOILERPLATE = (
    'Your final answer should contain all the "@answer_name[answer]" in the order mentioned, '
    'each "answer" should be in the range of value as required. For example: @mean_fare[34.65]'
)
Q = (
    "What is 6 times 7.25?\n"
    '@product[product_value] where "product_value" is rounded to one decimal place.\n' + BOILERPLATE
)


def agent(replies: list[Any], **options: Any) -> tuple[CodeActAgent, ScriptedLLM]:
    llm = ScriptedLLM(replies, function_calling=False)
    opts = command_line_options(llm, require_execution=True, lenient_code=False)
    opts.update(options)
    return CodeActAgent(llm=llm, executor=lambda: RestrictedExecutor(), **opts), llm


def retries(events: list[Event]) -> list[AnswerRetry]:
    return [e for e in events if isinstance(e, AnswerRetry)]


def answer(events: list[Event]) -> str:
    return str(events[-1].result.response.text)  # type: ignore[attr-defined]


async def test_boilerplate_is_not_asked_for_and_the_answer_keeps_only_the_asked_value() -> None:
    a, llm = agent(["<execute>\nprint(6 * 7.25)\n</execute>", "@answer_name[None] @product[43.5]"])
    events = await collect(a.run(Q))
    assert retries(events) == [] and llm.remaining == 0
    assert answer(events) == "@product[43.5]"


async def test_a_copied_example_value_is_sent_back_to_be_computed() -> None:
    a, _ = agent(
        [
            "<execute>\nx = 6 * 7.25\n</execute>",  # computes but prints nothing
            "@product[34.65]",  # the example's value: made up
            "<execute>\nprint(x)\n</execute>",
            "@product[43.5]",
        ]
    )
    events = await collect(a.run(Q))
    (retry,) = retries(events)
    assert retry.reason == "validator" and "@product[34.65]" in retry.message
    assert answer(events) == "@product[43.5]"


async def test_nan_printed_by_the_code_is_kept_as_the_answer() -> None:
    a, _ = agent(
        ["<execute>\nprint(float('nan'))\n</execute>", "@product[nan]"],
    )
    events = await collect(a.run(Q))
    assert retries(events) == [] and answer(events) == "@product[nan]"


async def test_the_last_step_answers_from_printed_values_instead_of_more_code() -> None:
    a, llm = agent(
        [
            "<execute>\nprint('product:', 6 * 7.25)\n</execute>",
            "<execute>\nprint(undefined_name)\n</execute>",
            "<execute>\nprint(still_failing)\n</execute>",  # last step: cannot run any more
        ],
        max_iterations=3,
    )
    events = await collect(a.run(Q))
    result = events[-1].result  # type: ignore[attr-defined]
    assert result.response.text.endswith("@product[43.5]")
    assert result.raw == {"at_limit": "steps", "answer": "@product[43.5]"}
    # the model was told before its last reply, with the values found so far
    last_input = llm.requests[-1].messages[-1].text or ""
    assert "last reply" in last_input and "@product[43.5]" in last_input


async def test_without_retries_left_an_untraced_value_takes_the_printed_one() -> None:
    a, _ = agent(
        ["<execute>\nprint('product =', 6 * 7.25)\n</execute>", "@product[40.0]", "@product[41]"],
        max_answer_retries=1,
    )
    events = await collect(a.run(Q))
    assert len(retries(events)) == 1
    assert answer(events) == "@product[43.5]"


async def test_an_untraced_value_with_nothing_printed_is_left_out_not_returned() -> None:
    a, _ = agent(
        [
            "<execute>\nprint(undefined)\n</execute>",
            "<execute>\nprint(still_undefined)\n</execute>",
            "@product[14.7]",  # the last step: a value no cell printed
        ],
        max_iterations=3,
    )
    events = await collect(a.run(Q))
    text = answer(events)
    assert "14.7" not in text and "@product[" not in text
    assert "No cell printed a value for @product" in text


async def test_the_fallback_drops_placeholders_not_asked_whose_value_no_cell_printed() -> None:
    copied = "@Engineering[70632.00]"  # a name not asked, a value from the files note
    a, _ = agent(
        ["<execute>\nprint('product =', 6 * 7.25)\n</execute>", copied, copied],
        max_answer_retries=1,
    )
    events = await collect(a.run(Q))
    assert answer(events) == "@product[43.5]"
    a, _ = agent(["<execute>\nprint('done')\n</execute>", copied, copied], max_answer_retries=1)
    events = await collect(a.run(Q))
    text = answer(events)
    assert "70632" not in text and "@Engineering" not in text
    assert "No cell printed a value for @product" in text


async def test_the_fallback_reads_a_value_written_after_the_tokens_without_its_name() -> None:
    """fresh16 (blind): "@payment[Card] 311" after a cell printed "Card 311": @sales had been
    left out as if nothing had printed it."""
    q = (
        "Which payment method was used most, and how many times?\n"
        '@payment[payment_method] where "payment_method" is written like Cash. @sales[sales_value]'
        ' where "sales_value" is an integer.\n' + BOILERPLATE
    )
    cell = "<execute>\nprint('Card', 311)\nprint('Cash', 67)\n</execute>"
    a, _ = agent([cell, "@payment[Card] 311", "@payment[Card] 311"], max_answer_retries=1)
    events = await collect(a.run(q))
    text = answer(events)
    assert "@payment[Card]" in text and "@sales[311]" in text, text
    # a value no cell printed is still not taken (the last printed line fills it, as before)
    a, _ = agent([cell, "@payment[Card] 400", "@payment[Card] 400"], max_answer_retries=1)
    events = await collect(a.run(q))
    assert "@sales[400]" not in answer(events) and "@sales[67]" in answer(events)


async def test_the_rules_speak_before_the_format() -> None:
    q = "How many orders have a discount greater than 0.1? Answer as @n[value]."
    a, _ = agent(
        [
            "<execute>\nprint(sum(d > 0 for d in [0, 0.2, 0.05]))\n</execute>",
            "two",  # wrong format and a filter the code never applied: the filter first
            "<execute>\nprint(sum(d > 0.1 for d in [0, 0.2, 0.05]))\n</execute>",
            "@n[1]",
        ]
    )
    events = await collect(a.run(q))
    assert "threshold 0.1" in retries(events)[0].message
    assert answer(events) == "@n[1]"


async def test_the_last_step_reads_a_printed_line_of_one_value_per_asked_name() -> None:
    q = "Which department pays most, and how much? Answer as @dept[name] @pay[value] rounded to two decimals."
    a, _ = agent(
        [
            "<execute>\nprint('Engineering', 94253.37931034483)\n</execute>",
            "<execute>\nprint('Engineering', 94253.37931034483)\n</execute>",
            "<execute>\nprint('again')\n</execute>",  # the last step: cannot run any more
        ],
        max_iterations=3,
    )
    events = await collect(a.run(q))
    assert answer(events).endswith("@dept[Engineering] @pay[94253.38]")


async def test_a_model_re_running_the_same_code_ends_with_the_printed_values() -> None:
    q = "Which department pays most, and how much? Answer as @dept[name] @pay[value]."
    same = "<execute>\nprint('Engineering', 94253.38)\n</execute>"
    a, llm = agent([same, same, same, same, "@dept[HR] @pay[1]"])
    events = await collect(a.run(q))
    result = events[-1].result  # type: ignore[attr-defined]
    assert result.response.text.endswith("@dept[Engineering] @pay[94253.38]")
    assert "re-ran the same code" in result.response.text
    assert result.raw == {"at_limit": "repeats", "answer": "@dept[Engineering] @pay[94253.38]"}
    assert llm.remaining == 2  # the third copy did not run; the model was not asked again


@pytest.mark.filterwarnings("ignore::UserWarning")
async def test_at_a_limit_a_cell_that_breaks_no_rule_answers_before_a_later_one_that_does() -> None:
    import warnings

    from codeact.agents.code import describe_files

    data = b"Ticket,Status,CSAT\nT1,Open,\nT2,Resolved,5\nT3,Resolved,4\nT4,Open,3\n"
    q = (
        "Question: What is the mean CSAT of the tickets that have one?\nConstraints: CSAT is "
        "empty when the customer gave none; leave those out.\n"
        '@mean_csat[value] where "value" is rounded to 2 decimals.\n'
        f"{BOILERPLATE}\n\n{describe_files({'t.csv': data})}"
    )
    read = "import pandas as pd\ndf = pd.read_csv('t.csv')\ndf = df[df['CSAT'].notna()]\n"
    open_only = f"<execute>\n{read}print(f\"@mean_csat[{{df[df['Status'] == 'Open']['CSAT'].mean():.2f}}]\")\n</execute>"
    right = f"<execute>\n{read}print(f\"@mean_csat[{{df['CSAT'].mean():.2f}}]\")\n</execute>"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ex = RestrictedExecutor(allowed_modules=["pandas"])
    llm = ScriptedLLM(
        [open_only, "@mean_csat[3.00]", right, open_only, open_only, "@mean_csat[3.00]"],
        function_calling=False,
    )
    opts = command_line_options(llm, require_execution=True, lenient_code=False)
    async with ex:
        await ex.upload("t.csv", data)
        events = await collect(CodeActAgent(llm=llm, executor=ex, **opts).run(q))
    assert "'Status'" in retries(events)[0].message  # the rule that sent the first cell back
    result = events[-1].result  # type: ignore[attr-defined]
    assert result.raw == {"at_limit": "repeats", "answer": "@mean_csat[4.00]"}
