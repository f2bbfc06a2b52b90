"""The threads' live sessions (a ``Context``, with its sandbox once a cell runs): loaded from the
store on first use, at most ``max_sessions`` of them (the oldest idle one makes room; 429 when
all are busy), closed after ``idle_close_s`` idle."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

import anyio

from codeact.context import Context
from codeact.memory import ChatMemory
from codeact.server._config import ServerConfig
from codeact.server._input import BadRequest
from codeact.server.store import SessionKey, SessionStore, state_text

log = logging.getLogger("codeact.server")


class Session:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.last_used = time.monotonic()
        #: Orders the thread's store writes (a run's end before the next run's start).
        self.writes = anyio.Lock()
        #: Files uploaded into the thread's sandbox by this process: name -> size in bytes.
        self.uploads: dict[str, int] = {}
        #: The thread's state as the store has it (``state_text``), to store only changes.
        self.stored_state: str | None = None


class Sessions:
    """``items`` by thread key; ``busy()`` names the keys in use (live or not yet recorded)."""

    def __init__(
        self, store: SessionStore, config: ServerConfig, busy: Callable[[], set[SessionKey]]
    ) -> None:
        self.store = store
        self.config = config
        self.busy = busy
        self.items: dict[SessionKey, Session] = {}

    async def get(self, key: SessionKey, props: Any = None) -> Session:
        s = self.items.get(key)
        if s is None:
            await self._make_room(key)
            history = await self.store.load_messages(key)
            stored = await self.store.load_state(key)
            s = self.items.get(key)  # another request may have loaded it meanwhile
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
                s = self.items[key] = Session(ctx)
                s.stored_state = state_text(stored) if stored is not None else None
        s.last_used = time.monotonic()
        return s

    async def _make_room(self, key: SessionKey) -> None:
        """Close the oldest idle sessions until a new one fits; 429 when every one is busy."""
        limit = self.config.max_sessions
        while limit and len(self.items) >= limit and key not in self.items:
            busy = self.busy() | {key}
            idle = [(s.last_used, k) for k, s in self.items.items() if k not in busy]
            if not idle:
                raise BadRequest(
                    429,
                    f"all {limit} sessions are busy with runs; retry when one ends",
                    "too_many_sessions",
                )
            _, oldest = min(idle)
            await self.close(oldest)

    async def close(self, key: SessionKey) -> None:
        s = self.items.pop(key, None)
        if s is None:
            return
        try:
            await s.ctx.aclose()
        except Exception:
            log.exception("closing the session of thread %r failed", key[2])

    async def close_idle(self, forget: Callable[[SessionKey], object]) -> None:
        """Forever: close the sessions of threads idle for ``idle_close_s``."""
        while True:
            await anyio.sleep(min(self.config.idle_close_s, 30))
            now = time.monotonic()
            busy = self.busy()
            for key, s in list(self.items.items()):
                if key not in busy and now - s.last_used > self.config.idle_close_s:
                    forget(key)
                    await self.close(key)
