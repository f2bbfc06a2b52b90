"""``SQLiteStore``: a SQLite file in WAL mode (survives restarts), held by one server at a time
(an exclusive ``flock`` on ``<db>.lock``)."""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import sqlite3
import threading
from pathlib import Path
from typing import Any

import anyio.to_thread

from codeact._messages import ChatMessage
from codeact.server.store import (
    RunStatus,
    SessionKey,
    SessionStore,
    StoreLocked,
    StoreUnavailable,
    appended_from,
    message_text,
    state_from_text,
    state_text,
)

log = logging.getLogger("codeact.server")
_KEY = "app=? AND user=? AND thread=?"


def _message_rows(db: sqlite3.Connection) -> None:
    """The ``messages`` table (one row per message); a file written before it has its
    threads' message lists moved into it, once."""
    if db.execute("SELECT 1 FROM sqlite_master WHERE name='messages'").fetchone():
        return
    with db:
        db.execute(
            "CREATE TABLE messages (app TEXT, user TEXT, thread TEXT, seq INTEGER, "
            "message TEXT NOT NULL, PRIMARY KEY (app, user, thread, seq))"
        )
        db.execute(
            "INSERT INTO messages SELECT t.app, t.user, t.thread, j.key, j.value "
            "FROM threads t, json_each(t.messages) j"
        )
        db.execute("UPDATE threads SET messages='[]'")


