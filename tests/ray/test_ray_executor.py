"""RayExecutor on a real two-node Ray cluster (``tests/ray/conftest.py``)."""

from __future__ import annotations

import os
import time

import anyio
import pytest

from codeact.errors import ExecutorError, UserError
from codeact.executors.ray import RayExecutor
from codeact.testing.contract import ExecutorContract, ExecutorFactory
from tests.ray.conftest import RayCluster

pytestmark = pytest.mark.anyio

HOST_PID = os.getpid()


def where_am_i(tag: str) -> dict[str, object]:
    """A host tool: which process runs it."""
    return {"tag": tag, "pid": os.getpid()}


class TestRayContract(ExecutorContract):
    @pytest.fixture
    def executor_factory(self, ray_cluster: RayCluster) -> ExecutorFactory:
        return lambda **kw: RayExecutor(num_cpus=0, **kw)


async def test_sessions_on_two_nodes_files_and_host_tools(ray_cluster: RayCluster) -> None:
    a = RayExecutor(num_cpus=0, resources={"node_a": 1}, tools=[where_am_i])
    b = RayExecutor(num_cpus=0, resources={"node_b": 1}, tools=[where_am_i])
    async with a, b:
        assert a.node["node_id"] == ray_cluster.node_id("node_a")
        assert b.node["node_id"] == ray_cluster.node_id("node_b")
        with anyio.fail_after(60):
            ra, rb = await a.execute("sum(range(5))"), await b.execute("x = 41\nx + 1")
        assert ra.value == "10" and rb.value == "42", (ra, rb)
        r = await b.execute(
            "from tools import where_am_i\n"
            "with open('out.txt', 'w') as f:\n    f.write('made on b')\n"
            "where_am_i('b')"
        )
        assert r.ok and f"'pid': {HOST_PID}" in (r.value or ""), r  # the tool ran here
        assert await b.download("out.txt") == b"made on b"
        await a.upload("in.txt", b"sent from the host")
        assert (await a.execute("open('in.txt').read()")).value == "'sent from the host'"


async def test_a_node_killed_mid_cell_names_it_and_the_next_cell_runs_elsewhere(
    ray_cluster: RayCluster,
) -> None:
    victim = ray_cluster.add("victim", "node_b")  # both it and node_b fit {"node_b": 1}
    victim_id = ray_cluster.node_id("victim")
    # a session held on node_b makes the victim the emptier node for the next one
    (node_b,) = [
        n["NodeID"]
        for n in ray_cluster.ray.nodes()
        if n["Alive"] and "node_b" in n["Resources"] and "victim" not in n["Resources"]
    ]
    blocker = RayExecutor(num_cpus=0, node_id=node_b)
    ex = RayExecutor(num_cpus=0, resources={"node_b": 1})
    sleeping = anyio.Event()
    async with blocker, ex:
        assert ex.node["node_id"] == victim_id, (ex.node, victim_id)
        await ex.execute("kept = 1")
        started = time.monotonic()
        async with anyio.create_task_group() as tg:

            async def kill_when_running() -> None:
                await sleeping.wait()
                await anyio.to_thread.run_sync(ray_cluster.cluster.remove_node, victim, False)

            tg.start_soon(kill_when_running)
            r = await ex.execute(
                "import time\nprint('sleeping', flush=True)\ntime.sleep(60)",
                timeout=90,
                on_output=lambda _name, _text: sleeping.set(),
            )
        took = time.monotonic() - started
        assert r.restarted and r.error is not None, r
        assert r.error.type == "ExecutorError" and victim_id[:12] in r.error.message, r.error
        assert took < 30, took
        print(f"killed node noticed after {took:.1f} s: {r.error.message}")
        after = await ex.execute(
            "try:\n    kept\n    k = 'kept'\nexcept NameError:\n    k = 'lost'\nk"
        )
        assert after.value == "'lost'", after
        assert ex.node["node_id"] == node_b, ex.node


async def test_bad_options_are_user_errors() -> None:
    with pytest.raises(UserError):
        RayExecutor(sandbox="vm")  # type: ignore[arg-type]
    with pytest.raises(UserError):
        RayExecutor(sandbox_options={"no_such_option": 1})
    with pytest.raises(UserError):
        RayExecutor(num_cpus=-1)


async def test_figures_and_streamed_output_come_back_from_the_node(
    ray_cluster: RayCluster,
) -> None:
    seen: list[str] = []
    options = {"allowed_modules": ["matplotlib"]}
    async with RayExecutor(num_cpus=0, resources={"node_b": 1}, sandbox_options=options) as ex:
        r = await ex.execute(
            "import matplotlib.pyplot as plt\nprint('drawing')\nplt.plot([1, 2, 3])\n'done'",
            on_output=lambda name, text: seen.append(text),
        )
    assert r.ok and r.value == "'done'" and "drawing" in "".join(seen), r
    assert r.images and r.images[0].startswith("iVBOR"), r  # a PNG


@pytest.mark.docker
async def test_a_docker_sandbox_on_a_node(ray_cluster: RayCluster, sandbox_image: str) -> None:
    options = {"image": sandbox_image, "memory": "256m"}
    ex = RayExecutor(num_cpus=0, resources={"node_b": 1}, sandbox="docker", sandbox_options=options)
    async with ex:
        assert ex.node["node_id"] == ray_cluster.node_id("node_b")
        assert "docker" in ex.node["isolation"]
        await ex.upload("in.txt", b"to the container")
        r = await ex.execute(
            "import getpass\ndata = open('in.txt').read()\n(getpass.getuser(), data)"
        )
        assert r.ok and "'to the container'" in (r.value or ""), r
        assert await ex.download("in.txt") == b"to the container"


async def test_a_full_node_makes_a_session_wait_for_room_then_say_so(
    ray_cluster: RayCluster,
) -> None:
    # node_b has one CPU: a second one-CPU session there waits, and fails after start_timeout
    first = RayExecutor(num_cpus=1, resources={"node_b": 1})
    async with first:
        second = RayExecutor(num_cpus=1, resources={"node_b": 1}, start_timeout=1.5)
        with pytest.raises(ExecutorError, match="has room"):
            await second.start()
        await second.aclose()
        with pytest.raises(ExecutorError, match="has room"):  # no node carries the label at all
            await RayExecutor(num_cpus=0, resources={"nowhere": 1}).start()
    async with RayExecutor(num_cpus=1, resources={"node_b": 1}, start_timeout=30) as third:
        assert (await third.execute("1 + 1")).value == "2"  # the first one's CPU came back
