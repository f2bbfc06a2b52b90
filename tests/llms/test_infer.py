"""Models by name: the spec grammar, the built-in providers, and third-party entry points.

The entry-point tests install a real (tiny) distribution: a ``.dist-info`` folder in a temporary
directory on ``sys.path``, which ``importlib.metadata`` reads like any installed package.
"""

from __future__ import annotations

import json
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from codeact import ChatMessage, CodeActAgent, UserError
from codeact.llms import (
    LLM,
    LLMSpec,
    ScriptedLLM,
    infer_llm,
    llm_providers,
    parse_llm_spec,
)
from codeact.llms.local import LocalLLM
from codeact.llms.openai_like import OpenAILike
from codeact.testing import FakeOpenAIServer

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(
    ("spec", "parsed"),
    [
        ("local", LLMSpec("local", "")),
        ("local:/models/m.gguf", LLMSpec("local", "/models/m.gguf")),
        ("scripted:replies.json", LLMSpec("scripted", "replies.json")),
        ("openai:gpt-4o-mini", LLMSpec("openai", "gpt-4o-mini")),
        ("gpt-4o-mini", LLMSpec("openai", "gpt-4o-mini")),
        ("OpenAI:gpt-4o", LLMSpec("openai", "gpt-4o")),
        ("openai:llama3:8b", LLMSpec("openai", "llama3:8b")),
        (
            "openai:qwen2.5-coder:7b@http://127.0.0.1:11434/v1",
            LLMSpec("openai", "qwen2.5-coder:7b", "http://127.0.0.1:11434/v1"),
        ),
        ("m@https://u:p@host:8443/v1", LLMSpec("openai", "m", "https://u:p@host:8443/v1")),
        ("vertex:claude@20240229", LLMSpec("vertex", "claude@20240229")),
        ("  local  ", LLMSpec("local", "")),
    ],
)
def test_the_spec_grammar(spec: str, parsed: LLMSpec) -> None:
    assert parse_llm_spec(spec) == parsed


@pytest.mark.parametrize(
    ("spec", "why"),
    [
        ("", "must be a non-empty string"),
        ("   ", "must be a non-empty string"),
        ("my provider:x", "Bad provider name 'my provider'"),
        (":model", "Bad provider name ''"),
        ("http://127.0.0.1:8000/v1", "is a URL, not a model spec.*'openai:gpt-4o-mini@http://"),
    ],
)
def test_malformed_specs_are_user_errors(spec: str, why: str) -> None:
    with pytest.raises(UserError, match=why):
        infer_llm(spec)


def test_unknown_provider_names_the_known_ones() -> None:
    with pytest.raises(UserError) as info:
        infer_llm("llama3:8b")
    msg = str(info.value)
    assert "Unknown model provider 'llama3'" in msg
    assert "local, openai, scripted" in msg and "codeact.llms" in msg
    assert "'openai:llama3:8b'" in msg  # how to name a model with ':' in it


async def test_openai_by_name_talks_to_the_endpoint() -> None:
    with FakeOpenAIServer(["one", "two"]) as srv:
        for llm in (
            infer_llm("openai:m1", base_url=srv.base_url, api_key="k"),
            infer_llm(f"m2@{srv.base_url}"),
        ):
            assert isinstance(llm, OpenAILike)
            async with llm:
                [_ async for _ in llm.stream_chat([ChatMessage.user("hi")])]
    assert [r["model"] for r in srv.requests] == ["m1", "m2"]


def test_options_reach_the_constructor_and_none_means_not_given() -> None:
    llm = infer_llm("openai:m", base_url=None, temperature=0.5, timeout=9.0, progress=print)
    assert isinstance(llm, OpenAILike)
    assert (llm.temperature, llm.timeout, llm.max_retries) == (0.5, 9.0, 3)
    assert llm.metadata.model_name == "m"


def test_an_option_the_provider_does_not_take() -> None:
    with pytest.raises(UserError, match=r"'local' does not take the option\(s\) base_url") as info:
        infer_llm("local", base_url="http://127.0.0.1:1/v1")
    assert "n_ctx" in str(info.value)  # what it does take
    with pytest.raises(UserError, match="base_url= was passed too"):
        infer_llm("m@http://127.0.0.1:1/v1", base_url="http://127.0.0.1:2/v1")


def test_local_builds_without_loading() -> None:
    said: list[str] = []
    llm = infer_llm("local", progress=said.append, n_ctx=4096)
    assert isinstance(llm, LocalLLM) and llm.n_ctx == 4096 and llm.model_path == ""
    assert llm.progress == said.append
    assert isinstance(infer_llm("local:/m.gguf"), LocalLLM)
    assert infer_llm("local:/m.gguf").model_path == "/m.gguf"  # type: ignore[attr-defined]


