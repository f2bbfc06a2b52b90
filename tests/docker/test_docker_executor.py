from __future__ import annotations

import base64
import contextlib
import time

import anyio
import pytest

from codeact import CodeActAgent, Context
from codeact.executors.docker import DockerExecutor
from codeact.llms import ScriptedLLM
from tests.docker.conftest import labelled_containers
from tests.helpers import collect

pytestmark = [pytest.mark.anyio, pytest.mark.docker]


def lookup(city: str) -> dict[str, object]:
    """Look a city up on the host."""
    return {"city": city, "host_only": True}


async def test_state_tools_streaming_and_values(docker_runtime: str) -> None:
    chunks: list[str] = []
    async with DockerExecutor(runtime=docker_runtime, tools=[lookup]) as ex:
        assert (await ex.execute("x = 40\nx + 2")).value == "42"
        r = await ex.execute("from tools import lookup\nlookup('Oslo')")
        assert r.value == "{'city': 'Oslo', 'host_only': True}"
        r = await ex.execute(
            "import time\nprint('a', flush=True)\ntime.sleep(0.3)\nprint('b')\nx",
            on_output=lambda s, t: chunks.append(t),
        )
        assert r.stdout == "a\nb\n" and r.value == "40" and "".join(chunks) == "a\nb\n"
        r = await ex.execute("def f():\n    return 1 / 0\nf()")
        assert r.error is not None and r.error.type == "ZeroDivisionError"
        assert 'File "<cell-' in r.error.traceback and "return 1 / 0" in r.error.traceback
        assert "codeact-kernel" not in r.error.traceback


async def test_network_can_be_opted_in() -> None:
    async with DockerExecutor(network=True) as ex:
        r = await ex.execute(
            "import socket\nsocket.socket().fileno() > 0, len(open('/etc/hosts').read()) > 0"
        )
        assert r.value == "(True, True)"
    assert DockerExecutor(network=True).container_options()["network_mode"] == "bridge"
    assert DockerExecutor().container_options()["network_mode"] == "none"


async def test_files_round_trip_and_figures(docker_runtime: str) -> None:
    # Generous limits: importing pandas and matplotlib took past the defaults at load 12.
    async with DockerExecutor(
        runtime=docker_runtime, timeout=300, start_timeout=300, memory="1g"
    ) as ex:
        await ex.upload("data/in.csv", b"a,b\n1,2\n3,4\n")
        r = await ex.execute(
            "import pandas as pd\ndf = pd.read_csv('data/in.csv')\n"
            "df.to_csv('out.csv', index=False)\nint(df['b'].sum())"
        )
        assert r.value == "6"
        assert await ex.download("out.csv") == b"a,b\n1,2\n3,4\n"
        r = await ex.execute("import matplotlib.pyplot as plt\nplt.plot([1, 2, 3])\nprint('drawn')")
        assert len(r.images) == 1 and base64.b64decode(r.images[0])[:8] == b"\x89PNG\r\n\x1a\n"


async def test_container_removed_from_outside_is_detected() -> None:
    async with DockerExecutor(timeout=20) as ex:
        await ex.execute("x = 1")
        container = ex.container

        async def remove_soon() -> None:
            await anyio.sleep(0.5)
            await anyio.to_thread.run_sync(lambda: container.remove(force=True))

        async with anyio.create_task_group() as tg:
            tg.start_soon(remove_soon)
            r = await ex.execute("import time\ntime.sleep(10)")
        assert r.restarted and r.error is not None and r.error.type == "SandboxCrashed"
        assert (await ex.execute("3 * 3")).value == "9"


async def test_concurrent_sessions_and_nothing_left_behind() -> None:
    async def one(i: int) -> str | None:
        async with DockerExecutor() as ex:
            return (await ex.execute(f"{i} * 2")).value

    results: dict[int, str | None] = {}

    async def run(i: int) -> None:
        results[i] = await one(i)

    async with anyio.create_task_group() as tg:
        for i in range(20):
            tg.start_soon(run, i)
    assert results == {i: str(i * 2) for i in range(20)}
    assert labelled_containers() == []


