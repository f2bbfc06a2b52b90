"""A thread's messages in PostgreSQL, one row per message (``codeact_messages``): a turn
appends the rows past those stored instead of rewriting the thread; the run rows' statements
that go with them (started and ended runs, fenced)."""

from __future__ import annotations

from typing import Any

from codeact._messages import ChatMessage
from codeact.server.store import SessionKey, appended_from, message_text

KEY = "app=%s AND usr=%s AND thread=%s"

_TOUCH_THREAD = (
    "INSERT INTO codeact_threads (app, usr, thread, messages) VALUES (%s, %s, %s, '[]') "
    "ON CONFLICT (app, usr, thread) DO UPDATE SET updated = now()"
)
_LAST = f"SELECT seq, message FROM codeact_messages WHERE {KEY} ORDER BY seq DESC LIMIT 1"
_INSERT = (
    "INSERT INTO codeact_messages (app, usr, thread, seq, message) "
    "SELECT %s, %s, %s, n - 1 + %s, m FROM unnest(%s::text[]) WITH ORDINALITY AS t(m, n)"
)
#: A run starts (its claim first: a second live run on the claim fails here); its new
#: fencing token is returned.
START_RUN = (
    "INSERT INTO codeact_runs (app, usr, thread, run_id, status, claim, replica, fence) "
    "VALUES (%s, %s, %s, %s, 'running', %s, %s, nextval('codeact_fence')) "
    "ON CONFLICT (app, usr, thread, run_id) DO UPDATE "
    "SET status = 'running', ended = NULL, claim = excluded.claim, replica = excluded.replica, "
    "cancel_requested = false, fence = excluded.fence RETURNING fence"
)
#: A run ends, fenced: with a token (not NULL) that is no longer the run's, no row is returned
#: and nothing is written.
FINISH_RUN = (
    "INSERT INTO codeact_runs (app, usr, thread, run_id, status, ended) "
    "VALUES (%s, %s, %s, %s, %s, now()) ON CONFLICT (app, usr, thread, run_id) DO UPDATE "
    "SET status = excluded.status, ended = excluded.ended "
    "WHERE %s::bigint IS NULL OR codeact_runs.fence = %s RETURNING 1"
)


async def put_messages(conn: Any, key: SessionKey, messages: list[ChatMessage]) -> None:
    """Within the caller's transaction: the thread's row (its lock orders writers) and the
    messages past the stored ones (all, when the stored ones are not a prefix)."""
    await conn.execute(_TOUCH_THREAD, key)
    row = await (await conn.execute(_LAST, key)).fetchone()
    start = appended_from(int(row[0]) + 1 if row else 0, row[1] if row else None, messages)
    if start is None:
        await conn.execute(f"DELETE FROM codeact_messages WHERE {KEY}", key)
        start = 0
    if start < len(messages):
        texts = [message_text(m) for m in messages[start:]]
        await conn.execute(_INSERT, (*key, start, texts))


async def load_messages(conn: Any, key: SessionKey) -> list[ChatMessage]:
    cur = await conn.execute(f"SELECT message FROM codeact_messages WHERE {KEY} ORDER BY seq", key)
    return [ChatMessage.model_validate_json(m) for (m,) in await cur.fetchall()]
