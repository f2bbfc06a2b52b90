"""One tenant cannot hurt another: per-session disk quota, control group (memory, CPU, pids),
cleanup that cannot stall or fail, reaping after a crash, and the system-call allow-list.

Everything runs against the real kernel: tmpfs mounts, cgroups, bubblewrap. Effects are checked
on the host (statvfs of the host's disk, the cgroup's own files and counters, ``/proc``), never
from what the sandbox says about itself.
"""

from __future__ import annotations

import errno
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from codeact.errors import UserError
from codeact.executors import RestrictedExecutor
from codeact.executors.restricted import _cgroups, host_containment, reap_leftovers
from codeact.executors.restricted._ossandbox import (
    NOBODY,
    SandboxPlan,
    bwrap_argv,
    bwrap_path,
    os_sandbox_status,
    seccomp_fd,
)
from codeact.executors.restricted._seccomp import filter_kind
from codeact.executors.restricted._workspace import Workspace, remove_tree, sessions_root
from tests.helpers import STARTED_TOOL, process_alive, read_until_started, wait_until

pytestmark = pytest.mark.anyio
CI = os.environ.get("CI") == "true"
ROOT = os.geteuid() == 0
NEEDS_ROOT = pytest.mark.skipif(not ROOT and not CI, reason="quotas and cgroups need root")
NEEDS_CGROUPS = pytest.mark.skipif(
    _cgroups.cgroup_support().version is None and not CI,
    reason=f"no per-session cgroups here: {_cgroups.cgroup_support().detail}",
)
NEEDS_BWRAP = pytest.mark.skipif(
    not os_sandbox_status().available and not CI,
    reason=f"bubblewrap unusable here: {os_sandbox_status().detail}",
)


def _process(**kw: object) -> RestrictedExecutor:
    return RestrictedExecutor(isolation="process", **kw)  # type: ignore[arg-type]


# -- disk ------------------------------------------------------------------------------------------
@NEEDS_ROOT
async def test_a_cell_past_its_quota_gets_enospc_and_the_host_disk_is_untouched() -> None:
    host_free = shutil.disk_usage(tempfile.gettempdir()).free
    async with _process(disk_limit_mb=32) as full, _process(disk_limit_mb=32) as other:
        assert full.workspace is not None and full.workspace.quota
        r = await full.execute(
            "f = open('fill.bin', 'wb')\n"
            "try:\n"
            "    for i in range(64):\n"
            "        f.write(b'x' * (1 << 20))\n"
            "except OSError as exc:\n"
            "    print('errno', exc.errno, 'after', i, 'MB')\n"
        )
        assert f"errno {errno.ENOSPC}" in r.stdout, r
        used, _files = full.workspace.usage()
        assert 30 << 20 <= used <= 32 << 20
        # /tmp of the sandbox shares the quota
        r = await full.execute("open('/tmp/more.bin', 'wb').write(b'y' * (1 << 20))")
        assert r.error is not None
        # the host's own disk did not pay for it, and another session still writes
        assert host_free - shutil.disk_usage(tempfile.gettempdir()).free < 16 << 20
        r = await other.execute("open('ok.txt', 'w').write('still fine'); print('ok')")
        assert r.stdout.strip() == "ok", r
        # an upload past the quota is a clear error, not a half-written file
        with pytest.raises(UserError, match="disk quota"):
            await full.upload("upload.bin", b"z" * (8 << 20))


@NEEDS_ROOT
async def test_an_inode_flood_is_capped_and_closing_it_never_stalls_the_loop() -> None:
    ex = _process(max_files=30_000, disk_limit_mb=256)
    await ex.start()
    r = await ex.execute(
        "n = 0\n"
        "try:\n"
        "    for i in range(40_000):\n"
        "        open(f'f{i}', 'w').close()\n"
        "        n += 1\n"
        "except OSError as exc:\n"
        "    print('stopped', exc.errno, n)\n",
        timeout=120,
    )
    assert f"stopped {errno.ENOSPC}" in r.stdout, r
    assert ex.workspace is not None
    root = ex.workspace.root
    gaps: list[float] = []

    async def ticker() -> None:
        last = time.perf_counter()
        while True:
            await anyio.sleep(0.005)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    async with anyio.create_task_group() as tg:
        tg.start_soon(ticker)
        await ex.aclose()
        tg.cancel_scope.cancel()
    assert not root.exists()
    assert max(gaps) < 0.1, f"the event loop stalled {max(gaps):.3f} s while closing"


