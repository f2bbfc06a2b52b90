"""CodeActAgent's answer options with scripted LLMs and a real restricted executor: code first,
answer validators (success, failure, carry, final_answer), lenient code blocks (run, and quoted
blocks not run), each retry visible as an event."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from codeact import CodeActAgent, RestrictedExecutor
from codeact.agents.validators import (
    AnswerCandidate,
    ModelRetry,
    format_validator,
    placeholder_validator,
)
from codeact.events import AnswerRetry, Event, ToolCallResult
from codeact.llms import ScriptedLLM
from tests.helpers import collect

pytestmark = pytest.mark.anyio

Q = "What is 6 times 7? Answer as @product[value]."


def agent(replies: list[Any], **options: Any) -> tuple[CodeActAgent, ScriptedLLM]:
    llm = ScriptedLLM(replies, function_calling=False)
    return CodeActAgent(llm=llm, executor=lambda: RestrictedExecutor(), **options), llm


def retries(events: list[Event]) -> list[AnswerRetry]:
    return [e for e in events if isinstance(e, AnswerRetry)]


def cells(events: list[Event]) -> list[ToolCallResult]:
    return [e for e in events if isinstance(e, ToolCallResult) and e.tool_name == "execute"]


async def test_without_options_a_guess_is_accepted_as_before() -> None:
    a, llm = agent(["@product[41]"])
    events = await collect(a.run(Q))
    assert events[-1].result.response.text == "@product[41]"  # type: ignore[attr-defined]
    assert retries(events) == [] and llm.remaining == 0


async def test_require_execution_sends_a_guess_back_until_code_ran() -> None:
    a, llm = agent(
        ["@product[41]", "<execute>\nprint(6 * 7)\n</execute>", "@product[42]"],
        require_execution=True,
    )
    events = await collect(a.run(Q + "\n\nFiles in the working directory:\n- data.csv (3 lines)"))
    assert events[-1].result.response.text == "@product[42]"  # type: ignore[attr-defined]
    (retry,) = retries(events)
    assert retry.reason == "no_code" and retry.attempt == 1
    assert "'data.csv'" in retry.message and "Do not guess" in retry.message
    # The model saw the nudge after its guess.
    second = llm.requests[1].messages
    assert second[-2].text == "@product[41]" and "Do not guess" in (second[-1].text or "")


async def test_a_failed_cell_does_not_count_as_computed() -> None:
    a, _ = agent(
        [
            "<execute>\n1 / 0\n</execute>",
            "It is 42",  # answered over a failure: the failure note first
            "It is 42 anyway",  # no cell succeeded: sent back for code
            "<execute>\nprint(42)\n</execute>",
            "42",
        ],
        require_execution=True,
    )
    events = await collect(a.run("What is 6 * 7?"))
    # The failed cell first triggers the failure note (a retry message, not an AnswerRetry);
    # the next answer is sent back because no cell succeeded.
    assert [r.reason for r in retries(events)] == ["no_code"]
    assert events[-1].result.response.text == "42"  # type: ignore[attr-defined]


async def test_nudges_are_bounded_then_the_answer_is_kept() -> None:
    a, llm = agent(["guess 1", "guess 2", "guess 3"], require_execution=True, execution_nudges=2)
    events = await collect(a.run("What is 6 * 7?"))
    assert [r.attempt for r in retries(events)] == [1, 2]
    assert events[-1].result.response.text == "guess 3"  # type: ignore[attr-defined]
    assert llm.remaining == 0


async def test_a_validator_failure_sends_the_reason_to_the_model() -> None:
    a, llm = agent(
        ["<execute>\nprint(6 * 7)\n</execute>", "The product is 42.", "@product[42]"],
        answer_validators=[placeholder_validator(carry=False)],
    )
    events = await collect(a.run(Q))
    (retry,) = retries(events)
    assert retry.reason == "validator" and "@product[value]" in retry.message
    assert llm.requests[2].messages[-1].text == retry.message
    assert events[-1].result.response.text == "@product[42]"  # type: ignore[attr-defined]


async def test_printed_values_are_carried_when_the_prose_drops_them() -> None:
    a, llm = agent(
        ["<execute>\nprint(f'@product[{6 * 7}]')\n</execute>", "The product is 42."],
        answer_validators=[placeholder_validator()],
    )
    events = await collect(a.run(Q))
    assert retries(events) == [] and llm.remaining == 0
    assert events[-1].result.response.text == "The product is 42.\n@product[42]"  # type: ignore[attr-defined]


async def test_validator_retries_are_bounded() -> None:
    def never(c: AnswerCandidate) -> None:
        raise ModelRetry("say please")

    a, llm = agent(["a", "b", "c"], answer_validators=[never], max_answer_retries=2)
    events = await collect(a.run("hi"))
    assert [r.message for r in retries(events)] == ["say please", "say please"]
    assert events[-1].result.response.text == "c" and llm.remaining == 0  # type: ignore[attr-defined]


async def test_a_validator_can_normalise_the_answer() -> None:
    a, _ = agent(["  forty-two  "], answer_validators=[lambda c: c.text.strip().upper()])
    events = await collect(a.run("hi"))
    assert events[-1].result.response.text == "FORTY-TWO"  # type: ignore[attr-defined]


class Product(BaseModel):
    product: int


async def test_final_answer_from_code_is_validated_and_retried() -> None:
    a, llm = agent(
        [
            "<execute>\nfinal_answer({'product': 'many'})\n</execute>",
            "<execute>\nfinal_answer({'product': 6 * 7})\n</execute>",
        ],
        answer_validators=[format_validator(Product)],
    )
    events = await collect(a.run("What is 6 * 7? Return {'product': n} with final_answer."))
    (retry,) = retries(events)
    assert retry.reason == "validator" and "product" in retry.message
    assert "final_answer was not accepted" in (llm.requests[1].messages[-1].text or "")
    assert events[-1].result.value == {"product": 42}  # type: ignore[attr-defined]


async def test_lenient_code_blocks_run_a_fenced_reply() -> None:
    a, _ = agent(
        ["Let me compute:\n```python\nprint(6 * 7)\n```", "@product[42]"],
        lenient_code_blocks=True,
    )
    events = await collect(a.run(Q))
    (cell,) = cells(events)
    assert "42" in cell.tool_output.content
    assert events[-1].result.response.text == "@product[42]"  # type: ignore[attr-defined]


async def test_a_fence_quoted_after_a_computation_is_not_run() -> None:
    quoted = "@product[42], computed with:\n```python\nprint(6 * 7)\nraise SystemExit\n```"
    a, llm = agent(["<execute>\nprint(6 * 7)\n</execute>", quoted], lenient_code_blocks=True)
    events = await collect(a.run(Q))
    assert len(cells(events)) == 1 and llm.remaining == 0
    assert events[-1].result.response.text == quoted  # type: ignore[attr-defined]


async def test_without_lenient_mode_a_fence_is_the_answer() -> None:
    fenced = "```python\nprint(6 * 7)\n```"
    a, _ = agent([fenced])
    events = await collect(a.run(Q))
    assert cells(events) == [] and events[-1].result.response.text == fenced  # type: ignore[attr-defined]


async def test_everything_together_for_a_small_model() -> None:
    """A guess, then code in a fence, then prose that drops the format: the agent nudges,
    runs the fence, and carries the printed value."""
    a, llm = agent(
        [
            "@product[41]",
            "```python\nprint('@product[' + str(6 * 7) + ']')\n```",
            "The product of 6 and 7 is 42.",
        ],
        require_execution=True,
        lenient_code_blocks=True,
        answer_validators=[placeholder_validator()],
    )
    events = await collect(a.run(Q))
    assert [r.reason for r in retries(events)] == ["no_code"]
    assert events[-1].result.response.text.endswith("@product[42]")  # type: ignore[attr-defined]
    assert llm.remaining == 0
