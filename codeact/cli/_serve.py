"""``codeact serve``: its options and how they become the app and the uvicorn server."""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys
from pathlib import Path
from typing import Any

from codeact.cli._common import (
    EXIT_USAGE,
    add_mcp_config_option,
    add_os_sandbox_option,
    add_ray_option,
    add_session_limit_options,
    make_llm,
    read_mcp_config,
    reap_crashed_sessions,
    sandbox_spec,
)
from codeact.cli._sizing import session_budget
from codeact.errors import UserError

TOKEN_ENV = "CODEACT_SERVE_TOKEN"
LOOPBACK = ("127.0.0.1", "localhost", "::1")


def add_parser(sub: Any) -> None:
    """Add ``serve`` and its options to the subcommands."""
    serve = sub.add_parser("serve", help="serve an agent to front ends over AG-UI (SSE)")
    serve.add_argument(
        "--agent",
        default=None,
        metavar="MODULE:FACTORY",
        help="a callable returning your agent or workflow (default: a CodeActAgent "
        "with the configured model and the process-isolated restricted executor)",
    )
    add_serve_options(serve)


def add_serve_options(serve: argparse.ArgumentParser) -> None:
    """The options of ``codeact serve`` after ``--agent``."""
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--model", default=None, help="as for `codeact run` (default: local)")
    add_mcp_config_option(serve)
    add_os_sandbox_option(
        serve, "OS sandbox around the default agent's sandbox worker, as for `codeact run`"
    )
    serve.add_argument(
        "--executor",
        choices=["restricted", "ray"],
        default="restricted",
        help="the default agent's sandbox: restricted (on this machine, default) or ray "
        "(on the nodes of the Ray cluster --ray; several replicas may share one)",
    )
    add_ray_option(serve)
    serve.add_argument(
        "--db",
        default="codeact-sessions.db",
        help="where sessions are kept: a SQLite file (or sqlite:///path), or postgresql://... "
        "shared by several replicas",
    )
    serve.add_argument("--path", default="/", help="the run route (others hang below it)")
    serve.add_argument("--cors", default="", help="allowed origins, comma-separated")
    serve.add_argument(
        "--token-file",
        default=None,
        help=f"require 'Authorization: Bearer <token>' with the token in this file "
        f"(or set {TOKEN_ENV}); without a token the server binds loopback only",
    )
    serve.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        help="a Host header name to accept (repeatable; default: loopback names and --host)",
    )
    _add_run_options(serve)
    _add_db_options(serve)


# -- store options (PostgreSQL pool and replica lease) -------------------------------------------
def _add_db_options(serve: argparse.ArgumentParser) -> None:
    db = serve.add_argument_group("PostgreSQL store (--db postgresql://...)")
    db.add_argument("--db-pool-min", type=int, default=None, help="pooled connections kept open")
    db.add_argument("--db-pool-max", type=int, default=None, help="pooled connections at most")
    db.add_argument(
        "--db-timeout", type=float, default=None, help="seconds to wait for a pooled connection"
    )
    db.add_argument(
        "--replica-lease",
        type=float,
        default=None,
        help="seconds without a heartbeat after which a replica counts as dead (its live runs "
        "are marked interrupted by the others)",
    )


def open_serve_store(args: argparse.Namespace) -> Any:
    """The store ``--db`` names, with the pool options given (for PostgreSQL)."""
    from codeact.server import open_store

    pg = {
        "min_size": args.db_pool_min,
        "max_size": args.db_pool_max,
        "timeout": args.db_timeout,
        "lease_s": args.replica_lease,
    }
    return open_store(args.db, **pg)


