"""Attacks on the default CLI/server executor with pandas and numpy allowed (issue 10), and the
same attempts under Docker with runc and gVisor (runsc).

Every attempt is checked on the host, not by what the sandbox reports: secrets planted in this
process's environment, in a file outside the working directory and in a fake server database
never appear in the output; marker paths outside the working directory never appear; a loopback
TCP listener and an abstract unix socket never see a connection; a victim process stays alive.

The executors here are made with ``allow_pickle=True``: the RAW attempts reach unguarded Python
through a crafted pickle, as they would if the guards had fallen (without the opt-in the guards
refuse that route: ``test_data_guards.py``), so that the OS sandbox is tested alone.
"""

from __future__ import annotations

import contextlib
import json
import os
import pathlib
import platform
import socket
import sqlite3
import subprocess
import threading
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any

import anyio
import pytest

import codeact
from codeact.executors import CodeExecutor, ExecutionResult, RestrictedExecutor
from codeact.executors.restricted._ossandbox import SANDBOX_SITE, os_sandbox_status
from codeact.executors.restricted.defaults import choose_sandbox, default_executor
from tests.security.attacks import ATTEMPTS, Attempt, as_restricted_cell

pytestmark = pytest.mark.anyio

ENV_SECRET = "env-secret-" + uuid.uuid4().hex
FILE_SECRET = "file-secret-" + uuid.uuid4().hex
DB_SECRET = "db-secret-" + uuid.uuid4().hex
os.environ["CODEACT_OS_SANDBOX_SECRET"] = ENV_SECRET
PACKAGE_DIR = pathlib.Path(codeact.__file__).resolve().parent
PROJECT_FILE = pathlib.Path(__file__).resolve()


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@dataclass
class Host:
    """What the attacks aim at, planted on the host by the test."""

    secret_dir: pathlib.Path
    marker: pathlib.Path
    port: int
    abstract: str
    victim: subprocess.Popen[bytes]
    accepted: list[str] = field(default_factory=list)

    def values(self, site: str) -> dict[str, str]:
        return {
            "secret_dir": str(self.secret_dir),
            "secret_file": str(self.secret_dir / "secret.txt"),
            "secret_name": "secret.txt",
            "db": str(self.secret_dir / "codeact-sessions.db"),
            "marker": str(self.marker),
            "port": str(self.port),
            "abstract": self.abstract,
            "victim": str(self.victim.pid),
            "host_pid": str(os.getpid()),
            "project": str(PROJECT_FILE),
            "project_dir": str(PROJECT_FILE.parent),
            "site": site,
            "io_uring_nr": "425",
            "clone_nr": "56" if platform.machine() == "x86_64" else "220",
            "bpf_nr": "321" if platform.machine() == "x86_64" else "280",
        }

    def forbidden_paths(self) -> list[pathlib.Path]:
        return [
            self.marker,
            pathlib.Path("/pwned.csv"),
            PROJECT_FILE.parent / "pwned.json",
            PACKAGE_DIR / "pwned.npy",
            PACKAGE_DIR / "codeact_pwned.py",
        ]


def _listen_tcp(family: int, addr: str, port: int, accepted: list[str]) -> socket.socket:
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((addr, port))
    sock.listen(16)
    threading.Thread(target=_accept, args=(sock, accepted, addr), daemon=True).start()
    return sock


def _accept(sock: socket.socket, accepted: list[str], label: str) -> None:
    while True:
        try:
            conn, _ = sock.accept()
        except OSError:
            return
        accepted.append(label)
        conn.close()


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Host]:
    secret_dir = tmp_path_factory.mktemp("host-secrets")
    (secret_dir / "secret.txt").write_text(FILE_SECRET + "\n")
    (secret_dir / "README").write_text(FILE_SECRET + "\n")
    db = sqlite3.connect(secret_dir / "codeact-sessions.db")
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("CREATE TABLE messages (body TEXT)")
    db.execute("INSERT INTO messages VALUES (?)", (DB_SECRET,))
    db.commit()  # the WAL keeps the row until a checkpoint: both files hold the secret
    accepted: list[str] = []
    v4 = _listen_tcp(socket.AF_INET, "127.0.0.1", 0, accepted)
    port = v4.getsockname()[1]
    socks = [v4]
    with contextlib.suppress(OSError):
        socks.append(_listen_tcp(socket.AF_INET6, "::1", port, accepted))
    abstract = "codeact-test-" + uuid.uuid4().hex
    unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    unix.bind("\0" + abstract)
    unix.listen(4)
    threading.Thread(target=_accept, args=(unix, accepted, "abstract"), daemon=True).start()
    victim = subprocess.Popen(["sleep", "3600"])
    marker = pathlib.Path("/tmp") / f"codeact-marker-{uuid.uuid4().hex}"
    try:
        yield Host(secret_dir, marker, port, abstract, victim, accepted)
    finally:
        victim.kill()
        victim.wait()
        for s in [*socks, unix]:
            s.close()
        db.close()