async def test_scripted_replays_texts_and_reply_objects(tmp_path: Path) -> None:
    script = tmp_path / "r.json"
    script.write_text(
        json.dumps(["<execute>\nprint(6 * 7)\n</execute>", {"text": "It is 42.", "delay": 0.01}])
    )
    llm = infer_llm(f"scripted:{script}")
    assert isinstance(llm, ScriptedLLM) and llm.metadata.model_name == "scripted:r.json"
    assert not llm.metadata.is_function_calling_model
    result = await CodeActAgent(llm=llm, executor="restricted").run("six times seven?")
    assert result.response.text == "It is 42."
    assert infer_llm(f"scripted:{script}", function_calling=True).metadata.is_function_calling_model


@pytest.mark.parametrize(
    ("content", "why"),
    [(None, "No such file"), ("{not json", "Expecting"), ('{"a": 1}', "a JSON list"), ("[3]", "")],
)
def test_scripted_file_errors(tmp_path: Path, content: str | None, why: str) -> None:
    script = tmp_path / "r.json"
    if content is not None:
        script.write_text(content)
    with pytest.raises(UserError, match=f"Cannot read scripted replies from {script}: .*{why}"):
        infer_llm(f"scripted:{script}")
    with pytest.raises(UserError, match="needs a file"):
        infer_llm("scripted:")


def test_an_llm_instance_passes_through() -> None:
    llm = ScriptedLLM(["x"])
    assert infer_llm(llm) is llm
    with pytest.raises(UserError, match="apply to a model spec"):
        infer_llm(llm, temperature=0)


# -- third-party providers, installed for real -----------------------------------------------------
PLUGIN = textwrap.dedent(
    '''
    from codeact.llms import LLM, ChatResponse, LLMMetadata
    from codeact import ChatMessage


    class EchoLLM(LLM):
        """Answers with its model name and the last user message."""

        def __init__(self, model, *, greeting="echo"):
            self.model = model
            self.greeting = greeting

        @property
        def metadata(self):
            return LLMMetadata(model_name=f"echo:{self.model}")

        async def chat(self, messages, tools=None, tool_choice=None):
            text = f"{self.greeting} {self.model}: {messages[-1].text.splitlines()[0]}"
            return ChatResponse(message=ChatMessage.assistant(text))


    def any_options(model, **options):
        return EchoLLM(model, greeting=",".join(sorted(options)))


    def not_an_llm(model):
        return "a string"


    OPENAI = EchoLLM
    '''
)
ENTRY_POINTS = """\
[codeact.llms]
echo = echo_llm:EchoLLM
anyopts = echo_llm:any_options
notllm = echo_llm:not_an_llm
broken = echo_llm_missing:Nothing
openai = echo_llm:OPENAI
"""


def install_plugin(where: Path) -> Path:
    """A distribution 'echo-llm' in ``where``: its module and its dist-info with entry points."""
    (where / "echo_llm.py").write_text(PLUGIN)
    dist = where / "echo_llm-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: echo-llm\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(ENTRY_POINTS)
    return where


@pytest.fixture
def plugin(tmp_path: Path) -> Iterator[Path]:
    sys.path.insert(0, str(install_plugin(tmp_path)))
    try:
        yield tmp_path
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("echo_llm", None)


async def test_a_third_party_provider_plugs_in_by_entry_point(plugin: Path) -> None:
    assert {"echo", "anyopts", "local", "openai", "scripted"} <= set(llm_providers())
    llm = infer_llm("echo:parrot", greeting="hello")
    assert type(llm).__name__ == "EchoLLM" and isinstance(llm, LLM)
    result = await CodeActAgent(llm=llm, executor="restricted").run("hi there")
    assert result.response.text == "hello parrot: hi there"
    with pytest.raises(UserError, match=r"'echo' does not take the option\(s\) colour"):
        infer_llm("echo:parrot", colour="red")
    # a factory taking **options gets them all, and progress too
    assert infer_llm("anyopts:x", a=1, progress=print).greeting == "a,progress"  # type: ignore[attr-defined]


def test_third_party_failures_are_user_errors(plugin: Path) -> None:
    with pytest.raises(UserError, match="returned str, not a codeact LLM"):
        infer_llm("notllm:x")
    with pytest.raises(
        UserError, match=r"'broken' \(echo_llm_missing:Nothing\) could not be loaded"
    ):
        infer_llm("broken:x")
    assert isinstance(infer_llm("openai:m"), OpenAILike)  # built-in names win


def test_the_cli_uses_a_third_party_provider(plugin: Path) -> None:
    import os
    import subprocess

    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(plugin), str(root)])}
    r = subprocess.run(
        [sys.executable, "-m", "codeact", "run", "what now?", "--model", "echo:cli", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=root,
    )
    assert r.returncode == 0, r.stderr
    payload = json.loads(r.stdout)
    assert payload["answer"] == "echo cli: what now?" and payload["model"] == "echo:cli"
