"""How the command is started, and the models it is given by name (``--model``).

Each test runs the command as a user would (a subprocess); the model endpoints are real HTTP
servers on 127.0.0.1.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import httpx
import pytest

from codeact.testing import FakeOpenAIServer
from tests.server.agui_check import parse_sse

ROOT = Path(__file__).resolve().parents[2]


def cli(
    *args: str, module: str = "codeact", timeout: float = 120, **extra_env: str
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CODEACT_MODEL", "OPENAI_BASE_URL")}
    env["PYTHONPATH"] = str(ROOT)
    env.update(extra_env)
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        cwd=ROOT,
    )


def test_python_dash_m_codeact_and_codeact_cli_are_the_same_command() -> None:
    a, b = cli("--help"), cli("--help", module="codeact.cli")
    assert a.returncode == b.returncode == 0
    assert a.stdout == b.stdout and "{run,batch,doctor,serve,mcp,sandbox}" in a.stdout
    assert cli("--version").stdout.startswith("codeact ")


def test_the_console_script_entry_point_resolves_to_main() -> None:
    import importlib

    import codeact.cli

    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    module_name, _, attr = scripts["codeact"].partition(":")
    assert getattr(importlib.import_module(module_name), attr) is codeact.cli.main
    with pytest.raises(SystemExit) as info:
        codeact.cli.main(["--version"])
    assert info.value.code == 0


def test_run_with_a_model_at_a_base_url(tmp_path: Path) -> None:
    with FakeOpenAIServer(["<execute>\nprint(6 * 7)\n</execute>", "It is 42."]) as srv:
        r = cli("run", "six times seven?", "--json", "--model", f"openai:qwen:7b@{srv.base_url}")
        assert r.returncode == 0, r.stderr
        payload = json.loads(r.stdout)
        assert payload["answer"] == "It is 42." and payload["model"] == "qwen:7b"
        assert payload["steps"][0]["output"].strip() == "42"
        assert [q["model"] for q in srv.requests] == ["qwen:7b", "qwen:7b"]
    with FakeOpenAIServer(["Fine."]) as srv:
        r = cli("run", "x", "--json", "--model", "m", "--base-url", srv.base_url)
        assert r.returncode == 0, r.stderr
        assert json.loads(r.stdout)["answer"] == "Fine." and srv.requests[0]["model"] == "m"


def test_self_check_rates_the_answer_code_and_sends_a_doubtful_one_back() -> None:
    from codeact.llms import Reply

    doubtful = Reply(token_probabilities={"OK": 0.3, "WR": 0.7})
    replies = ["<execute>\nprint(6 * 6)\n</execute>", "36", doubtful]
    replies += ["<execute>\nprint(6 * 7)\n</execute>", "42"]
    with FakeOpenAIServer(replies) as srv:
        spec = f"openai:m@{srv.base_url}"
        r = cli("run", "six times seven?", "--json", "--self-check", "--model", spec)
        assert r.returncode == 0, r.stderr
        assert json.loads(r.stdout)["answer"] == "42"
        rating = srv.requests[2]
        assert rating["logprobs"] is True and rating["max_tokens"] == 1
        assert "print(6 * 6)" in rating["messages"][-1]["content"]
        assert "P(right) = 0.30" in srv.requests[3]["messages"][-1]["content"]
    with FakeOpenAIServer(["<execute>\nprint(6 * 7)\n</execute>", "42"]) as srv:
        r = cli("run", "six times seven?", "--json", "--model", f"openai:m@{srv.base_url}")
        assert r.returncode == 0 and len(srv.requests) == 2  # off by default: no rating


def test_bad_model_specs_are_usage_errors() -> None:
    r = cli("run", "x", "--json", "--model", "llama3:8b")
    assert r.returncode == 2
    payload = json.loads(r.stdout)
    assert (
        payload["error"] == "usage"
        and "Known providers: local, openai, scripted" in payload["message"]
    )
    r = cli("run", "x", "--model", "local", "--base-url", "http://127.0.0.1:9/v1")
    assert r.returncode == 2 and "does not take the option(s) base_url" in r.stderr
    r = cli("serve", "--model", "nope:x", "--port", "9")
    assert r.returncode == 2 and "Unknown model provider 'nope'" in r.stderr


def test_serve_builds_the_default_agent_from_the_model_name(tmp_path: Path) -> None:
    script = tmp_path / "replies.json"
    script.write_text(json.dumps(["<execute>\nprint(40 + 2)\n</execute>", "Served: 42."]))
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    argv = ["serve", "--model", f"scripted:{script}", "--port", str(port)]
    argv += ["--db", str(tmp_path / "s.db")]
    proc = subprocess.Popen(
        [sys.executable, "-m", "codeact", *argv],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        body = {"threadId": "t", "runId": "r", "messages": [{"role": "user", "content": "go"}]}
        response = None
        for _ in range(200):
            try:
                response = httpx.post(f"http://127.0.0.1:{port}/", json=body, timeout=60)
                break
            except httpx.ConnectError:
                time.sleep(0.1)
        assert response is not None and response.status_code == 200
        events = parse_sse(response.content)
        text = "".join(e.get("delta", "") for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")
        assert "Served: 42." in text
        assert events[-1]["type"] == "RUN_FINISHED"
    finally:
        proc.terminate()
        proc.wait(20)


def test_doctor_reads_codeact_model_as_a_model_spec() -> None:
    def endpoint_line(spec: str) -> str:
        out = cli("doctor", CODEACT_MODEL=spec).stdout
        return next(line for line in out.splitlines() if "OpenAI-compatible endpoint" in line)

    assert endpoint_line("openai:q:7b@http://127.0.0.1:9/v1").endswith(
        "model q:7b at http://127.0.0.1:9/v1"
    )
    assert "names the 'local' provider" in endpoint_line("local")


def test_run_with_files_wants_code_before_an_answer(tmp_path: Path) -> None:
    """With --file, an answer given before any code ran is sent back once (the CLI says so),
    and the JSON tells whether the answer was computed."""
    from tests.cli.test_cli import DATA, codeact

    code = (
        "<execute>\nimport pandas as pd\nprint(pd.read_csv('sales.csv')['units'].sum())\n</execute>"
    )
    r = codeact(
        "run",
        "How many units?",
        "--file",
        str(DATA),
        replies=["About 80 units.", code, "85 units."],
        tmp=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "85 units."
    assert "Asked the model again (no code had run yet)" in r.stderr
    r = codeact(
        "run",
        "How many units?",
        "--file",
        str(DATA),
        "--no-require-execution",
        "--json",
        replies=["About 80 units."],
        tmp=tmp_path,
    )
    out = json.loads(r.stdout)
    assert out["answer"] == "About 80 units." and out["computed"] is False


def test_run_without_code_says_the_answer_was_not_computed(tmp_path: Path) -> None:
    from tests.cli.test_cli import codeact

    r = codeact("run", "Capital of France?", replies=["Paris."], tmp=tmp_path)
    assert r.returncode == 0 and r.stdout.strip() == "Paris."
    assert "not computed" in r.stderr
