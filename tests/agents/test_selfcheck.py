"""The self-check (``SelfCheck``): the model rates the code that printed an answer, from its
first token's probabilities, once per run; a low rating sends it back once. Scripted LLMs with
a real restricted executor, and the OpenAI-compatible path over real HTTP on loopback."""

from __future__ import annotations

from typing import Any

import pytest

from codeact import CodeActAgent, RestrictedExecutor
from codeact.agents._selfcheck import RECHECK_NOTE, answer_cell, verdict
from codeact.agents.validators import AnswerCandidate, CellRun, SelfCheck
from codeact.events import AnswerRetry, Event
from codeact.llms import Reply, ScriptedLLM
from codeact.llms.openai_like import OpenAILike
from codeact.testing import FakeOpenAIServer
from tests.helpers import collect

pytestmark = pytest.mark.anyio

Q = "What is the total of 6 and 7, times 2? Answer as @total[value]."
NOTE = "\n\nFiles in the working directory:\n- data.csv (3 lines)"
WRONG_CELL = "<execute>\nprint('total:', 6 + 7)\n</execute>"
RIGHT_CELL = "<execute>\nprint('total:', (6 + 7) * 2)\n</execute>"
DOUBTFUL = Reply(token_probabilities={"OK": 0.4, "WR": 0.5, "Wrong": 0.05})
CONFIDENT = Reply(token_probabilities={"OK": 0.9, "WR": 0.05})


def agent(replies: list[Any], **options: Any) -> tuple[CodeActAgent, ScriptedLLM]:
    llm = ScriptedLLM(replies, function_calling=False)
    options.setdefault("self_check", SelfCheck(threshold=0.8))
    return CodeActAgent(llm=llm, executor=lambda: RestrictedExecutor(), **options), llm


def retries(events: list[Event]) -> list[AnswerRetry]:
    return [e for e in events if isinstance(e, AnswerRetry)]


def answer(events: list[Event]) -> str:
    return str(events[-1].result.response.text)  # type: ignore[attr-defined]


async def test_a_low_rating_sends_the_model_back_once_to_recheck() -> None:
    a, llm = agent([WRONG_CELL, "@total[13]", DOUBTFUL, RIGHT_CELL, "@total[26]"])
    events = await collect(a.run(Q + NOTE))
    assert answer(events) == "@total[26]" and llm.remaining == 0
    (retry,) = retries(events)
    assert retry.reason == "self_check"
    assert retry.message == RECHECK_NOTE.format(score=0.4 / 0.95)
    # the review saw the question without the files note, the code and what it printed
    (review,) = [r for r in llm.requests if "You review a data analysis" in str(r.messages)]
    prompt = review.messages[-1].text or ""
    assert "What is the total of 6 and 7" in prompt and "Files in the working" not in prompt
    assert "print('total:', 6 + 7)" in prompt and "total: 13" in prompt
    # the model was sent back after its answer with the note
    assert "P(right) = 0.42" in (llm.requests[3].messages[-1].text or "")


async def test_a_confident_rating_accepts_the_answer() -> None:
    a, llm = agent([RIGHT_CELL, "@total[26]", CONFIDENT])
    events = await collect(a.run(Q))
    assert answer(events) == "@total[26]" and retries(events) == [] and llm.remaining == 0


def reviews(llm: ScriptedLLM) -> int:
    return sum("You review a data analysis" in str(r.messages) for r in llm.requests)


async def test_the_answer_is_rated_once_per_run() -> None:
    # after the re-check the same answer is given again: accepted without a second rating
    a, llm = agent([WRONG_CELL, "@total[13]", DOUBTFUL, "@total[13]", DOUBTFUL])
    events = await collect(a.run(Q))
    assert answer(events) == "@total[13]" and len(retries(events)) == 1
    assert reviews(llm) == 1 and llm.remaining == 1


