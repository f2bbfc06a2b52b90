from __future__ import annotations

import os
import signal
import sys
import textwrap
import time
from pathlib import Path

import anyio
import pytest

from codeact import UserError
from codeact.errors import ExecutorError
from codeact.executors import (
    CodeExecutor,
    ExecutionResult,
    RestrictedExecutor,
    executor_class,
    get_executor,
)
from codeact.executors.base import truncate_middle
from codeact.executors.wire.frames import (
    HEADER,
    MAX_FRAME,
    ProtocolError,
    decode_worker_frame,
    frame_length,
)

pytestmark = pytest.mark.anyio
BOTH = pytest.mark.parametrize("isolation", ["inline", "process"])


@BOTH
async def test_timeout_keeps_the_session_when_the_cell_can_be_interrupted(isolation: str) -> None:
    async with RestrictedExecutor(isolation=isolation, timeout=0.3) as ex:  # type: ignore[arg-type]
        await ex.execute("kept = 'yes'")
        t0 = time.monotonic()
        r = await ex.execute("n = 0\nwhile True:\n    n += 1")
        assert r.timed_out and not r.restarted and time.monotonic() - t0 < 2
        assert "Variables defined before the timeout are kept" in r.to_observation()
        assert (await ex.execute("kept, n > 0")).value == "('yes', True)"


async def test_process_hard_timeout_kills_and_restarts() -> None:
    async with RestrictedExecutor(isolation="process", timeout=0.3) as ex:
        await ex.execute("kept = 1")
        pid = ex._worker.proc.pid  # type: ignore[union-attr]
        r = await ex.execute("sum(range(10**13))")
        assert r.timed_out and r.restarted
        assert "restarted: all variables are lost" in r.to_observation()
        assert ex._worker.proc.pid != pid  # type: ignore[union-attr]
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)  # the old worker is gone
        assert (await ex.execute("kept")).error.type == "NameError"  # type: ignore[union-attr]
        assert (await ex.execute("2 * 21")).value == "42"


async def test_process_worker_killed_from_outside_is_reported_and_replaced() -> None:
    async with RestrictedExecutor(isolation="process", timeout=10) as ex:
        pid = ex._worker.proc.pid  # type: ignore[union-attr]

        async def kill_soon() -> None:
            await anyio.sleep(0.3)
            os.kill(pid, signal.SIGKILL)

        async with anyio.create_task_group() as tg:
            tg.start_soon(kill_soon)
            r = await ex.execute("import time\ntime.sleep(5)")
        assert r.restarted and r.error is not None and r.error.type == "SandboxCrashed"
        assert "SIGKILL" in r.error.message
        assert (await ex.execute("1 + 1")).value == "2"


async def test_process_worker_has_a_clean_environment_and_its_own_cwd() -> None:
    os.environ["CODEACT_HOST_ONLY"] = "secret"
    async with RestrictedExecutor(isolation="process", tools=[]) as ex:
        pid = ex._worker.worker_pid  # type: ignore[union-attr]
        environ = Path(f"/proc/{pid}/environ").read_bytes().decode()
        assert "CODEACT_HOST_ONLY" not in environ and "secret" not in environ
        if ex.os_sandboxed:  # the working directory is /workspace in the worker's own view
            assert os.readlink(f"/proc/{pid}/cwd") == "/workspace"
        else:
            assert Path(f"/proc/{pid}/cwd").resolve() == ex.workdir
        limits = Path(f"/proc/{pid}/limits").read_text()
        assert "Max address space" in limits and "2147483648" in limits
        uids = Path(f"/proc/{pid}/status").read_text().split("Uid:")[1].split("\n")[0].split()
        assert "0" not in uids, f"the worker runs as root: {uids}"


