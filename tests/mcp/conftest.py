"""Fixtures of the MCP tests: the test server over stdio and over Streamable HTTP on
127.0.0.1, and a check that no server process outlives a test."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest

from codeact.mcp import MCPServer

pytest.importorskip("mcp")

APP = str(Path(__file__).with_name("server_app.py"))


def server_processes() -> list[psutil.Process]:
    """Live stdio test servers that are descendants of this process."""
    found = []
    for proc in psutil.Process().children(recursive=True):
        try:
            cmd = proc.cmdline()
            if APP in cmd and "stdio" in cmd and proc.status() != psutil.STATUS_ZOMBIE:
                found.append(proc)
        except psutil.Error:
            continue
    return found


def wait_until(check: Callable[[], bool], timeout: float = 15.0) -> bool:
    """Poll ``check`` until it holds or ``timeout`` passes."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return check()


@pytest.fixture(autouse=True)
def no_server_left(request: pytest.FixtureRequest) -> Iterator[None]:
    """Every stdio server a test started is gone after it (the HTTP one is the fixture's)."""
    yield
    assert wait_until(lambda: not server_processes()), f"leaked: {server_processes()}"


def stdio(name: str = "crm", **kwargs: Any) -> MCPServer:
    """The test server over stdio."""
    return MCPServer(name=name, command=sys.executable, args=[APP, "stdio"], **kwargs)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    """The test server over Streamable HTTP on 127.0.0.1 (one per module)."""
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, APP, "http", str(port)],
        env={**os.environ, "SERVER_LABEL": "http"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )

    def up() -> bool:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return True
        except OSError:
            return proc.poll() is not None

    try:
        assert wait_until(up, 30) and proc.poll() is None, "the HTTP test server did not start"
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(10)
