"""The Docker sandbox's security and robustness, under each runtime: every test takes the
``docker_runtime`` fixture of ``codeact.testing`` and runs once under runc and once under gVisor
(runsc). ``anyio.fail_after`` guards against hangs; nothing here asserts on speed."""

from __future__ import annotations

import anyio
import pytest

from codeact.errors import UserError
from codeact.executors.docker import DockerExecutor
from codeact.executors.docker.executor import GVISOR_THREADS
from codeact.executors.wire.frames import MAX_FRAME

pytestmark = [pytest.mark.anyio, pytest.mark.docker]

HANG_GUARD_S = 120


def measure(data: str) -> int:
    """The length of data, on the host."""
    return len(data)


def huge() -> str:
    """A result larger than one frame."""
    return "h" * (MAX_FRAME + 1024)


async def test_it_runs_under_the_requested_runtime(docker_runtime: str) -> None:
    async with DockerExecutor(runtime=docker_runtime) as ex:
        assert ex.container.attrs["HostConfig"]["Runtime"] == docker_runtime
        release = (await ex.execute("import platform\nplatform.release()")).value
        assert release is not None
        # gVisor's Sentry presents its own kernel version, never the host's
        host = __import__("platform").release()
        assert (release.strip("'") != host) == (docker_runtime == "runsc")
    # under gVisor the process limit moves inside the sandbox; the cgroup leaves the Sentry room
    opts = DockerExecutor(runtime=docker_runtime, pids_limit=50).container_options()
    nproc = [(u["Soft"], u["Hard"]) for u in opts["ulimits"] if u["Name"] == "nproc"]
    if docker_runtime == "runsc":
        assert nproc == [(50, 50)] and opts["pids_limit"] == 50 + GVISOR_THREADS
    else:
        assert nproc == [] and opts["pids_limit"] == 50


async def test_hardening_not_root_read_only_no_network(docker_runtime: str) -> None:
    async with DockerExecutor(runtime=docker_runtime) as ex:
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
        # PR_GET_NO_NEW_PRIVS (gVisor's /proc/self/status has no NoNewPrivs line)
        r = await ex.execute("import ctypes\nctypes.CDLL(None).prctl(39, 0, 0, 0, 0)")
        assert r.value == "1"


async def test_timeout_keeps_state_and_a_stubborn_cell_is_restarted(docker_runtime: str) -> None:
    async with DockerExecutor(runtime=docker_runtime, timeout=1) as ex:
        await ex.execute("kept = 1")
        r = await ex.execute("while True:\n    pass")
        assert r.timed_out and not r.restarted
        assert (await ex.execute("kept")).value == "1"
        with anyio.fail_after(HANG_GUARD_S):
            r = await ex.execute(
                "while True:\n    try:\n        while True:\n            pass\n"
                "    except BaseException:\n        pass"
            )
        assert r.timed_out and r.restarted
        assert (await ex.execute("kept")).error.type == "NameError"  # type: ignore[union-attr]


async def test_memory_bomb_is_reported_and_the_session_restarted(docker_runtime: str) -> None:
    async with DockerExecutor(runtime=docker_runtime, memory="256m", timeout=30) as ex:
        r = await ex.execute("x = []\nwhile True:\n    x.append(bytearray(10 * 2**20))")
        assert r.restarted or (r.error is not None and r.error.type == "MemoryError")
        if r.restarted:
            assert r.error is not None and "out of memory" in r.error.message
        assert (await ex.execute("1 + 1")).value == "2"


async def test_fork_and_thread_bombs_are_contained_by_the_pids_limit(docker_runtime: str) -> None:
    async with DockerExecutor(runtime=docker_runtime, pids_limit=32, timeout=10) as ex:
        r = await ex.execute(
            "import os\nn = 0\ntry:\n    for _ in range(200):\n        if os.fork() == 0:\n"
            "            import time; time.sleep(30); os._exit(0)\n        n += 1\nexcept OSError as e:\n"
            "    print('stopped at', n, type(e).__name__)"
        )
        assert "stopped at" in r.stdout and int(r.stdout.split()[2]) < 32
        assert not r.restarted
        assert (await ex.execute("2 + 2")).value == "4"
    async with DockerExecutor(runtime=docker_runtime, pids_limit=32, timeout=10) as ex:
        r = await ex.execute(
            "import threading, time\nn = 0\ntry:\n    for _ in range(500):\n"
            "        threading.Thread(target=time.sleep, args=(30,), daemon=True).start()\n"
            "        n += 1\nexcept RuntimeError as e:\n    print('stopped at', n)"
        )
        assert "stopped at" in r.stdout and int(r.stdout.split()[2]) < 32
        assert (await ex.execute("2 + 2")).value == "4"


async def test_a_malformed_frame_from_the_kernel_side_is_rejected(docker_runtime: str) -> None:
    async with DockerExecutor(runtime=docker_runtime, timeout=5) as ex:
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
async def test_denial_of_service_attempts_end_and_the_session_recovers(
    docker_runtime: str, name: str
) -> None:
    async with DockerExecutor(runtime=docker_runtime, timeout=1, max_output_bytes=50_000) as ex:
        with anyio.fail_after(HANG_GUARD_S):
            r = await ex.execute(DOS[name])
        assert r.timed_out
        assert len(r.stdout) <= 50_000
        assert (await ex.execute("6 * 7")).value == "42"