@BOTH
async def test_output_streams_while_the_cell_runs(isolation: str) -> None:
    chunks: list[tuple[str, str, float]] = []
    async with RestrictedExecutor(isolation=isolation) as ex:  # type: ignore[arg-type]
        t0 = time.monotonic()
        r = await ex.execute(
            "import time, sys\nprint('one')\ntime.sleep(0.3)\nprint('two', file=sys.stderr)",
            on_output=lambda s, t: chunks.append((s, t, time.monotonic() - t0)),
        )
    assert [(s, t) for s, t, _ in chunks] == [("stdout", "one\n"), ("stderr", "two\n")]
    assert chunks[0][2] < 0.25 < chunks[1][2]  # the first chunk arrived before the cell ended
    assert r.stdout == "one\n" and r.stderr == "two\n"


@BOTH
async def test_output_cap(isolation: str) -> None:
    async with RestrictedExecutor(isolation=isolation, max_output_bytes=1000) as ex:  # type: ignore[arg-type]
        r = await ex.execute("for i in range(1000):\n    print('line', i)")
    assert r.truncated and len(r.stdout) == 1000
    assert "output truncated" in r.to_observation()


@BOTH
async def test_files_round_trip_and_reset_keeps_files(isolation: str) -> None:
    async with RestrictedExecutor(isolation=isolation) as ex:  # type: ignore[arg-type]
        await ex.upload("data/in.csv", b"a,b\n1,2\n")
        r = await ex.execute(
            "import csv\nrows = list(csv.DictReader(open('data/in.csv')))\n"
            "with open('out.txt', 'w') as f:\n    f.write(rows[0]['b'])\nrows"
        )
        assert r.value == "[{'a': '1', 'b': '2'}]"
        assert await ex.download("out.txt") == b"2"
        await ex.reset()
        assert (await ex.execute("rows")).error.type == "NameError"  # type: ignore[union-attr]
        assert (await ex.execute("open('out.txt').read()")).value == "'2'"
        for bad in ("/etc/passwd", "../x", "a/../../x"):
            with pytest.raises(UserError):
                await ex.upload(bad, b"x")
        with pytest.raises(UserError, match="No file"):
            await ex.download("missing.txt")


async def test_aclose_is_idempotent_and_removes_the_working_directory() -> None:
    ex = RestrictedExecutor(isolation="process")
    await ex.start()
    workdir = ex.workdir
    assert workdir is not None and workdir.is_dir()
    await ex.aclose()
    await ex.aclose()
    assert not workdir.exists()
    with pytest.raises(ExecutorError, match="closed"):
        await ex.execute("1")


async def test_a_given_workdir_is_kept(tmp_path: Path) -> None:
    async with RestrictedExecutor(workdir=tmp_path / "w") as ex:
        await ex.execute("open('f.txt', 'w').write('x')")
    assert (tmp_path / "w" / "f.txt").read_text() == "x"


def fail_tool(x: int) -> int:
    """Always fails."""
    raise RuntimeError(f"broken {x}")


async def slow_tool(seconds: float) -> str:
    """Sleeps."""
    await anyio.sleep(seconds)
    return "slept"


@BOTH
async def test_tools_errors_and_hanging_tools(isolation: str) -> None:
    async with RestrictedExecutor(
        tools=[fail_tool, slow_tool],
        isolation=isolation,
        timeout=0.5,  # type: ignore[arg-type]
    ) as ex:
        r = await ex.execute(
            "from tools import fail_tool\ntry:\n    fail_tool(3)\nexcept ToolError as e:\n    msg = str(e)\nmsg"
        )
        assert "broken 3" in (r.value or "")
        r = await ex.execute("import tools\ntools.slow_tool(0.01)")
        assert r.value == "'slept'"
        t0 = time.monotonic()
        r = await ex.execute("tools.slow_tool(30)")
        assert r.timed_out and time.monotonic() - t0 < 3


@BOTH
async def test_final_answer_records_plain_data(isolation: str) -> None:
    async with RestrictedExecutor(isolation=isolation) as ex:  # type: ignore[arg-type]
        r = await ex.execute(
            "import datetime\nfinal_answer({'n': (1, 2), 'd': datetime.date(2024, 1, 2)})\nprint('after')"
        )
    assert r.is_final_answer and r.final_answer == {"n": [1, 2], "d": "2024-01-02"}
    assert r.stdout == ""


