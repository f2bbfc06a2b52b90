"""What the ``codeact`` subcommands share: exit codes, JSON output, the model and the sandbox
(its options; ``codeact.executors.SandboxSpec`` builds it).

This module imports no other ``codeact.cli`` module (the commands import it, never the reverse).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from typing import Any

from codeact.executors import SandboxSpec
from codeact.llms import LLM, infer_llm

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_TIMEOUT, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
MODEL_ENV = "CODEACT_MODEL"
MODEL_HELP = (
    "'local' (embedded model), a model name on an OpenAI-compatible server "
    "(OPENAI_BASE_URL), or scripted:FILE.json for tests. Default: CODEACT_MODEL "
    "if set, else local"
)


def add_os_sandbox_option(parser: argparse.ArgumentParser, help: str) -> None:
    """The ``--os-sandbox`` option of ``run`` and ``serve``."""
    parser.add_argument(
        "--os-sandbox", choices=["auto", "bwrap", "none"], default="auto", help=help
    )


SESSION_MEMORY_MB, SESSION_DISK_MB = SandboxSpec.memory_mb, SandboxSpec.disk_mb
SESSION_CPUS = SandboxSpec.cpus or 0.0


def add_sandbox_options(parser: argparse.ArgumentParser) -> None:
    """The options that choose the sandbox (``--executor``, ``--isolation``, ``--allow``,
    ``--os-sandbox``) and its per-session limits, for ``run``, ``batch`` and ``sandbox``."""
    parser.add_argument(
        "--executor", default="restricted", help="restricted (default), docker or ray"
    )
    parser.add_argument(
        "--isolation",
        choices=["process", "inline"],
        default="process",
        help="for the restricted executor (default: process)",
    )
    parser.add_argument(
        "--allow",
        default=None,
        metavar="MODULES",
        help="extra modules the restricted sandbox may import, comma-separated "
        "(default: pandas,numpy,matplotlib when installed and the OS sandbox is active)",
    )
    add_os_sandbox_option(
        parser,
        "OS sandbox around the process worker: auto (bubblewrap when it works, default), "
        "bwrap (required), none",
    )
    add_session_limit_options(parser)


def add_ray_option(parser: argparse.ArgumentParser) -> None:
    """``--ray ADDRESS``: the Ray cluster of ``--executor ray`` (``run`` and ``serve``)."""
    parser.add_argument(
        "--ray",
        default=None,
        metavar="ADDRESS",
        help="with --executor ray: the Ray cluster whose nodes run the sandboxes "
        "(default: RAY_ADDRESS, else the cluster `ray start` made here)",
    )


def add_timeout_option(parser: argparse.ArgumentParser, what: str) -> None:
    """``--timeout S`` for the whole run (or task): ``0``/``none`` is no limit; the default
    depends on the model (see ``codeact._advice``)."""
    from codeact._advice import TIMEOUT_HELP, parse_timeout

    parser.add_argument(
        "--timeout",
        type=parse_timeout,
        default=None,
        metavar="S",
        help=TIMEOUT_HELP.format(what=what),
    )


def add_session_limit_options(parser: argparse.ArgumentParser) -> None:
    """``--session-memory``, ``--session-disk`` and ``--session-cpus`` (the process sandbox's
    per-session limits) of ``run``, ``serve`` and ``batch``."""
    group = parser.add_argument_group("per-session limits (restricted executor, process mode)")
    group.add_argument(
        "--session-memory",
        type=int,
        default=SESSION_MEMORY_MB,
        metavar="MB",
        help=f"memory a session may hold, files it wrote included (default {SESSION_MEMORY_MB})",
    )
    group.add_argument(
        "--session-disk",
        type=int,
        default=SESSION_DISK_MB,
        metavar="MB",
        help=f"disk quota of a session's working directory and /tmp (default {SESSION_DISK_MB})",
    )
    group.add_argument(
        "--session-cpus",
        type=float,
        default=SESSION_CPUS,
        metavar="N",
        help=f"CPUs a session may use at once (default {SESSION_CPUS:g}; 0 = no quota)",
    )


def reap_crashed_sessions(say: Callable[[str], Any]) -> None:
    """Remove what a crashed earlier codeact process left on this host (session folders,
    control groups and the workers in them, Docker sandbox containers), and say so."""
    from codeact.executors.restricted import reap_leftovers

    reaped = reap_leftovers()
    containers, problems = _reap_containers()
    parts = [
        f"{n} {what}"
        for n, what in (
            (reaped.folders, "session folder(s)"),
            (reaped.cgroups, "control group(s)"),
            (containers, "sandbox container(s)"),
        )
        if n
    ]
    if parts:
        say(f"Removed {', '.join(parts)} left by a codeact process that no longer runs.")
    for problem in (*reaped.problems, *problems):
        say(
            f"Could not remove what a crashed codeact process left: {problem}. Remove it as "
            "root (`codeact sandbox prune` for containers)."
        )


def _reap_containers() -> tuple[int, list[str]]:
    """Docker sandboxes of dead owners, when an engine answers (nothing to do otherwise)."""
    if not (os.environ.get("DOCKER_HOST") or os.path.exists("/var/run/docker.sock")):
        return 0, []
    from codeact.errors import ExecutorError, UserError

    try:
        from codeact.executors.docker import docker_client, reap_orphans

        client = docker_client()
    except (ImportError, UserError, ExecutorError):  # no SDK or no engine: none of ours runs
        return 0, []
    try:
        return reap_orphans(client), []
    except ExecutorError as exc:
        return 0, [str(exc)]
    finally:
        client.close()


def model_spec(arg: str | None) -> str:
    """The model the command line names: ``--model``, else ``$CODEACT_MODEL``, else local."""
    return arg or os.environ.get(MODEL_ENV) or "local"


def make_llm(arg: str | None, *, base_url: str | None = None, say: Callable[[str], Any]) -> LLM:
    """The model named by ``--model`` (see ``codeact.llms.infer_llm`` for the spec grammar)."""
    return infer_llm(model_spec(arg), base_url=base_url, progress=say)


def sandbox_spec(args: argparse.Namespace, **overrides: Any) -> SandboxSpec:
    """The sandbox a command's options ask for (``add_sandbox_options``, ``--ray``,
    ``--cell-timeout``...; an option the command lacks keeps ``SandboxSpec``'s default), with
    ``overrides`` on top. Bad values are a ``UserError``."""
    cpus = getattr(args, "session_cpus", SandboxSpec.cpus)
    values: dict[str, Any] = {
        "executor": getattr(args, "executor", SandboxSpec.executor),
        "isolation": getattr(args, "isolation", SandboxSpec.isolation),
        "allow": SandboxSpec.parse_allow(getattr(args, "allow", None)),
        "os_sandbox": getattr(args, "os_sandbox", SandboxSpec.os_sandbox),
        "cell_timeout": getattr(args, "cell_timeout", SandboxSpec.cell_timeout),
        "memory_mb": getattr(args, "session_memory", SandboxSpec.memory_mb),
        "disk_mb": getattr(args, "session_disk", SandboxSpec.disk_mb),
        "cpus": cpus if cpus else None,
        "ray_address": getattr(args, "ray", None),
    }
    values.update(overrides)
    return SandboxSpec(**values)


def add_mcp_config_option(parser: argparse.ArgumentParser) -> None:
    """``--mcp-config FILE``: MCP servers for the default agent."""
    parser.add_argument(
        "--mcp-config",
        default=None,
        metavar="FILE",
        help="MCP servers for the agent, in the mcpServers JSON of MCP clients; their tools "
        "become the modules tools.<server> in the sandbox",
    )


def read_mcp_config(path: str | None) -> list[Any]:
    """The servers of ``--mcp-config`` (none without it); ``UserError`` for a bad file."""
    if not path:
        return []
    from codeact.mcp import load_mcp_config

    return list(load_mcp_config(path))


def print_json(payload: dict[str, Any]) -> None:
    """Write one JSON object to stdout."""
    sys.stdout.write(json.dumps(payload, ensure_ascii=False, default=str) + "\n")


def elapsed(since: float) -> float:
    """Seconds since ``since`` (perf_counter), rounded for display."""
    return round(time.perf_counter() - since, 3)