async def test_a_rating_that_fails_lets_the_accepted_answer_stand(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from codeact.errors import LLMError

    broken = Reply(error=LLMError("the model server went away"))
    a, llm = agent([RIGHT_CELL, "@total[26]", broken])
    with caplog.at_level("WARNING", logger="codeact.agents._selfcheck"):
        events = await collect(a.run(Q))
    assert answer(events) == "@total[26]" and retries(events) == [] and llm.remaining == 0
    assert "the model server went away" in caplog.text  # (said, not swallowed)


async def test_a_slow_rating_gives_way_to_the_run_time_limit() -> None:
    # the run's own limit is 20 s; a rating that would take 60 s is cut at half of what is
    # left, and the answer the validators accepted is returned (the run does not time out)
    slow = Reply(delay=60, token_probabilities={"WR": 0.99, "OK": 0.01})
    a, _ = agent([RIGHT_CELL, "@total[26]", slow], timeout=20)
    events = await collect(a.run(Q))
    assert answer(events) == "@total[26]" and retries(events) == []


async def test_validator_retries_used_up_still_allow_the_one_recheck() -> None:
    from codeact.agents.validators import traced_validator

    replies = [RIGHT_CELL, "@total[25]", "@total[26]", DOUBTFUL, "@total[26]"]
    a, llm = agent(replies, answer_validators=[traced_validator()], max_answer_retries=1)
    events = await collect(a.run(Q))
    assert [r.reason for r in retries(events)] == ["validator", "self_check"]
    assert answer(events) == "@total[26]" and llm.remaining == 0


async def test_a_final_answer_value_from_code_is_not_rated() -> None:
    a, llm = agent(["<execute>\nfinal_answer((6 + 7) * 2)\n</execute>"])
    events = await collect(a.run(Q))
    assert events[-1].result.value == 26 and reviews(llm) == 0  # type: ignore[attr-defined]


def test_codeact_batch_factory_passes_the_self_check_on() -> None:
    from codeact.batch import CodeActAgentFactory

    llm = ScriptedLLM([])
    on = CodeActAgentFactory(max_steps=3, self_check=True)(llm)
    off = CodeActAgentFactory(max_steps=3)(llm)
    assert isinstance(on, CodeActAgent) and isinstance(on.answers.self_check, SelfCheck)
    assert isinstance(off, CodeActAgent) and off.answers.self_check is None


async def test_no_probabilities_or_no_printed_cell_skips_the_check() -> None:
    a, llm = agent([RIGHT_CELL, "@total[26]", Reply(text="OK")])  # a server without logprobs
    events = await collect(a.run(Q))
    assert answer(events) == "@total[26]" and retries(events) == [] and llm.remaining == 0
    a, llm = agent(["@total[26]"])  # no cell: nothing to review, no request
    events = await collect(a.run(Q))
    assert answer(events) == "@total[26]" and len(llm.requests) == 1


async def test_a_check_over_its_time_lets_the_answer_stand() -> None:
    slow = Reply(delay=30, token_probabilities={"WR": 0.99, "OK": 0.01})
    a, llm = agent([RIGHT_CELL, "@total[26]", slow], self_check=SelfCheck(timeout=0.2))
    events = await collect(a.run(Q))
    assert answer(events) == "@total[26]" and retries(events) == [] and llm.remaining == 0


async def test_no_check_on_the_last_step() -> None:
    a, llm = agent([RIGHT_CELL, "@total[26]"], max_iterations=2)
    events = await collect(a.run(Q))
    assert answer(events) == "@total[26]" and len(llm.requests) == 2


async def test_validator_retries_come_first_and_the_check_rates_the_accepted_answer() -> None:
    from codeact.agents.validators import traced_validator

    a, llm = agent(
        [RIGHT_CELL, "@total[25]", "@total[26]", CONFIDENT], answer_validators=[traced_validator()]
    )
    events = await collect(a.run(Q))
    assert [r.reason for r in retries(events)] == ["validator"]
    assert answer(events) == "@total[26]" and llm.remaining == 0


def test_verdict_reads_ok_and_wrong_tokens_in_any_spelling() -> None:
    assert verdict({" OK": 0.6, "Ok": 0.1, "WR": 0.2, "Wrong": 0.1}) == pytest.approx(0.7)
    assert verdict({"The": 0.9, "This": 0.1}) is None
    assert verdict({"W": 0.5}) == 0
    assert verdict({"We": 0.5, "What": 0.2, "OK": 0.3}) == 1  # not starts of WRONG
    assert verdict({"Okay": 0.3, "WRONG:": 0.1}) == pytest.approx(0.75)


def test_the_reviewed_cell_is_the_one_that_printed_the_answer() -> None:
    cells = (
        CellRun(code="a = 1", stdout="value: 26"),
        CellRun(code="b = 2", stdout="rows: 900"),
        CellRun(code="c = 3", stdout="", error="boom"),
    )
    candidate = AnswerCandidate(text="@total[26]", question=Q, cells=cells)
    assert answer_cell(candidate) == cells[0]
    other = candidate.replace(text="@total[17]")  # printed by no cell: the last that printed
    assert answer_cell(other) == cells[1]
    assert answer_cell(candidate.replace(cells=(cells[2],))) is None


async def test_probabilities_over_real_http_and_a_server_without_them() -> None:
    with FakeOpenAIServer(
        [Reply(token_probabilities={"OK": 0.7, "WR": 0.25}), "OK", Reply(text="x")]
    ) as srv:
        async with OpenAILike("m", base_url=srv.base_url, api_key="k") as llm:
            got = await llm.next_token_probabilities([_user("rate")], top=5)
            assert got == pytest.approx({"OK": 0.7, "WR": 0.25})
            assert await llm.next_token_probabilities([_user("rate")]) is None  # no logprobs
        body = srv.requests[0]
        assert body["logprobs"] is True and body["top_logprobs"] == 5
        assert body["max_tokens"] == 1 and not body.get("stream")


async def test_a_response_not_shaped_as_the_api_gives_none() -> None:
    import json
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    bodies = [  # a logprob that is null; top_logprobs as a dict (the legacy format); text
        {
            "choices": [
                {"logprobs": {"content": [{"top_logprobs": [{"token": "OK", "logprob": None}]}]}}
            ]
        },
        {"choices": [{"logprobs": {"content": [{"top_logprobs": {"OK": -0.1}}]}}]},
        "not json at all",
    ]

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["content-length"]))
            body = bodies.pop(0)
            payload = (body if isinstance(body, str) else json.dumps(body)).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        async with OpenAILike("m", base_url=url, api_key="k", max_retries=0) as llm:
            for _ in range(3):
                assert await llm.next_token_probabilities([_user("rate")]) is None
    finally:
        server.shutdown()
    assert bodies == []


async def test_a_server_refusing_logprobs_gives_none() -> None:
    from codeact.testing import HTTPFailure

    with FakeOpenAIServer([HTTPFailure(400, "logprobs not supported")]) as srv:
        async with OpenAILike("m", base_url=srv.base_url, api_key="k", max_retries=0) as llm:
            assert await llm.next_token_probabilities([_user("rate")]) is None


async def test_an_agent_over_http_is_sent_back_by_a_low_rating() -> None:
    replies = [WRONG_CELL, "@total[13]", DOUBTFUL, RIGHT_CELL, "@total[26]"]
    with FakeOpenAIServer(replies) as srv:
        llm = OpenAILike("m", base_url=srv.base_url, api_key="k")
        a = CodeActAgent(
            llm=llm, executor=lambda: RestrictedExecutor(), self_check=SelfCheck(threshold=0.8)
        )
        events = await collect(a.run(Q))
        await llm.aclose()
    assert answer(events) == "@total[26]"
    assert [r.reason for r in retries(events)] == ["self_check"]


def _user(text: str) -> Any:
    from codeact import ChatMessage

    return ChatMessage.user(text)
