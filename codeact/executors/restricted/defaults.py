"""The executor ``codeact run`` and ``codeact serve`` build when nothing else is asked for."""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from codeact.executors.restricted._ossandbox import OsSandbox, os_sandbox_status
from codeact.executors.restricted.executor import Isolation, RestrictedExecutor

#: Data libraries offered to cells by default — only under an OS-level boundary.
DATA_MODULES = ("pandas", "numpy", "matplotlib")


@dataclass(frozen=True)
class SandboxChoice:
    """What the default executor will be: its options and a sentence for the user."""

    isolation: Isolation
    os_sandbox: OsSandbox
    allowed_modules: tuple[str, ...]
    summary: str
    warning: str = ""


def choose_sandbox(
    allow: Sequence[str] | None = None,
    *,
    isolation: Isolation = "process",
    os_sandbox: OsSandbox = "auto",
) -> SandboxChoice:
    """Decide the default sandbox: process isolation inside bubblewrap when it works, with the
    installed data libraries offered only then. ``allow`` (explicit modules) is honoured in every
    mode, with a warning when no OS sandbox stands behind third-party packages."""
    status = os_sandbox_status()
    sandboxed = isolation == "process" and os_sandbox != "none" and status.available
    installed = tuple(m for m in DATA_MODULES if importlib.util.find_spec(m) is not None)
    warning = ""
    if allow is None:
        modules = installed if sandboxed else ()
        if installed and not sandboxed:
            warning = (
                f"{', '.join(installed)} are not offered to cells: no OS sandbox is active "
                f"({_why(isolation, os_sandbox, status.detail)}). "
                + (
                    f"To fix: {status.fix}."
                    if isolation == "process" and os_sandbox != "none"
                    else "Use --isolation process with bubblewrap installed, or --executor docker."
                )
                + " Or opt them in anyway with --allow."
            )
    else:
        modules = tuple(allow)
        third = [m for m in modules if m.split(".")[0] in {*DATA_MODULES, "scipy", "sklearn"}]
        if third and not sandboxed:
            warning = (
                f"{', '.join(third)} run without an OS sandbox "
                f"({_why(isolation, os_sandbox, status.detail)}): their own file and network I/O "
                "reaches this machine. Use bubblewrap or --executor docker for untrusted code."
            )
    if sandboxed:
        level = "process worker in an OS sandbox (bubblewrap: no network, private filesystem)"
    elif isolation == "process":
        level = "process worker without an OS sandbox (language guards and resource limits)"
    else:
        level = "in-process (language guards only)"
    summary = f"sandbox: {level}" + (f"; modules: {', '.join(modules)}" if modules else "")
    return SandboxChoice(isolation, os_sandbox, modules, summary, warning)


def _why(isolation: str, os_sandbox: str, detail: str) -> str:
    if isolation == "inline":
        return "inline isolation runs in this process"
    if os_sandbox == "none":
        return "--os-sandbox none"
    return detail


def default_executor(
    allow: Sequence[str] | None = None,
    *,
    isolation: Isolation = "process",
    os_sandbox: OsSandbox = "auto",
    timeout: float = 60.0,
    allow_pickle: bool = False,
) -> RestrictedExecutor:
    """The executor the CLI and the server use by default (see ``choose_sandbox``);
    ``allow_pickle`` as for ``RestrictedExecutor`` (it removes the guards' layer)."""
    choice = choose_sandbox(allow, isolation=isolation, os_sandbox=os_sandbox)
    return restricted_executor(choice, timeout=timeout, allow_pickle=allow_pickle)


def restricted_executor(choice: SandboxChoice, **options: Any) -> RestrictedExecutor:
    """A ``RestrictedExecutor`` as ``choice`` decided (isolation, OS sandbox, modules), with
    the other ``RestrictedExecutor`` options (``timeout``, limits, ``allow_pickle``)."""
    return RestrictedExecutor(
        isolation=choice.isolation,
        os_sandbox=choice.os_sandbox,
        allowed_modules=choice.allowed_modules,
        **options,
    )
