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
    from codeact.executors.restricted._ossandbox import OsSandbox
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

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> SandboxOptions:
        """Read the options ``codeact run`` defines."""
        return cls(
            executor=args.executor,
            isolation=args.isolation,
            allow=args.allow,
            os_sandbox=args.os_sandbox,
            cell_timeout=args.cell_timeout,
        )


def sandbox_choice(opts: SandboxOptions) -> SandboxChoice | None:
    """What the restricted sandbox of this command will be (None for other executors)."""
    from codeact.executors.restricted.defaults import choose_sandbox

    if opts.executor != "restricted":
        return None
    allow = None
    if opts.allow is not None:
        allow = [m.strip() for m in opts.allow.split(",") if m.strip()]
    return choose_sandbox(allow, isolation=opts.isolation, os_sandbox=opts.os_sandbox)


def other_sandbox_summary(executor: str) -> str:
    """The "sandbox:" line for an executor other than the restricted one."""
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
    from codeact.executors.restricted._ossandbox import UnsandboxedWarning
    from codeact.executors.restricted.executor import RestrictedExecutor

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
        )


def print_json(payload: dict[str, Any]) -> None:
    """Write one JSON object to stdout."""
    sys.stdout.write(json.dumps(payload, ensure_ascii=False, default=str) + "\n")


def elapsed(since: float) -> float:
    """Seconds since ``since`` (perf_counter), rounded for display."""
    return round(time.perf_counter() - since, 3)