def _deep_tree(top: Path, depth: int, uid: int | None) -> None:
    """A ``depth``-deep chain of read-only folders (deeper than PATH_MAX), each with a file."""
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for i in range(depth):
            os.mkdir("d", dir_fd=fd)
            sub = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            if i % 100 == 0:
                file = os.open("f", os.O_WRONLY | os.O_CREAT, 0o400, dir_fd=sub)
                os.close(file)
            if uid is not None:
                os.fchown(sub, uid, uid)
            os.fchmod(fd, 0o500)  # read-only once its child exists
            os.close(fd)
            fd = sub
    finally:
        os.close(fd)


@pytest.mark.parametrize("quota", [True, False], ids=["tmpfs", "plain-folder"])
async def test_a_5000_deep_read_only_tree_is_removed(
    quota: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if quota and not ROOT:
        pytest.skip("a quota'd folder needs root")
    if not quota:
        monkeypatch.setenv("CODEACT_NO_QUOTA", "1")
    ex = _process(os_sandbox="none") if not ROOT else _process()
    await ex.start()
    assert ex.workspace is not None and ex.workspace.quota is quota
    root = ex.workspace.root
    await anyio.to_thread.run_sync(_deep_tree, ex.workspace.workdir, 5000, NOBODY if ROOT else None)
    await ex.aclose()
    assert not root.exists()
    await ex.aclose()  # twice is fine


def test_remove_tree_never_follows_a_symlink(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("host file")
    tree = tmp_path / "tree"
    (tree / "a").mkdir(parents=True)
    (tree / "a" / "link").symlink_to(outside)
    (tree / "link2").symlink_to(outside / "keep.txt")
    remove_tree(tree)
    assert not tree.exists()
    assert (outside / "keep.txt").read_text() == "host file"


# -- memory, CPU, pids -----------------------------------------------------------------------------
@NEEDS_CGROUPS
async def test_the_worker_tree_runs_in_the_sessions_cgroup_with_its_limits() -> None:
    async with _process(memory_limit_mb=300, disk_limit_mb=100, cpus=0.5, pids_limit=40) as ex:
        group = ex.cgroup
        assert group is not None
        assert group.memory_limit() == (300 + 100) << 20  # heap plus its files
        pids = group.pids()
        assert ex._worker is not None and ex._worker.proc is not None
        assert ex._worker.proc.pid in pids  # bubblewrap (or the worker) from its first instant
        if ex._worker.worker_pid:
            assert ex._worker.worker_pid in pids
        if group.version == 1:
            assert (group.dirs["pids"] / "pids.max").read_text().strip() == "40"
            quota = int((group.dirs["cpu"] / "cpu.cfs_quota_us").read_text())
            period = int((group.dirs["cpu"] / "cpu.cfs_period_us").read_text())
            assert quota == period // 2
        dirs = list(group.dirs.values())
    assert not any(d.exists() for d in dirs), "the session's cgroup outlived it"


@NEEDS_CGROUPS
async def test_a_spinning_session_gets_no_more_than_its_cpu_quota() -> None:
    async with _process(cpus=0.25) as ex:
        group = ex.cgroup
        assert group is not None
        before, start = group.cpu_usage_s(), time.monotonic()
        r = await ex.execute(
            "import time\nend = time.monotonic() + 3\nwhile time.monotonic() < end:\n    pass",
            timeout=30,
        )
        wall = time.monotonic() - start
        used = group.cpu_usage_s() - before
    assert r.error is None, r
    # a quarter of a CPU over the cell's wall time, plus one scheduling period of slack
    assert used <= 0.25 * wall + 0.15, f"{used:.2f} CPU-s in {wall:.2f} s"
    assert used >= 0.1  # it did run


@NEEDS_CGROUPS
async def test_memory_past_the_cgroup_limit_stops_the_session_with_the_reason() -> None:
    """The control group alone (RLIMIT_AS lifted for this test) stops a session that takes
    more memory than it may: a ``MemoryError`` result, and the session works afterwards."""
    ex = _process(memory_limit_mb=200, disk_limit_mb=50, allowed_modules=["numpy"])
    ex.limits["memory_bytes"] = 8 << 30  # RLIMIT_AS off: only the cgroup stands
    async with ex:
        r = await ex.execute(
            "import numpy as np\nchunks = []\n"
            "for i in range(40):\n    chunks.append(np.ones(16 << 20, dtype=np.uint8))\n",
            timeout=60,
        )
        assert r.restarted, r
        assert r.error is not None and r.error.type == "MemoryError", r
        assert "memory limit" in r.error.message
        r = await ex.execute("print(1 + 1)")
        assert r.stdout.strip() == "2", r


async def test_heap_past_the_memory_limit_is_a_memory_error_in_the_cell() -> None:
    async with _process(memory_limit_mb=256, allowed_modules=["numpy"]) as ex:
        r = await ex.execute("import numpy as np\na = np.ones(400 << 20, dtype=np.uint8)")
        assert r.error is not None and r.error.type == "MemoryError", r
        r = await ex.execute("print('alive')")
        assert r.stdout.strip() == "alive"


async def test_bad_limits_are_usage_errors() -> None:
    with pytest.raises(UserError):
        RestrictedExecutor(disk_limit_mb=0)
    with pytest.raises(UserError):
        RestrictedExecutor(cpus=-1)
    with pytest.raises(UserError):
        RestrictedExecutor(pids_limit=0)


# -- a crashed host process ------------------------------------------------------------------------
_CRASHING_HOST = STARTED_TOOL + textwrap.dedent(
    """
    import anyio
    from codeact.executors import RestrictedExecutor

    BUSY = "from tools import started\\nstarted('cell')\\nwhile True:\\n    pass"

    async def main():
        ex = RestrictedExecutor(isolation="process", tools=[started], timeout=600)
        await ex.start()
        group = ex.cgroup.dirs["memory" if ex.cgroup.version == 1 else ""] if ex.cgroup else "-"
        print(ex.workspace.root, group, ex._worker.worker_pid or ex._worker.proc.pid, flush=True)
        await ex.execute(BUSY)

    anyio.run(main)
    """
)


@pytest.fixture
def crashed_host() -> Iterator[tuple[Path, Path | None, int]]:
    """A host process with a live session running a busy cell, killed with SIGKILL."""
    proc = subprocess.Popen(
        [sys.executable, "-c", _CRASHING_HOST],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).parents[2],
    )
    assert proc.stdout is not None
    line = proc.stdout.readline().split()
    folder, group, worker = Path(line[0]), (None if line[1] == "-" else Path(line[1])), int(line[2])
    read_until_started(proc.stdout, "cell")  # the busy cell is running
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    yield folder, group, worker


@NEEDS_ROOT
def test_after_kill_9_the_worker_stops_and_the_next_process_reaps_everything(
    crashed_host: tuple[Path, Path | None, int],
) -> None:
    folder, group, worker = crashed_host
    # no worker outlives its owner: it sees its stdin hang up (or bubblewrap dies with it)
    wait_until(lambda: not process_alive(worker), f"worker {worker} to end", timeout=10)
    assert folder.exists()  # what a crash leaves...
    reaped = subprocess.run(
        [
            sys.executable,
            "-c",
            "from codeact.executors.restricted import reap_leftovers as r; print(r())",
        ],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).parents[2],
        timeout=60,
    )
    assert "folders=" in reaped.stdout and "problems=()" in reaped.stdout, reaped
    assert not folder.exists(), "the crashed session's folder is still there"  # ...is reaped
    if group is not None:
        assert not group.exists(), "the crashed session's cgroup is still there"


