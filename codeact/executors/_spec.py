"""``SandboxSpec``: the one place that turns sandbox options into an executor.

``codeact run``, ``serve``, ``batch``, ``sandbox`` and ``mcp`` build their executors here, and so
can Python code (``CodeActAgent(executor=SandboxSpec(...))``, ``run_batch``'s agent factories).
A spec is a frozen dataclass of plain values: it pickles, so it crosses to batch worker
processes and Ray nodes and builds a fresh executor there. Importing this module imports no
backend; calling a spec imports the one it names.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from codeact.errors import UserError

if TYPE_CHECKING:
    from codeact.executors.base import CodeExecutor
    from codeact.executors.restricted.defaults import SandboxChoice

#: Per-session limits every command defaults to (MB of memory, MB of disk, CPUs).
SESSION_MEMORY_MB, SESSION_DISK_MB, SESSION_CPUS = 2048, 1024, 1.0
#: ``RestrictedExecutor`` arguments the spec sets from its own fields (not from ``options``).
_RESTRICTED_FIELDS = frozenset(
    {"isolation", "os_sandbox", "allowed_modules", "timeout", "memory_limit_mb", "disk_limit_mb",
     "cpus"}
)  # fmt: skip


@dataclass(frozen=True)
class SandboxSpec:
    """What sandbox each session gets; calling the spec builds a fresh, unstarted executor.

    ``executor`` names the backend: ``"restricted"`` (``isolation`` ``"process"``, the
    default, or ``"inline"``; ``os_sandbox`` around the process worker), ``"docker"``
    (``runtime="runsc"`` for gVisor), ``"ray"`` (a node's process sandbox on the cluster at
    ``ray_address``; ``None``: the one this process is connected to, else ``RAY_ADDRESS``) or
    the name of an executor plug-in (entry point group ``codeact.executors``; built-in names
    win). ``allow`` opts modules in (``None``: the data libraries, when an OS sandbox is
    active). ``cell_timeout``, ``memory_mb``, ``disk_mb`` and ``cpus`` (``None``: no CPU
    quota) are the per-session limits of the restricted and Ray sandboxes; Docker and plug-ins
    keep their own defaults. ``options`` are more keyword arguments for the executor class
    (``DockerExecutor``'s, a plug-in's, or ``RestrictedExecutor``'s beyond the fields above,
    e.g. ``{"pids_limit": 32}``); a Ray session takes none.
    """

    executor: str = "restricted"
    isolation: Literal["process", "inline"] = "process"
    allow: tuple[str, ...] | None = None
    os_sandbox: Literal["auto", "bwrap", "none"] = "auto"
    cell_timeout: float = 60.0
    memory_mb: int = SESSION_MEMORY_MB
    disk_mb: int = SESSION_DISK_MB
    cpus: float | None = SESSION_CPUS
    ray_address: str | None = None
    runtime: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        if not isinstance(self.executor, str) or not self.executor:
            raise UserError(f"executor must be a non-empty name, got {self.executor!r}")
        if self.isolation not in ("process", "inline"):
            raise UserError(f"isolation must be 'process' or 'inline', got {self.isolation!r}")
        if self.os_sandbox not in ("auto", "bwrap", "none"):
            raise UserError(f"os_sandbox must be auto, bwrap or none, got {self.os_sandbox!r}")
        if self.allow is not None:
            if isinstance(self.allow, str) or not all(isinstance(m, str) for m in self.allow):
                raise UserError(f"allow must be a sequence of module names, got {self.allow!r}")
            object.__setattr__(self, "allow", tuple(self.allow))
        self._check_limits()
        docker_runtime = self.executor == "docker" and isinstance(self.runtime, str)
        if self.runtime is not None and not (docker_runtime and self.runtime):
            raise UserError(f"runtime={self.runtime!r} is for the docker executor (e.g. 'runsc')")
        if not isinstance(self.options, Mapping) or not all(
            isinstance(k, str) for k in self.options
        ):
            raise UserError(f"options must map argument names to values, got {self.options!r}")
        object.__setattr__(self, "options", dict(self.options))
        if self.executor == "ray" and self.options:
            raise UserError("options are not used by the ray executor: use the spec's fields")

    def _check_limits(self) -> None:
        def number(value: object, *, whole: bool = False) -> bool:
            kinds = (int,) if whole else (int, float)
            return isinstance(value, kinds) and not isinstance(value, bool) and value > 0

        if not (number(self.memory_mb, whole=True) and number(self.disk_mb, whole=True)):
            raise UserError(
                f"memory_mb and disk_mb must be positive whole MB, got {self.memory_mb!r} and "
                f"{self.disk_mb!r}"
            )
        if not number(self.cell_timeout):
            raise UserError(f"cell_timeout must be positive seconds, got {self.cell_timeout!r}")
        if self.cpus is not None and not number(self.cpus):
            raise UserError(f"cpus must be positive or None, got {self.cpus!r}")

    @staticmethod
    def parse_allow(text: str | None) -> tuple[str, ...] | None:
        """``"pandas, numpy"`` (the ``--allow`` option) as a tuple; ``None`` stays ``None``."""
        if text is None:
            return None
        return tuple(m.strip() for m in text.split(",") if m.strip())

    def choice(self) -> SandboxChoice | None:
        """What the restricted sandbox will be on this machine (options and a sentence), or
        ``None`` for other executors."""
        if self.executor != "restricted":
            return None
        return self._restricted_choice(self.isolation)

    def _restricted_choice(self, isolation: Literal["process", "inline"]) -> SandboxChoice:
        from codeact.executors.restricted.defaults import choose_sandbox

        return choose_sandbox(self.allow, isolation=isolation, os_sandbox=self.os_sandbox)

    def describe(self) -> tuple[str, str]:
        """``(summary, warning)``: the "sandbox: ..." line a command prints and a warning
        (empty when there is none)."""
        choice = self.choice()
        if choice is not None:
            return choice.summary, choice.warning
        if self.executor == "ray":
            where = self.ray_address or os.environ.get("RAY_ADDRESS") or "auto"
            return (
                "sandbox: a process worker in bubblewrap on a node of the Ray cluster at "
                f"{where} (tools run here)"
            ), ""
        if self.executor == "docker":
            from codeact.executors.docker.image import IMAGE

            runtime = f"the {self.runtime}" if self.runtime else "the engine's default"
            runtime += " runtime"
            return (
                f"sandbox: Docker container from {self.options.get('image', IMAGE)} ({runtime}; "
                "no network, read-only root, non-root user, capabilities dropped)"
            ), ""
        return f"sandbox: the {self.executor!r} executor", ""

    def __call__(self) -> CodeExecutor:
        """A fresh executor as this spec describes (not started)."""
        if self.executor == "ray":
            return self._ray()
        clash = sorted(set(self.options) & _RESTRICTED_FIELDS)
        if self.executor == "restricted" and clash:
            raise UserError(f"options {clash} are SandboxSpec fields here: set those instead")
        try:
            if self.executor == "restricted":
                return self._restricted()
            from codeact.executors.base import get_executor

            options = dict(self.options)
            if self.executor == "docker" and self.runtime is not None:
                options["runtime"] = self.runtime
            return get_executor(self.executor, **options)
        except TypeError as exc:  # an option the executor class does not take
            raise UserError(f"options for the {self.executor!r} executor: {exc}") from None

    def _restricted(self) -> CodeExecutor:
        from codeact.executors.restricted import UnsandboxedWarning
        from codeact.executors.restricted.defaults import restricted_executor

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UnsandboxedWarning)  # describe() says it once
            return restricted_executor(
                self._restricted_choice(self.isolation),
                timeout=self.cell_timeout,
                memory_limit_mb=self.memory_mb,
                disk_limit_mb=self.disk_mb,
                cpus=self.cpus,
                **self.options,
            )

    def _ray(self) -> CodeExecutor:
        from codeact.executors.ray import RayExecutor

        return RayExecutor.with_limits(
            address=self.ray_address,
            allowed_modules=self._restricted_choice("process").allowed_modules,
            os_sandbox=self.os_sandbox,
            cell_timeout=self.cell_timeout,
            memory_mb=self.memory_mb,
            disk_mb=self.disk_mb,
            cpus=self.cpus,
        )


__all__ = ["SESSION_CPUS", "SESSION_DISK_MB", "SESSION_MEMORY_MB", "SandboxSpec"]