async def test_no_host_secret_or_host_file_is_visible(
    docker_runtime: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CODEACT_TEST_SECRET", "host-secret-7f3a9")
    async with DockerExecutor(runtime=docker_runtime) as ex:
        r = await ex.execute(
            "import os\n[k for k in os.environ if 'SECRET' in k], os.path.exists('/work')"
        )
        assert r.value == "([], False)"


RECURSIONS = {
    "plain": "def f(n):\n    return f(n + 1)\nf(0)",
    # a longer source line: the traceback is past 64 KiB uncollapsed (gVisor's pipe writes)
    "long_line": "def g(n):\n    return g(n + 1) + [n, n, n, n, n, n, n, n, n, n, n, n]\ng(0)",
    "getattr": "class A:\n    def __getattr__(self, k):\n        return getattr(self, k)\nA().x",
    "nested_repr": "x = []\nfor _ in range(10**5):\n    x = [x]\nrepr(x)",
    "raised_limit": "import sys\nsys.setrecursionlimit(20000)\ndef f(n):\n    return f(n + 1)\nf(0)",
}


@pytest.mark.parametrize("name", sorted(RECURSIONS))
async def test_deep_recursion_is_a_recursion_error_and_the_session_lives(
    docker_runtime: str, name: str
) -> None:
    async with DockerExecutor(runtime=docker_runtime, timeout=30) as ex:
        await ex.execute("kept = 7")
        with anyio.fail_after(HANG_GUARD_S):
            r = await ex.execute(RECURSIONS[name])
        assert r.error is not None and r.error.type == "RecursionError", r
        assert not r.timed_out and not r.restarted
        if name in ("plain", "long_line"):
            assert "Previous line repeated" in r.error.traceback
            assert len(r.error.traceback) < 2000
        assert (await ex.execute("kept")).value == "7"


async def test_frames_larger_than_a_pipe_buffer_arrive_whole(docker_runtime: str) -> None:
    async with DockerExecutor(runtime=docker_runtime, max_output_bytes=2_000_000) as ex:
        r = await ex.execute("print('p' * 300_000)\nfinal_answer('z' * 500_000)")
        assert r.error is None and not r.restarted
        assert r.is_final_answer and r.final_answer == "z" * 500_000
        assert r.stdout == "p" * 300_000 + "\n"


async def test_keyboard_interrupt_raised_by_a_cell_is_an_error(docker_runtime: str) -> None:
    async with DockerExecutor(runtime=docker_runtime, timeout=30) as ex:
        await ex.execute("kept = 1")
        r = await ex.execute("raise KeyboardInterrupt('x')")
        assert r.error is not None and r.error.type == "KeyboardInterrupt"
        assert r.error.message == "x" and not r.timed_out and not r.restarted
        r = await ex.execute(
            "try:\n    raise KeyboardInterrupt\nexcept KeyboardInterrupt:\n    print('caught')"
        )
        assert r.stdout == "caught\n" and r.error is None
        # the host's own interrupt (a cancelled execute) still stops the cell, state kept
        with anyio.move_on_after(1):
            await ex.execute("import time\ntime.sleep(60)")
        r = await ex.execute("kept")
        assert r.value == "1" and not r.restarted


async def test_oversized_payloads_fail_fast_with_a_clear_error(docker_runtime: str) -> None:
    async with DockerExecutor(runtime=docker_runtime, tools=[measure, huge], timeout=60) as ex:
        await ex.execute("kept = 1")
        r = await ex.execute(f"from tools import measure\nmeasure('a' * {MAX_FRAME + 1024})")
        assert r.error is not None and r.error.type == "ToolError", r
        assert "too large to send to the host" in r.error.message
        assert not r.timed_out and not r.restarted
        r = await ex.execute(
            f"from tools import measure, ToolError\ntry:\n    measure('a' * {MAX_FRAME})\n"
            "except ToolError:\n    print('handled in the cell')"
        )
        assert r.stdout == "handled in the cell\n" and r.error is None
        r = await ex.execute("from tools import huge\nhuge()")
        assert r.error is not None and r.error.type == "ToolError", r
        assert "too large to send to the sandbox" in r.error.message
        assert not r.timed_out and not r.restarted
        r = await ex.execute("x = '" + "c" * (MAX_FRAME + 1024) + "'")
        assert r.error is not None and r.error.type == "FrameTooLarge" and not r.restarted
        r = await ex.execute(f"final_answer('f' * {MAX_FRAME + 1024})")
        assert r.error is not None and r.error.type == "FrameTooLarge" and not r.restarted
        with pytest.raises(UserError, match="too large"):
            await ex.upload("big.bin", b"\0" * MAX_FRAME)
        r = await ex.execute("kept, measure('ok')")
        assert r.value == "(1, 2)"


def test_runtime_helpers_say_what_is_missing() -> None:
    from codeact.testing import runsc_available
    from codeact.testing.sandbox import runtime_problem

    assert runtime_problem("runc") is None
    problem = runtime_problem("codeact-no-such-runtime")
    assert problem is not None and "no 'codeact-no-such-runtime' runtime" in problem
    assert runsc_available() == (runtime_problem("runsc") is None)