def serve_command(args: argparse.Namespace) -> int:
    """``codeact serve``: run the AG-UI server with uvicorn."""
    try:
        import uvicorn  # noqa: F401

        import codeact.server  # noqa: F401
    except ImportError as exc:
        print(
            f"error: the server needs its extra: pip install 'codeact[server]' ({exc})",
            file=sys.stderr,
        )
        return EXIT_USAGE
    if args.agent and getattr(args, "mcp_config", None):
        print(
            "error: --mcp-config configures the default agent; give your agent "
            "mcp_servers=codeact.mcp.load_mcp_config(FILE) instead",
            file=sys.stderr,
        )
        return EXIT_USAGE
    if args.agent:
        module_name, _, attr = args.agent.partition(":")
        try:
            factory = getattr(importlib.import_module(module_name), attr or "agent")
        except (ImportError, AttributeError) as exc:
            print(f"error: cannot load --agent {args.agent}: {exc}", file=sys.stderr)
            return EXIT_USAGE
    else:
        try:
            make_llm(args.model, say=print)  # a bad --model fails now, not at the first run
            args.mcp_servers = read_mcp_config(getattr(args, "mcp_config", None))
            factory = _default_factory(args)
        except UserError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return EXIT_USAGE
    reap_crashed_sessions(say=lambda msg: print(msg, file=sys.stderr, flush=True))
    if getattr(args, "executor", "restricted") == "ray":
        try:  # before the signal handlers (ray.init replaces SIGTERM's)
            args.cluster_memory_mb = _connect_cluster(args.ray)
        except UserError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return EXIT_USAGE
    return serve_app(args, factory)


def _connect_cluster(address: str | None) -> int:
    """Connect to the Ray cluster of ``--executor ray``; its memory in MB (the budget's base)."""
    from codeact.executors.ray import cluster_memory_mb, connect_ray

    return cluster_memory_mb(connect_ray(address))


def _default_factory(args: argparse.Namespace) -> Any:
    """A CodeActAgent with the configured model and the process-isolated restricted sandbox
    (a new model adapter for each agent, as the model spec describes)."""
    from codeact.agents.code import CodeActAgent

    spec = sandbox_spec(args)  # the sandbox options of `codeact run`, less --isolation/--allow
    summary, warning = spec.describe()
    print(summary, flush=True)
    if warning:
        print(f"warning: {warning}", file=sys.stderr, flush=True)

    def factory() -> Any:
        return CodeActAgent(
            llm=make_llm(args.model, say=print),
            executor=spec,
            mcp_servers=getattr(args, "mcp_servers", []),
        )

    return factory


def _add_run_options(serve: argparse.ArgumentParser) -> None:
    serve.add_argument("--heartbeat", type=float, default=15.0, help="SSE keep-alive seconds")
    serve.add_argument(
        "--stream-interval",
        type=float,
        default=0.05,
        help="seconds between a stream's writes: events that come meanwhile go out together "
        "(the run's end at once; 0: each event as it comes)",
    )
    serve.add_argument(
        "--gc-threshold",
        type=int,
        default=None,
        help="the garbage collector's young-generation threshold while serving (default "
        "10000; Python's is 700), with startup objects frozen out of collections: fewer "
        "pauses with many streams (0: Python's collector as it is)",
    )
    serve.add_argument("--run-timeout", type=float, default=3600.0, help="seconds (0 = none)")
    serve.add_argument("--cancel-on-disconnect", action="store_true")
    serve.add_argument(
        "--drain-timeout",
        type=float,
        default=30.0,
        help="on SIGTERM: seconds live runs may take to finish before they are cancelled",
    )
    serve.add_argument("--max-body-bytes", type=int, default=10 * 1024 * 1024)
    serve.add_argument("--max-json-depth", type=int, default=64, help="deeper bodies get 400")
    serve.add_argument(
        "--store-timeout", type=float, default=30.0, help="seconds a session-store call may take"
    )
    serve.add_argument("--body-timeout", type=float, default=30.0, help="seconds to send a body")
    serve.add_argument(
        "--header-timeout", type=float, default=10.0, help="seconds to send request headers"
    )
    serve.add_argument(
        "--idle-close",
        type=float,
        default=600.0,
        help="seconds before an idle thread's sandbox is closed",
    )
    serve.add_argument(
        "--max-sessions",
        type=int,
        default=None,
        help="threads holding a live session (sandbox) at once; the oldest idle one makes room, "
        "and a new run gets 429 (Retry-After) when all are busy (0 = no limit). Default: as "
        "many sandboxes as fit in --memory-budget (sessions without one: 16 times that, at "
        "least 1024)",
    )
    serve.add_argument(
        "--memory-budget",
        type=int,
        default=None,
        metavar="MB",
        help="memory all sessions together may hold; each counts --session-memory plus "
        "--session-disk. Default: 75%% of this machine's memory (or of the server's cgroup limit)",
    )
    add_session_limit_options(serve)
    serve.add_argument("--reasoning", action="store_true", help="stream REASONING_* events")
    serve.add_argument("--activity", action="store_true", help="stream code output as ACTIVITY")
    serve.add_argument(
        "--system-messages",
        choices=["honour", "refuse"],
        default="honour",
        help="system/developer messages sent by callers: use them for the run, or refuse (400)",
    )
    serve.add_argument("--access-log", action="store_true", help="log every request")
    serve.add_argument(
        "--ui", action="store_true", help="also serve the playground page at /ui (open it)"
    )


