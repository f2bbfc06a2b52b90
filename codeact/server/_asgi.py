"""``create_app``: the routes, error handlers, middleware and lifespan around ``AGUIServer``."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from codeact.server import _http
from codeact.server._app import AGUIServer, Runnable
from codeact.server._config import ServerConfig
from codeact.server._input import BadRequest
from codeact.server._notebook import NotebookRoute
from codeact.server._playground import playground_routes
from codeact.server._sqlite import SQLiteStore
from codeact.server.store import SessionStore, StoreUnavailable


def create_app(
    agent: Runnable | Callable[[], Runnable],
    *,
    store: SessionStore | None = None,
    cors_origins: Sequence[str] = (),
    **options: Any,
) -> Starlette:
    """An ASGI app serving ``agent`` over AG-UI: ``POST {path}`` runs (SSE), ``POST /connect``,
    ``POST /cancel``, ``POST /history``, ``POST /notebook`` (the thread as a Jupyter notebook),
    ``POST /files/upload`` and ``/files/download``,
    ``GET /healthz`` (and the playground page at ``/ui`` with ``ui=True``). Options are
    ``ServerConfig`` fields.
    The default store is a SQLite file ``codeact-sessions.db`` in the working directory."""
    config = ServerConfig(**options)
    server = AGUIServer(agent, store or SQLiteStore("codeact-sessions.db"), config)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with server.running():
            yield

    app = Starlette(routes=_routes(server), lifespan=lifespan, exception_handlers=_HANDLERS)
    if cors_origins:
        from starlette.middleware.cors import CORSMiddleware

        app.add_middleware(
            CORSMiddleware,
            allow_origins=list(cors_origins),
            allow_methods=["POST", "GET"],
            allow_headers=["*"],
        )
    app.add_middleware(
        _http.Guard, allowed_hosts=config.allowed_hosts, cors_origins=list(cors_origins)
    )
    app.state.server = server
    return app


def _routes(server: AGUIServer) -> list[BaseRoute]:
    path = server.config.path
    base = path.rstrip("/")
    return [
        *playground_routes(server, server.config.ui),  # /files/*, and /ui: _playground.py
        Route(path, server.run_route, methods=["POST"]),
        Route(f"{base}/connect", server.connect_route, methods=["POST"]),
        Route(f"{base}/cancel", server.cancel_route, methods=["POST"]),
        Route(f"{base}/history", server.history_route, methods=["POST"]),
        Route(f"{base}/notebook", NotebookRoute(server).handle, methods=["POST"]),
        Route(f"{base}/healthz", server.healthz, methods=["GET"]),
    ]


async def _bad_request(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, BadRequest)
    return _http.bad_request_response(exc)


async def _store_unavailable(request: Request, exc: Exception) -> Response:
    _http.log.warning(
        "%s %s: the session store is unavailable: %s", request.method, request.url.path, exc
    )
    return _http.error_response(503, "the session store is unavailable; retry shortly")


_HANDLERS: dict[Any, Any] = {
    BadRequest: _bad_request,
    StoreUnavailable: _store_unavailable,
    HTTPException: _http.http_exception_handler,
    Exception: _http.internal_error_handler,
}