def _output(r: ExecutionResult) -> str:
    err = f"{r.error.type}: {r.error.message}\n{r.error.traceback}" if r.error else ""
    return "\n".join([r.stdout, r.stderr, r.value or "", err])


def _reported(r: ExecutionResult) -> dict[str, Any] | None:
    for line in r.stdout.splitlines():
        if line.startswith("RESULT "):
            parsed: dict[str, Any] = json.loads(line[7:])
            return parsed
    return None


def check(attempt: Attempt, r: ExecutionResult, host: Host, backend: str) -> None:
    """The host-side checks every attempt must pass, plus its own expectations."""
    text = _output(r)
    for secret in (ENV_SECRET, FILE_SECRET, DB_SECRET):
        assert secret not in text, f"{attempt.id}: a planted secret reached the cell"
    for path in host.forbidden_paths():
        assert not path.exists(), f"{attempt.id}: wrote {path} on the host"
    assert host.accepted == [], f"{attempt.id}: connected to the host ({host.accepted})"
    assert host.victim.poll() is None, f"{attempt.id}: killed a host process"
    reported = _reported(r)
    expect = attempt.expect
    if backend == "docker" and attempt.docker_expect is not None:
        expect = attempt.docker_expect
    if attempt.raw and not (r.restarted and attempt.id in MAY_END_THE_SESSION):
        # the unguarded code must really have run: a broken payload proves nothing
        assert reported is not None, f"{attempt.id}: the attack did not run: {text[:500]!r}"
    if "fails" in expect:
        failed = (
            r.error is not None if not attempt.raw else (reported is None or not reported["ok"])
        )
        assert failed, f"{attempt.id}: expected to fail, got {text[:500]!r}"
    if "no_fork" in expect and backend == "restricted":
        assert reported is not None and not reported["ok"], f"{attempt.id}: fork succeeded"
    if "lo_only" in expect:
        assert r.error is None and "lo:" in r.stdout, text[:500]
        for iface in _host_interfaces() - {"lo"}:
            assert f"{iface}:" not in r.stdout, f"{attempt.id}: sees host interface {iface}"
    if "no_host_paths" in expect and backend == "restricted":
        for path in (str(PACKAGE_DIR), "/tmp/codeact-session-", str(PROJECT_FILE.parent)):
            assert path not in text, f"{attempt.id}: the sandbox sees the host path {path}"
    listener = f":{host.port:04X}"
    if attempt.id == "pd_net_tcp_sees_host_listener":
        assert listener not in r.stdout, f"{attempt.id}: sees the host's listening socket"


#: Attempts that may legitimately take the sandbox down with them (the session is restarted).
MAY_END_THE_SESSION = {"raw_kill_all", "raw_exec_host_binary"}


def _host_interfaces() -> set[str]:
    lines = pathlib.Path("/proc/net/dev").read_text().splitlines()[2:]
    return {line.split(":")[0].strip() for line in lines}


# -- the default CLI/server executor --------------------------------------------------------------
RESTRICTED = [a for a in ATTEMPTS if "restricted" in a.backends]


@pytest.fixture(scope="module")
async def default_sandbox() -> AsyncIterator[CodeExecutor]:
    status = os_sandbox_status()
    if not status.available:
        message = f"bubblewrap is needed for this suite: {status.detail} ({status.fix})"
        if os.environ.get("CI") == "true" or os.environ.get("CODEACT_REQUIRE_DOCKER") == "1":
            pytest.fail(message)
        pytest.skip(message)
    choice = choose_sandbox(None)
    assert {"pandas", "numpy"} <= set(choice.allowed_modules), choice
    ex = default_executor(allow_pickle=True, timeout=20)
    async with ex:
        assert ex.os_sandboxed
        yield ex


@pytest.mark.parametrize("attempt", RESTRICTED, ids=lambda a: a.id)
async def test_default_executor_holds(attempt: Attempt, default_sandbox: Any, host: Host) -> None:
    ex = default_sandbox
    link = ex.workdir / "planted_link.txt"
    if not link.is_symlink():
        link.symlink_to(host.secret_dir / "secret.txt")
    cell = as_restricted_cell(attempt, host.values(f"{SANDBOX_SITE}/codeact"))
    r = await ex.execute(cell)
    check(attempt, r, host, "restricted")


async def test_workers_of_two_sessions_cannot_see_each_other(
    host: Host, default_sandbox: Any
) -> None:
    async with default_executor(timeout=20) as a, default_executor(timeout=20) as b:
        await b.upload("private.txt", FILE_SECRET.encode())
        r = await a.execute(
            f"import pandas as pd\nprint(pd.read_csv('{b.workdir}/private.txt', header=None))"
        )
        assert r.error is not None and FILE_SECRET not in _output(r)


