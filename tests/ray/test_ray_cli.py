"""``--executor ray`` from the command line (``run``, ``serve``: one turn each over a real
two-node cluster, two serve replicas sharing it) and a driver killed with -9 leaving no
sandbox behind on any node."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from codeact.testing.postgres import free_port
from tests.batch.procs import descendants, sandboxes, wait_gone
from tests.helpers import wait_until
from tests.ray.conftest import ROOT, RayCluster
from tests.server.agui_check import parse_sse

DATA = ROOT / "examples" / "data" / "sales.csv"


def cli_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CODEACT_MODEL", "RAY_ADDRESS")}
    env["PYTHONPATH"] = str(ROOT)
    return env


def sandbox_hosts() -> set[int]:
    """The NodeHost actor processes alive on the cluster's nodes (this process's children:
    Ray titles an actor's process ``ray::NodeHost...``)."""
    found = set()
    for pid in descendants(os.getpid()):
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if cmd.startswith(b"ray::NodeHost"):
            found.add(pid)
    return found


def test_run_answers_with_its_cell_on_the_cluster(ray_cluster: RayCluster, tmp_path: Path) -> None:
    script = tmp_path / "replies.json"
    code = (
        "<execute>\nimport pandas as pd\nprint(pd.read_csv('sales.csv')['units'].sum())\n</execute>"
    )
    script.write_text(json.dumps([code, "85 units."]))
    argv = [sys.executable, "-m", "codeact.cli", "run", "How many units?", "--file", str(DATA)]
    argv += ["--executor", "ray", "--ray", ray_cluster.address, "--model", f"scripted:{script}"]
    r = subprocess.run(argv, capture_output=True, text=True, timeout=300, env=cli_env(), cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "85 units."
    said = " ".join(r.stderr.split())  # the console wraps long lines
    assert f"Ray cluster at {ray_cluster.address}" in said and "85" in said, said


class Serve:
    def __init__(self, cluster: RayCluster, tmp: Path, name: str) -> None:
        script = tmp / f"{name}.json"
        script.write_text(json.dumps(["<execute>\nprint(6 * 7)\n</execute>", f"{name}: 42."]))
        self.port = free_port()
        argv = [sys.executable, "-m", "codeact", "serve", "--model", f"scripted:{script}"]
        argv += ["--port", str(self.port), "--db", str(tmp / f"{name}.db")]
        argv += ["--executor", "ray", "--ray", cluster.address]
        self.log = tmp / f"{name}.log"
        with self.log.open("wb") as log:
            self.proc = subprocess.Popen(argv, cwd=ROOT, env=cli_env(), stdout=log, stderr=log)

    def turn(self, thread: str) -> list[dict[str, Any]]:
        body = {"threadId": thread, "runId": "r", "messages": [{"role": "user", "content": "go"}]}
        url = f"http://127.0.0.1:{self.port}"

        def ready() -> bool:
            assert self.proc.poll() is None, self.log.read_text()
            try:
                return httpx.get(url + "/healthz", timeout=2).status_code == 200
            except httpx.HTTPError:
                return False

        wait_until(ready, "codeact serve to listen", timeout=120)
        response = httpx.post(url + "/", json=body, timeout=180)
        assert response.status_code == 200, response.text
        return parse_sse(response.content)

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(30)


def test_two_serve_replicas_run_their_cells_on_one_cluster(
    ray_cluster: RayCluster, tmp_path: Path
) -> None:
    replicas = [Serve(ray_cluster, tmp_path, name) for name in ("one", "two")]
    try:
        for replica, name in zip(replicas, ("one", "two"), strict=True):
            events = replica.turn(f"thread-{name}")
            text = "".join(
                e.get("delta", "") for e in events if e["type"] == "TEXT_MESSAGE_CONTENT"
            )
            assert f"{name}: 42." in text and events[-1]["type"] == "RUN_FINISHED", events
            assert "42" in json.dumps(events)  # the cell's output came back
        # each replica's thread keeps its sandbox (until --idle-close) on a node of the cluster
        hosts = sandbox_hosts()
        assert len(hosts) == 2, hosts
        assert all(sandboxes(descendants(h), only_bwrap=True) for h in hosts), hosts
        log = replicas[0].log.read_text()
        assert "Ray cluster at" in log and "the Ray cluster's" in log, log
    finally:
        for replica in replicas:
            replica.stop()
    wait_until(lambda: not sandbox_hosts(), "the replicas' sandboxes to end", timeout=30)


DRIVER = """
import anyio, functools, sys
from codeact.executors.ray import RayExecutor

async def main():
    sessions = [RayExecutor(address=sys.argv[1], num_cpus=0, resources={label: 1})
                for label in ("node_a", "node_b")]
    for s in sessions:
        await s.start()
    started = [anyio.Event() for _ in sessions]
    cell = "print('running', flush=True)\\nwhile True:\\n    pass"
    async with anyio.create_task_group() as tg:
        for s, event in zip(sessions, started):
            on_output = lambda name, text, event=event: event.set()
            tg.start_soon(functools.partial(s.execute, cell, timeout=600, on_output=on_output))
        for event in started:  # both cells are running on their nodes
            await event.wait()
        print("busy", flush=True)
        await anyio.sleep_forever()  # until the test kills this driver

anyio.run(main)
"""


def test_a_driver_killed_with_sigkill_leaves_no_kernel_on_any_node(
    ray_cluster: RayCluster,
) -> None:
    before = sandboxes(descendants(os.getpid()))  # the nodes are this process's children
    proc = subprocess.Popen(
        [sys.executable, "-c", DRIVER, ray_cluster.address],
        cwd=ROOT,
        env=cli_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "busy"
        running = sandboxes(descendants(os.getpid())) - before
        assert len(sandboxes(running, only_bwrap=True)) >= 2, running  # one per node
        os.kill(proc.pid, signal.SIGKILL)
        killed = time.monotonic()
        left = wait_gone(running, timeout=10)
        assert not left, f"{len(left)} sandbox processes outlived the driver"
        print(f"kernels gone {time.monotonic() - killed:.1f} s after kill -9")
    finally:
        proc.kill()
        proc.wait(10)


def test_doctor_shows_each_node_and_whether_it_can_start_a_sandbox(
    ray_cluster: RayCluster,
) -> None:
    argv = [sys.executable, "-m", "codeact.cli", "doctor", "--ray", ray_cluster.address]
    r = subprocess.run(argv, capture_output=True, text=True, timeout=300, env=cli_env(), cwd=ROOT)
    lines = [line for line in r.stdout.splitlines() if "] node " in line]
    alive = {n["NodeID"][:12] for n in ray_cluster.ray.nodes() if n["Alive"]}
    assert {line.split("] node ")[1][:12] for line in lines} == alive, r.stdout + r.stderr
    assert all(line.startswith("[ok  ]") and "OS sandbox" in line for line in lines), r.stdout
    bad = subprocess.run(
        [*argv[:-1], "127.0.0.1:1"], capture_output=True, text=True, timeout=120, env=cli_env()
    )
    assert bad.returncode == 1 and "[FAIL] ray cluster 127.0.0.1:1" in bad.stdout, bad.stdout


def test_batch_runs_its_sandboxes_on_the_cluster(ray_cluster: RayCluster, tmp_path: Path) -> None:
    from tests.batch.test_cli import argv, make_tasks, results

    tasks, replies = make_tasks(tmp_path, 4)
    out = tmp_path / "results.jsonl"
    before = sandbox_hosts()
    env = {**cli_env(), "RAY_ADDRESS": ray_cluster.address}  # batch's sandboxes find it so
    proc = subprocess.Popen(
        argv(tasks, out, replies, "--executor", "ray", "-j", "2"),
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    hosts: set[int] = set()
    while proc.poll() is None:  # the driver's host actors live on the nodes while it runs
        hosts |= sandbox_hosts() - before
        time.sleep(0.05)  # polling /proc, not waiting for something
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    assert sorted(r["value"] for r in results(out)) == [0, 1, 4, 9]
    assert hosts, "no sandbox host ran on the cluster's nodes"
