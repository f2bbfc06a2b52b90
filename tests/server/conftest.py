from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from codeact.server import make_server


class LiveServer:
    """An ASGI app served by uvicorn on 127.0.0.1 in a background thread (real HTTP)."""

    def __init__(self, app: Any, **options: Any) -> None:
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        sock.close()
        options.setdefault("drain_timeout", 2.0)
        self.server = make_server(app, host="127.0.0.1", port=self.port, **options)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            assert time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(30)


@pytest.fixture
def serve() -> Iterator[Callable[..., LiveServer]]:
    started: list[LiveServer] = []

    def start(app: Any, **options: Any) -> LiveServer:
        s = LiveServer(app, **options).start()
        started.append(s)
        return s

    yield start
    for s in started:
        s.stop()


@pytest.fixture(scope="session")
def postgres() -> Iterator[Any]:
    """A real PostgreSQL server for the session (see ``tests/server/pg.py``)."""
    from tests.server.pg import start_or_skip

    server = start_or_skip()
    yield server
    server.close()
