"""The playground: a page at ``/ui`` (files shipped in ``codeact/playground/static``) and the
file routes it uses to move files in and out of a thread's sandbox.

Routes (below the run path's base, like ``/history``):

- ``GET /ui/`` — the page (static, bundled: nothing is fetched from the internet). It carries no
  secret: with a bearer token the page asks for it and sends it like any client.
  ``GET /ui/config.json`` tells it the run path and whether a token is needed.
- ``POST {base}/files/upload`` — ``{"threadId", "name", "data": <base64>, "forwardedProps"?}``
  writes the file into the thread's sandbox (``name`` relative to its working directory).
  At most ``max_upload_bytes`` decoded (413 past it). Answers ``{"name", "size"}``.
- ``POST {base}/files/download`` — ``{"threadId", "path", "forwardedProps"?}`` answers the
  file's bytes (``application/octet-stream``, as an attachment).

Both are JSON requests (so the Guard's Content-Type and Origin checks apply as for every other
route), authenticated by the server's hook and confined to the caller's own threads. A file
cannot be uploaded while the thread has a run in progress (409).
"""

from __future__ import annotations

import base64
import binascii
from importlib import resources
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from codeact.errors import CodeActError
from codeact.server import _turns
from codeact.server._input import BadRequest
from codeact.server._ownership import principal_id

if TYPE_CHECKING:
    from codeact.context import Context
    from codeact.executors.base import CodeExecutor
    from codeact.server._app import AGUIServer
    from codeact.server._sessions import ThreadSession

#: Uploads larger than this (decoded) are refused with 413.
MAX_UPLOAD_BYTES = 5 * 1024 * 1024
#: Downloads larger than this are refused with 413.
MAX_DOWNLOAD_BYTES = 20 * 1024 * 1024
UI_PATH = "/ui"
#: The page may load only its own files; images come as data: URLs, downloads as blob: URLs.
CSP = (
    "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; script-src 'self'; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
)

__all__ = ["MAX_UPLOAD_BYTES", "UI_PATH", "playground_routes", "static_dir"]


def static_dir() -> Path:
    """The folder of the built page (inside the installed package)."""
    return Path(str(resources.files("codeact.playground") / "static"))


def playground_routes(server: AGUIServer, ui: bool) -> list[BaseRoute]:
    """The file routes, and the page itself when ``ui``."""
    base = server.config.path.rstrip("/")
    files = _FileRoutes(server)
    routes: list[BaseRoute] = [
        Route(f"{base}/files/upload", files.upload, methods=["POST"]),
        Route(f"{base}/files/download", files.download, methods=["POST"]),
    ]
    if ui:
        static = static_dir()
        if not (static / "index.html").is_file():
            raise CodeActError(f"the playground's files are missing from {static}")

        async def to_page(request: Request) -> Response:
            return RedirectResponse(UI_PATH + "/", status_code=307)

        async def config(request: Request) -> Response:
            """What the page needs before its first request: the run path, and whether it
            must ask for a token (so it never learns it from a 401)."""
            auth = server.config.authenticate is not None
            return JSONResponse({"path": server.config.path, "auth": auth})

        routes += [
            Route(UI_PATH, to_page, methods=["GET"]),
            Route(f"{UI_PATH}/config.json", config, methods=["GET"]),
            Mount(UI_PATH, app=_Page(directory=static, html=True), name="playground"),
        ]
    return routes


class _Page(StaticFiles):
    """Static files with a strict Content-Security-Policy and no caching of the HTML."""

    async def get_response(self, path: str, scope: Any) -> Response:
        response = await super().get_response(path, scope)
        response.headers["Content-Security-Policy"] = CSP
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"
        if not path.startswith("assets"):
            response.headers["Cache-Control"] = "no-cache"
        return response


