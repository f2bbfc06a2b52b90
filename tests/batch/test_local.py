"""The Python API with the local backend: real sandboxes (process workers in bubblewrap), a
fake model that follows each task's prompt."""

from __future__ import annotations

import os
import time

import anyio
import anyio.lowlevel
import pytest
from pydantic import ValidationError

from codeact.batch import Task, TaskResult, collect_batch, run_batch, summarize
from codeact.batch._scoring import exact
from codeact.errors import LLMError, UserError
from tests.batch.agents import failing_llm, make_agent, make_llm
from tests.batch.procs import descendants, wait_gone

pytestmark = pytest.mark.anyio


def code_task(i: int | str, code: str, **kw: object) -> Task:
    return Task(id=str(i), prompt=f"code:{code}", **kw)  # type: ignore[arg-type]


async def test_results_stream_as_tasks_finish_whatever_the_order() -> None:
    tasks = [code_task(0, "import time\ntime.sleep(2)\nfinal_answer(0)")]
    tasks += [code_task(i, f"final_answer({i} * {i})") for i in range(1, 6)]
    order = []
    async with run_batch(tasks, make_agent, make_llm, concurrency=3) as results:
        async for r in results:
            order.append(r.id)
            assert r.ok, r.error
            assert r.value == int(r.id) ** 2
            assert r.cells[0].code.startswith(("final_answer", "import time"))
            assert r.timings.total_s >= r.timings.code_s > 0
    assert sorted(order) == [str(i) for i in range(6)]
    assert order[0] != "0" and order.index("0") > 0, "the slow first task finished later"


async def test_a_failing_task_never_stops_the_batch() -> None:
    tasks = [
        code_task("ok", "final_answer('fine')"),
        Task(id="model-down", prompt="llm-error"),
        code_task("raises", "1 / 0"),
        Task(id="text", prompt="hello"),
    ]
    got = {r.id: r for r in await collect_batch(tasks, make_agent, make_llm, concurrency=2)}
    assert got["ok"].status == "ok" and got["ok"].value == "fine"
    down = got["model-down"]
    assert down.status == "failed" and down.error is not None
    assert down.error.kind == "failed" and down.error.type == "LLMError"
    assert "the model is down" in down.error.message
    # A cell error goes back to the model, which then answers: the task itself is ok.
    raised = got["raises"]
    assert raised.ok and raised.cells[0].error and "ZeroDivisionError" in raised.cells[0].error
    assert got["text"].answer == "plain answer to hello" and got["text"].cells == []


async def test_a_task_that_runs_too_long_times_out_alone() -> None:
    tasks = [
        code_task("slow", "import time\ntime.sleep(120)"),
        code_task("quick", "final_answer(1)"),
    ]
    t0 = time.perf_counter()  # 8 s: a sandbox start on a loaded 2-core machine fits in it
    got = {r.id: r for r in await collect_batch(tasks, make_agent, make_llm, timeout=8)}
    assert time.perf_counter() - t0 < 60
    slow = got["slow"]
    assert slow.status == "timeout" and slow.error is not None and slow.error.kind == "timeout"
    assert "timed out after 8" in slow.error.message
    assert got["quick"].ok and got["quick"].value == 1


async def test_files_reach_the_task_sandbox_and_metadata_is_carried() -> None:
    tasks = [
        code_task(
            i,
            "final_answer(open('data/in.txt').read() + open('b.bin', 'rb').read().hex())",
            files={"data/in.txt": f"task {i} ".encode(), "b.bin": bytes([i, 255])},
            expected={"n": i},
            metadata={"split": "dev"},
        )
        for i in range(3)
    ]
    for r in await collect_batch(tasks, make_agent, make_llm):
        i = int(r.id)
        assert r.value == f"task {i} {i:02x}ff"
        assert r.expected == {"n": i} and r.metadata == {"split": "dev"}


