"""Run a command in a pseudo-terminal of a given size and read its screen as a user sees it
(pyte emulates the terminal: cursor moves, erased lines and colours are applied)."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pyte

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Session:
    """What a terminal session showed: the final screen, and the screens seen along the way
    that a ``watch`` predicate picked."""

    returncode: int
    screen: list[str]
    seen: list[list[str]] = field(default_factory=list)
    raw: bytes = b""

    @property
    def text(self) -> str:
        return "\n".join(line.rstrip() for line in self.screen).strip("\n")


def run_in_terminal(
    args: list[str],
    *,
    cols: int = 80,
    rows: int = 200,
    watch: Callable[[list[str]], bool] | None = None,
    timeout: float = 180.0,
    env: dict[str, str] | None = None,
) -> Session:
    """Run ``python -m codeact.cli *args`` on a ``cols`` x ``rows`` terminal."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    base = {k: v for k, v in os.environ.items() if k not in ("CODEACT_MODEL", "OPENAI_BASE_URL")}
    base.update(PYTHONPATH=str(ROOT), TERM="xterm-256color", COLUMNS=str(cols), LINES=str(rows))
    proc = subprocess.Popen(
        [sys.executable, "-m", "codeact.cli", *args],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        cwd=ROOT,
        env={**base, **(env or {})},
        close_fds=True,
    )
    os.close(slave)
    screen = pyte.Screen(cols, rows)
    stream = pyte.ByteStream(screen)
    session = Session(returncode=-1, screen=[])
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.05)
            if ready:
                try:
                    data = os.read(master, 65536)
                except OSError:  # the child closed the terminal
                    break
                if not data:
                    break
                stream.feed(data)
                session.raw += data
                if watch is not None and watch(screen.display):
                    session.seen.append(list(screen.display))
            elif proc.poll() is not None:
                break
        else:
            raise AssertionError(f"the command did not finish in {timeout} s")
    finally:
        if proc.poll() is None:
            proc.kill()
        session.returncode = proc.wait(30)
        os.close(master)
    session.screen = list(screen.display)
    return session
