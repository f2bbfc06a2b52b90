"""Example 4: integration tests in containers, as you would write them in your own CI.

`pip install 'codeact[testing]'` enables codeact's pytest plugin: the `sandbox` fixture is a
started DockerExecutor (skipped without a Docker engine, failed with CODEACT_REQUIRE_DOCKER=1),
and `SandboxContainer` runs the sandbox through testcontainers.
Run: pytest examples/test_in_containers.py
"""

from __future__ import annotations

import pytest

from codeact import CodeActAgent, Context
from codeact.executors.docker import DockerExecutor
from codeact.llms import ScriptedLLM
from codeact.testing import SandboxContainer

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def price_of(item: str) -> float:
    """The price of an item (a host-side tool)."""
    return {"coffee": 3.5, "tea": 2.8}[item]


async def test_my_agent_computes_in_a_container(sandbox: DockerExecutor) -> None:
    sandbox.add_tools([])
    llm = ScriptedLLM(
        ["<execute>\nprint(sum(range(10)))\n</execute>", "45"], function_calling=False
    )
    agent = CodeActAgent(llm=llm, executor=sandbox)
    result = await agent.run("sum of 0..9")
    assert result.response.text == "45"
    assert (await sandbox.execute("import os\nos.getuid() != 0")).value == "True"


async def test_tools_reach_the_host_from_a_testcontainers_sandbox(sandbox_image: str) -> None:
    with SandboxContainer(image=sandbox_image) as box:
        async with box.executor(tools=[price_of]) as ex:
            r = await ex.execute("from tools import price_of\nprice_of('coffee') * 2")
            assert r.value == "7.0"
            assert ex.container.id == box.container_id

        llm = ScriptedLLM(["<execute>\nx = 1\n</execute>", "done"], function_calling=False)
        async with Context() as ctx:
            await CodeActAgent(llm=llm, executor="docker").run("x", ctx=ctx)