@NEEDS_ROOT
async def test_reaping_never_touches_a_live_sessions_files() -> None:
    async with _process() as ex:
        assert ex.workspace is not None
        await ex.upload("data.csv", b"a,b\n1,2\n")
        # another process's reaper runs while this session lives
        await anyio.run_process(
            [
                sys.executable,
                "-c",
                "from codeact.executors.restricted import reap_leftovers; reap_leftovers()",
            ],
            check=True,
            cwd=Path(__file__).parents[2],
        )
        assert await ex.download("data.csv") == b"a,b\n1,2\n"
        assert ex.cgroup is None or all(d.exists() for d in ex.cgroup.dirs.values())
    assert reap_leftovers().folders == 0


def test_workspaces_of_dead_owners_are_reaped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CODEACT_SESSIONS_DIR", str(tmp_path / "sessions"))
    monkeypatch.setenv("CODEACT_NO_QUOTA", "1")
    mine = Workspace.create(1 << 20, 100)
    dead = sessions_root() / "999999999.12345-abcdef"  # no such pid
    (dead / "workspace" / "x").mkdir(parents=True)
    reused = sessions_root() / f"{os.getpid()}.1-abcdef"  # this pid, another start time
    reused.mkdir()
    assert reap_leftovers().folders == 2
    assert mine.root.exists() and not dead.exists() and not reused.exists()
    mine.remove()