class SQLiteStore(SessionStore):
    """A SQLite file (WAL mode): threads, messages and events survive a server restart."""

    slow_to_cancel = False  # (calls run in worker threads the caller abandons when cancelled)

    def __init__(
        self, path: str | Path, *, busy_timeout: float = 5.0, exclusive: bool = True
    ) -> None:
        self.path = Path(path)
        self.busy_timeout = busy_timeout
        #: Hold ``<db>.lock`` (flock) while open: a second server on the same file refuses to
        #: start instead of marking this one's live runs interrupted.
        self.exclusive = exclusive
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        self._lock_fd: int | None = None

    @property
    def lock_path(self) -> Path:
        return self.path.with_name(self.path.name + ".lock")

    def acquire(self) -> None:
        """Take the single-instance lock (idempotent); ``StoreLocked`` if another holds it."""
        if not self.exclusive or self._lock_fd is not None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise StoreLocked(
                f"{self.path} is in use by another codeact server (it holds {self.lock_path}); "
                "stop it or use another --db"
            ) from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._lock_fd = fd

    def _release(self) -> None:
        fd, self._lock_fd = self._lock_fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)  # (closing the descriptor releases the flock)

    def _conn(self) -> sqlite3.Connection:
        if self._db is None:
            self.acquire()
            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(self.path, check_same_thread=False, timeout=self.busy_timeout)
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
                CREATE TABLE IF NOT EXISTS runs (
                    app TEXT, user TEXT, thread TEXT, run_id TEXT, status TEXT NOT NULL,
                    started REAL DEFAULT (julianday('now')), ended REAL,
                    PRIMARY KEY (app, user, thread, run_id));
                CREATE INDEX IF NOT EXISTS runs_status ON runs (status);
                CREATE INDEX IF NOT EXISTS threads_owner ON threads (app, thread);
                """
            )
            if "state" not in {row[1] for row in db.execute("PRAGMA table_info(threads)")}:
                db.execute("ALTER TABLE threads ADD COLUMN state TEXT")  # (older files)
            _message_rows(db)
            self._db = db
        return self._db

    async def _run(self, fn: Any, *args: Any) -> Any:
        def locked() -> Any:
            # (a call stuck on a lock another process holds must not queue every other one
            # behind it for ever: worker threads are a shared, bounded resource)
            if not self._lock.acquire(timeout=self.busy_timeout + 1):
                raise StoreUnavailable(f"{self.path} is busy (a store call did not end)")
            try:
                return fn(self._conn(), *args)
            except sqlite3.OperationalError as exc:  # locked, I/O error, disk full
                raise StoreUnavailable(f"{self.path}: {exc}") from exc
            finally:
                self._lock.release()

        return await anyio.to_thread.run_sync(locked, abandon_on_cancel=True)

    @staticmethod
    def _put_messages(db: sqlite3.Connection, key: SessionKey, messages: list[ChatMessage]) -> None:
        """The thread's messages, appended: only those past the stored ones are written (all
        of them when the stored ones are not a prefix: a rewritten memory)."""
        db.execute(
            "INSERT INTO threads (app, user, thread, messages) VALUES (?, ?, ?, '[]') "
            "ON CONFLICT (app, user, thread) DO UPDATE SET messages='[]', "
            "updated=julianday('now')",
            key,
        )
        row = db.execute(
            f"SELECT seq, message FROM messages WHERE {_KEY} ORDER BY seq DESC LIMIT 1", key
        ).fetchone()
        start = appended_from(row[0] + 1 if row else 0, row[1] if row else None, messages)
        if start is None:
            db.execute(f"DELETE FROM messages WHERE {_KEY}", key)
            start = 0
        db.executemany(
            "INSERT INTO messages (app, user, thread, seq, message) VALUES (?, ?, ?, ?, ?)",
            [(*key, i, message_text(messages[i])) for i in range(start, len(messages))],
        )

    async def start_run(
        self,
        key: SessionKey,
        run_id: str,
        messages: list[ChatMessage],
        *,
        claim: tuple[str, ...] | None = None,
    ) -> None:
        def q(db: sqlite3.Connection) -> None:
            with db:
                self._put_messages(db, key, messages)
                db.execute(
                    "INSERT INTO runs (app, user, thread, run_id, status) VALUES (?,?,?,?,?) "
                    "ON CONFLICT DO UPDATE SET status=excluded.status, ended=NULL",
                    (*key, run_id, "running"),
                )

        await self._run(q)

    async def finish_run(
        self, key: SessionKey, run_id: str, status: RunStatus, messages: list[ChatMessage]
    ) -> None:
        def q(db: sqlite3.Connection) -> None:
            with db:
                self._put_messages(db, key, messages)
                db.execute(
                    "INSERT INTO runs (app, user, thread, run_id, status, ended) "
                    "VALUES (?,?,?,?,?, julianday('now')) ON CONFLICT DO UPDATE SET "
                    "status=excluded.status, ended=excluded.ended",
                    (*key, run_id, status),
                )

        await self._run(q)

    async def append_event_json(self, key: SessionKey, run_id: str, events: list[str]) -> None:
        await self._run(self._append, key, run_id, events, None)

    async def append_event_json_at(
        self, key: SessionKey, run_id: str, first: int, events: list[str]
    ) -> None:
        await self._run(self._append, key, run_id, events, first)

    @staticmethod
    def _append(
        db: sqlite3.Connection, key: SessionKey, run_id: str, events: list[str], first: int | None
    ) -> None:
        """Events of a run, unless it has ended (nothing is stored after its terminal event);
        with ``first`` (a retry), those already stored are skipped."""
        with db:
            row = db.execute(
                "SELECT status FROM runs WHERE app=? AND user=? AND thread=? AND run_id=?",
                (*key, run_id),
            ).fetchone()
            if row is not None and row[0] != "running":
                log.warning("run %r has ended: %d late events not stored", run_id, len(events))
                return
            if first is not None:
                (have,) = db.execute(
                    "SELECT count(*) FROM events WHERE app=? AND user=? AND thread=? AND run_id=?",
                    (*key, run_id),
                ).fetchone()
                events = events[max(0, have - first) :]
            db.executemany(
                "INSERT INTO events (app, user, thread, run_id, event) VALUES (?, ?, ?, ?, ?)",
                [(*key, run_id, e) for e in events],
            )

    async def event_page(
        self, key: SessionKey, run_id: str, *, after: int, skip: int, limit: int
    ) -> list[tuple[int, str]]:
        def q(db: sqlite3.Connection) -> list[tuple[int, str]]:
            return db.execute(
                "SELECT id, event FROM events WHERE app=? AND user=? AND thread=? AND run_id=? "
                "AND id>? ORDER BY id LIMIT ? OFFSET ?",
                (*key, run_id, after, limit, skip),
            ).fetchall()

        result: list[tuple[int, str]] = await self._run(q)
        return result

    async def run_status(self, key: SessionKey, run_id: str) -> RunStatus | None:
        def q(db: sqlite3.Connection) -> RunStatus | None:
            row = db.execute(
                "SELECT status FROM runs WHERE app=? AND user=? AND thread=? AND run_id=?",
                (*key, run_id),
            ).fetchone()
            return row[0] if row else None

        result: RunStatus | None = await self._run(q)
        return result

    async def list_runs(self, key: SessionKey) -> list[dict[str, Any]]:
        def q(db: sqlite3.Connection) -> list[tuple[str, str]]:
            return db.execute(
                "SELECT run_id, status FROM runs WHERE app=? AND user=? AND thread=? "
                "ORDER BY started, rowid",
                key,
            ).fetchall()

        return [{"runId": r, "status": s} for r, s in await self._run(q)]

    async def running_runs(self) -> list[tuple[SessionKey, str]]:
        def q(db: sqlite3.Connection) -> list[tuple[str, str, str, str]]:
            return db.execute(
                "SELECT app, user, thread, run_id FROM runs WHERE status='running'"
            ).fetchall()

        return [(SessionKey(a, u, t), r) for a, u, t, r in await self._run(q)]

    async def thread_owner(self, app: str, thread: str) -> str | None:
        def q(db: sqlite3.Connection) -> str | None:
            row = db.execute(
                "SELECT user FROM threads WHERE app=? AND thread=? LIMIT 1", (app, thread)
            ).fetchone()
            return row[0] if row else None

        result: str | None = await self._run(q)
        return result

    async def ping(self) -> None:
        await self._run(lambda db: db.execute("SELECT 1").fetchone())

    async def load_state(self, key: SessionKey) -> dict[str, Any] | None:
        def q(db: sqlite3.Connection) -> str | None:
            row = db.execute(
                "SELECT state FROM threads WHERE app=? AND user=? AND thread=?", key
            ).fetchone()
            return row[0] if row else None

        text = await self._run(q)
        return state_from_text(text) if text else None

    async def save_state(self, key: SessionKey, state: dict[str, Any]) -> None:
        def q(db: sqlite3.Connection) -> None:
            with db:
                db.execute(
                    "UPDATE threads SET state=? WHERE app=? AND user=? AND thread=?",
                    (state_text(state), *key),
                )

        await self._run(q)

    async def load_messages(self, key: SessionKey) -> list[ChatMessage]:
        def q(db: sqlite3.Connection) -> list[str]:
            rows = db.execute(f"SELECT message FROM messages WHERE {_KEY} ORDER BY seq", key)
            found = [m for (m,) in rows]
            if not found:  # (a thread written in the old format: one JSON list)
                row = db.execute(f"SELECT messages FROM threads WHERE {_KEY}", key).fetchone()
                found = [json.dumps(m) for m in json.loads(row[0])] if row else []
            return found

        return [ChatMessage.model_validate_json(m) for m in await self._run(q)]

    async def save_messages(self, key: SessionKey, messages: list[ChatMessage]) -> None:
        def q(db: sqlite3.Connection) -> None:
            with db:
                self._put_messages(db, key, messages)

        await self._run(q)

    async def append_events(
        self, key: SessionKey, run_id: str, events: list[dict[str, Any]]
    ) -> None:
        await self.append_event_json(key, run_id, [json.dumps(e) for e in events])

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
            self._release()
