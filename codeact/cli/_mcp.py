"""``codeact mcp``: the sandbox as an MCP server (``run_python``, ``upload_file``,
``download_file``) over stdio or Streamable HTTP, with the sandbox defaults of ``serve``."""

from __future__ import annotations

import argparse
import contextlib
import sys
from typing import Any

import anyio

from codeact.cli._common import (
    EXIT_OK,
    EXIT_USAGE,
    add_os_sandbox_option,
    sandbox_spec,
)
from codeact.errors import UserError


def add_parser(sub: Any) -> None:
    """Add ``mcp`` and its options to the subcommands."""
    mcp = sub.add_parser("mcp", help="serve the Python sandbox to MCP clients (run_python)")
    mcp.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    mcp.add_argument("--host", default="127.0.0.1", help="for --transport http")
    mcp.add_argument("--port", type=int, default=8765, help="for --transport http (path /mcp)")
    mcp.add_argument("--cell-timeout", type=float, default=60, help="seconds per run_python")
    mcp.add_argument("--max-sessions", type=int, default=16, help="sandboxes alive at once")
    add_os_sandbox_option(mcp, "OS sandbox around each session's worker, as for `codeact serve`")


def mcp_command(args: argparse.Namespace) -> int:
    """Serve until the client goes away (stdio) or the process is stopped (http)."""
    try:
        from codeact.mcp.server import SandboxSessions, build_server
    except ImportError as exc:  # pragma: no cover - without the extra
        print(f"error: needs the MCP SDK: pip install 'codeact[mcp]' ({exc})", file=sys.stderr)
        return EXIT_USAGE
    try:
        spec = sandbox_spec(args)
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    summary, warning = spec.describe()  # stderr only: stdout is the protocol's on stdio
    print(summary, file=sys.stderr, flush=True)
    if warning:
        print(f"warning: {warning}", file=sys.stderr, flush=True)
    sessions = SandboxSessions(spec, max_sessions=args.max_sessions)
    server = build_server(sessions, cell_timeout=args.cell_timeout)

    async def main() -> None:
        try:
            if args.transport == "stdio":
                await server.run_stdio_async()
            else:
                await server.run_streamable_http_async(host=args.host, port=args.port)
        finally:
            with anyio.CancelScope(shield=True):
                await sessions.aclose()

    with contextlib.suppress(KeyboardInterrupt):
        anyio.run(main)
    return EXIT_OK
