"""``TimedStore``: the server's view of its ``SessionStore``, where every call answers within
the store timeout whatever the database does. A call to a store whose driver may be slow to
give up when cancelled (``SessionStore.slow_to_cancel``: PostgreSQL's cancels a query with a
request of its own) runs in a task of the server's task group and the caller waits for it at
most ``timeout`` seconds (other stores' calls are simply cancelled); past that the caller gets
``StoreUnavailable`` (a 503, or a ``store_unavailable`` terminal event) and the call is left to
end on its own — a driver that is slow to give up (a stopped PostgreSQL, a SQLite lock held
by another process) cannot hold a route longer than the timeout."""

from __future__ import annotations

import logging
import math
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import anyio

from codeact._messages import ChatMessage
from codeact.server._tasks import Tasks
from codeact.server.store import (
    Coordinator,
    MemoryStore,
    RunStatus,
    SessionKey,
    SessionStore,
    StoreUnavailable,
)

T = TypeVar("T")
log = logging.getLogger("codeact.server")


class TimedStore(SessionStore):
    """Wraps ``inner``; ``tasks`` (the server's, once open) owns the calls a caller gave up on."""

    def __init__(self, inner: SessionStore, timeout: float, tasks: Tasks | None = None) -> None:
        self.inner = inner
        self.timeout = timeout if timeout and timeout > 0 else math.inf
        self.shared = inner.shared
        self.tasks = tasks
        #: ``MemoryStore`` itself (not a subclass) never awaits: a timeout could not interrupt
        #: its calls, and arming one (a cancel scope and a timer) would cost more than the call.
        self.instant = type(inner) is MemoryStore

    async def call(
        self,
        fn: Callable[..., Awaitable[T]],
        *args: Any,
        timeout: float | None = None,
        undo: Callable[[], Awaitable[None]] | None = None,
        **kw: Any,
    ) -> T:
        """``await fn(*args, **kw)``, or ``StoreUnavailable`` after ``timeout`` seconds
        (default: the store timeout); store errors of the driver stay as they are. ``undo``
        runs if the call succeeds after its caller gave up (the caller answered 503: what the
        call did must not stay, e.g. a run marked running that never ran)."""
        if self.instant:
            return await fn(*args, **kw)
        limit = self.timeout if timeout is None else timeout
        tasks = self.tasks
        ends_at_once = not self.inner.slow_to_cancel and undo is None
        if tasks is None or not tasks.open or ends_at_once:
            try:
                with anyio.fail_after(limit):
                    return await fn(*args, **kw)
            except TimeoutError:
                raise StoreUnavailable(f"the session store did not answer in {limit:g} s") from None
        box: list[Any] = []
        done = anyio.Event()
        gave_up = False

        async def run() -> None:
            try:
                box.append((True, await fn(*args, **kw)))
            except Exception as exc:
                box.append((False, exc))
                return
            finally:
                done.set()
            if gave_up and undo is not None:
                try:
                    await undo()
                except Exception:
                    log.exception("undoing a store call that succeeded too late failed")

        tasks.start_soon(run)
        with anyio.move_on_after(limit):
            await done.wait()
        if not box:
            gave_up = True
            raise StoreUnavailable(f"the session store did not answer in {limit:g} s")
        ok, value = box[0]
        if not ok:
            raise value
        result: T = value
        return result

    # -- the SessionStore seam, each call bounded ---------------------------------------------
    async def load_messages(self, key: SessionKey) -> list[ChatMessage]:
        return await self.call(self.inner.load_messages, key)

    async def save_messages(self, key: SessionKey, messages: list[ChatMessage]) -> None:
        await self.call(self.inner.save_messages, key, messages)

    async def append_events(
        self, key: SessionKey, run_id: str, events: list[dict[str, Any]]
    ) -> None:
        await self.call(self.inner.append_events, key, run_id, events)

    async def load_events(self, key: SessionKey, run_id: str | None = None) -> list[dict[str, Any]]:
        return await self.call(self.inner.load_events, key, run_id)

    async def start_run(
        self,
        key: SessionKey,
        run_id: str,
        messages: list[ChatMessage],
        *,
        claim: tuple[str, ...] | None = None,
    ) -> None:
        async def never_ran() -> None:
            """The caller answered 503: the run did not start. It is stored as an error, and
            the thread's messages as they were before (without the request's new message)."""
            log.warning("run %r: its start was stored too late; stored as an error", run_id)
            before = messages[:-1] if messages and messages[-1].role == "user" else messages
            await self.inner.end_run(key, run_id, "error", before)

        await self.call(self.inner.start_run, key, run_id, messages, claim=claim, undo=never_ran)

    async def finish_run(
        self, key: SessionKey, run_id: str, status: RunStatus, messages: list[ChatMessage]
    ) -> None:
        await self.call(self.inner.finish_run, key, run_id, status, messages)

    async def end_run(
        self,
        key: SessionKey,
        run_id: str,
        status: RunStatus,
        messages: list[ChatMessage],
        state: dict[str, Any] | None = None,
    ) -> None:
        await self.call(self.inner.end_run, key, run_id, status, messages, state)

    async def append_event_json(self, key: SessionKey, run_id: str, events: list[str]) -> None:
        await self.call(self.inner.append_event_json, key, run_id, events)

    async def append_event_json_at(
        self, key: SessionKey, run_id: str, first: int, events: list[str]
    ) -> None:
        await self.call(self.inner.append_event_json_at, key, run_id, first, events)

    async def list_runs(self, key: SessionKey) -> list[dict[str, Any]]:
        return await self.call(self.inner.list_runs, key)

    async def run_status(self, key: SessionKey, run_id: str) -> RunStatus | None:
        return await self.call(self.inner.run_status, key, run_id)

    async def event_page(
        self, key: SessionKey, run_id: str, *, after: int, skip: int, limit: int
    ) -> list[tuple[int, str]]:
        fn = self.inner.event_page
        return await self.call(fn, key, run_id, after=after, skip=skip, limit=limit)

    async def load_state(self, key: SessionKey) -> dict[str, Any] | None:
        return await self.call(self.inner.load_state, key)

    async def save_state(self, key: SessionKey, state: dict[str, Any]) -> None:
        await self.call(self.inner.save_state, key, state)

    async def running_runs(self) -> list[tuple[SessionKey, str]]:
        return await self.call(self.inner.running_runs)

    async def thread_owner(self, app: str, thread: str) -> str | None:
        return await self.call(self.inner.thread_owner, app, thread)

    async def ping(self) -> None:
        await self.call(self.inner.ping)

    async def health(self) -> dict[str, Any]:
        return await self.call(self.inner.health)

    def coordinator(self) -> Coordinator | None:
        return self.inner.coordinator()

    async def aclose(self) -> None:
        await self.inner.aclose()
