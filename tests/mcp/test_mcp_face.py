"""``codeact mcp`` driven by the MCP SDK's own client over stdio (a subprocess, as an MCP client
config starts it): tools, state per MCP session, files in and out, an image, a cell that tries
to reach the host, and cancellation."""

from __future__ import annotations

import base64
import os
import sys
import uuid
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp")
from mcp import Client, StdioServerParameters

pytestmark = pytest.mark.anyio
ROOT = Path(__file__).resolve().parents[2]


def _params() -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "codeact.cli", "mcp", "--cell-timeout", "15"],
        env={"PYTHONPATH": str(ROOT), "PATH": os.environ.get("PATH", "")},
        cwd=str(ROOT),
    )


def _text(result: Any) -> str:
    return "\n".join(b.text for b in result.content if b.type == "text")


async def test_run_python_keeps_state_per_session_and_moves_files() -> None:
    async with Client(_params()) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        assert names == {"run_python", "upload_file", "download_file"}
        await client.call_tool("run_python", {"code": "x = 21"})
        result = await client.call_tool("run_python", {"code": "x * 2"})
        assert "42" in _text(result) and result.structured_content["value"] == "42"
        data = base64.b64encode(b"a,b\n1,2\n").decode()
        up = await client.call_tool("upload_file", {"path": "in.csv", "content_base64": data})
        assert not up.is_error
        code = "rows = open('in.csv').read().splitlines()\nopen('out.txt', 'w').write(rows[1])"
        assert not (await client.call_tool("run_python", {"code": code})).is_error
        down = await client.call_tool("download_file", {"path": "out.txt"})
        assert base64.b64decode(down.structured_content["content_base64"]) == b"1,2"
        bad = await client.call_tool("download_file", {"path": "../../etc/passwd"})
        assert bad.is_error
        failed = await client.call_tool("run_python", {"code": "1 / 0"})
        assert failed.is_error and "ZeroDivisionError" in _text(failed)
    async with Client(_params()) as other:  # another MCP session: a fresh namespace
        result = await other.call_tool("run_python", {"code": "x"})
        assert result.is_error and "NameError" in _text(result)


async def test_figures_are_images_and_tables_structured() -> None:
    async with Client(_params()) as client:
        probe = await client.call_tool("run_python", {"code": "import matplotlib"})
        if probe.is_error:
            pytest.skip("matplotlib is offered only inside the OS sandbox (bubblewrap)")
        code = (
            "import matplotlib.pyplot as plt\nimport pandas as pd\n"
            "plt.plot([1, 2, 3])\nplt.show()\npd.DataFrame({'a': [1, 2]})"
        )
        result = await client.call_tool("run_python", {"code": code})
        images = [b for b in result.content if b.type == "image"]
        assert images and base64.b64decode(images[0].data)[:4] == b"\x89PNG"
        assert result.structured_content["tables"], result.structured_content


async def test_a_cell_reaches_nothing_on_the_host(tmp_path: Path) -> None:
    target = tmp_path / f"escape-{uuid.uuid4().hex}"
    attempts = [
        f"open({str(target)!r}, 'w').write('x')",
        "open('/etc/passwd').read()",
        "import os",
        "import socket",
        "().__class__.__base__.__subclasses__()",
    ]
    async with Client(_params()) as client:
        for code in attempts:
            result = await client.call_tool("run_python", {"code": code})
            assert result.is_error, (code, _text(result))
    assert not target.exists()


async def test_a_cancelled_call_stops_and_the_session_goes_on() -> None:
    async with Client(_params()) as client:
        await client.call_tool("run_python", {"code": "y = 5"})
        with anyio.move_on_after(3) as scope:
            await client.call_tool("run_python", {"code": "while True:\n    pass"})
        assert scope.cancelled_caught
        with anyio.fail_after(30):  # the loop was stopped (cancel or cell timeout)
            result = await client.call_tool("run_python", {"code": "y + 1"})
        assert "6" in _text(result)
