"""The service: agent runs streamed to front ends as AG-UI events over SSE (the ``server`` extra).

``create_app(agent)`` returns an ASGI app; ``codeact serve`` runs one with uvicorn.
"""

from codeact.server._app import AGUIServer
from codeact.server._asgi import create_app
from codeact.server._auth import Authenticate, Principal, bearer_token
from codeact.server._config import ServerConfig
from codeact.server._input import BadRequest
from codeact.server.store import MemoryStore, SessionStore, SQLiteStore
from codeact.server.translator import Translator

__all__ = [
    "AGUIServer",
    "Authenticate",
    "BadRequest",
    "MemoryStore",
    "Principal",
    "SQLiteStore",
    "ServerConfig",
    "SessionStore",
    "Translator",
    "bearer_token",
    "create_app",
]
