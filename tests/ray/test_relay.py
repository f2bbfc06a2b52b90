"""The node side's relay, in this process without Ray (``NodeHost`` is a plain class): only a
connection that knows the session's token reaches the kernel, and only one."""

from __future__ import annotations

import anyio
import pytest

from codeact.executors.ray._host import NodeHost
from codeact.executors.wire import KernelClient

pytestmark = pytest.mark.anyio


async def _closed_without_data(ip: str, port: int, first: bytes) -> bool:
    stream = await anyio.connect_tcp(ip, port)
    async with stream:
        await stream.send(first)
        with anyio.fail_after(30):
            try:
                await stream.receive()
            except (anyio.EndOfStream, anyio.BrokenResourceError):
                return True
    return False


async def test_only_the_token_holder_reaches_the_kernel_and_only_once() -> None:
    host = NodeHost()
    opened = await host.open("s1", "process", {"os_sandbox": "auto"}, [])
    try:
        ip, port = opened["address"]
        token = opened["token"].encode()
        assert len(token) == 32 and ip
        assert await _closed_without_data(ip, port, b"x" * 32)  # a wrong token is cut off
        stream = await anyio.connect_tcp(ip, port)
        await stream.send(token)
        client = KernelClient(stream)
        r = await client.execute("6 * 7", limit=30, tools=[], grace=2)
        assert r["value"] == "42", r
        with pytest.raises(OSError):  # the listener closed once the driver was in
            await anyio.connect_tcp(ip, port)
        # a fresh relay for the same session: a new port and a new token, the old one is gone
        again = await host.relay("s1")
        assert again["token"] != opened["token"]
        with pytest.raises((anyio.EndOfStream, anyio.BrokenResourceError)):
            with anyio.fail_after(30):
                await stream.receive()
        await client.aclose()
    finally:
        await host.close("s1")
    assert host.sessions == {}
