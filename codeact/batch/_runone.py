"""Run one task: a fresh agent, a fresh sandbox (its own ``Context``), files uploaded, events
folded into a ``TaskResult``. Whatever happens, the sandbox is closed and a result comes back."""

from __future__ import annotations

import time
from typing import Any

import anyio

from codeact.batch._types import (
    AgentFactory,
    CellRecord,
    ErrorKind,
    Task,
    TaskError,
    TaskResult,
    Timings,
    Usage,
)
from codeact.context import Context
from codeact.errors import MaxIterationsError, RunTimeoutError, UserError
from codeact.events import AgentInput, AgentOutput, Event, ToolCall, ToolCallResult
from codeact.llms.base import LLM

#: Seconds a sandbox may take to close after its task ended or was cancelled.
CLOSE_GRACE_S = 30.0


class _Fold:
    """Accumulates the events of one run into cells, timings and token counts."""

    def __init__(self) -> None:
        self.cells: list[CellRecord] = []
        self.llm_s = 0.0
        self.code_s = 0.0
        self.usage: Usage | None = None
        self._llm_t0 = 0.0
        self._code_t0: dict[str, tuple[float, str]] = {}

    def add(self, ev: Event) -> None:
        now = time.perf_counter()
        if isinstance(ev, AgentInput):
            self._llm_t0 = now
        elif isinstance(ev, AgentOutput):
            if self._llm_t0:
                self.llm_s += now - self._llm_t0
                self._llm_t0 = 0.0
            self._add_usage(ev.raw)
        elif isinstance(ev, ToolCall) and ev.tool_name == "execute":
            self._code_t0[ev.tool_id] = (now, str(ev.tool_kwargs.get("code", "")))
        elif isinstance(ev, ToolCallResult) and ev.tool_name == "execute":
            t0, code = self._code_t0.pop(ev.tool_id, (now, str(ev.tool_kwargs.get("code", ""))))
            self.code_s += now - t0
            self.cells.append(_cell(code, ev, now - t0))

    def settle(self) -> None:
        """Count the model's or a cell's time still running when the task ended (a timeout
        usually strikes while the model thinks): ``llm_s`` and ``code_s`` stay honest."""
        now = time.perf_counter()
        if self._llm_t0:
            self.llm_s += now - self._llm_t0
            self._llm_t0 = 0.0
        for t0, _code in self._code_t0.values():
            self.code_s += now - t0
        self._code_t0.clear()

    def _add_usage(self, raw: Any) -> None:
        """Token counts from a provider response, when the adapter kept one in ``raw``."""
        usage = getattr(raw, "usage", None) or (raw.get("usage") if isinstance(raw, dict) else None)
        if usage is None:
            return

        def pick(name: str) -> int:
            got = usage.get(name) if isinstance(usage, dict) else getattr(usage, name, 0)
            return int(got or 0)

        self.usage = self.usage or Usage()
        self.usage.prompt_tokens += pick("prompt_tokens")
        self.usage.completion_tokens += pick("completion_tokens")


def _cell(code: str, ev: ToolCallResult, took: float) -> CellRecord:
    ex = ev.execution or {}
    err = ex.get("error")
    return CellRecord(
        code=code,
        stdout=str(ex.get("stdout", "")),
        stderr=str(ex.get("stderr", "")),
        value=ex.get("value"),
        error=(err.get("traceback") or f"{err.get('type')}: {err.get('message')}") if err else None,
        timed_out=bool(ex.get("timed_out", False)),
        duration_s=round(float(ex.get("duration_s") or took), 4),
    )


def _prompt(agent: Any, task: Task) -> str:
    if not task.files:
        return task.prompt
    from codeact.agents.code import describe_files

    return f"{task.prompt}\n\n{describe_files(dict(task.files))}"


async def _upload(agent: Any, ctx: Context, task: Task) -> None:
    if not task.files:
        return
    session = getattr(agent, "session", None)
    if session is None:
        raise UserError(
            f"Task {task.id!r} has files, but {type(agent).__name__} has no sandbox to put them "
            "in (use a CodeActAgent)"
        )
    executor = session(ctx)
    await executor.start()
    for name, data in task.files.items():
        await executor.upload(name, data)


def _result(
    task: Task, fold: _Fold, t0: float, node: str, attempt: int, **fields: Any
) -> TaskResult:
    fold.settle()
    timings = Timings(
        total_s=round(time.perf_counter() - t0, 4),
        llm_s=round(fold.llm_s, 4),
        code_s=round(fold.code_s, 4),
    )
    return TaskResult(
        id=task.id,
        expected=task.expected,
        metadata=task.metadata,
        node=node,
        attempts=attempt,
        cells=fold.cells,
        timings=timings,
        usage=fold.usage,
        **fields,
    )


def _error(kind: ErrorKind, exc: BaseException) -> dict[str, Any]:
    status = "timeout" if kind == "timeout" else "failed"
    message = str(exc)
    # Plain facts, no advice: a results file is read by command-line and Python users alike.
    if isinstance(exc, RunTimeoutError):
        message = f"timed out after {exc.timeout:g} s"
    elif isinstance(exc, MaxIterationsError):
        message = f"no final answer after {exc.limit} model steps"
    return {
        "status": status,
        "error": TaskError(kind=kind, type=type(exc).__name__, message=message),
    }


async def run_task(
    task: Task,
    agent_factory: AgentFactory,
    llm: LLM,
    *,
    timeout: float | None = None,
    node: str = "local",
    attempt: int = 1,
    keep_messages: bool = False,
) -> TaskResult:
    """Run ``task`` with a fresh agent from ``agent_factory(llm)`` in its own sandbox.

    Never raises for a task's own failure (the result says it); cancellation propagates after the
    sandbox is closed. With ``keep_messages`` the result holds the run's messages.
    """
    ctx = Context()
    result = await _run_task(task, agent_factory, llm, timeout, node, attempt, ctx)
    if keep_messages:
        result.messages = ctx.memory.get_all()
    return result


async def _run_task(
    task: Task,
    agent_factory: AgentFactory,
    llm: LLM,
    timeout: float | None,
    node: str,
    attempt: int,
    ctx: Context,
) -> TaskResult:
    t0 = time.perf_counter()
    fold = _Fold()
    try:
        try:
            agent = agent_factory(llm)
            await _upload(agent, ctx, task)
        except Exception as exc:
            return _result(task, fold, t0, node, attempt, **_error("setup", exc))
        handler = agent.run(_prompt(agent, task), ctx=ctx, timeout=timeout)
        try:
            async for ev in handler.stream_events():
                fold.add(ev)
            out = await handler
        except anyio.get_cancelled_exc_class():
            with anyio.CancelScope(shield=True):
                await handler.cancel()
            raise
        except RunTimeoutError as exc:
            return _result(task, fold, t0, node, attempt, **_error("timeout", exc))
        except Exception as exc:
            return _result(task, fold, t0, node, attempt, **_error("failed", exc))
        answer, value = out.response.text, _jsonable(out.value)
        return _result(task, fold, t0, node, attempt, status="ok", answer=answer, value=value)
    finally:
        with anyio.CancelScope(shield=True), anyio.move_on_after(CLOSE_GRACE_S):
            await ctx.aclose()


def _jsonable(value: Any) -> Any:
    """``final_answer`` values are plain data already; anything else is kept as its repr."""
    import json

    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)
    return value
