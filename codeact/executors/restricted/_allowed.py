"""What ``allowed_modules`` may name: host-reaching standard-library modules are refused with
what to use instead; the rest of the standard library only through the reviewed list."""

from __future__ import annotations

import sys
import warnings
from collections.abc import Iterable

from codeact.executors.restricted._ossandbox import UnsandboxedWarning
from codeact.executors.restricted._stdlib import HOST_MODULES, STDLIB_ALLOWED

_WARNED: set[tuple[str, ...]] = set()


def check_allowed_modules(names: Iterable[str]) -> list[str]:
    """Validate ``allowed_modules``: host-reaching standard-library modules are refused with what
    to use instead; other standard-library modules are usable only through the curated list."""
    from codeact.errors import UserError

    checked = []
    for name in names:
        parts = name.split(".") if isinstance(name, str) else [""]
        if not all(p.isidentifier() for p in parts):
            raise UserError(f"allowed_modules entries must be module names, got {name!r}")
        top = name.split(".")[0]
        if name in STDLIB_ALLOWED:
            checked.append(name)
            continue
        if top in HOST_MODULES:
            raise UserError(
                f"allowed_modules: {name!r} hands the host to sandboxed code (files, processes, "
                f"network or interpreter internals) and is never allowed. Instead: "
                f"{HOST_MODULES[top]}."
            )
        if top in sys.stdlib_module_names or top in STDLIB_ALLOWED:
            raise UserError(
                f"allowed_modules: {name!r} is a standard-library module that is not on the "
                "sandbox's reviewed list (many reach the host: files, processes, network). "
                f"Reviewed modules are always importable: {', '.join(sorted(STDLIB_ALLOWED))}. "
                "For anything else, give the agent a tool (a plain Python function)."
            )
        checked.append(name)
    return checked


def third_party(names: Iterable[str]) -> list[str]:
    """The entries of ``allowed_modules`` that are third-party packages."""
    return sorted({n for n in names if n.split(".")[0] not in STDLIB_ALLOWED})


def warn_unsandboxed(names: Iterable[str], isolation: str) -> None:
    """Warn once per process (``UnsandboxedWarning``) that the third-party packages among
    ``names`` run without an OS sandbox (``isolation`` says where: in-process or in a worker)."""
    packages = third_party(names)
    key = (isolation, *packages)
    if not packages or key in _WARNED:
        return
    _WARNED.add(key)
    where = "in-process" if isolation == "inline" else "in a worker without an OS sandbox"
    warnings.warn(
        f"RestrictedExecutor: {', '.join(packages)} run {where}, where their own file and "
        "network I/O (e.g. pandas.read_csv('/etc/passwd'), DataFrame.to_csv('/tmp/x'), URL "
        "readers) reaches the host. Use isolation='process' with bubblewrap installed, or "
        "DockerExecutor, for untrusted code.",
        UnsandboxedWarning,
        stacklevel=3,
    )
