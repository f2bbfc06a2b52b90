"""What the ``codeact`` subcommands share: exit codes, JSON output, the model and the sandbox.

This module imports no other ``codeact.cli`` module (the commands import it, never the reverse).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from codeact.llms import LLM, infer_llm

if TYPE_CHECKING:
    from codeact.executors import CodeExecutor
    from codeact.executors.restricted import OsSandbox
    from codeact.executors.restricted.defaults import SandboxChoice
    from codeact.executors.restricted.executor import Isolation

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


SESSION_MEMORY_MB, SESSION_DISK_MB, SESSION_CPUS = 2048, 1024, 1.0


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


@dataclass(frozen=True)
class SandboxOptions:
    """The command-line settings that choose the sandbox of the default agent."""

    executor: str = "restricted"
    isolation: Isolation = "process"
    allow: str | None = None
    os_sandbox: OsSandbox = "auto"
    cell_timeout: float = 60
    memory_mb: int = SESSION_MEMORY_MB
    disk_mb: int = SESSION_DISK_MB
    cpus: float | None = SESSION_CPUS
    #: The Ray cluster of ``--executor ray`` (None: ``RAY_ADDRESS`` or the local one).
    ray_address: str | None = None

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> SandboxOptions:
        """Read the options ``codeact run`` defines."""
        return cls(
            executor=args.executor,
            isolation=args.isolation,
            allow=args.allow,
            os_sandbox=args.os_sandbox,
            cell_timeout=getattr(args, "cell_timeout", cls.cell_timeout),
            ray_address=getattr(args, "ray", None),
            **session_limits(args),
        )


def session_limits(args: argparse.Namespace) -> dict[str, Any]:
    """``memory_mb``, ``disk_mb`` and ``cpus`` from ``add_session_limit_options``' options."""
    cpus = getattr(args, "session_cpus", SESSION_CPUS)
    return {
        "memory_mb": getattr(args, "session_memory", SESSION_MEMORY_MB),
        "disk_mb": getattr(args, "session_disk", SESSION_DISK_MB),
        "cpus": cpus if cpus else None,
    }


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


def sandbox_choice(opts: SandboxOptions) -> SandboxChoice | None:
    """What the restricted sandbox of this command will be (None for other executors)."""
    from codeact.executors.restricted.defaults import choose_sandbox

    if opts.executor != "restricted":
        return None
    allow = None
    if opts.allow is not None:
        allow = [m.strip() for m in opts.allow.split(",") if m.strip()]
    return choose_sandbox(allow, isolation=opts.isolation, os_sandbox=opts.os_sandbox)


def other_sandbox_summary(executor: str, ray_address: str | None = None) -> str:
    """The "sandbox:" line for an executor other than the restricted one."""
    if executor == "ray":
        return (
            "sandbox: a process worker in bubblewrap on a node of the Ray cluster at "
            f"{ray_address or os.environ.get('RAY_ADDRESS') or 'auto'} (tools run here)"
        )
    if executor == "docker":
        from codeact.executors.docker.image import IMAGE

        return (
            f"sandbox: Docker container from {IMAGE} (the engine's default runtime; no network, "
            "read-only root, non-root user, capabilities dropped)"
        )
    return f"sandbox: the {executor!r} executor"


def make_executor(opts: SandboxOptions) -> CodeExecutor:
    """The sandbox named on the command line: by default process isolation inside bubblewrap,
    with pandas/numpy/matplotlib offered only when that OS sandbox is active."""
    from codeact.executors import get_executor
    from codeact.executors.restricted import UnsandboxedWarning
    from codeact.executors.restricted.executor import RestrictedExecutor

    if opts.executor == "ray":
        return make_ray_executor(opts)
    choice = sandbox_choice(opts)
    if choice is None:
        return get_executor(opts.executor)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnsandboxedWarning)  # the CLI prints choice.warning
        return RestrictedExecutor(
            isolation=choice.isolation,
            os_sandbox=choice.os_sandbox,
            allowed_modules=choice.allowed_modules,
            timeout=opts.cell_timeout,
            memory_limit_mb=opts.memory_mb,
            disk_limit_mb=opts.disk_mb,
            cpus=opts.cpus,
        )


def make_ray_executor(opts: SandboxOptions) -> CodeExecutor:
    """``--executor ray``: a session on the cluster, in a node's process sandbox with the
    command line's modules and per-session limits."""
    from codeact.executors.ray import RayExecutor
    from codeact.executors.restricted.defaults import choose_sandbox

    allow = None
    if opts.allow is not None:
        allow = [m.strip() for m in opts.allow.split(",") if m.strip()]
    return RayExecutor.with_limits(
        address=opts.ray_address,
        allowed_modules=choose_sandbox(allow, isolation="process").allowed_modules,
        os_sandbox=opts.os_sandbox,
        cell_timeout=opts.cell_timeout,
        memory_mb=opts.memory_mb,
        disk_mb=opts.disk_mb,
        cpus=opts.cpus,
    )


def print_json(payload: dict[str, Any]) -> None:
    """Write one JSON object to stdout."""
    sys.stdout.write(json.dumps(payload, ensure_ascii=False, default=str) + "\n")


def elapsed(since: float) -> float:
    """Seconds since ``since`` (perf_counter), rounded for display."""
    return round(time.perf_counter() - since, 3)
