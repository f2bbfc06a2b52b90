"""The OS sandbox around the process worker: bubblewrap on Linux.

The worker of ``RestrictedExecutor(isolation="process")`` starts inside ``bwrap`` with new PID,
network, IPC, UTS (and cgroup) namespaces, a fresh ``/proc``, no network at all, a private
size-limited ``/tmp``, and a read-only view of only what Python needs: the interpreter and its
standard library, the shared libraries under ``/usr/lib``, a few ``/etc`` files, and — in a
site directory of its own — codeact, its dependencies and the distributions of the allowed
modules (with their dependencies). The session's working directory, at ``/workspace``, is the
only other writable place. Nothing else of the host (``/root``, ``/home``, the host ``/tmp``,
databases, the project checkout) exists inside.

The worker never runs as root. A non-root host uses a user namespace (uid/gid 65534 inside,
no capabilities, no further user namespaces). On a root host a user namespace would map the
sandbox to host uid 0, where the kernel does not enforce ``RLIMIT_NPROC`` — so there the
sandbox starts without one and the worker drops to uid/gid 65534 itself before it reads any
cell; its working directory is handed to that uid.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from codeact.executors.restricted._seccomp import seccomp_program
from codeact.executors.restricted._sitebinds import site_binds

OsSandbox = Literal["auto", "bwrap", "none"]
#: Where the working directory appears inside the sandbox.
SANDBOX_WORKDIR = "/workspace"
#: The site directory inside the sandbox holding codeact and the allowed distributions.
SANDBOX_SITE = "/opt/codeact/site"
#: The unprivileged uid/gid cells run as.
NOBODY = 65534
INSTALL_HINT = (
    "install bubblewrap (Debian/Ubuntu: `apt-get install bubblewrap`; Fedora: `dnf install "
    "bubblewrap`) so the worker runs in an OS sandbox"
)
_ETC_FILES = ("ld.so.cache", "localtime", "nsswitch.conf")


class UnsandboxedWarning(UserWarning):
    """Code runs without an OS-level boundary although the configuration asked for one, or
    third-party modules were opted in where only the language guards stand between a cell and
    the host."""


@dataclass(frozen=True)
class OsSandboxStatus:
    """Whether bubblewrap can sandbox the worker on this machine, and what to do if not."""

    available: bool
    detail: str
    fix: str = ""


def bwrap_path() -> str | None:
    """The bubblewrap binary (``CODEACT_BWRAP`` overrides the lookup), or None."""
    override = os.environ.get("CODEACT_BWRAP")
    if override is not None:
        return override if override and os.access(override, os.X_OK) else None
    return shutil.which("bwrap")


def host_is_root() -> bool:
    """True when this process runs as root (the worker must then drop privileges itself)."""
    return os.geteuid() == 0


@functools.lru_cache(maxsize=4)
def _probe(binary: str | None, root: bool) -> OsSandboxStatus:
    if sys.platform != "linux":
        return OsSandboxStatus(
            False,
            f"no OS sandbox on {sys.platform} (bubblewrap is Linux only)",
            "use the Docker backend (DockerExecutor) for untrusted code",
        )
    if binary is None:
        return OsSandboxStatus(False, "bubblewrap (bwrap) is not installed", INSTALL_HINT)
    plan = SandboxPlan.build(())
    with tempfile.NamedTemporaryFile(prefix="codeact-probe-") as marker:
        fds = [fd for fd in (seccomp_fd(),) if fd is not None]
        argv, args_fd = bwrap_argv(
            binary,
            plan.options(workdir=None, info_fd=None, seccomp_fd=fds[0] if fds else None),
            [plan.python, "-S", "-c", _PROBE, marker.name],
        )
        fds.append(args_fd)
        try:
            proc = subprocess.run(
                argv, capture_output=True, timeout=20, env={"LANG": "C.UTF-8"}, pass_fds=fds
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            return OsSandboxStatus(
                False, f"bubblewrap at {binary} could not run: {exc}", INSTALL_HINT
            )
        finally:
            for fd in fds:
                os.close(fd)
    if proc.returncode != 0:
        err = proc.stderr.decode(errors="replace").strip().splitlines()
        why = err[-1] if err else f"exit code {proc.returncode}"
        fix = (
            "allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, or "
            "the AppArmor rule for bwrap on Ubuntu 24.04+), or run inside a container/VM that "
            "permits them"
        )
        return OsSandboxStatus(
            False, f"bubblewrap at {binary} cannot create a sandbox here: {why}", fix
        )
    if proc.stdout.strip() != b"codeact-sandbox-ok":
        seen = proc.stdout.decode(errors="replace").strip()[:200] or "nothing"
        return OsSandboxStatus(
            False,
            f"{binary} does not isolate the probe program (it printed {seen!r}, not the "
            "sandbox's answer)",
            INSTALL_HINT,
        )
    version = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout.strip()
    mode = "root host: the worker drops to uid 65534" if root else "user namespace, uid 65534"
    return OsSandboxStatus(True, f"{version or 'bubblewrap'} at {binary} ({mode})")


#: Run inside the probe sandbox: the host file named in argv must be invisible, and the only
#: network device loopback.
_PROBE = (
    "import os, sys\n"
    "devs = [l.split(':')[0].strip() for l in open('/proc/net/dev').read().splitlines()[2:]]\n"
    "ok = not os.path.exists(sys.argv[1]) and devs == ['lo']\n"
    "print('codeact-sandbox-ok' if ok else 'codeact-sandbox-leaky')\n"
)


def os_sandbox_status() -> OsSandboxStatus:
    """Probe (once per process) whether the bubblewrap sandbox works on this machine."""
    return _probe(bwrap_path(), host_is_root())


def resolve_os_sandbox(choice: str) -> bool:
    """Whether a worker with ``os_sandbox=choice`` runs under bubblewrap; ``auto`` falls back with
    an ``UnsandboxedWarning`` naming the fix, ``bwrap`` raises when it is not usable."""
    from codeact.errors import ExecutorError, UserError

    if choice not in ("auto", "bwrap", "none"):
        raise UserError(f"os_sandbox must be 'auto', 'bwrap' or 'none', got {choice!r}")
    if choice == "none":
        return False
    status = os_sandbox_status()
    if status.available:
        return True
    if choice == "bwrap":
        raise ExecutorError(
            f"os_sandbox='bwrap' was asked for, but {status.detail}. Fix: {status.fix}."
        )
    warnings.warn(
        f"RestrictedExecutor(isolation='process'): {status.detail}; the worker runs without an OS "
        f"sandbox (language guards and resource limits only). To fix: {status.fix}.",
        UnsandboxedWarning,
        stacklevel=4,
    )
    return False


# -- what the sandbox shows ----------------------------------------------------------------------
def _base_site_dirs() -> list[str]:
    """Site-packages folders of the base interpreter: hidden inside the sandbox."""
    dirs = set()
    for scheme_var in ("purelib", "platlib"):
        path = sysconfig.get_path(
            scheme_var, vars={"base": sys.base_prefix, "platbase": sys.base_exec_prefix}
        )
        dirs.add(path)
    dirs.update(
        ("/usr/lib/python3/dist-packages", f"/usr/lib/python3.{sys.version_info[1]}/site-packages")
    )
    return sorted(d for d in dirs if os.path.isdir(d))


@dataclass(frozen=True)
class SandboxPlan:
    """Everything bubblewrap binds for one worker (computed once per set of allowed modules)."""

    python: str
    ro_binds: tuple[tuple[str, str], ...]
    symlinks: tuple[tuple[str, str], ...]
    hidden: tuple[str, ...]
    tmp_bytes: int
    drop_privileges: bool

    @classmethod
    def build(cls, modules: tuple[str, ...], tmp_bytes: int = 64 << 20) -> SandboxPlan:
        """The plan for a worker allowed ``modules``."""
        python = os.path.realpath(getattr(sys, "_base_executable", "") or sys.executable)
        ro: list[tuple[str, str]] = []
        links: list[tuple[str, str]] = []
        for top in ("lib", "lib32", "lib64", "libx32"):
            path = f"/{top}"
            if os.path.islink(path):
                links.append((os.readlink(path), path))
            elif os.path.isdir(path):
                ro.append((path, path))
        for sub in ("/usr/lib", "/usr/lib32", "/usr/lib64", "/usr/libx32", "/usr/share/zoneinfo"):
            if os.path.isdir(sub) and not os.path.islink(sub):
                ro.append((sub, sub))
        prefix = os.path.realpath(sys.base_prefix)
        if not prefix.startswith("/usr") or prefix.startswith("/usr/local"):
            for part in ("lib", "lib64"):
                if os.path.isdir(os.path.join(prefix, part)):
                    ro.append((os.path.join(prefix, part), os.path.join(prefix, part)))
        if not any(python.startswith(src + "/") for src, _ in ro):
            ro.append((python, python))
        for etc in _ETC_FILES:
            full = f"/etc/{etc}"
            if os.path.exists(full):
                ro.append((os.path.realpath(full), full))
        for name, src in site_binds(modules):
            ro.append((src, f"{SANDBOX_SITE}/{name}"))
        return cls(
            python=python,
            ro_binds=tuple(ro),
            symlinks=tuple(links),
            hidden=tuple(_base_site_dirs()),
            tmp_bytes=tmp_bytes,
            drop_privileges=host_is_root(),
        )

    def options(
        self,
        *,
        workdir: Path | None,
        info_fd: int | None,
        seccomp_fd: int | None = None,
        tmpdir: Path | None = None,
    ) -> list[str]:
        """bubblewrap's options (passed through ``--args FD`` by ``bwrap_argv``, so that the
        sandbox's ``/proc/1/cmdline`` does not show host paths)."""
        args = [
            "--unshare-pid",
            "--unshare-net",
            "--unshare-ipc",
            "--unshare-uts",
            "--unshare-cgroup-try",
            "--die-with-parent",
            "--new-session",
        ]
        if self.drop_privileges:
            # Root host: no user namespace (it would map the sandbox to host uid 0, where
            # RLIMIT_NPROC is not enforced); keep only what the worker needs to drop to 65534.
            args += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
        else:
            args += [
                "--unshare-user",
                "--uid",
                str(NOBODY),
                "--gid",
                str(NOBODY),
                "--disable-userns",
            ]
        args += ["--proc", "/proc", "--dev", "/dev"]
        if tmpdir is not None:  # the session's quota'd folder
            args += ["--bind", str(tmpdir), "/tmp"]
        else:
            args += ["--perms", "1777", "--size", str(self.tmp_bytes), "--tmpfs", "/tmp"]
        made: set[str] = set()
        for target, link in self.symlinks:
            args += ["--symlink", target, link]
        for src, dest in self.ro_binds:
            args += _parents(dest, made)
            args += ["--ro-bind", src, dest]
        for hidden in self.hidden:
            if any(hidden.startswith(dest + "/") for _, dest in self.ro_binds):
                args += ["--tmpfs", hidden]
        etc = Path(__file__).with_name("sandbox_etc")
        args += [
            "--ro-bind",
            str(etc / "passwd"),
            "/etc/passwd",
            "--ro-bind",
            str(etc / "group"),
            "/etc/group",
        ]
        if workdir is not None:
            args += ["--bind", str(workdir), SANDBOX_WORKDIR]
        if info_fd is not None:
            args += ["--info-fd", str(info_fd)]
        if seccomp_fd is not None:
            args += ["--seccomp", str(seccomp_fd)]
        return args