class _FileRoutes:
    def __init__(self, server: AGUIServer) -> None:
        self.server = server

    async def _thread(self, request: Request) -> tuple[dict[str, Any], ThreadSession]:
        """The body and the caller's thread context (404 for someone else's thread)."""
        server = self.server
        who = await server.principal(request)
        data, thread_id = _turns.thread_request(await server.read_json(request))
        key = server.key(data.get("forwardedProps"), thread_id, who)
        ownership, user = server.ownership, principal_id(who)
        if not await ownership.allows(key, user):
            raise BadRequest(404, f"no thread {thread_id!r}")
        if server.runs.of(key) is not None:
            raise BadRequest(409, f"thread {thread_id!r} has a run in progress; wait for it")
        if user is not None and await ownership.owner(key) is None:
            # a new thread: the uploader creates it and owns it, in the store (on every
            # replica and after a restart), as a first message would
            await server.store.save_messages(key, [])
            ownership.record(key, user)
        session = await server.sessions.load(key, data.get("forwardedProps"))
        return data, session

    async def upload(self, request: Request) -> Response:
        data, session = await self._thread(request)
        name = _relative(data.get("name"), "name")
        raw = data.get("data")
        if not isinstance(raw, str):
            raise BadRequest(400, "data (the file's bytes in base64) is required")
        if len(raw) > (MAX_UPLOAD_BYTES * 4) // 3 + 4:
            raise BadRequest(413, f"the file is larger than {MAX_UPLOAD_BYTES} bytes")
        try:
            content = base64.b64decode(raw, validate=True)
        except (binascii.Error, ValueError):
            raise BadRequest(400, "data is not valid base64") from None
        if len(content) > MAX_UPLOAD_BYTES:
            raise BadRequest(413, f"the file is larger than {MAX_UPLOAD_BYTES} bytes")
        executor = await _executor(self.server, session.ctx)
        try:
            await executor.upload(name, content)
        except (OSError, ValueError, CodeActError) as exc:
            raise BadRequest(400, f"the file could not be written: {exc}") from None
        session.uploads[name] = len(content)
        return JSONResponse({"name": name, "size": len(content)})

    async def download(self, request: Request) -> Response:
        data, session = await self._thread(request)
        path = _relative(data.get("path"), "path")
        executor = await _executor(self.server, session.ctx)
        try:
            content = await executor.download(path)
        except (OSError, ValueError, CodeActError) as exc:
            raise BadRequest(404, f"no file {path!r} in the thread's sandbox ({exc})") from None
        if len(content) > MAX_DOWNLOAD_BYTES:
            raise BadRequest(413, f"the file is larger than {MAX_DOWNLOAD_BYTES} bytes")
        filename = PurePosixPath(path).name.replace('"', "")
        return Response(
            content,
            media_type="application/octet-stream",
            headers={
                "Content-Disposition": f'attachment; filename="{filename}"',
                "X-Content-Type-Options": "nosniff",
            },
        )


def _relative(value: Any, what: str) -> str:
    """A relative path without ``..`` (the executor checks it again against its folder)."""
    if not isinstance(value, str) or not value.strip():
        raise BadRequest(400, f"{what} (a relative file path) is required")
    path = PurePosixPath(value.replace("\\", "/"))
    if path.is_absolute() or ".." in path.parts or len(value) > 255 or "\x00" in value:
        raise BadRequest(400, f"{what} must be a relative path inside the sandbox")
    return str(path)


async def _executor(server: AGUIServer, ctx: Context) -> CodeExecutor:
    """The thread's sandbox (its CodeAct agent's executor session). Before the thread's first
    run the agent is activated first, so its tools are bound before the sandbox starts."""
    from codeact.agents.code import CodeActAgent
    from codeact.agents.workflow import AgentWorkflow

    agent: Any = server.agent
    if isinstance(agent, AgentWorkflow):
        name = ctx.current_agent_name or agent.root_agent
        agent = agent.agents[name]
        if not any(key.startswith("executor:") for key in ctx.resources):
            raise BadRequest(409, "send a first message before uploading files to this thread")
    if not isinstance(agent, CodeActAgent):
        raise BadRequest(404, "this agent runs no code: it has no sandbox for files")
    if f"executor:{agent.name}" not in ctx.resources:
        await agent.on_activate(ctx, agent.tools_for_run())
    return agent.executor_for(ctx)
