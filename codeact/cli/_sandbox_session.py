"""The sandbox with no model in the loop: ``codeact sandbox exec script.py`` runs a script in a
fresh sandbox (the one ``codeact run`` would use: same guards, limits and modules) and streams
its output; ``codeact sandbox shell`` is an interactive prompt in one sandbox session, whose
variables persist between inputs.

Shell commands: ``%upload LOCAL [NAME]`` puts a file in the working directory, ``%download
NAME [LOCAL]`` takes one out, ``%reset`` starts the session afresh, ``%exit`` (or Ctrl-D) ends.
"""

from __future__ import annotations

import argparse
import codeop
import contextlib
import shlex
import sys
import warnings
from pathlib import Path
from typing import Any

import anyio

from codeact._signals import exit_code, interruptible
from codeact.cli._common import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_TIMEOUT,
    EXIT_USAGE,
    add_sandbox_options,
    reap_crashed_sessions,
    sandbox_spec,
)
from codeact.errors import CodeActError


def add_session_parsers(sandbox_sub: Any) -> None:
    """Add ``sandbox exec`` and ``sandbox shell``."""
    ex = sandbox_sub.add_parser("exec", help="run a Python script in a fresh sandbox")
    ex.add_argument("script", help="the script (- for stdin)")
    ex.add_argument("--file", "-f", action="append", default=[], metavar="PATH",
                    help="a file to put in the working directory first (repeatable)")  # fmt: skip
    ex.add_argument("--timeout", type=float, default=600, help="seconds (default 600)")
    add_sandbox_options(ex)
    shell = sandbox_sub.add_parser("shell", help="an interactive Python prompt in a sandbox")
    shell.add_argument("--timeout", type=float, default=600, help="seconds per input")
    add_sandbox_options(shell)


def _executor(args: argparse.Namespace) -> Any:
    spec = sandbox_spec(args, cell_timeout=args.timeout)
    reap_crashed_sessions(lambda msg: print(msg, file=sys.stderr))
    summary, warning = spec.describe()
    print(summary, file=sys.stderr)
    if warning:
        print(f"warning: {warning}", file=sys.stderr)
    return spec()


def _write(stream: str, text: str) -> None:
    out = sys.stderr if stream == "stderr" else sys.stdout
    out.write(text)
    out.flush()


def _outcome(result: Any) -> int:
    if result.timed_out:
        print(f"timed out (--timeout {result.duration_s:.0f} s)", file=sys.stderr)
        return EXIT_TIMEOUT
    if result.error is not None:
        print(result.error.traceback or f"{result.error.type}: {result.error.message}",
              file=sys.stderr)  # fmt: skip
        return EXIT_FAILED
    return EXIT_OK


def exec_command(args: argparse.Namespace) -> int:
    """``codeact sandbox exec``: 0 when the script ran, 1 when it raised, 3 on timeout."""
    try:
        code = sys.stdin.read() if args.script == "-" else Path(args.script).read_text()
        files = {Path(f).name: Path(f).read_bytes() for f in args.file}
        executor = _executor(args)
    except (OSError, CodeActError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE

    async def run() -> int:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the sandbox line said it
                async with executor:
                    for name, data in files.items():
                        await executor.upload(name, data)
                    result = await executor.execute(code, on_output=_write)
        except CodeActError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return EXIT_USAGE
        return _outcome(result)

    async def main() -> int:
        code_, signum = await interruptible(run)
        return exit_code(signum) if signum is not None else int(code_ or 0)

    return anyio.run(main)


def shell_command(args: argparse.Namespace) -> int:
    """``codeact sandbox shell``: read inputs, run each in the same session."""
    from anyio.from_thread import start_blocking_portal

    with contextlib.suppress(ImportError):  # not on every platform
        import readline  # noqa: F401  (line editing and history for input())
    try:
        executor = _executor(args)
    except CodeActError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    print("Python in the sandbox. %upload LOCAL [NAME], %download NAME [LOCAL], %reset, "
          "%exit or Ctrl-D.", file=sys.stderr)  # fmt: skip
    with start_blocking_portal() as portal:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                portal.call(executor.start)
            _loop(portal, executor)
        except CodeActError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return EXIT_USAGE
        finally:
            portal.call(executor.aclose)
    return EXIT_OK


def _loop(portal: Any, executor: Any) -> None:
    lines: list[str] = []
    while True:
        try:
            line = input("... " if lines else ">>> ")
        except EOFError:
            print(file=sys.stderr)
            return
        except KeyboardInterrupt:
            print("\nKeyboardInterrupt", file=sys.stderr)
            lines = []
            continue
        if not lines and line.strip().startswith("%"):
            if _command(portal, executor, line.strip()):
                return
            continue
        lines.append(line)
        source = "\n".join(lines)
        try:
            if codeop.compile_command(source, "<input>", "exec") is None:
                continue  # an incomplete statement: read more
        except SyntaxError:
            pass  # the sandbox reports it like any other error
        lines = []
        _run_cell(portal, executor, source)


def _run_cell(portal: Any, executor: Any, source: str) -> None:
    future = portal.start_task_soon(lambda: executor.execute(source, on_output=_write))
    try:
        result = future.result()
    except KeyboardInterrupt:
        future.cancel()
        print("\nKeyboardInterrupt", file=sys.stderr)
        return
    if result.value is not None and result.error is None:
        print(result.value)
    _outcome(result)


def _command(portal: Any, executor: Any, line: str) -> bool:
    """Run a %command; True to end the shell."""
    words = shlex.split(line)
    name, rest = words[0], words[1:]
    try:
        if name in ("%exit", "%quit"):
            return True
        if name == "%reset":
            portal.call(executor.reset)
        elif name == "%upload" and rest:
            target = rest[1] if len(rest) > 1 else Path(rest[0]).name
            portal.call(executor.upload, target, Path(rest[0]).read_bytes())
            print(f"uploaded {rest[0]} as {target}", file=sys.stderr)
        elif name == "%download" and rest:
            data = portal.call(executor.download, rest[0])
            local = Path(rest[1] if len(rest) > 1 else Path(rest[0]).name)
            local.write_bytes(data)
            print(f"downloaded {rest[0]} to {local} ({len(data)} bytes)", file=sys.stderr)
        else:
            print("commands: %upload LOCAL [NAME], %download NAME [LOCAL], %reset, %exit",
                  file=sys.stderr)  # fmt: skip
    except (OSError, CodeActError, NotImplementedError) as exc:
        print(f"error: {exc}", file=sys.stderr)
    return False
