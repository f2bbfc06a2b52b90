"""``run_batch``: many tasks, each with a fresh agent and sandbox, results as they finish."""

from __future__ import annotations

import inspect
import math
from collections.abc import Iterable
from contextlib import AsyncExitStack
from typing import Any, Literal

import anyio
import anyio.to_thread
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from codeact.batch._types import (
    AgentFactory,
    LLMFactory,
    LLMScope,
    ScoreFn,
    Task,
    TaskResult,
    check_unique,
)
from codeact.batch._worker import LLMHolder, Started, WorkerSpec
from codeact.errors import UserError

Backend = Literal["local", "ray"]


class BatchRun:
    """A running batch: ``async with`` it, then ``async for result in it``.

    Results come in the order tasks finish. ``running`` holds the ids being worked on,
    ``total`` the number of tasks to run (skipped ones excluded). Leaving the ``async with``
    early cancels the tasks still running and closes their sandboxes.
    """

    def __init__(
        self,
        tasks: list[Task],
        spec: WorkerSpec,
        *,
        backend: Backend,
        concurrency: int | None,
        score: ScoreFn | None,
        options: dict[str, Any],
    ) -> None:
        self.tasks = tasks
        self.spec = spec
        self.backend = backend
        self.concurrency = concurrency
        self.score = score
        self.options = options
        self.total = len(tasks)
        self.running: set[str] = set()
        self._by_id = {t.id: t for t in tasks}
        self._stack: AsyncExitStack | None = None
        self._recv: MemoryObjectReceiveStream[TaskResult] | None = None
        self._error: BaseException | None = None

    async def __aenter__(self) -> BatchRun:
        stack = AsyncExitStack()
        tg = await stack.enter_async_context(anyio.create_task_group())
        send, recv = anyio.create_memory_object_stream[TaskResult](math.inf)
        stack.callback(tg.cancel_scope.cancel)  # runs first on exit: stop what still runs
        self._stack, self._recv = stack, recv
        tg.start_soon(self._produce, send)
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        if self._stack is not None:
            stack, self._stack = self._stack, None
            await stack.aclose()

    def __aiter__(self) -> BatchRun:
        return self

    async def __anext__(self) -> TaskResult:
        if self._recv is None:
            raise UserError("Use `async with run_batch(...) as results:` before iterating")
        try:
            result = await self._recv.receive()
        except anyio.EndOfStream:
            if self._error is not None:
                raise self._error from None
            raise StopAsyncIteration from None
        self.running.discard(result.id)
        if self.score is not None:
            await _apply_score(self.score, self._by_id[result.id], result)
        return result

    def _started(self, task_id: str) -> None:
        self.running.add(task_id)

    async def _produce(self, send: MemoryObjectSendStream[TaskResult]) -> None:
        async with send:
            try:
                if self.backend == "ray":
                    from codeact.batch._ray import run_ray

                    await run_ray(
                        self.tasks,
                        self.spec,
                        send,
                        self._started,
                        per_node=self.concurrency,
                        **self.options,
                    )
                else:
                    await run_local(
                        self.tasks,
                        self.spec,
                        send,
                        self._started,
                        concurrency=self.concurrency or 4,
                    )
            except Exception as exc:  # the batch itself could not run: re-raised to the reader
                while isinstance(exc, ExceptionGroup) and len(exc.exceptions) == 1:
                    exc = exc.exceptions[0]
                self._error = exc


async def _apply_score(score: ScoreFn, task: Task, result: TaskResult) -> None:
    try:
        got = score(task, result)
        if inspect.isawaitable(got):
            got = await got
        result.score = None if got is None else float(got)
    except Exception as exc:
        result.score_error = f"{type(exc).__name__}: {exc}"


