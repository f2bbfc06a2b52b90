"""``gc_threshold``: while an app serves, the young-generation threshold is raised and what
existed at startup is frozen out of collections; the process's collector is restored when the
last app stops, and ``gc_threshold=0`` leaves it alone. Through the app's real lifespan."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from codeact import FunctionAgent
from codeact.cli import _parser
from codeact.llms import ScriptedLLM
from codeact.server import MemoryStore, create_app

pytestmark = pytest.mark.anyio


def app(**options: object) -> object:
    return create_app(FunctionAgent(llm=ScriptedLLM([])), store=MemoryStore(), **options)


@pytest.fixture(autouse=True)
def collector() -> Iterator[tuple[int, int, int]]:
    """The process's collector as the test found it (and left so, whatever the test did)."""
    before = gc.get_threshold()
    assert gc.get_freeze_count() == 0, "something else froze the collector"
    yield before
    gc.set_threshold(*before)
    gc.unfreeze()


async def test_a_freeze_made_before_the_app_started_is_kept() -> None:
    gc.freeze()  # (a server that preloads its app, then forks)
    frozen = gc.get_freeze_count()
    served = app(gc_threshold=12_345)
    async with served.router.lifespan_context(served):  # type: ignore[attr-defined]
        assert gc.get_threshold()[0] == 12_345
    assert gc.get_freeze_count() > frozen // 2  # not unfrozen by the app (a few freed since)


async def test_the_collector_is_restored_when_the_app_fails(
    collector: tuple[int, int, int],
) -> None:
    served = app(gc_threshold=12_345)
    with pytest.raises((RuntimeError, ExceptionGroup)):  # (through the task group)
        async with served.router.lifespan_context(served):  # type: ignore[attr-defined]
            raise RuntimeError("boom")
    assert gc.get_threshold() == collector
    assert gc.get_freeze_count() == 0


async def test_serving_raises_the_threshold_and_freezes_startup_objects(
    collector: tuple[int, int, int],
) -> None:
    served = app(gc_threshold=12_345)
    async with served.router.lifespan_context(served):  # type: ignore[attr-defined]
        assert gc.get_threshold() == (12_345, collector[1], collector[2])
        assert gc.get_freeze_count() > 0
    assert gc.get_threshold() == collector
    assert gc.get_freeze_count() == 0


async def test_the_default_threshold_applies_without_options(
    collector: tuple[int, int, int],
) -> None:
    served = app()
    async with served.router.lifespan_context(served):  # type: ignore[attr-defined]
        assert gc.get_threshold()[0] == 10_000
    assert gc.get_threshold() == collector


async def test_zero_leaves_the_collector_alone(collector: tuple[int, int, int]) -> None:
    served = app(gc_threshold=0)
    async with served.router.lifespan_context(served):  # type: ignore[attr-defined]
        assert gc.get_threshold() == collector
        assert gc.get_freeze_count() == 0


async def test_the_last_app_to_stop_restores_the_collector(
    collector: tuple[int, int, int],
) -> None:
    first, second = app(gc_threshold=9_000), app(gc_threshold=9_000)
    async with first.router.lifespan_context(first):  # type: ignore[attr-defined]
        async with second.router.lifespan_context(second):  # type: ignore[attr-defined]
            assert gc.get_threshold()[0] == 9_000
        assert gc.get_threshold()[0] == 9_000, "one app stopping undid the other's policy"
        assert gc.get_freeze_count() > 0
    assert gc.get_threshold() == collector
    assert gc.get_freeze_count() == 0


def test_serve_takes_the_threshold_from_the_command_line() -> None:
    parser = _parser()
    assert parser.parse_args(["serve", "--gc-threshold", "0"]).gc_threshold == 0
    assert parser.parse_args(["serve"]).gc_threshold is None  # (the app's default applies)
