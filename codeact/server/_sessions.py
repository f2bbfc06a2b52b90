"""The threads' live sessions (a ``Context``, with its sandbox once a cell runs): loaded from the
store on first use, at most ``max_sessions`` of them (the oldest idle one makes room; 429 when
all are busy), closed after ``idle_close_s`` idle."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from typing import Any

import anyio

from codeact.context import Context
from codeact.memory import ChatMemory
from codeact.server._config import ServerConfig
from codeact.server._input import BadRequest
from codeact.server.store import SessionKey, SessionStore, state_text

log = logging.getLogger("codeact.server")


class ThreadSession:
    """A thread's state in this process: its context (messages, state, sandbox) and what the
    server keeps beside it."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.last_used = time.monotonic()
        #: Orders the thread's store writes (a run's end before the next run's start).
        self.writes = anyio.Lock(fast_acquire=True)  # (no yield to the loop when free)
        #: Files uploaded into the thread's sandbox by this process: name -> size in bytes.
        self.uploads: dict[str, int] = {}
        #: The thread's state as the store has it (``state_text``), to store only changes.
        self.stored_state: str | None = None


#: Sessions without a sandbox (a context and its messages: kilobytes) kept per sandbox slot,
#: and at least ``MIN_CONTEXTS`` of them.
CONTEXTS_PER_SLOT = 16
MIN_CONTEXTS = 1024
#: Idle sandboxes kept warm for ``idle_close_s`` (a quarter of the slots, at least 2); idle
#: ones past that are closed after ``BURST_IDLE_S`` (a burst does not pin its sandboxes).
WARM_FRACTION = 4
BURST_IDLE_S = 30.0


def holds_sandbox(s: ThreadSession) -> bool:
    """Whether the session's context has started an executor session (a sandbox)."""
    return any(key.startswith("executor:") for key in s.ctx.resources)


class ThreadSessions:
    """The threads' sessions by key (``get``, ``in``, iteration over keys, ``values()``);
    ``load`` makes one from the store. ``busy()`` names the keys in use (a live run, or one
    whose end is not yet stored): those are never closed to make room.

    Sizing: ``max_sessions`` bounds the sessions holding a sandbox (what costs memory); the
    sessions holding none (an agent that runs no code, or a thread that ran none yet) are
    bounded at ``CONTEXTS_PER_SLOT`` times that, at least ``MIN_CONTEXTS``. Idle sessions
    make room, oldest first."""

    def __init__(
        self,
        store: SessionStore,
        config: ServerConfig,
        busy: Callable[[], set[SessionKey]],
        runs_code: bool = True,
    ) -> None:
        self.store = store
        self.config = config
        self.busy = busy
        #: Whether the served agent can start a sandbox (else only contexts are counted).
        self.runs_code = runs_code
        self._items: dict[SessionKey, ThreadSession] = {}

    def get(self, key: SessionKey) -> ThreadSession | None:
        """The thread's session if this process has it (``load`` makes one)."""
        return self._items.get(key)

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def __iter__(self) -> Iterator[SessionKey]:
        return iter(list(self._items))

    def __len__(self) -> int:
        return len(self._items)

    def values(self) -> list[ThreadSession]:
        """The sessions (a copy)."""
        return list(self._items.values())

    async def load(self, key: SessionKey, props: Any = None) -> ThreadSession:
        """The thread's session, loaded from the store (and room made) when not here yet."""
        s = self._items.get(key)
        if s is None:
            await self._make_room(key)
            history = await self.store.load_messages(key)
            stored = await self.store.load_state(key)
            s = self._items.get(key)  # another request may have loaded it meanwhile
            if s is None:
                await self._make_room(key)
                state = stored
                if state is None and not history:  # a new thread: its initial state
                    state = self.config.resolve_initial_state(
                        props if isinstance(props, dict) else {}
                    )
                ctx = Context(memory=ChatMemory(history))
                if state is not None:  # stored or resolved state wins over the agent's own
                    ctx.set_state(state)
                s = self._items[key] = ThreadSession(ctx)
                s.stored_state = state_text(stored) if stored is not None else None
        s.last_used = time.monotonic()
        return s

    async def _make_room(self, key: SessionKey) -> None:
        """Close the oldest idle sessions until a new one fits (a sandbox slot when the agent
        runs code, and a context slot); 429 when every one that counts is busy."""
        limit = self.config.max_sessions
        if not limit or key in self._items:
            return
        if self.runs_code:
            await self._evict(limit, holds_sandbox, "sandbox sessions")
        contexts = max(limit * CONTEXTS_PER_SLOT, MIN_CONTEXTS)
        await self._evict(contexts, lambda s: True, "sessions")

    async def _evict(self, limit: int, counts: Callable[[ThreadSession], bool], what: str) -> None:
        while sum(1 for s in self._items.values() if counts(s)) >= limit:
            busy = self.busy()
            idle = [(s.last_used, k) for k, s in self._items.items() if k not in busy and counts(s)]
            if not idle:
                raise BadRequest(
                    429,
                    f"all {limit} {what} are busy with runs; retry when one ends",
                    "too_many_sessions",
                )
            _, oldest = min(idle)
            await self.close(oldest)

    async def close(self, key: SessionKey) -> None:
        s = self._items.pop(key, None)
        if s is None:
            return
        try:
            await s.ctx.aclose()
        except Exception:
            log.exception("closing the session of thread %r failed", SessionKey(*key).thread)

    async def close_idle(self, forget: Callable[[SessionKey], object]) -> None:
        """Forever: close the sessions idle for ``idle_close_s``, and the idle sandboxes past
        the warm ones (``WARM_FRACTION``) once idle for ``BURST_IDLE_S``."""
        while True:
            await anyio.sleep(min(self.config.idle_close_s, BURST_IDLE_S / 3))
            for key in self.expired(time.monotonic()):
                forget(key)
                await self.close(key)

    def expired(self, now: float) -> list[SessionKey]:
        """The sessions to close now (the rule of ``close_idle``)."""
        busy, cfg = self.busy(), self.config
        idle = sorted(
            ((s.last_used, k, s) for k, s in self._items.items() if k not in busy), reverse=True
        )
        warm = max(2, cfg.max_sessions // WARM_FRACTION) if cfg.max_sessions else len(idle)
        out, sandboxes = [], 0
        for last_used, key, s in idle:  # (the most recently used first)
            age = now - last_used
            if holds_sandbox(s):
                sandboxes += 1
                if sandboxes > warm and age > min(BURST_IDLE_S, cfg.idle_close_s):
                    out.append(key)
                    continue
            if age > cfg.idle_close_s:
                out.append(key)
        return out
