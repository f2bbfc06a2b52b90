"""The service: agent runs streamed to front ends as AG-UI events over SSE (the ``server`` extra).

``create_app(agent)`` returns an ASGI app; ``codeact serve`` runs one with uvicorn.
"""

from typing import TYPE_CHECKING, Any

from codeact.server._app import AGUIServer
from codeact.server._asgi import create_app
from codeact.server._auth import Authenticate, Principal, bearer_token
from codeact.server._config import ServerConfig
from codeact.server._input import BadRequest
from codeact.server._open import open_store
from codeact.server._sqlite import SQLiteStore
from codeact.server.store import MemoryStore, SessionStore
from codeact.server.translator import Translator

if TYPE_CHECKING:
    from codeact.server._postgres import PostgresStore


def __getattr__(name: str) -> Any:
    if name == "PostgresStore":  # (imports the PostgreSQL driver: only when asked for)
        from codeact.server._postgres import PostgresStore

        return PostgresStore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "AGUIServer",
    "Authenticate",
    "BadRequest",
    "MemoryStore",
    "PostgresStore",
    "Principal",
    "SQLiteStore",
    "ServerConfig",
    "SessionStore",
    "Translator",
    "bearer_token",
    "create_app",
    "open_store",
]
