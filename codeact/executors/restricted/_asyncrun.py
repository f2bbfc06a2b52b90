"""Async cells: ``async def``/``await``/``async for``/``async with`` under the same guards,
top-level ``await`` on an event loop owned by the session, ``asyncio.run`` inside a cell, and
host tools awaitable from async code.

The loop is driven in slices (``SLICE_S``): between slices the runner is back in host code and
checks the cell's deadline, so a cell whose coroutines all sleep or wait is stopped on time in
inline mode too (an interrupt injected into a thread blocked in ``epoll_wait`` would wait for
it to return). After a timeout or interrupt the loop is abandoned — its tasks cancelled, since
the interrupt may have landed anywhere inside it; the next async cell gets a fresh one. The
abandoned loop is closed only once the cell has ended and its interrupts have stopped
(``close_abandoned``): the interrupt repeats until then, and one landing inside
``loop.close()`` would leave a half-closed loop (its self-pipe gone, the loop not marked closed)
for the garbage collector. Cells never get the loop object itself (no ``get_event_loop``;
``get_loop`` on futures and tasks, and frame lists from ``get_stack``, are refused by the
run-time attribute guard): a loop would hand out sockets, subprocesses, threads and
file-descriptor readers.
"""

from __future__ import annotations

import asyncio
import contextlib
import types
from collections.abc import Callable, Coroutine
from typing import Any

from codeact.executors.restricted._deadline import check_timeout, time_left
from codeact.executors.restricted._guards import METHOD_GUARDS, PolicyError
from codeact.executors.restricted._standins import GuardedType

SLICE_S = 0.05
#: A cell with less time left than this closes an abandoned loop only after it ends.
CLOSE_MARGIN_S = 0.1

#: The asyncio names cells get; ``run`` and ``to_thread`` are the session's own.
ASYNCIO_NAMES = (
    "sleep gather wait_for wait timeout create_task Task Future Queue LifoQueue PriorityQueue "
    "QueueEmpty QueueFull Event Lock Semaphore BoundedSemaphore Condition TimeoutError "
    "CancelledError InvalidStateError as_completed shield iscoroutine iscoroutinefunction "
    "TaskGroup current_task all_tasks FIRST_COMPLETED FIRST_EXCEPTION ALL_COMPLETED"
).split()


class SessionLoop:
    """The event loop of one session, created when the first async cell runs."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._abandoned: list[asyncio.AbstractEventLoop] = []

    def loop(self) -> asyncio.AbstractEventLoop:
        """The session's loop (a new one after ``abandon``)."""
        if self._loop is None or self._loop.is_closed():
            self._loop = asyncio.new_event_loop()
            self._loop.set_exception_handler(_quiet)  # never the host's logging
        return self._loop

    def run(self, awaitable: Any) -> Any:
        """Run the loop until ``awaitable`` is done and return its result, checking the cell's
        deadline every ``SLICE_S``; a deadline (or interrupt) abandons the loop."""
        loop = self.loop()
        future = asyncio.ensure_future(awaitable, loop=loop)
        future.add_done_callback(lambda _f: loop.stop())
        try:
            while not future.done():
                handle = loop.call_later(SLICE_S, loop.stop)
                try:
                    loop.run_forever()
                finally:
                    handle.cancel()
                check_timeout()
        except BaseException:
            # Late: the interrupt repeats until the cell ends, so the loop is closed after it
            # (``close_abandoned``). Not late (the cell's own exception, say a SystemExit it
            # catches and loops on): closed now, or a cell could pile up open loops.
            self.abandon(close_coroutines=True)
            raise
        return future.result()

    def asyncio_run(self, main: Any, *, debug: Any = None) -> Any:
        """``asyncio.run`` for cells: ``main`` runs on the session's loop; tasks it left
        running are cancelled at the end, as ``asyncio.run`` does."""
        if not asyncio.iscoroutine(main):
            raise ValueError(f"a coroutine was expected, got {main!r}")
        loop = self.loop()
        if loop.is_running():
            main.close()
            raise RuntimeError("asyncio.run() cannot be called from a running event loop")
        before = asyncio.all_tasks(loop)
        try:
            return self.run(main)
        finally:
            if self._loop is loop:
                left = [t for t in asyncio.all_tasks(loop) - before if not t.done()]
                for task in left:
                    task.cancel()
                if left:
                    self.run(asyncio.gather(*left, return_exceptions=True))

    def abandon(self, close_coroutines: bool = False) -> None:
        """Cancel every task and drop the loop (after a timeout, an interrupt, a reset).

        ``close_coroutines``: the call comes from inside a cell (its deadline passed) — also
        close the tasks' coroutines now, while the cell's deadline and interrupts still apply
        (their cleanup code is the cell's), rather than whenever the garbage collector gets to
        them; the loop is closed now if the cell has time left (no interrupt can come while it
        closes), else later, by ``close_abandoned``, once the cell's interrupts have stopped.
        From host code (no cell running) the loop is closed at once."""
        loop = self._loop
        if loop is None or loop.is_running():  # a cell is in it: its own ending abandons it
            return
        self._abandoned.append(loop)  # first: an interrupt after this line loses no loop
        self._loop = None
        for task in asyncio.all_tasks(loop):
            task.cancel()
            if close_coroutines:
                with contextlib.suppress(BaseException):  # the cell's own cleanup failing
                    task.get_coro().close()
        if not close_coroutines or time_left() > CLOSE_MARGIN_S:
            self.close_abandoned()

    def close_abandoned(self) -> None:
        """Close the loops ``abandon`` dropped. Host code only, never while a cell's interrupts
        may still arrive (the runners call it after disarming them)."""
        while self._abandoned:
            try:
                loop = self._abandoned.pop()
            except IndexError:  # (emptied meanwhile by a cancelled cell's orphaned thread)
                return
            if loop.is_closed() or loop.is_running():
                continue
            for task in asyncio.all_tasks(loop):  # an interrupt may have cut the first pass
                task.cancel()
            loop.close()


