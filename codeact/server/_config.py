"""``ServerConfig``: every option of the service (``create_app(**options)``, ``codeact serve``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ag_ui.core import RunAgentInput

from codeact.server._auth import Authenticate
from codeact.server._gcpolicy import DEFAULT_THRESHOLD
from codeact.server.translator import AfterHook, BeforeHook

Resolver = Callable[[dict[str, Any]], str]


@dataclass
class ServerConfig:
    """Server options (see ``create_app``)."""

    path: str = "/"
    run_timeout: float = 3600.0
    cancel_on_disconnect: bool = False
    heartbeat_s: float | None = None
    #: A live run's reader writes at most this often (seconds): frames published meanwhile
    #: go out in one write. The first frame after a quiet spell goes at once, the terminal
    #: event without waiting; 0 writes each frame as it comes (one wake-up per event).
    stream_interval_s: float = 0.05
    #: While the app serves, the process's young-generation GC threshold (CPython: 700), with
    #: what exists at startup frozen out of collections (``gc.freeze``): fewer and shorter
    #: collections with many streams. 0 leaves the collector alone (an app that tunes it).
    gc_threshold: int = DEFAULT_THRESHOLD
    reasoning: bool = False
    activity: bool = False
    idle_close_s: float = 600.0
    #: Threads holding a live session (a context, with its sandbox) at once: past it the
    #: oldest idle session is closed to make room, and a new run gets 429 when all are busy
    #: (0: no limit).
    max_sessions: int = 64
    max_body_bytes: int = 10 * 1024 * 1024
    #: Entries accepted in a request's ``messages`` (and ``tools``, ``context``): counted
    #: before any validation, 413 past it. The server keeps the thread's history itself and
    #: reads only the new turn and the instructions of a request.
    max_messages: int = 10_000
    #: JSON nesting deeper than this is refused (400).
    max_json_depth: int = 64
    #: Seconds to receive a request body (408 after).
    body_timeout: float | None = 30.0
    #: Frames of a live run kept in memory for its readers (older ones, once stored, are
    #: read back from the store by readers that far behind).
    live_frames: int = 2048
    #: Seconds a store call may take before the server gives up on it (and logs).
    store_timeout: float = 30.0
    #: ``authenticate(request) -> Principal | None``: when set, the principal (not the body's
    #: ``userId``) owns the threads it creates; None answers 401.
    authenticate: Authenticate | None = None
    #: Accepted ``Host`` header names (None: loopback names only; ``["*"]``: any).
    allowed_hosts: Sequence[str] | None = None
    #: System/developer messages in a request: ``"honour"`` (instructions for that run) or
    #: ``"refuse"`` (400).
    system_messages: Literal["honour", "refuse"] = "honour"
    resolve_user: Resolver = lambda props: str(props.get("userId", "anonymous"))
    resolve_app: Resolver = lambda props: str(props.get("appName", "codeact"))
    #: Initial shared state of a new thread, from ``forwardedProps`` (None: none).
    resolve_initial_state: Callable[[dict[str, Any]], dict[str, Any] | None] = lambda props: None
    #: Extra ``run()`` options (e.g. ``{"max_iterations": 5}``) from ``forwardedProps``.
    resolve_run_options: Callable[[dict[str, Any]], dict[str, Any]] = lambda props: {}
    #: May rewrite the request before the run, or raise ``BadRequest`` to refuse it.
    input_hook: Callable[[RunAgentInput], RunAgentInput] | None = None
    #: Serve the playground page at ``/ui`` (``codeact serve --ui``).
    ui: bool = False
    before: list[BeforeHook] = field(default_factory=list)
    after: list[AfterHook] = field(default_factory=list)
