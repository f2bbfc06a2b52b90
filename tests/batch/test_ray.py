"""The Ray backend against a real local cluster of two nodes (``ray.cluster_utils.Cluster``:
one raylet per node, each node running its own sandboxes). One cluster for the module.

Without Ray these tests skip, saying so; with CODEACT_REQUIRE_RAY=1 (or the CI flag
CODEACT_REQUIRE_DOCKER=1) a missing Ray is a failure.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import pytest

from codeact.batch import Task, collect_batch, run_batch
from tests.batch.agents import make_agent, make_llm
from tests.batch.procs import descendants, sandboxes, wait_gone
from tests.batch.test_cli import SQUARE, argv, env, make_tasks, results, run

ROOT = Path(__file__).resolve().parents[2]


def need_ray() -> Any:
    try:
        import ray
    except ImportError as exc:
        if "1" in (os.environ.get("CODEACT_REQUIRE_RAY"), os.environ.get("CODEACT_REQUIRE_DOCKER")):
            pytest.fail(f"Ray is required here (CODEACT_REQUIRE_RAY/CI) but missing: {exc}")
        pytest.skip("Ray is not installed: pip install 'codeact[ray]'")
    return ray


class LocalCluster:
    def __init__(self, cluster: Any, ray: Any) -> None:
        self.cluster, self.ray = cluster, ray

    def node_ids(self, resource: str | None = None) -> set[str]:
        return {
            n["NodeID"]
            for n in self.ray.nodes()
            if n["Alive"] and (resource is None or resource in n["Resources"])
        }


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalCluster]:
    ray = need_ray()
    from ray.cluster_utils import Cluster

    old = os.environ.get("PYTHONPATH")
    # The nodes' workers import the tests' factories (tests.batch.agents) by name.
    os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [old])])
    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    try:
        c.add_node(num_cpus=1, resources={"second": 1})
        ray.init(address=c.address)
        c.wait_for_nodes()
        yield LocalCluster(c, ray)
    finally:
        ray.shutdown()
        c.shutdown()
        if old is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = old


pytestmark = pytest.mark.anyio


async def test_tasks_spread_over_both_nodes_with_their_files_and_one_model_per_node(
    cluster: LocalCluster,
) -> None:
    code = "import time\ntime.sleep(0.5)\nfinal_answer([open('in.txt').read(), 'TAG'])"
    tasks = [
        Task(id=str(i), prompt=f"tag:{code}", files={"in.txt": f"content {i}".encode()})
        for i in range(8)
    ]
    got = await collect_batch(tasks, make_agent, make_llm, backend="ray", timeout=60)
    assert all(r.ok for r in got), [r.error for r in got]
    assert [r.value[0] for r in got] == [f"content {i}" for i in range(8)]
    head, second = cluster.node_ids() - cluster.node_ids("second"), cluster.node_ids("second")
    by_node: dict[str, set[str]] = {}
    for r in got:
        by_node.setdefault(r.node, set()).add(r.value[1])
    assert set(by_node) == head | second, "both nodes ran tasks"
    assert all(len(tags) == 1 for tags in by_node.values()), "one model per node, not per task"
    tags = [next(iter(t)) for t in by_node.values()]
    assert len(set(tags)) == 2
    assert all(not t.startswith(f"{os.getpid()}-") for t in tags), "made on the nodes"


async def test_a_node_killed_mid_batch_costs_only_its_running_tasks(
    cluster: LocalCluster,
) -> None:
    victim = cluster.cluster.add_node(num_cpus=1, resources={"victim": 1})
    cluster.cluster.wait_for_nodes()
    (victim_id,) = cluster.node_ids("victim")
    tasks = [
        Task(id=str(i), prompt=f"code:import time\ntime.sleep(1)\nfinal_answer({i})")
        for i in range(12)
    ]
    got = []
    async with run_batch(tasks, make_agent, make_llm, backend="ray", timeout=60) as results:
        async for r in results:
            got.append(r)
            if r.node == victim_id and victim is not None:
                await anyio.sleep(0.3)  # the victim has started its next task
                await anyio.to_thread.run_sync(cluster.cluster.remove_node, victim, False)
                victim = None
    assert victim is None, "the victim node ran a task"
    assert sorted(int(r.id) for r in got) == list(range(12))
    assert all(r.ok and r.value == int(r.id) for r in got), [r.error for r in got]
    retried = [r for r in got if r.attempts > 1]
    assert retried, "the task running on the killed node was retried"
    assert all(r.node != victim_id for r in retried)


async def test_a_node_that_joins_mid_batch_gets_tasks_while_the_others_keep_finishing(
    cluster: LocalCluster,
) -> None:
    tasks = [
        Task(id=str(i), prompt="code:import time\ntime.sleep(0.4)\nfinal_answer(1)")
        for i in range(60)
    ]
    got, late = [], None
    async with run_batch(tasks, make_agent, make_llm, backend="ray", timeout=60) as results:
        async for r in results:
            got.append(r)
            if late is None:  # the others have free slots all along (their tasks are short)
                # (Ray starts a node from the main thread only: the loop waits meanwhile)
                late = cluster.cluster.add_node(num_cpus=1, resources={"late": 1})
    (late_id,) = cluster.node_ids("late")
    assert all(r.ok for r in got), [r.error for r in got if not r.ok]
    assert any(r.node == late_id for r in got), "the node that joined ran no task"
    await anyio.to_thread.run_sync(cluster.cluster.remove_node, late)


async def test_leaving_early_cancels_tasks_on_the_nodes(cluster: LocalCluster) -> None:
    before = descendants(os.getpid())  # the nodes' raylets and workers are our children
    tasks = [Task(id="fast", prompt="code:final_answer(1)")]
    tasks += [Task(id=str(i), prompt="code:import time\ntime.sleep(60)") for i in range(2)]
    running: set[int] = set()
    async with run_batch(tasks, make_agent, make_llm, backend="ray", concurrency=2) as results:
        async for r in results:
            assert r.id == "fast"
            await anyio.sleep(2.0)
            running = sandboxes(descendants(os.getpid()) - before)
            break
    assert running, "the sleepers' sandboxes were running on the nodes"
    assert not wait_gone(running, timeout=30), "a sandbox outlived the cancelled batch"


def test_the_command_runs_on_the_cluster(cluster: LocalCluster, tmp_path: Path) -> None:
    tasks, replies = make_tasks(tmp_path, 6, sleep=0.3)
    out = tmp_path / "results.jsonl"
    address = cluster.cluster.address
    r = run(argv(tasks, out, replies, "--ray", address, "--score", "exact"))
    assert r.returncode == 0, r.stderr
    got = results(out)
    assert sorted(x["id"] for x in got) == [f"t{i}" for i in range(6)]
    assert {x["node"] for x in got} == cluster.node_ids()
    assert "accuracy: 100.0% over 6 scored task(s)" in r.stderr
    assert SQUARE  # the same scripted model as the local command tests


def test_without_ray_the_backend_says_what_to_install(tmp_path: Path) -> None:
    code = (
        "import sys; sys.modules['ray'] = None\n"
        "import codeact, codeact.batch, codeact.cli._batch\n"
        "from codeact.batch import Task, collect_batch\n"
        "from tests.batch.agents import make_agent, make_llm\n"
        "import anyio\n"
        "try:\n"
        "    anyio.run(lambda: collect_batch([Task(id='a', prompt='x')], make_agent, make_llm,"
        " backend='ray'))\n"
        "except Exception as exc:\n"
        "    print(type(exc).__name__, exc)\n"
    )
    r = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=env(),
        cwd=ROOT,
        timeout=60,
    )
    assert "UserError The ray backend needs Ray: pip install 'codeact[ray]'" in r.stdout, r.stderr


def test_importing_codeact_batch_does_not_import_ray() -> None:
    code = (
        "import sys, codeact, codeact.batch, codeact.cli._batch, codeact.batch._node\n"
        "print(json.dumps(sorted(m for m in ('ray', 'docker', 'uvicorn') if m in sys.modules)))"
    ).replace("import sys,", "import json, sys,")
    r = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=env(),
        cwd=ROOT,
        timeout=60,
    )
    assert json.loads(r.stdout) == [], r.stderr


def test_ctrl_c_on_the_command_leaves_no_sandbox_on_the_nodes(
    cluster: LocalCluster, tmp_path: Path
) -> None:
    import signal
    import time

    before = descendants(os.getpid())
    tasks, replies = make_tasks(tmp_path, 8, sleep=30)
    out = tmp_path / "results.jsonl"
    proc = subprocess.Popen(
        argv(tasks, out, replies, "--ray", cluster.cluster.address, "-j", "1"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env(),
        cwd=ROOT,
    )
    try:
        deadline = time.monotonic() + 90
        running: set[int] = set()
        while time.monotonic() < deadline:
            time.sleep(0.5)
            if not sandboxes(descendants(os.getpid()) - before, only_bwrap=True):
                continue
            # Still there a second later: a task's sandbox, not a fresh node's brief
            # OS-sandbox probe (run once before its first task).
            time.sleep(1.0)
            running = sandboxes(descendants(os.getpid()) - before, only_bwrap=True)
            if running:
                break
        assert running, "sandboxes should be running on the nodes"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert "Interrupted: 8 task(s) not finished" in err
    assert not wait_gone(running, timeout=30), "a sandbox outlived the interrupted batch"


async def test_a_model_that_cannot_be_made_on_the_nodes_fails_the_batch(
    cluster: LocalCluster,
) -> None:
    from codeact.errors import UserError
    from tests.batch.agents import failing_llm

    with pytest.raises(UserError, match="could not be made on node .*no weights"):
        await collect_batch([Task(id="a", prompt="x")], make_agent, failing_llm, backend="ray")
