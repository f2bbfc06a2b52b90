"""LLM lifecycle: ``aclose()`` (twice is fine) and ``async with`` for every adapter.

OpenAILike talks real HTTP to a fake OpenAI-compatible server on 127.0.0.1. LocalLLM runs on a
stand-in for the ``xllamacpp`` runtime (a module on ``sys.path`` whose ``Server`` answers on
that same kind of fake endpoint), so what it holds and releases is observed for real.
"""

from __future__ import annotations

import contextlib
import gc
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from codeact import ChatMessage
from codeact.llms import FunctionLLM, Reply, ScriptedLLM
from codeact.llms.base import LLM
from codeact.llms.local import LocalLLM, loaded_models
from codeact.llms.openai_like import OpenAILike
from codeact.testing import FakeOpenAIServer

pytestmark = pytest.mark.anyio


async def ask(llm: LLM, text: str = "x") -> str:
    return "".join([d.text async for d in llm.stream_chat([ChatMessage.user(text)])])


def httpx_module() -> Any:
    try:
        import httpx2  # what recent openai SDKs use

        return httpx2
    except ImportError:
        import httpx

        return httpx


async def test_every_llm_is_an_async_context_manager_and_closes_twice() -> None:
    for llm in (ScriptedLLM(["a"]), FunctionLLM(lambda _req: "b")):
        async with llm as entered:
            assert entered is llm
        await llm.aclose()
        await llm.aclose()


async def test_openai_like_closes_the_client_it_opened() -> None:
    with FakeOpenAIServer(["one", "two"]) as srv:
        async with OpenAILike("m", base_url=srv.base_url) as llm:
            assert await ask(llm) == "one"
            sdk = llm.client()
            assert not sdk.is_closed()
        assert sdk.is_closed()
        await llm.aclose()  # a second close does nothing
        assert await ask(llm) == "two"  # used again: a new client
        assert llm.client() is not sdk
        await llm.aclose()
        await llm.aclose()


async def test_a_borrowed_http_client_is_used_and_left_open() -> None:
    sent: list[str] = []

    async def record(request: Any) -> None:
        sent.append(str(request.url))

    http = httpx_module().AsyncClient(event_hooks={"request": [record]})
    async with http:
        with FakeOpenAIServer(["one", "two"]) as srv:
            async with OpenAILike("m", base_url=srv.base_url, http_client=http) as llm:
                assert await ask(llm) == "one"
            await llm.aclose()
            assert not http.is_closed
            async with OpenAILike("m", base_url=srv.base_url, http_client=http) as again:
                assert await ask(again) == "two"
            assert sent == [srv.base_url + "/chat/completions"] * 2
        assert not http.is_closed


# -- LocalLLM on a stand-in runtime ----------------------------------------------------------------
RUNTIME = textwrap.dedent(
    """
    import weakref

    address = None  # set by the test: where the fake OpenAI-compatible endpoint listens
    servers = weakref.WeakSet()  # the Server objects still alive
    loads = []


    class _Section:
        pass


    class CommonParams:
        def __init__(self):
            self.model = _Section()
            self.cpuparams = _Section()
            self.cpuparams_batch = _Section()


    class Server:
        def __init__(self, params):
            loads.append((params.model.path, params.n_ctx))
            self.listening_address = address
            servers.add(self)
    """
)


@pytest.fixture
def runtime(tmp_path: Path) -> Iterator[tuple[ModuleType, FakeOpenAIServer]]:
    replies = [Reply(chunks=["<execute>\n", "print(1)\n"]), "second", "third"]
    with stand_in(tmp_path, replies) as found:
        yield found


@contextlib.contextmanager
def stand_in(tmp_path: Path, replies: list[Any]) -> Iterator[tuple[ModuleType, FakeOpenAIServer]]:
    """The llama.cpp runtime replaced by a module whose server is a fake OpenAI endpoint."""
    (tmp_path / "xllamacpp.py").write_text(RUNTIME)
    sys.path.insert(0, str(tmp_path))
    srv = FakeOpenAIServer(replies).start()
    try:
        import xllamacpp  # type: ignore[import-not-found]

        xllamacpp.address = srv.base_url.removesuffix("/v1")
        yield xllamacpp, srv
    finally:
        srv.stop()
        sys.path.remove(str(tmp_path))
        sys.modules.pop("xllamacpp", None)


async def test_local_llm_holds_the_model_until_its_last_holder_closes(
    runtime: tuple[ModuleType, FakeOpenAIServer], tmp_path: Path
) -> None:
    xllamacpp, srv = runtime
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF")
    first, second = LocalLLM(model, n_ctx=2048), LocalLLM(model, n_ctx=2048)
    async with first:
        # the stop sequence that ended the code block is put back
        assert await ask(first) == "<execute>\nprint(1)\n</execute>"
        async with second:
            assert await ask(second) == "second"
            assert loaded_models() == {str(model): 2}
        assert loaded_models() == {str(model): 1}
        assert await ask(first) == "third"  # still loaded for the remaining holder
        assert xllamacpp.loads == [(str(model), 2048)]  # loaded once, shared
    assert loaded_models() == {}
    gc.collect()
    assert len(xllamacpp.servers) == 0  # unloaded: nothing refers to the runtime's server
    await first.aclose()  # a second close does nothing
    assert loaded_models() == {}
    assert srv.requests[0]["stop"] == ["</execute>"]


async def test_closing_an_unused_local_llm_is_fine(
    runtime: tuple[ModuleType, FakeOpenAIServer],
) -> None:
    llm = LocalLLM()
    await llm.aclose()
    await llm.aclose()
    assert loaded_models() == {} and runtime[0].loads == []


async def test_a_reply_repeating_one_line_is_cut_off_and_its_block_closed(tmp_path: Path) -> None:
    """fresh13: the 1.5B model wrote "12. Convert the 'Delivered' column to a string ..." and
    the like thirty times over, to its token limit, a minute per step (fresh14: a replace of
    every letter by itself). Six finished lines in a row the same (a list's numbers aside),
    or twelve of one shape (texts and numbers aside), end the reply; its block is closed."""
    same = "df['Signed'] = df['Signed'].str.strip()\n"
    looping = Reply(chunks=["<execute>\nimport pandas as pd\n", *[same] * 40], chunk_delay=0.001)
    listed = Reply(chunks=[f"{n}. Convert the 'Delivered' column to text.\n" for n in range(40)])
    letters = "abcdefghijklmnopqrstuvwxyz"
    shaped = Reply(chunks=[f"df['Band'] = df['Band'].str.replace('{c}', '{c}')\n" for c in letters])
    calls = ["strip()", "lower()", "upper()", "title()"]
    varied = Reply(chunks=[f"x{n} = df['c{n}'].str.{calls[n % 4]}\n" for n in range(40)])
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF")
    with stand_in(tmp_path, [looping, listed, shaped, varied]):
        async with LocalLLM(model) as llm:
            text = await ask(llm)
            assert text.count(same) == 6 and text.endswith("</execute>"), text
            assert (await ask(llm)).count("Convert the") == 6
            # one shape, texts aside (every letter replaced by itself): cut at twelve
            assert (await ask(llm)).count("str.replace(") == 12
            assert (await ask(llm)).count(" = df['c") == 40  # (alike, not one shape: kept)
