"""A throwaway PostgreSQL server from the Debian binaries (``initdb``/``pg_ctl``, package
``postgresql``), for tests and for trying replicas: a temp dir, a loopback port, its socket in
the same dir, run as the unprivileged ``postgres`` user when we are root (PostgreSQL refuses to
run as root; the user is created when missing). Stdlib only; ``create_database`` needs psycopg.

``python -m codeact.testing.postgres --replicas 3`` starts one, and three ``codeact serve``
replicas sharing it on ports 8001-8003, until Ctrl-C (``make replicas``)."""

from __future__ import annotations

import argparse
import atexit
import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

PG_USER = "postgres"  # the Debian package's system user
DB_USER = "codeact"


def find_bin(name: str) -> str | None:
    """``name`` on PATH, else in the newest /usr/lib/postgresql/*/bin (Debian's layout)."""
    found = shutil.which(name)
    if found:
        return found
    dirs = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(p.split("/")[-2]))
    for d in dirs:
        if os.path.exists(os.path.join(d, name)):
            found = os.path.join(d, name)
    return found


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port: int = sock.getsockname()[1]
    sock.close()
    return port


def _as_user() -> list[str]:
    if os.geteuid() != 0:
        return []
    try:
        pwd.getpwnam(PG_USER)
    except KeyError:
        cmd = ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", PG_USER]
        subprocess.run(cmd, check=True)
    return ["runuser", "-u", PG_USER, "--"]


class PostgresServer:
    """``initdb`` in a fresh temp dir (trust auth, loopback only); ``start``/``stop`` (an
    outage), ``create_database``, ``close`` (stop and remove everything)."""

    def __init__(self) -> None:
        initdb, pg_ctl = find_bin("initdb"), find_bin("pg_ctl")
        if initdb is None or pg_ctl is None:
            raise FileNotFoundError("initdb/pg_ctl not found (apt-get install postgresql)")
        self.pg_ctl = pg_ctl
        self.prefix = _as_user()
        self.dir = Path(tempfile.mkdtemp(prefix="codeact-pg-"))
        if self.prefix:
            shutil.chown(self.dir, PG_USER)
        self.data = self.dir / "data"
        self.port = free_port()
        cmd = [*self.prefix, initdb, "-D", str(self.data), "-A", "trust", "-U", DB_USER]
        cmd += ["-E", "UTF8", "--no-sync", "--locale=C"]
        subprocess.run(cmd, check=True, capture_output=True)
        atexit.register(self.close)  # (a test run that is interrupted leaves no server behind)

    @property
    def admin_url(self) -> str:
        return self.url("postgres")

    def url(self, db: str) -> str:
        """The URL of database ``db`` on this server."""
        return f"postgresql://{DB_USER}@127.0.0.1:{self.port}/{db}"

    def start(self, attempts: int = 5) -> None:
        """Start (again); another port is tried if the one chosen was taken meanwhile."""
        for attempt in range(attempts):
            opts = (
                f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off "
                "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
            )
            cmd = [*self.prefix, self.pg_ctl, "-D", str(self.data), "-o", opts]
            cmd += ["-l", str(self.dir / "log"), "-w", "-t", "60", "start"]
            if subprocess.run(cmd, capture_output=True).returncode == 0:
                return
            if attempt + 1 < attempts:
                self.port = free_port()
        log = (self.dir / "log").read_text(errors="replace")[-2000:]
        raise RuntimeError(f"PostgreSQL did not start:\n{log}")

    def stop(self, mode: str = "fast") -> None:
        """Stop the server (``fast``: connections are closed; ``immediate``: like a crash)."""
        cmd = [*self.prefix, self.pg_ctl, "-D", str(self.data), "-m", mode, "-w", "stop"]
        subprocess.run(cmd, check=False, capture_output=True)

    def create_database(self) -> str:
        """A fresh, empty database; its URL."""
        import psycopg

        name = f"t_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def close(self) -> None:
        """Stop the server and remove its files (closing twice is fine)."""
        if self.dir.exists():
            self.stop("immediate")
            shutil.rmtree(self.dir, ignore_errors=True)


def demo_agent() -> object:
    """What ``make replicas`` serves when no agent is named: a scripted agent streaming a
    slow answer (about 10 s), so that cancels and re-attaches can be tried by hand."""
    from codeact import FunctionAgent
    from codeact.llms import Reply, ScriptedLLM

    words = [f"word{i} " for i in range(100)]
    return FunctionAgent(llm=ScriptedLLM([Reply(chunks=words, chunk_delay=0.1)] * 10_000))


def main(argv: list[str] | None = None) -> int:
    """A throwaway PostgreSQL and ``--replicas`` ``codeact serve`` processes sharing it; the
    URLs are printed once every replica answers. Ctrl-C (130) or SIGTERM (143) stops them all
    (each replica drains) and removes the database."""
    p = argparse.ArgumentParser(prog="python -m codeact.testing.postgres", description=__doc__)
    p.add_argument("--replicas", type=int, default=3)
    p.add_argument("--port", type=int, default=8001, help="the first replica's port")
    p.add_argument("serve_args", nargs="*", help="more `codeact serve` options (after --)")
    args = p.parse_args(argv)
    extra = args.serve_args or ["--agent", "codeact.testing.postgres:demo_agent"]
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)  # (even if started in the background)
    procs: list[subprocess.Popen[bytes]] = []
    server: PostgresServer | None = None
    try:
        server = PostgresServer()
        server.start()
        url = server.create_database()
        for i in range(args.replicas):
            cmd = [sys.executable, "-m", "codeact.cli", "serve", "--db", url]
            procs.append(subprocess.Popen([*cmd, "--port", str(args.port + i), *extra]))
        ports = [args.port + i for i in range(args.replicas)]
        if not _wait_listening(ports, procs):
            print("a replica exited before it listened", file=sys.stderr, flush=True)
            return 1
        print(f"PostgreSQL: {url}", flush=True)
        for i, port in enumerate(ports):
            print(f"replica {i + 1}: http://127.0.0.1:{port}/", flush=True)
        print("Ctrl-C stops them all", flush=True)
        while all(proc.poll() is None for proc in procs):
            time.sleep(0.5)
        return 1
    except _Signalled as stopped:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the clean-up below is not interrupted
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        return 130 if stopped.signum == signal.SIGINT else 143
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in procs:
            proc.wait(60)
        if server is not None:
            server.close()


class _Signalled(Exception):
    def __init__(self, signum: int) -> None:
        self.signum = signum


def _stop(signum: int, _frame: object) -> None:
    raise _Signalled(signum)


def _wait_listening(ports: list[int], procs: list[subprocess.Popen[bytes]]) -> bool:
    """Wait until every port accepts connections; False when a replica exited first."""
    waiting = list(ports)
    while waiting:
        if any(proc.poll() is not None for proc in procs):
            return False
        try:
            socket.create_connection(("127.0.0.1", waiting[0]), timeout=1).close()
            waiting.pop(0)
        except OSError:
            time.sleep(0.1)
    return True


if __name__ == "__main__":
    sys.exit(main())