def _parents(dest: str, made: set[str]) -> list[str]:
    """``--dir`` entries (mode 0755) for the parents of ``dest``: bubblewrap would otherwise
    create them 0700, unreadable to the unprivileged user."""
    args: list[str] = []
    parts = Path(dest).parent.parts[1:]
    current = ""
    for part in parts:
        current += "/" + part
        if current in made:
            continue
        made.add(current)
        args += ["--perms", "0755", "--dir", current]
    return args


def pipe_holding(data: bytes) -> int:
    """The inheritable read end of a pipe holding ``data`` (under the 64 KiB pipe buffer)."""
    if len(data) > 60_000:
        raise ValueError("too much data for one pipe buffer")
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, data)
    finally:
        os.close(write_end)
    os.set_inheritable(read_end, True)
    return read_end


def seccomp_fd() -> int | None:
    """A pipe's read end holding the seccomp filter for bubblewrap (None: no filter here)."""
    program = seccomp_program()
    return None if program is None else pipe_holding(program)


def bwrap_argv(binary: str, options: list[str], command: list[str]) -> tuple[list[str], int]:
    """The command line ``bwrap --args FD command...`` and FD, which holds the options."""
    fd = pipe_holding(b"".join(o.encode() + b"\0" for o in options))
    return [binary, "--args", str(fd), *command], fd


def give_to_sandbox(path: Path) -> None:
    """Make ``path`` (and what is in it) belong to the sandbox's uid on a root host, so the
    worker — which drops to uid 65534 — can write there."""
    if not host_is_root():
        return
    os.chown(path, NOBODY, NOBODY, follow_symlinks=False)
    if path.is_dir() and not path.is_symlink():
        for root, dirs, files in os.walk(path):
            for name in dirs + files:
                os.chown(os.path.join(root, name), NOBODY, NOBODY, follow_symlinks=False)