def test_doctor_facts_name_the_containment() -> None:
    facts = host_containment()
    assert facts.seccomp.split(" (")[0] in ("allow-list", "deny-list", "none")
    if CI:  # CI installs libseccomp and runs as root on cgroup v1
        assert facts.seccomp == "allow-list (libseccomp)"
        assert facts.cgroups_ok and facts.disk_quota_ok


# -- the system-call filter ------------------------------------------------------------------------
#: (name, x86-64 number, arm64 number, arguments): calls outside the allow-list.
REFUSED = [
    ("unshare(CLONE_NEWUSER)", 272, 97, (0x10000000,)),
    ("setns", 308, 268, (0, 0)),
    ("mount", 165, 40, (0, 0, 0, 0, 0)),
    ("ptrace(PTRACE_TRACEME)", 101, 117, (0, 0, 0, 0)),
    ("process_vm_readv", 310, 270, (1, 0, 0, 0, 0, 0)),
    ("bpf", 321, 280, (0, 0, 0)),
    ("perf_event_open", 298, 241, (0, 0, -1, -1, 0)),
    ("userfaultfd", 323, 282, (0,)),
    ("keyctl", 250, 219, (0, 0)),
    ("add_key", 248, 217, (0, 0, 0, 0, 0)),
    ("io_uring_setup", 425, 425, (1, 0)),
    ("memfd_create", 319, 279, (0, 0)),
    ("inotify_init1", 294, 26, (0,)),
    ("fanotify_init", 300, 262, (0, 0)),
    ("open_by_handle_at", 304, 265, (0, 0, 0)),
    ("kexec_load", 246, 104, (0, 0, 0, 0)),
    ("init_module", 175, 105, (0, 0, 0)),
    ("chroot", 161, 51, (0,)),
    ("pivot_root", 155, 41, (0, 0)),
    ("fsopen", 430, 430, (0, 0)),
    ("pidfd_open", 434, 434, (1, 0)),
    ("msgget", 68, 186, (0, 0)),
    ("shmget", 29, 194, (0, 4096, 0)),
    ("mq_open", 240, 180, (0, 0, 0, 0)),
    ("kcmp", 312, 272, (1, 1, 0, 0, 0)),
    ("vmsplice", 278, 75, (0, 0, 0, 0)),
    ("syslog", 103, 116, (3, 0, 0)),
    ("socket(AF_VSOCK)", 41, 198, (40, 1, 0)),
    ("socket(AF_PACKET)", 41, 198, (17, 3, 0)),
    ("socket(AF_ALG)", 41, 198, (38, 5, 0)),
    ("clone(CLONE_NEWNET)", 56, 220, (0x40000000, 0, 0, 0, 0)),
    ("lookup_dcookie", 212, 18, (0, 0, 0)),
]

_PROBE = textwrap.dedent(
    """
    import ctypes, json, os, platform, sys
    libc = ctypes.CDLL(None, use_errno=True)
    col = 1 if platform.machine() == "x86_64" else 2
    out = {}
    for row in json.loads(sys.argv[1]):
        nr, args = row[col], row[3]
        ctypes.set_errno(0)
        rc = libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(a) for a in args])
        out[row[0]] = 0 if rc >= 0 else ctypes.get_errno()
    # what a data worker does keeps working
    import socket, threading
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM); s.close()
    t = threading.Thread(target=lambda: None); t.start(); t.join()
    open("/tmp/x", "w").write("x")
    out["ordinary"] = "ok"
    print(json.dumps(out))
    """
)