async def test_codeact_agent_with_docker_tools_from_code() -> None:
    llm = ScriptedLLM(
        ["<execute>\nfrom tools import lookup\nprint(lookup('Rome')['city'])\n</execute>", "Rome"],
        function_calling=False,
    )
    agent = CodeActAgent(llm=llm, tools=[lookup], executor="docker")
    async with Context() as ctx:
        handler = agent.run("x", ctx=ctx)
        events = await collect(handler)
        assert (await handler).response.text == "Rome"
        assert any(
            getattr(e, "tool_output", None) and e.tool_output.content == "Rome" for e in events
        )
    assert labelled_containers() == []


async def test_pool_gives_warm_sessions_never_reused() -> None:
    from codeact.executors.docker import SandboxPool

    async with SandboxPool(size=2) as pool:
        await anyio.sleep(1.5)  # let it warm up
        t0 = time.monotonic()
        async with pool.executor(tools=[lookup]) as a:
            warm = time.monotonic() - t0
            r = await a.execute("from tools import lookup\nlookup('Oslo')['city']")
            assert r.value == "'Oslo'"
            first_id = a.container.id
        assert warm < 0.5
        async with pool.executor() as b:
            assert b.container.id != first_id
            assert (await b.execute("1")).value == "1"
    assert labelled_containers() == []


async def test_any_image_with_python3_works_the_kernel_is_injected() -> None:
    from codeact.executors.docker.image import LOCAL_BASE, image_exists

    if not image_exists(LOCAL_BASE):
        pytest.skip(f"{LOCAL_BASE} was not built here (a registry base image was used)")
    async with DockerExecutor(image=LOCAL_BASE, user="65534:65534") as ex:
        r = await ex.execute("import sys, os\nsys.version_info[0], os.getuid()")
        assert r.value == "(3, 65534)"


async def test_folders_round_trip_as_tar_archives() -> None:
    import io
    import tarfile

    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for name, data in (("proj/a.txt", b"A"), ("proj/sub/b.txt", b"BB")):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    async with DockerExecutor() as ex:
        await ex.upload_archive(buf.getvalue())
        r = await ex.execute(
            "import os\nsorted(os.path.join(d, f) for d, _, fs in os.walk('proj') for f in fs)"
        )
        assert r.value == "['proj/a.txt', 'proj/sub/b.txt']"
        archive = await ex.download("proj")
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            names = sorted(m.name for m in tar.getmembers() if m.isfile())
        assert names == ["proj/a.txt", "proj/sub/b.txt"]
        evil = io.BytesIO()
        with tarfile.open(fileobj=evil, mode="w") as tar:
            info = tarfile.TarInfo("../../etc/evil")
            info.size = 1
            tar.addfile(info, io.BytesIO(b"x"))
        with pytest.raises(Exception, match="outside"):
            await ex.upload_archive(evil.getvalue())


async def test_orphans_of_dead_processes_are_reaped_on_start() -> None:
    import docker

    from codeact.executors.docker import IMAGE
    from codeact.executors.docker._engine import LABEL, LABEL_HOST, LABEL_PID

    client = docker.from_env()
    dead_pid = 2**22 + 12345  # above pid_max: never a live process
    orphan = client.containers.create(
        IMAGE,
        command=["sleep", "60"],
        labels={
            LABEL: "orphan",
            LABEL_PID: str(dead_pid),
            LABEL_HOST: __import__("socket").gethostname(),
        },
    )
    try:
        async with DockerExecutor() as ex:
            assert (await ex.execute("1")).value == "1"
        with pytest.raises(docker.errors.NotFound):
            client.containers.get(orphan.id)
    finally:
        with contextlib.suppress(docker.errors.NotFound):
            orphan.remove(force=True)


async def test_pool_reports_why_it_cannot_start_a_container() -> None:
    from codeact.errors import ExecutorError
    from codeact.executors.docker import SandboxPool

    async with SandboxPool(size=1, image="codeact-no-such-image:0") as pool:
        with anyio.fail_after(20), pytest.raises(ExecutorError, match="image .* is missing"):
            async with pool.executor():
                pass
    assert labelled_containers() == []
