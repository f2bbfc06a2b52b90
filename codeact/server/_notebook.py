"""``POST {base}/notebook``: a thread as a Jupyter notebook (``codeact.notebooks``).

The body is ``{"threadId", "forwardedProps"?}`` as for ``/history``, with the same rules: the
server's authentication hook, and a thread that belongs to another principal is a 404. The
answer is the ``.ipynb`` (``application/x-ipynb+json``, as an attachment); 404 when the thread
has no messages. The notebook lists the files uploaded to the thread through this process.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import Response

from codeact.errors import UserError
from codeact.server import _turns
from codeact.server._input import BadRequest

if TYPE_CHECKING:
    from codeact.context import Context
    from codeact.server._app import AGUIServer

__all__ = ["NotebookRoute", "agent_labels"]


def agent_labels(agent: Any, ctx: Context | None) -> tuple[str, str]:
    """``(model, executor)`` of a served agent (a workflow: each agent's, joined)."""
    agents = list(getattr(agent, "agents", {}).values()) or [agent]
    models = []
    for a in agents:
        meta = getattr(getattr(a, "llm", None), "metadata", None)
        name = getattr(meta, "model_name", None)
        if isinstance(name, str) and name not in models:
            models.append(name)
    executors = []
    for key, held in ctx.resources.items() if ctx is not None else []:
        if key.startswith("executor:"):
            kind = getattr(held.resource, "name", "") or type(held.resource).__name__
            if kind not in executors:
                executors.append(kind)
    return ", ".join(models) or "unknown", ", ".join(executors) or "unknown"


class NotebookRoute:
    """The route's handler (needs the server for identity, keys and the store)."""

    def __init__(self, server: AGUIServer) -> None:
        self.server = server

    async def handle(self, request: Request) -> Response:
        """Answer one request for a thread's notebook."""
        from codeact.notebooks import notebook_json, to_notebook

        server = self.server
        who = await server.principal(request)
        data, thread_id = _turns.thread_request(await server.read_json(request))
        key = server.key(data.get("forwardedProps"), thread_id, who)
        messages = await server.thread_messages(key, thread_id, who)
        if not messages:
            raise BadRequest(404, f"no thread {thread_id!r}")
        session = server.sessions.get(key)
        model, executor = agent_labels(server.agent, session.ctx if session else None)
        uploads = dict(session.uploads) if session else {}

        def build() -> str:
            nb = to_notebook(
                messages,
                files=uploads,
                model=model,
                executor=executor,
                metadata={"thread_id": thread_id},
            )
            return notebook_json(nb)

        try:
            text = await anyio.to_thread.run_sync(build)
        except UserError as exc:  # nbformat is missing on this server
            raise BadRequest(501, str(exc)) from None
        name = re.sub(r"[^A-Za-z0-9._-]+", "_", thread_id)[:80].strip("._") or "thread"
        return Response(
            text.encode("utf-8"),
            media_type="application/x-ipynb+json",
            headers={
                "Content-Disposition": f'attachment; filename="{name}.ipynb"',
                "X-Content-Type-Options": "nosniff",
                "Cache-Control": "no-store",
            },
        )