async def run_local(
    tasks: list[Task],
    spec: WorkerSpec,
    send: MemoryObjectSendStream[TaskResult],
    started: Started,
    *,
    concurrency: int,
) -> None:
    """The local backend: at most ``concurrency`` tasks at once in this process."""
    from codeact.batch._runone import run_task

    holder = LLMHolder(spec)
    await holder.prepare()
    slots = anyio.Semaphore(concurrency)

    async def one(task: Task) -> None:
        try:
            started(task.id)
            result = await run_task(
                task,
                spec.agent_factory,
                holder.get(),
                timeout=spec.timeout,
                keep_messages=spec.keep_messages,
            )
        finally:
            slots.release()
        await send.send(result)

    async with anyio.create_task_group() as tg:
        for task in tasks:
            await slots.acquire()
            tg.start_soon(one, task)


def run_batch(
    tasks: Iterable[Task],
    agent_factory: AgentFactory,
    llm_factory: LLMFactory,
    *,
    backend: Backend = "local",
    concurrency: int | None = None,
    timeout: float | None = None,
    llm_scope: LLMScope = "worker",
    score: ScoreFn | None = None,
    skip: Iterable[str] = (),
    ray_address: str | None = None,
    max_retries: int = 2,
    ray_init: dict[str, Any] | None = None,
    keep_messages: bool = False,
) -> BatchRun:
    """Run ``tasks``, each with a fresh agent (``agent_factory(llm)``) and its own sandbox.

    ``llm_factory()`` makes the model once per worker — once locally, once per Ray node — and
    every task of that worker shares it; ``llm_scope="task"`` makes one per task instead.
    ``backend="local"`` runs ``concurrency`` tasks at once (default 4); ``backend="ray"`` runs
    them on a Ray cluster (``ray_address``: ``"auto"``, an address, or None to start a local
    one) with ``concurrency`` tasks per node (default: the node's CPUs), retrying a task whose
    node died up to ``max_retries`` times. ``timeout`` bounds each task (seconds). ``skip``
    lists ids not to run (already done). ``score(task, result)`` fills ``result.score``.
    ``keep_messages`` keeps each run's messages in ``result.messages`` (to export it with
    ``codeact.notebooks``; with Ray they travel back from the node).
    One failing task never stops the batch::

        async with run_batch(tasks, make_agent, make_llm, concurrency=8) as results:
            async for result in results:
                print(result.id, result.status, result.answer)
    """
    todo = list(tasks)
    check_unique(todo)
    skipped = set(skip)
    todo = [t for t in todo if t.id not in skipped]
    _check(backend, concurrency, timeout, llm_scope, max_retries)
    spec = WorkerSpec(agent_factory, llm_factory, llm_scope, timeout, keep_messages)
    options: dict[str, Any] = {}
    if backend == "ray":
        options = {"address": ray_address, "max_retries": max_retries, "ray_init": ray_init}
    return BatchRun(
        todo, spec, backend=backend, concurrency=concurrency, score=score, options=options
    )


def _check(
    backend: str, concurrency: int | None, timeout: float | None, llm_scope: str, retries: int
) -> None:
    if backend not in ("local", "ray"):
        raise UserError(f"backend must be 'local' or 'ray', got {backend!r}")
    if concurrency is not None and concurrency < 1:
        raise UserError(f"concurrency must be at least 1, got {concurrency}")
    if timeout is not None and timeout <= 0:
        raise UserError(f"timeout must be positive, got {timeout}")
    if llm_scope not in ("worker", "task"):
        raise UserError(f"llm_scope must be 'worker' or 'task', got {llm_scope!r}")
    if retries < 0:
        raise UserError(f"max_retries must be 0 or more, got {retries}")


async def collect_batch(*args: Any, **kwargs: Any) -> list[TaskResult]:
    """``run_batch`` to the end; the results in the order the tasks were given."""
    run = run_batch(*args, **kwargs)
    order = {t.id: i for i, t in enumerate(run.tasks)}
    async with run:
        out = [r async for r in run]
    return sorted(out, key=lambda r: order[r.id])
