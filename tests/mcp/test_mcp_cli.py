"""``codeact run --mcp-config`` and ``codeact serve --mcp-config`` with the test server from an
``mcpServers`` file: the same CodeAct turn as a user runs it, and no server process left."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import uuid
from pathlib import Path

import httpx
import psutil
import pytest

from codeact.errors import UserError
from codeact.mcp import load_mcp_config
from tests.mcp.conftest import APP, wait_until
from tests.mcp.test_mcp_tools import TURN, _expected_top3
from tests.server.agui_check import parse_sse

ROOT = Path(__file__).resolve().parents[2]


def _config(tmp: Path) -> tuple[Path, str]:
    marker = f"marker-{uuid.uuid4().hex}"
    path = tmp / "mcp.json"
    path.write_text(
        json.dumps(
            {"mcpServers": {"crm": {"command": sys.executable, "args": [APP, "stdio", marker]}}}
        )
    )
    return path, marker


def _marked(marker: str) -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter(["cmdline", "status"]):
        if marker in (proc.info["cmdline"] or []) and proc.info["status"] != "zombie":
            found.append(proc)
    return found


def _replies(tmp: Path) -> Path:
    script = tmp / "replies.json"
    script.write_text(json.dumps([TURN, "Top: " + ", ".join(_expected_top3())]))
    return script


def _env() -> dict[str, str]:
    drop = ("CODEACT_MODEL", "OPENAI_BASE_URL")
    return {**{k: v for k, v in os.environ.items() if k not in drop}, "PYTHONPATH": str(ROOT)}


def test_run_takes_mcp_servers_from_a_config_file(tmp_path: Path) -> None:
    config, marker = _config(tmp_path)
    argv = [sys.executable, "-m", "codeact.cli", "run", "Top 3?", "--mcp-config", str(config)]
    argv += ["--model", f"scripted:{_replies(tmp_path)}"]
    r = subprocess.run(argv, capture_output=True, text=True, timeout=180, env=_env(), cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "Top: " + ", ".join(_expected_top3())
    assert wait_until(lambda: not _marked(marker))
    bad = tmp_path / "bad.json"
    bad.write_text('{"mcpServers": {"x": {"url": "ftp://nope"}}}')
    argv = [sys.executable, "-m", "codeact.cli", "run", "x", "--mcp-config", str(bad)]
    r = subprocess.run(argv, capture_output=True, text=True, timeout=60, env=_env(), cwd=ROOT)
    assert r.returncode == 2 and "url must start with http://" in r.stderr


def test_serve_runs_the_turn_with_mcp_servers_from_a_config_file(tmp_path: Path) -> None:
    config, marker = _config(tmp_path)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    argv = [sys.executable, "-m", "codeact", "serve", "--port", str(port)]
    argv += ["--model", f"scripted:{_replies(tmp_path)}", "--mcp-config", str(config)]
    argv += ["--db", str(tmp_path / "s.db")]
    proc = subprocess.Popen(
        argv, cwd=ROOT, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        body = {"threadId": "t", "runId": "r", "messages": [{"role": "user", "content": "go"}]}
        response = None

        def post() -> bool:
            nonlocal response
            try:
                response = httpx.post(f"http://127.0.0.1:{port}/", json=body, timeout=120)
                return True
            except httpx.ConnectError:
                return False

        assert wait_until(post, 60) and response is not None and response.status_code == 200
        events = parse_sse(response.content)
        text = "".join(e.get("delta", "") for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")
        assert "Top: " + ", ".join(_expected_top3()) in text
        assert events[-1]["type"] == "RUN_FINISHED"
        assert len(_marked(marker)) == 1  # the thread's server, kept for its next run
    finally:
        proc.terminate()
        proc.wait(30)
    assert wait_until(lambda: not _marked(marker))


def test_config_format_errors_are_clear(tmp_path: Path) -> None:
    servers = load_mcp_config(
        {
            "mcpServers": {
                "files": {"command": "npx", "args": ["-y", "fs"], "env": {"A": "1"}},
                "remote": {"type": "http", "url": "https://x.example/mcp", "headers": {"k": "v"}},
                "off": {"command": "x", "disabled": True},
            }
        }
    )
    assert [(s.name, s.transport) for s in servers] == [("files", "stdio"), ("remote", "http")]
    for data, message in [
        ({}, '"mcpServers"'),
        ({"mcpServers": {"a": {"type": "sse", "url": "http://x"}}}, "uses SSE"),
        ({"mcpServers": {"a": {"command": "x", "bogus": 1}}}, "bogus"),
        ({"mcpServers": {"a": {"command": "x", "timeout": -1}}}, "timeout"),
        ({"mcpServers": {"a": "x"}}, "must be an object"),
    ]:
        with pytest.raises(UserError, match=message):
            load_mcp_config(data)
    (tmp_path / "x.json").write_text("{nope")
    with pytest.raises(UserError, match="not valid JSON"):
        load_mcp_config(tmp_path / "x.json")