async def test_ordinary_data_workload_works_in_the_sandbox(default_sandbox: Any) -> None:
    """Read an uploaded CSV, group, plot to PNG, write an output file, download both."""
    async with default_executor(allow=["pandas", "numpy", "matplotlib"], timeout=60) as ex:
        assert ex.os_sandboxed
        await ex.upload("sales.csv", b"city,units\nParis,10\nLyon,4\nParis,23\nNice,28\n")
        r = await ex.execute(WORKLOAD)
        assert r.error is None, r.error
        assert "Paris 33" in r.stdout
        png = await ex.download("units.png")
        assert png.startswith(b"\x89PNG")
        out = await ex.download("totals.csv")
        assert b"Paris,33" in out


WORKLOAD = """
import pandas as pd
import numpy as np
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
df = pd.read_csv("sales.csv")
totals = df.groupby("city")["units"].sum().sort_values(ascending=False)
best = totals.index[0]
print(best, int(totals.iloc[0]))
totals.to_csv("totals.csv")
np.save("/tmp/scratch.npy", np.arange(3))
assert np.load("/tmp/scratch.npy").sum() == 3
fig, ax = plt.subplots()
totals.plot.bar(ax=ax)
fig.savefig("units.png")
"""


# -- the same attempts under Docker, with runc and gVisor ------------------------------------------
DOCKER = [a for a in ATTEMPTS if "docker" in a.backends]


@pytest.fixture(scope="module")
async def docker_sandbox(docker_runtime: str, sandbox_image: str) -> AsyncIterator[CodeExecutor]:
    from codeact.executors.docker import DockerExecutor

    async with DockerExecutor(image=sandbox_image, runtime=docker_runtime, timeout=20) as ex:
        yield ex


@pytest.mark.docker
@pytest.mark.parametrize("attempt", DOCKER, ids=lambda a: a.id)
async def test_docker_holds(attempt: Attempt, docker_sandbox: Any, host: Host) -> None:
    cell = attempt.code.format(**host.values("/usr/local/lib/python3.11/site-packages"))
    r = await docker_sandbox.execute(cell)
    check(attempt, r, host, "docker")


@pytest.mark.docker
async def test_ordinary_data_workload_works_in_docker(
    docker_runtime: str, sandbox_image: str
) -> None:
    from codeact.executors.docker import DockerExecutor

    async with DockerExecutor(image=sandbox_image, runtime=docker_runtime, timeout=60) as ex:
        await ex.upload("sales.csv", b"city,units\nParis,10\nLyon,4\nParis,23\nNice,28\n")
        r = await ex.execute(WORKLOAD)
        assert r.error is None, r.error
        assert "Paris 33" in r.stdout
        assert (await ex.download("units.png")).startswith(b"\x89PNG")
        assert b"Paris,33" in await ex.download("totals.csv")


# -- the host's own file operations on a folder the sandbox controls --------------------------------
_FORGE = (
    "import os, json, struct, signal, time, ctypes\n"
    "libc = ctypes.CDLL(None, use_errno=True)\n"
    "signal.signal(signal.SIGALRM, signal.SIG_IGN)\n"
    "def _result(text):\n"
    "    body = json.dumps({{'op': 'result', 'stdout': text, 'stderr': '', 'timed_out': False,"
    " 'truncated': False}}).encode()\n"
    "    os.write(4, struct.pack('>I', len(body)) + body)\n"
)


async def test_host_upload_and_download_never_follow_a_swapped_symlink(
    host: Host, default_sandbox: Any
) -> None:
    """The worker forges a 'cell finished' frame (the host releases the executor) and keeps
    swapping ``d/`` with a symlink to a host folder while the host uploads and downloads."""
    from tests.security.attacks import pickle_cell, raw

    body = _FORGE + (
        "def attack():\n"
        "    os.makedirs('d', exist_ok=True)\n"
        "    open('d/secret.txt', 'w').write('decoy')\n"
        "    os.symlink('{secret_dir}', 'l')\n"
        "    _result('cell finished')\n"
        "    t = time.time()\n"
        "    while time.time() - t < 6:\n"
        "        libc.syscall(316, -100, b'd', -100, b'l', 2)  # renameat2(RENAME_EXCHANGE)\n"
    )
    attempt = raw("swap", body)
    async with default_executor(allow_pickle=True, timeout=20) as ex:
        await ex.execute(pickle_cell(attempt.code.format(**host.values(""))))
        import time

        from codeact.errors import UserError

        end = time.monotonic() + 4
        while time.monotonic() < end:
            with contextlib.suppress(UserError):
                assert FILE_SECRET.encode() not in await ex.download("d/secret.txt")
            with contextlib.suppress(UserError):
                await ex.upload("d/pwned.txt", b"written by the host")
            assert not (host.secret_dir / "pwned.txt").exists()
            assert not (host.secret_dir / "secret.txt").read_text().startswith("written")