def _quiet(loop: Any, context: dict[str, Any]) -> None:
    """The session loop's exception handler: unretrieved task errors are the cell's business."""


async def to_thread(func: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
    """``asyncio.to_thread`` for cells: calls ``func`` in the loop's thread (cells get no
    threads); the usual way to await a plain function such as a host tool."""
    return func(*args, **kwargs)


class _NoLoopArgument(GuardedType):
    """``asyncio.Task``/``Future`` for cells: ``loop=`` refused (a loop object the cell made
    would get the host's context and callbacks, and the task would sit in asyncio's
    process-wide registry with it); ``isinstance`` and the rest as with the real class."""

    __slots__ = ()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if kwargs.get("loop") is not None:
            raise PolicyError(
                f"{self._type.__name__}(loop=...) is not available in the sandbox "
                f"(tasks and futures run on the session's own loop)"
            )
        return self._type(*args, **kwargs)


def asyncio_attrs(loop: SessionLoop) -> dict[str, Any]:
    """The ``asyncio`` module of one session."""
    attrs = {name: getattr(asyncio, name) for name in ASYNCIO_NAMES if hasattr(asyncio, name)}
    attrs.update(run=loop.asyncio_run, to_thread=to_thread)
    attrs.update(Task=_NoLoopArgument(asyncio.Task), Future=_NoLoopArgument(asyncio.Future))
    return attrs


class Ready:
    """An awaitable that gives a value at once (``await tool(...)`` of a host tool)."""

    __slots__ = ("_value",)

    def __init__(self, value: Any) -> None:
        self._value = value

    def __await__(self) -> Any:
        return self._value
        yield  # a generator: awaiting it returns the value


def make_await_call(tool_ids: set[int]) -> Callable[..., Any]:
    """The ``_await_call_`` hook: ``await f(x)`` compiles to ``await _await_call_(f, x)``, so
    that a host tool (a plain function in the sandbox) can be awaited like an async tool."""

    def await_call(fn: Any, /, *args: Any, **kwargs: Any) -> Any:
        result = fn(*args, **kwargs)
        return Ready(result) if id(fn) in tool_ids else result

    return await_call


def run_cell_code(loop: SessionLoop, code: types.CodeType, namespace: dict[str, Any]) -> None:
    """Run a compiled cell: one with top-level ``await`` on the session's loop."""
    result = eval(code, namespace)  # a cell compiled under the policy
    if isinstance(result, Coroutine):
        loop.run(result)


def _guard_loop_access(obj: Any, name: str, value: Any) -> Any:
    """``get_loop``/``get_stack``/``print_stack``: only the sandbox's own methods of that name."""
    fn = getattr(value, "__func__", value)
    if isinstance(fn, types.FunctionType) and fn.__module__ == "__main__":
        return value
    raise PolicyError(
        f"{name}() is not available in the sandbox (event loops and frames stay on the host)"
    )


for _name in ("get_loop", "get_stack", "print_stack"):
    METHOD_GUARDS[_name] = _guard_loop_access
