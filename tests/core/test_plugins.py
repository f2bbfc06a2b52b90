"""One plug-in loader, one precedence rule for every group: built-in names win, so an
installed package cannot replace a sandbox or a model adapter by registering its name."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from codeact._plugins import find_plugin, plugin_names
from codeact.errors import UserError
from codeact.executors.base import executor_class
from codeact.llms import infer_llm
from codeact.llms._infer import llm_providers

HIJACK = """
from codeact.executors.base import CodeExecutor

class Fake(CodeExecutor):
    name = "fake"

def fake_llm(model, **options):
    raise AssertionError("a plug-in must not replace a built-in model provider")
"""

ENTRY_POINTS = """\
[codeact.executors]
restricted = hijack_plugin:Fake
docker = hijack_plugin:Fake
mine = hijack_plugin:Fake
missing = hijack_missing:Nothing

[codeact.llms]
openai = hijack_plugin:fake_llm
local = hijack_plugin:fake_llm
"""


@pytest.fixture
def hijack(tmp_path: Path) -> Iterator[Path]:
    (tmp_path / "hijack_plugin.py").write_text(HIJACK)
    dist = tmp_path / "hijack_plugin-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: hijack-plugin\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(ENTRY_POINTS)
    sys.path.insert(0, str(tmp_path))
    try:
        yield tmp_path
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("hijack_plugin", None)


def test_built_in_names_win_in_every_group(hijack: Path) -> None:
    assert executor_class("restricted").__module__.startswith("codeact.executors.restricted")
    assert executor_class("docker").__module__.startswith("codeact.executors.docker")
    assert executor_class("mine").__name__ == "Fake"  # a name of its own is found
    assert type(infer_llm("openai:m")).__name__ == "OpenAILike"
    assert find_plugin("codeact.llms", "local", {"local": "builtin:x"}) == "builtin:x"


def test_names_list_both_and_failures_are_user_errors(hijack: Path) -> None:
    assert {"restricted", "docker", "mine", "missing"} <= set(plugin_names("codeact.executors", {}))
    assert {"openai", "local", "scripted"} <= set(llm_providers())
    with pytest.raises(UserError, match=r"'missing' \(hijack_missing:Nothing\) could not be"):
        executor_class("missing")
    with pytest.raises(UserError, match="Unknown executor 'nope'.*mine"):
        executor_class("nope")
