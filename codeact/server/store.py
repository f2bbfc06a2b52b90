"""SessionStore: where threads' messages and runs' events are kept.

``SQLiteStore`` (a file in WAL mode; survives restarts) is the default; ``MemoryStore`` is for
tests. A session is keyed by (app name, user id, thread id).
"""

from __future__ import annotations

import json
import sqlite3
import threading
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any

import anyio.to_thread

from codeact._messages import ChatMessage

SessionKey = tuple[str, str, str]


class SessionStore(ABC):
    """The persistence seam of the server."""

    @abstractmethod
    async def load_messages(self, key: SessionKey) -> list[ChatMessage]:
        """The thread's conversation (empty for a new thread)."""

    @abstractmethod
    async def save_messages(self, key: SessionKey, messages: list[ChatMessage]) -> None:
        """Replace the thread's conversation."""

    @abstractmethod
    async def append_events(
        self, key: SessionKey, run_id: str, events: list[dict[str, Any]]
    ) -> None:
        """Record AG-UI events of a run (JSON objects, in order)."""

    @abstractmethod
    async def load_events(self, key: SessionKey, run_id: str | None = None) -> list[dict[str, Any]]:
        """Recorded events of the thread (or of one run), in order."""

    async def aclose(self) -> None:
        """Release resources."""


class MemoryStore(SessionStore):
    """Keeps everything in memory (tests, throwaway servers)."""

    def __init__(self) -> None:
        self._messages: dict[SessionKey, list[str]] = {}
        self._events: dict[SessionKey, list[tuple[str, dict[str, Any]]]] = {}

    async def load_messages(self, key: SessionKey) -> list[ChatMessage]:
        return [ChatMessage.model_validate_json(m) for m in self._messages.get(key, [])]

    async def save_messages(self, key: SessionKey, messages: list[ChatMessage]) -> None:
        self._messages[key] = [m.model_dump_json() for m in messages]

    async def append_events(
        self, key: SessionKey, run_id: str, events: list[dict[str, Any]]
    ) -> None:
        self._events.setdefault(key, []).extend((run_id, e) for e in events)

    async def load_events(self, key: SessionKey, run_id: str | None = None) -> list[dict[str, Any]]:
        return [e for r, e in self._events.get(key, []) if run_id is None or r == run_id]


class SQLiteStore(SessionStore):
    """A SQLite file (WAL mode): threads, messages and events survive a server restart."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None

    def _conn(self) -> sqlite3.Connection:
        if self._db is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(self.path, check_same_thread=False)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.executescript(
                """
                CREATE TABLE IF NOT EXISTS threads (
                    app TEXT, user TEXT, thread TEXT, messages TEXT NOT NULL,
                    updated REAL DEFAULT (julianday('now')),
                    PRIMARY KEY (app, user, thread));
                CREATE TABLE IF NOT EXISTS events (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    app TEXT, user TEXT, thread TEXT, run_id TEXT, event TEXT NOT NULL);
                CREATE INDEX IF NOT EXISTS events_thread ON events (app, user, thread, run_id);
                """
            )
            self._db = db
        return self._db

    async def _run(self, fn: Any, *args: Any) -> Any:
        def locked() -> Any:
            with self._lock:
                return fn(self._conn(), *args)

        return await anyio.to_thread.run_sync(locked)

    async def load_messages(self, key: SessionKey) -> list[ChatMessage]:
        def q(db: sqlite3.Connection) -> str | None:
            row = db.execute(
                "SELECT messages FROM threads WHERE app=? AND user=? AND thread=?", key
            ).fetchone()
            return row[0] if row else None

        raw = await self._run(q)
        return [ChatMessage.model_validate(m) for m in json.loads(raw)] if raw else []

    async def save_messages(self, key: SessionKey, messages: list[ChatMessage]) -> None:
        data = json.dumps([m.model_dump(mode="json") for m in messages])

        def q(db: sqlite3.Connection) -> None:
            with db:
                db.execute(
                    "INSERT INTO threads (app, user, thread, messages) VALUES (?, ?, ?, ?) "
                    "ON CONFLICT (app, user, thread) DO UPDATE SET messages=excluded.messages, "
                    "updated=julianday('now')",
                    (*key, data),
                )

        await self._run(q)

    async def append_events(
        self, key: SessionKey, run_id: str, events: list[dict[str, Any]]
    ) -> None:
        rows = [(*key, run_id, json.dumps(e)) for e in events]

        def q(db: sqlite3.Connection) -> None:
            with db:
                db.executemany(
                    "INSERT INTO events (app, user, thread, run_id, event) VALUES (?, ?, ?, ?, ?)",
                    rows,
                )

        await self._run(q)

    async def load_events(self, key: SessionKey, run_id: str | None = None) -> list[dict[str, Any]]:
        def q(db: sqlite3.Connection) -> list[str]:
            sql = "SELECT event FROM events WHERE app=? AND user=? AND thread=?"
            params: tuple[str, ...] = key
            if run_id is not None:
                sql += " AND run_id=?"
                params = (*key, run_id)
            return [r[0] for r in db.execute(sql + " ORDER BY id", params)]

        return [json.loads(e) for e in await self._run(q)]

    async def aclose(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None
