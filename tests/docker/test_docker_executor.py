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


async def test_state_tools_streaming_and_values() -> None:
    chunks: list[str] = []
    async with DockerExecutor(tools=[lookup]) as ex:
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


async def test_hardening_not_root_read_only_no_network() -> None:
    async with DockerExecutor() as ex:
        r = await ex.execute("import os\nos.getuid(), os.getgid()")
        assert r.value == "(10001, 10001)"
        r = await ex.execute("open('/etc/pwned', 'w')")
        assert r.error is not None and r.error.type in ("OSError", "PermissionError")
        assert "Read-only file system" in r.error.message or "Permission denied" in r.error.message
        r = await ex.execute(
            "import socket\ns = socket.socket()\ns.settimeout(2)\ntry:\n"
            "    s.connect(('1.1.1.1', 53))\n    print('connected')\nexcept OSError as e:\n    print('blocked', e)"
        )
        assert r.stdout.startswith("blocked")
        r = await ex.execute("open('/proc/self/status').read().split('CapEff:')[1].split()[0]")
        assert r.value == "'0000000000000000'"
        r = await ex.execute("'NoNewPrivs:\\t1' in open('/proc/self/status').read()")
        assert r.value == "True"


async def test_network_can_be_opted_in() -> None:
    async with DockerExecutor(network=True) as ex:
        r = await ex.execute(
            "import socket\nsocket.socket().fileno() > 0, len(open('/etc/hosts').read()) > 0"
        )
        assert r.value == "(True, True)"
    assert DockerExecutor(network=True).container_options()["network_mode"] == "bridge"
    assert DockerExecutor().container_options()["network_mode"] == "none"


async def test_timeout_keeps_state_and_a_stubborn_cell_is_restarted() -> None:
    async with DockerExecutor(timeout=1) as ex:
        await ex.execute("kept = 1")
        r = await ex.execute("while True:\n    pass")
        assert r.timed_out and not r.restarted
        assert (await ex.execute("kept")).value == "1"
        t0 = time.monotonic()
        r = await ex.execute(
            "while True:\n    try:\n        while True:\n            pass\n    except BaseException:\n        pass"
        )
        assert r.timed_out and r.restarted and time.monotonic() - t0 < 10
        assert (await ex.execute("kept")).error.type == "NameError"  # type: ignore[union-attr]


async def test_memory_bomb_is_reported_and_the_session_restarted() -> None:
    async with DockerExecutor(memory="256m", timeout=30) as ex:
        r = await ex.execute("x = []\nwhile True:\n    x.append(bytearray(10 * 2**20))")
        assert r.restarted or (r.error is not None and r.error.type == "MemoryError")
        if r.restarted:
            assert r.error is not None and "out of memory" in r.error.message
        assert (await ex.execute("1 + 1")).value == "2"


async def test_fork_bomb_is_contained_by_the_pids_limit() -> None:
    async with DockerExecutor(pids_limit=32, timeout=10) as ex:
        r = await ex.execute(
            "import os\nn = 0\ntry:\n    for _ in range(200):\n        if os.fork() == 0:\n"
            "            import time; time.sleep(30); os._exit(0)\n        n += 1\nexcept OSError as e:\n"
            "    print('stopped at', n, type(e).__name__)"
        )
        assert "stopped at" in r.stdout and int(r.stdout.split()[2]) < 32
        assert (await ex.execute("2 + 2")).value == "4"


async def test_files_round_trip_and_figures() -> None:
    async with DockerExecutor() as ex:
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


async def test_a_malformed_frame_from_the_kernel_side_is_rejected() -> None:
    async with DockerExecutor(timeout=5) as ex:
        r = await ex.execute(
            "import os\nfor fd in range(3, 12):\n    try:\n"
            "        os.write(fd, b'\\x00\\x00\\x00\\x05hello')\n    except OSError:\n        pass\n"
            "import time\ntime.sleep(1)"
        )
        assert r.restarted and r.error is not None and r.error.type == "ProtocolError"
        assert (await ex.execute("5 + 5")).value == "10"


DOS = {
    "while_true": "while True:\n    pass",
    "swallow_timeout": "while True:\n    try:\n        while True:\n            pass\n    except BaseException:\n        pass",
    "sleep_forever": "import time\ntime.sleep(10**6)",
    "c_loop_sum": "sum(range(10**13))",
    "regex_backtrack": "import re\nre.match(r'(a+)+$', 'a' * 40 + 'b')",
    "print_flood": "while True:\n    print('x' * 1000)",
}


@pytest.mark.parametrize("name", sorted(DOS))
async def test_denial_of_service_attempts_end_and_the_session_recovers(name: str) -> None:
    async with DockerExecutor(timeout=1, max_output_bytes=50_000) as ex:
        t0 = time.monotonic()
        r = await ex.execute(DOS[name])
        assert r.timed_out and time.monotonic() - t0 < 8
        assert len(r.stdout) <= 50_000
        assert (await ex.execute("6 * 7")).value == "42"


async def test_no_host_secret_or_host_file_is_visible(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODEACT_TEST_SECRET", "host-secret-7f3a9")
    async with DockerExecutor() as ex:
        r = await ex.execute(
            "import os\n[k for k in os.environ if 'SECRET' in k], os.path.exists('/work')"
        )
        assert r.value == "([], False)"


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
