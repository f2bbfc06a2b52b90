"""The Docker kernel's session survives what the restricted executor's does (issue 26): a cell
that loops over tool calls until its deadline, a cell that kills its own kernel, a fork bomb
(stopped by ``pids_limit`` under runc; under gVisor, which does not enforce process limits, by
the memory limit, reported as such)."""

from __future__ import annotations

import pytest

from codeact.executors.docker import DockerExecutor

pytestmark = [pytest.mark.anyio, pytest.mark.docker]

FORKS = """
import os, time
n = 0
try:
    for i in range(400):
        if os.fork() == 0:
            time.sleep(30)
            os._exit(0)
        n += 1
except OSError as e:
    print('stopped', e.errno)
"""


def lookup(key: str) -> int:
    """A host tool."""
    return len(key)


async def test_a_tool_call_loop_that_times_out_leaves_the_session_usable(
    docker_runtime: str,
) -> None:
    async with DockerExecutor(runtime=docker_runtime, tools=[lookup], timeout=1.5) as ex:
        await ex.execute("x = 5")
        for _ in range(2):
            r = await ex.execute("from tools import lookup\nwhile True:\n    lookup('abc')")
            assert r.timed_out and not r.restarted, r.to_observation()
            r = await ex.execute("x + lookup('ab')")
            assert r.error is None and r.value == "7" and not r.restarted, r.to_observation()


async def test_a_cell_that_kills_its_kernel_gets_a_fresh_session(docker_runtime: str) -> None:
    async with DockerExecutor(runtime=docker_runtime, timeout=30) as ex:
        r = await ex.execute("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)")
        assert r.restarted and r.error is not None and r.error.type == "SandboxCrashed"
        assert "exit code 137" in r.error.message and "restarted" in r.error.message
        r = await ex.execute("1 + 1")
        assert r.error is None and r.value == "2"


async def test_a_fork_bomb_is_stopped_by_a_limit_it_names(docker_runtime: str) -> None:
    async with DockerExecutor(runtime=docker_runtime, timeout=60, memory="256m") as ex:
        r = await ex.execute(FORKS)
        if docker_runtime == "runsc":  # no process limit inside gVisor: memory stops it
            assert r.restarted and r.error is not None and "256m" in r.error.message, r
        else:
            assert r.error is None and r.stdout == "stopped 11\n", r.to_observation()
        r = await ex.execute("1 + 1")
        assert r.error is None and r.value == "2"
