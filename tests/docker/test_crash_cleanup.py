"""``kill -9`` of a host process with live process-mode and Docker sessions running busy cells:
the workers and the container kernels stop by themselves within seconds, and the next
``codeact serve`` removes everything that is left (folders, cgroups, containers) at start."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.helpers import STARTED_TOOL, process_alive, read_until_started, wait_until

ROOT = Path(__file__).parents[2]

_HOST = STARTED_TOOL + textwrap.dedent(
    """
    import json, anyio
    from codeact import DockerExecutor, RestrictedExecutor

    async def main():
        proc = RestrictedExecutor(isolation="process", tools=[started], timeout=600)
        box = DockerExecutor(image={image!r}, runtime={runtime!r}, tools=[started], timeout=600)
        await proc.start()
        await box.start()
        group = proc.cgroup
        print(json.dumps({{
            "folder": str(proc.workspace.root),
            "cgroups": [str(d) for d in group.dirs.values()] if group else [],
            "worker": proc._worker.worker_pid or proc._worker.proc.pid,
            "container": box.container.id,
        }}), flush=True)
        async with anyio.create_task_group() as tg:
            tg.start_soon(proc.execute, BUSY.format("process"))
            tg.start_soon(box.execute, BUSY.format("docker"))

    BUSY = "from tools import started\\nstarted({{!r}})\\nwhile True:\\n    pass"
    anyio.run(main)
    """
)


def _state(container: str) -> str:
    out = subprocess.run(
        ["docker", "inspect", "-f", "{{.State.Status}}", container],
        capture_output=True,
        text=True,
    )
    return out.stdout.strip() if out.returncode == 0 else "gone"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("runtime", ["runc", "runsc"])
def test_kill_9_then_serve_leaves_nothing(runtime: str, sandbox_image: str, tmp_path: Path) -> None:
    from codeact.testing.sandbox import require_docker

    require_docker(runtime)
    errors = tmp_path / "host.stderr"
    with errors.open("w") as err:
        host = subprocess.Popen(
            [sys.executable, "-c", _HOST.format(image=sandbox_image, runtime=runtime)],
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
            cwd=ROOT,
        )
    assert host.stdout is not None
    first = host.stdout.readline()
    assert first.startswith("{"), f"the host printed {first!r}; stderr: {errors.read_text()}"
    left = json.loads(first)
    read_until_started(host.stdout, "process", "docker", stderr=errors)  # both cells run
    host.send_signal(signal.SIGKILL)
    host.wait()

    # nothing keeps burning CPU: the worker and the container's kernel see their host go
    wait_until(lambda: not process_alive(left["worker"]), "the worker to end", timeout=10)
    wait_until(lambda: _state(left["container"]) != "running", "the container to stop", timeout=10)

    # the next server cleans up what is left, at start
    port = _free_port()
    scripted = tmp_path / "replies.json"
    scripted.write_text(json.dumps(["unused"]))
    serve = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "codeact",
            "serve",
            "--port",
            str(port),
            "--model",
            f"scripted:{scripted}",
            "--db",
            str(tmp_path / "s.db"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=ROOT,
    )
    try:
        assert serve.stdout is not None
        lines: list[str] = []
        for line in serve.stdout:
            lines.append(line)
            if "AG-UI server on" in line:
                break
        said = "".join(lines)
        assert "left by a codeact process that no longer runs" in said, said
        assert _state(left["container"]) == "gone"
        assert not Path(left["folder"]).exists()
        assert not any(Path(d).exists() for d in left["cgroups"])
    finally:
        serve.send_signal(signal.SIGTERM)
        try:
            serve.wait(timeout=30)
        except subprocess.TimeoutExpired:
            serve.kill()
            serve.wait()