@NEEDS_BWRAP
def test_calls_outside_the_allow_list_are_refused_in_the_worker_sandbox(tmp_path: Path) -> None:
    """Unguarded code in the worker's own sandbox (the same bubblewrap options and filter)
    tries each call: every one is refused with EPERM or ENOSYS."""
    import json

    if CI:
        assert filter_kind() == "allow-list (libseccomp)"
    plan = SandboxPlan.build(())
    binary = bwrap_path()
    assert binary is not None
    fds = [fd for fd in (seccomp_fd(),) if fd is not None]
    argv, args_fd = bwrap_argv(
        binary,
        plan.options(workdir=tmp_path, info_fd=None, seccomp_fd=fds[0] if fds else None),
        [plan.python, "-S", "-c", _PROBE, json.dumps(REFUSED)],
    )
    fds.append(args_fd)
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=60, pass_fds=fds)
    finally:
        for fd in fds:
            os.close(fd)
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(proc.stdout)
    assert seen.pop("ordinary") == "ok"
    allowed = {name: code for name, code in seen.items() if code not in (errno.EPERM, errno.ENOSYS)}
    assert not allowed, f"calls outside the allow-list were not refused: {allowed}"
    assert len(seen) == len(REFUSED)


async def test_sessions_each_stopped_at_their_limit_and_the_host_keeps_its_headroom() -> None:
    def available() -> int:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) << 10
        return 0

    before = available()
    sessions = [_process(memory_limit_mb=300, allowed_modules=["numpy"]) for _ in range(3)]
    results = []

    async def greedy(ex: RestrictedExecutor) -> None:
        async with ex:
            results.append(
                await ex.execute(
                    "import numpy as np\nheld = []\n"
                    "for i in range(100):\n    held.append(np.ones(16 << 20, dtype=np.uint8))\n",
                    timeout=120,
                )
            )

    async with anyio.create_task_group() as tg:
        for ex in sessions:
            tg.start_soon(greedy, ex)
    assert len(results) == 3
    for r in results:
        assert r.error is not None and r.error.type == "MemoryError", r
    # what they held is gone again (nothing kept beyond their own limits meanwhile)
    assert before - available() < 600 << 20


_UNGUARDED = textwrap.dedent(
    """
    import ctypes, os
    libc = ctypes.CDLL(None, use_errno=True)
    out = []
    try:
        os.execv("/bin/true", ["true"])
    except OSError as exc:
        out.append(f"execv {exc.errno}")
    ctypes.set_errno(0)
    rc = libc.syscall(319 if os.uname().machine == "x86_64" else 279, b"m", 0)  # memfd_create
    out.append(f"memfd {rc} {ctypes.get_errno()}")
    open("attack-result.txt", "w").write(" ".join(out))
    """
)


@pytest.mark.parametrize("os_sandbox", ["none", "bwrap"])
async def test_code_past_the_guards_cannot_exec_or_leave_the_allow_list(
    os_sandbox: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The worker's own filter (stacked on bubblewrap's, and the only one without it): code
    that got past the guards (here through the documented pickle opt-in) cannot replace the
    worker with another program, nor call what the allow-list leaves out."""
    from tests.security.attacks import pickle_cell

    if os_sandbox == "bwrap" and not os_sandbox_status().available:
        pytest.skip("bubblewrap unusable here")
    if os_sandbox == "none" and ROOT:  # the interpreter under /root is not readable by 65534
        monkeypatch.setenv("CODEACT_WORKER_AS_ROOT", "1")
    if filter_kind() != "allow-list (libseccomp)":
        pytest.skip("libseccomp missing: the worker installs no filter of its own")
    async with _process(os_sandbox=os_sandbox, allowed_modules=["numpy"], allow_pickle=True) as ex:
        r = await ex.execute(pickle_cell(_UNGUARDED))
        said = r.stdout.strip()
        assert said.startswith("execv "), r
        execv, _, memfd = said.partition(" memfd ")
        assert int(execv.split()[1]) == errno.EPERM
        rc, err = (int(x) for x in memfd.split())
        assert rc == -1 and err in (errno.EPERM, errno.ENOSYS), said
        r = await ex.execute("print('still here')")
        assert r.stdout.strip() == "still here"
