"""A real PostgreSQL server for tests, started from the Debian binaries (``initdb``/``pg_ctl``,
package ``postgresql``) in a temp dir: a loopback port, its socket in the same dir, run as an
unprivileged user when we are root (PostgreSQL refuses to run as root). Without the binaries
the tests that need it skip, unless ``CODEACT_REQUIRE_POSTGRES=1`` (CI) makes that a failure."""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

import pytest

PG_USER = "postgres"  # the Debian package's system user; created when missing
DB_USER = "codeact"


def find_bin(name: str) -> str | None:
    """``name`` on PATH, else in the newest /usr/lib/postgresql/*/bin (Debian's layout)."""
    found = shutil.which(name)
    if found:
        return found
    for d in sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(p.split("/")[-2])):
        if os.path.exists(os.path.join(d, name)):
            found = os.path.join(d, name)
    return found


def free_port() -> int:
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
        subprocess.run(
            ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", PG_USER],
            check=True,
        )
    return ["runuser", "-u", PG_USER, "--"]


class PostgresServer:
    """``initdb`` + ``pg_ctl start`` in a fresh temp dir; ``stop``/``start`` for outages."""

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
        subprocess.run(
            [*self.prefix, initdb, "-D", str(self.data), "-A", "trust", "-U", DB_USER,
             "-E", "UTF8", "--no-sync", "--locale=C"],
            check=True,
            capture_output=True,
        )  # fmt: skip

    @property
    def admin_url(self) -> str:
        return f"postgresql://{DB_USER}@127.0.0.1:{self.port}/postgres"

    def url(self, db: str) -> str:
        return f"postgresql://{DB_USER}@127.0.0.1:{self.port}/{db}"

    def start(self) -> None:
        opts = (
            f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
        )
        subprocess.run(
            [*self.prefix, self.pg_ctl, "-D", str(self.data), "-o", opts,
             "-l", str(self.dir / "log"), "-w", "-t", "60", "start"],
            check=True,
            capture_output=True,
        )  # fmt: skip

    def stop(self, mode: str = "fast") -> None:
        subprocess.run(
            [*self.prefix, self.pg_ctl, "-D", str(self.data), "-m", mode, "-w", "stop"],
            check=False,
            capture_output=True,
        )

    def create_database(self) -> str:
        """A fresh database; its URL."""
        import psycopg

        name = f"t_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def close(self) -> None:
        self.stop("immediate")
        shutil.rmtree(self.dir, ignore_errors=True)


def start_or_skip() -> PostgresServer:
    """A started server, or a skip (a failure with ``CODEACT_REQUIRE_POSTGRES=1``)."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        if os.environ.get("CODEACT_REQUIRE_POSTGRES") == "1":
            raise
        pytest.skip("psycopg is not installed (pip install 'codeact[postgres]')")
    try:
        server = PostgresServer()
    except FileNotFoundError as exc:
        if os.environ.get("CODEACT_REQUIRE_POSTGRES") == "1":
            raise
        pytest.skip(str(exc))
    deadline = time.monotonic() + 5
    while True:
        try:
            server.start()
            return server
        except subprocess.CalledProcessError:  # (a port taken meanwhile: try another)
            if time.monotonic() > deadline:
                raise
            server.port = free_port()