def read_token(args: argparse.Namespace) -> str | None:
    """The bearer token from ``--token-file`` or the environment (None: no authentication)."""
    if args.token_file:
        token = Path(args.token_file).read_text().strip()
        if not token:
            raise ValueError(f"the token file {args.token_file} is empty")
        return token
    return os.environ.get(TOKEN_ENV, "").strip() or None


def _bind_host(host: str, token: str | None) -> str:
    if token is None and host not in LOOPBACK:
        print(
            f"warning: no --token-file (or {TOKEN_ENV}) given: binding 127.0.0.1 only, not "
            f"{host}. Anyone who can reach an unauthenticated server can run code on it.",
            file=sys.stderr,
        )
        return "127.0.0.1"
    return host


def serve_app(args: argparse.Namespace, factory: Any) -> int:
    """Build the app from the options and run it until SIGTERM/SIGINT (then drain)."""
    from codeact.errors import UserError
    from codeact.server import (
        SQLiteStore,
        bearer_token,
        check_store,
        create_app,
        make_server,
        redact_url,
    )
    from codeact.server.store import SchemaError, StoreLocked, StoreUnavailable

    logging.basicConfig(
        level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    try:
        token = read_token(args)
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    host = _bind_host(args.host, token)
    hosts = [*LOOPBACK, *args.allowed_host]
    if host not in ("0.0.0.0", "::"):
        hosts.append(host)
    try:
        store = open_serve_store(args)
        if isinstance(store, SQLiteStore):
            store.acquire()  # one server per database file
        else:
            check_store(lambda: open_serve_store(args))  # reachable, schema usable
    except (StoreLocked, OSError, UserError, StoreUnavailable, SchemaError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    budget_lines: list[str] = []
    app = create_app(
        factory,
        store=store,
        cors_origins=[o for o in args.cors.split(",") if o],
        path=args.path,
        heartbeat_s=args.heartbeat or None,
        stream_interval_s=max(0.0, args.stream_interval),
        **({} if args.gc_threshold is None else {"gc_threshold": max(0, args.gc_threshold)}),
        run_timeout=args.run_timeout,
        cancel_on_disconnect=args.cancel_on_disconnect,
        authenticate=bearer_token(token) if token else None,
        allowed_hosts=hosts,
        max_body_bytes=args.max_body_bytes,
        max_json_depth=args.max_json_depth,
        store_timeout=args.store_timeout,
        body_timeout=args.body_timeout or None,
        idle_close_s=args.idle_close,
        max_sessions=session_budget(args, say=budget_lines.append),
        reasoning=args.reasoning,
        activity=args.activity or args.ui,  # the playground shows output live
        system_messages=args.system_messages,
        ui=args.ui,
    )
    auth = "bearer token required" if token else "no authentication (loopback only)"
    db = redact_url(args.db)
    print(
        f"codeact AG-UI server on http://{host}:{args.port}{args.path} "
        f"(POST to run; /connect, /cancel, /history, GET /healthz; sessions in {db}; "
        f"{auth})",
        flush=True,
    )
    for line in budget_lines:  # after the address line, which tools read first
        print(line, flush=True)
    if args.ui:
        print(f"playground: open http://{host}:{args.port}/ui/", flush=True)
    server = make_server(
        app,
        host=host,
        port=args.port,
        drain_timeout=args.drain_timeout,
        header_timeout=args.header_timeout,
        access_log=args.access_log,
    )
    return _run_until_signal(server)


class _Stopped(Exception):
    def __init__(self, signum: int) -> None:
        self.signum = signum


def _run_until_signal(server: Any) -> int:
    """Serve until SIGINT/SIGTERM; uvicorn drains, then raises the signal again after putting
    back the handlers it found: these turn it into the exit code (130, 143), no traceback."""
    import signal

    from codeact._signals import exit_code

    def stop(signum: int, _frame: Any) -> None:
        raise _Stopped(signum)

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        server.run()
    except _Stopped as stopped:
        print("stopped: live runs drained or cancelled", file=sys.stderr, flush=True)
        return exit_code(stopped.signum)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return 0