async def test_cancelling_a_running_cell_returns_promptly_and_keeps_the_session() -> None:
    async with RestrictedExecutor(timeout=30) as ex:
        await ex.execute("kept = 7")
        t0 = time.monotonic()
        with anyio.move_on_after(0.2):
            await ex.execute("while True:\n    pass")
        assert time.monotonic() - t0 < 1.5
        assert (await ex.execute("kept")).value == "7"


async def test_cancelling_a_process_cell() -> None:
    async with RestrictedExecutor(isolation="process", timeout=30) as ex:
        await ex.execute("kept = 8")
        t0 = time.monotonic()
        with anyio.move_on_after(0.2):
            await ex.execute("while True:\n    pass")
        assert time.monotonic() - t0 < 2
        assert (await ex.execute("kept")).value == "8"


def test_observation_keeps_head_and_tail() -> None:
    r = ExecutionResult(stdout="".join(f"line {i}\n" for i in range(2000)))
    obs = r.to_observation(500)
    assert len(obs) <= 520
    assert obs.startswith("line 0\n") and obs.rstrip().endswith("line 1999")
    assert "characters cut" in obs
    assert ExecutionResult().to_observation() == "[Executed successfully with no output]"
    assert truncate_middle("short", 10) == "short"


def test_protocol_rejects_malformed_frames() -> None:
    with pytest.raises(ProtocolError, match="exceeds"):
        frame_length(HEADER.pack(MAX_FRAME + 1))
    for body, fragment in [
        (b"\xff\xfe", "not UTF-8 JSON"),
        (b"[1, 2]", "object with a string 'op'"),
        (b'{"op": "pwn"}', "unknown op"),
        (b'{"op": "stream", "name": "stdout", "text": 5}', "field 'text'"),
        (b'{"op": "tool_call", "id": true, "name": "x", "args": {}}', "field 'id'"),
        (
            b'{"op": "result", "stdout": "", "stderr": "", "timed_out": 1, "truncated": false}',
            "field 'timed_out'",
        ),
    ]:
        with pytest.raises(ProtocolError, match=fragment):
            decode_worker_frame(body)
    ok = decode_worker_frame(b'{"op": "tool_call", "id": 3, "name": "x", "args": {"a": 1}}')
    assert ok["args"] == {"a": 1}


def test_executors_are_found_by_name() -> None:
    assert executor_class("restricted") is RestrictedExecutor
    assert isinstance(get_executor("restricted", timeout=3), RestrictedExecutor)
    with pytest.raises(UserError, match="Unknown executor 'nope'.*restricted"):
        executor_class("nope")


CUSTOM = textwrap.dedent(
    '''
    from codeact.executors import CodeExecutor, ExecutionResult

    class EchoExecutor(CodeExecutor):
        """Returns the code it was given (a toy third-party executor)."""

        name = "echo"

        async def start(self):
            pass

        async def execute(self, code, *, timeout=None, on_output=None):
            return ExecutionResult(stdout=code.upper())

        async def reset(self):
            pass

        async def aclose(self):
            pass
    '''
)


async def test_a_third_party_executor_plugs_in_by_entry_point(tmp_path: Path) -> None:
    (tmp_path / "echo_executor.py").write_text(CUSTOM)
    dist = tmp_path / "echo_executor-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: echo-executor\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(
        "[codeact.executors]\necho = echo_executor:EchoExecutor\n"
    )
    sys.path.insert(0, str(tmp_path))
    try:
        ex = get_executor("echo")
        assert isinstance(ex, CodeExecutor) and type(ex).__name__ == "EchoExecutor"
        async with ex:
            assert (await ex.execute("print(1)")).stdout == "PRINT(1)"
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("echo_executor", None)
