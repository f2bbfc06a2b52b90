"""The ``codeact`` command: ``run`` a data task, ``batch`` many of them, ``serve`` an agent,
``sandbox build|prune``, ``doctor`` to check the installation.

Exit codes: 0 answered; 1 the run failed (model error, step limit); 2 usage or setup error;
3 timed out; 130 interrupted (Ctrl-C); 143 terminated (SIGTERM). Either signal stops the
work cleanly first (runs cancelled, sandboxes removed, a server drained).

Layout: this module builds the parser and dispatches; each subcommand lives in its own module
(``_run``, ``_batch``, ``_serve``, ``_sandbox``, ``_doctor``, ``_mcp``), and what they share is
in ``_common``, which imports none of them.
"""

from __future__ import annotations

import argparse
import sys

from codeact import __version__
from codeact.cli import _batch, _doctor, _mcp, _run, _sandbox, _serve
from codeact.cli._common import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_TIMEOUT,
    EXIT_USAGE,
)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``codeact`` console script (and ``python -m codeact``)."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return EXIT_USAGE
    commands = {
        "run": _run.run_command,
        "batch": _batch.main,
        "sandbox": _sandbox.sandbox_command,
        "serve": _serve.serve_command,
        "doctor": _doctor.doctor,
        "mcp": _mcp.mcp_command,
    }
    try:
        return commands[args.command](args)
    except KeyboardInterrupt:
        print("\nInterrupted.", file=sys.stderr)
        return EXIT_INTERRUPTED


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="codeact", description="Agents that solve tasks by writing and running Python."
    )
    p.add_argument("--version", action="version", version=f"codeact {__version__}")
    sub = p.add_subparsers(dest="command")
    for command in (_run, _batch, _doctor, _serve, _mcp, _sandbox):  # the order of --help
        command.add_parser(sub)
    return p


__all__ = [
    "EXIT_FAILED",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_TIMEOUT",
    "EXIT_USAGE",
    "main",
]
