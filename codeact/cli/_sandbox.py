"""``codeact sandbox build|prune``: the Docker sandbox image and the containers left behind."""

from __future__ import annotations

import argparse
import subprocess
import sys
from typing import Any

from codeact.cli._common import EXIT_OK, EXIT_USAGE
from codeact.cli._sandbox_session import add_session_parsers, exec_command, shell_command
from codeact.errors import CodeActError


def add_parser(sub: Any) -> None:
    """Add ``sandbox build`` and ``sandbox prune`` to the subcommands."""
    sandbox = sub.add_parser(
        "sandbox", help="run code in a sandbox (exec, shell); the Docker image and containers"
    )
    sandbox_sub = sandbox.add_subparsers(dest="sandbox_command", required=True)
    build = sandbox_sub.add_parser("build", help="build the sandbox image (works offline)")
    build.add_argument("--base", default=None, help="base image (default python:3.11-slim)")
    build.add_argument("--force", action="store_true", help="rebuild even if it exists")
    sandbox_sub.add_parser("prune", help="remove sandbox containers left behind")
    add_session_parsers(sandbox_sub)


def sandbox_command(args: argparse.Namespace) -> int:
    """``codeact sandbox build|prune|exec|shell``."""
    if args.sandbox_command == "exec":
        return exec_command(args)
    if args.sandbox_command == "shell":
        return shell_command(args)
    try:
        if args.sandbox_command == "build":
            from codeact.executors.docker.image import DEFAULT_BASE, build

            print(build(args.base or DEFAULT_BASE, force=args.force))
            return EXIT_OK
        from codeact.executors.docker import docker_client, remove_sandboxes

        client = docker_client()
        try:
            removed = remove_sandboxes(client)
        finally:
            client.close()
        print(f"removed {removed} sandbox container(s)")
        return EXIT_OK
    except (CodeActError, OSError, subprocess.CalledProcessError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
