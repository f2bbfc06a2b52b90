"""The service: agent runs streamed to front ends as AG-UI events over SSE (the ``server`` extra).

``create_app(agent)`` returns an ASGI app; ``make_server(app)`` the uvicorn server ``codeact
serve`` runs it with (JSON for uvicorn's own 400s, a header timeout, the drain on SIGTERM).
``open_store(url)`` opens a store by URL, ``check_store`` probes one before serving, and
``redact_url`` hides a URL's password.
"""

from typing import TYPE_CHECKING, Any

from codeact.server._app import AGUIServer
from codeact.server._asgi import create_app
from codeact.server._auth import Authenticate, Principal, bearer_token
from codeact.server._config import ServerConfig
from codeact.server._input import BadRequest
from codeact.server._open import check_store, open_store, redact_url
from codeact.server._sqlite import SQLiteStore
from codeact.server.store import MemoryStore, SessionStore
from codeact.server.translator import Translator

if TYPE_CHECKING:
    from codeact.server._postgres import PostgresStore
    from codeact.server._uvicorn import make_server


def __getattr__(name: str) -> Any:
    if name == "PostgresStore":  # (imports the PostgreSQL driver: only when asked for)
        from codeact.server._postgres import PostgresStore

        return PostgresStore
    if name == "make_server":  # (imports uvicorn: only when asked for)
        from codeact.server._uvicorn import make_server

        return make_server
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
    "check_store",
    "create_app",
    "make_server",
    "open_store",
    "redact_url",
]