async def test_host_refuses_fifos_and_symlinks_planted_in_the_workdir(
    host: Host, default_sandbox: Any
) -> None:
    from codeact.errors import UserError
    from tests.security.attacks import pickle_cell, raw

    body = (
        "import os\ndef attack():\n    os.mkfifo('pipe.csv')\n"
        "    os.symlink('{secret_dir}/secret.txt', 'link.txt')\n    os.symlink('{secret_dir}', 'dir')"
    )
    async with default_executor(allow_pickle=True, timeout=20) as ex:
        r = await ex.execute(pickle_cell(raw("plant", body).code.format(**host.values(""))))
        assert '"ok": true' in r.stdout, r
        with anyio.fail_after(10):  # a FIFO must not block the host
            with pytest.raises(UserError, match="regular file"):
                await ex.download("pipe.csv")
            with pytest.raises(UserError):
                await ex.download("link.txt")
            with pytest.raises(UserError, match="not a folder"):
                await ex.download("dir/secret.txt")
            with pytest.raises(UserError, match="not a folder"):
                await ex.upload("dir/pwned.txt", b"x")
            await ex.upload("pipe.csv", b"a,b\n")  # replaces the FIFO itself
            await ex.upload("link.txt", b"replaced")  # replaces the link, not its target
        assert (host.secret_dir / "secret.txt").read_text().strip() == FILE_SECRET
        assert not (host.secret_dir / "pwned.txt").exists()
        assert await ex.download("pipe.csv") == b"a,b\n"


# -- a worker that writes frames of its own -----------------------------------------------------
def _frames_cell(host: Host, body: str) -> str:
    from tests.security.attacks import pickle_cell, raw

    return pickle_cell(raw("frames", _FORGE + body).code.format(**host.values("")))


async def test_forged_results_never_answer_another_cell(host: Host, default_sandbox: Any) -> None:
    async with default_executor(allow_pickle=True, timeout=20) as ex:
        r = await ex.execute(
            _frames_cell(host, "def attack():\n    _result('FORGED 1')\n    _result('FORGED 2')")
        )
        assert "FORGED" not in r.stdout and r.restarted and r.error is not None
        assert r.error.type == "ProtocolError", r.error
        r = await ex.execute("print('real')")
        assert r.stdout == "real\n" and r.error is None, r


async def test_a_flood_of_output_frames_is_capped_on_the_host(
    host: Host, default_sandbox: Any
) -> None:
    seen: list[int] = []
    body = (
        "def attack():\n"
        "    chunk = 'A' * (4 << 20)\n"
        "    for _ in range(6):\n"
        "        body = json.dumps({{'op': 'stream', 'name': 'stdout', 'text': chunk}}).encode()\n"
        "        os.write(4, struct.pack('>I', len(body)) + body)\n"
    )
    async with RestrictedExecutor(
        isolation="process",
        allowed_modules=["numpy"],
        max_output_bytes=100_000,
        timeout=20,
        allow_pickle=True,
    ) as ex:
        r = await ex.execute(_frames_cell(host, body), on_output=lambda _n, t: seen.append(len(t)))
        assert sum(seen) <= 100_000 and len(r.stdout) <= 101_000 and r.truncated, (sum(seen), r)


async def test_a_deeply_nested_frame_is_a_protocol_error_not_a_crash(
    host: Host, default_sandbox: Any
) -> None:
    body = (
        "def attack():\n"
        '    b = b\'{{"op": "result", "stdout": "", "stderr": "", "timed_out": false, '
        "\"truncated\": false, \"final_answer\": ' + b'[' * 200000 + b']' * 200000 + b'}}'\n"
        "    os.write(4, struct.pack('>I', len(b)) + b)\n"
        "    time.sleep(5)\n"
    )
    async with default_executor(allow_pickle=True, timeout=20) as ex:
        r = await ex.execute(_frames_cell(host, body))
        assert r.error is not None and r.error.type == "ProtocolError" and r.restarted, r
        assert (await ex.execute("print('next')")).stdout == "next\n"


async def test_reset_of_a_worker_that_never_answers_is_bounded(
    host: Host, default_sandbox: Any
) -> None:
    async with default_executor(allow_pickle=True, timeout=30) as ex:
        await ex.execute("kept = 1")
        cell = _frames_cell(host, "def attack():\n    _result('done')\n    time.sleep(60)")
        await ex.execute(cell)
        with anyio.fail_after(25):
            await ex.reset()
        r = await ex.execute("print('alive')")
        assert r.stdout == "alive\n", r