async def test_the_model_is_made_once_per_worker_unless_per_task() -> None:
    tasks = [code_task(i, "final_answer(1)") for i in range(4)]
    tag_tasks = [Task(id=str(i), prompt="tag:final_answer('TAG')") for i in range(4)]
    shared = await collect_batch(tag_tasks, make_agent, make_llm, concurrency=2)
    assert len({r.value for r in shared}) == 1
    own = await collect_batch(tag_tasks, make_agent, make_llm, llm_scope="task")
    assert len({r.value for r in own}) == 4
    assert all(r.ok for r in await collect_batch(tasks, make_agent, make_llm, llm_scope="task"))


async def test_a_model_that_cannot_be_made_fails_the_batch_clearly() -> None:
    with pytest.raises(LLMError, match="no weights"):
        await collect_batch([code_task(1, "1")], make_agent, failing_llm)


async def test_scoring_hook_and_summary() -> None:
    tasks = [
        code_task("right", "final_answer(42)", expected=42),
        code_task("wrong", "final_answer(41)", expected=42),
        code_task("unscored", "final_answer(0)"),
        Task(id="down", prompt="llm-error", expected=1),
    ]
    got = await collect_batch(tasks, make_agent, make_llm, score=exact)
    by_id = {r.id: r for r in got}
    assert by_id["right"].score == 1.0 and by_id["wrong"].score == 0.0
    assert by_id["unscored"].score is None and by_id["down"].score == 0.0
    s = summarize(got, elapsed_s=2.0)
    assert (s.total, s.ok, s.failed, s.scored) == (4, 3, 1, 3)
    assert s.accuracy == pytest.approx(1 / 3)
    assert any("accuracy: 33.3%" in line for line in s.lines())

    def broken(task: Task, result: TaskResult) -> float:
        raise RuntimeError("scorer bug")

    async def async_score(task: Task, result: TaskResult) -> bool:
        await anyio.lowlevel.checkpoint()
        return result.value == 42

    r = (await collect_batch(tasks[:1], make_agent, make_llm, score=broken))[0]
    assert r.ok and r.score is None and r.score_error == "RuntimeError: scorer bug"
    r = (await collect_batch(tasks[:1], make_agent, make_llm, score=async_score))[0]
    assert r.score == 1.0


async def test_skip_runs_only_the_rest() -> None:
    tasks = [code_task(i, "final_answer(1)") for i in range(4)]
    got = await collect_batch(tasks, make_agent, make_llm, skip={"0", "2"})
    assert sorted(r.id for r in got) == ["1", "3"]


async def test_leaving_early_cancels_the_rest_and_leaves_no_sandbox() -> None:
    before = descendants(os.getpid())
    tasks = [code_task("fast", "final_answer(1)")]
    tasks += [code_task(i, "import time\ntime.sleep(60)") for i in range(3)]
    t0 = time.perf_counter()
    seen_running: set[int] = set()
    async with run_batch(tasks, make_agent, make_llm, concurrency=4) as results:
        async for r in results:
            assert r.id == "fast"
            await anyio.sleep(1.0)  # the sleepers are in their cells by now
            seen_running = descendants(os.getpid()) - before
            break
    assert seen_running, "sandbox workers should have been running"
    assert time.perf_counter() - t0 < 30
    assert not wait_gone(seen_running), "a sandbox process outlived the batch"


def test_bad_input_is_a_clear_error() -> None:
    with pytest.raises(UserError, match="unique"):
        run_batch([Task(id="a", prompt="x"), Task(id="a", prompt="y")], make_agent, make_llm)
    with pytest.raises(UserError, match="concurrency"):
        run_batch([], make_agent, make_llm, concurrency=0)
    with pytest.raises(UserError, match="backend"):
        run_batch([], make_agent, make_llm, backend="spark")  # type: ignore[arg-type]
    with pytest.raises(UserError, match="timeout"):
        run_batch([], make_agent, make_llm, timeout=-1)
    with pytest.raises(ValidationError, match="relative path"):
        Task(id="a", prompt="x", files={"../etc/passwd": b""})
    with pytest.raises(ValidationError, match="empty"):
        Task(id=" ", prompt="x")


async def test_iterating_outside_async_with_is_a_clear_error() -> None:
    with pytest.raises(UserError, match="async with"):
        async for _ in run_batch([], make_agent, make_llm):
            pass
