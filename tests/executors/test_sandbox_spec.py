"""``SandboxSpec``, the one place options become an executor: each backend it maps to, bad
values refused with a ``UserError``, and the spec crossing a process boundary (pickled, built
and run in a fresh interpreter, as batch workers and Ray nodes do)."""

from __future__ import annotations

import multiprocessing
import pickle
import sys
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import anyio
import pytest

from codeact import CodeActAgent
from codeact.batch import CodeActAgentFactory
from codeact.errors import UserError
from codeact.executors import RestrictedExecutor, SandboxSpec
from codeact.llms import ScriptedLLM

PLUGIN = """
from codeact.executors.base import CodeExecutor, ExecutionResult

class Echo(CodeExecutor):
    name = "echo-spec"

    def __init__(self, *, prefix="", **kwargs):
        super().__init__(**kwargs)
        self.prefix = prefix

    async def start(self): pass
    async def execute(self, code, *, timeout=None, on_output=None):
        return ExecutionResult(stdout=self.prefix + code)
    async def reset(self): pass
    async def aclose(self): pass
"""


@pytest.fixture
def plugin(tmp_path: Path) -> Iterator[None]:
    (tmp_path / "spec_plugin.py").write_text(PLUGIN)
    dist = tmp_path / "spec_plugin-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: spec-plugin\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[codeact.executors]\necho-spec = spec_plugin:Echo\n")
    sys.path.insert(0, str(tmp_path))
    try:
        yield
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("spec_plugin", None)


def test_restricted_gets_the_isolation_modules_and_limits() -> None:
    spec = SandboxSpec(
        isolation="inline", allow=("json",), cell_timeout=7, memory_mb=300, disk_mb=50, cpus=None
    )
    ex = spec()
    assert isinstance(ex, RestrictedExecutor)
    assert (ex.isolation, ex.allowed_modules, ex.timeout) == ("inline", ["json"], 7)
    assert ex.limits["memory_bytes"] == 300 << 20 and ex.disk_limit_mb == 50
    assert ex.cgroup_limits.cpus is None
    assert spec() is not ex  # a fresh executor per call
    process = SandboxSpec(os_sandbox="none")()
    assert isinstance(process, RestrictedExecutor)
    assert (process.isolation, process.os_sandbox) == ("process", "none")


def test_docker_gets_its_runtime_and_options() -> None:
    from codeact.executors.docker import DockerExecutor

    ex = SandboxSpec(executor="docker", runtime="runsc", options={"memory": "256m"})()
    assert isinstance(ex, DockerExecutor)
    assert (ex.runtime, ex.memory) == ("runsc", "256m")
    summary, warning = SandboxSpec(executor="docker", runtime="runsc").describe()
    assert "the runsc runtime" in summary and not warning
    assert SandboxSpec(executor="docker")().runtime is None  # the engine's default


def test_ray_gets_the_session_limits_on_a_node() -> None:
    from codeact.executors.ray import RayExecutor

    spec = SandboxSpec(executor="ray", ray_address="10.0.0.1:6379", memory_mb=512, disk_mb=128)
    ex = spec()
    assert isinstance(ex, RayExecutor)
    assert (ex.address, ex.memory_mb, ex.num_cpus) == ("10.0.0.1:6379", 640, 0)
    assert ex.sandbox_options["memory_limit_mb"] == 512
    assert ex.sandbox_options["disk_limit_mb"] == 128
    assert "10.0.0.1:6379" in spec.describe()[0]


def test_a_plugin_is_found_by_entry_point_with_its_options(plugin: None) -> None:
    ex = SandboxSpec(executor="echo-spec", options={"prefix": "> "})()
    assert type(ex).__name__ == "Echo"
    assert anyio.run(ex.execute, "1 + 1").stdout == "> 1 + 1"
    assert SandboxSpec(executor="echo-spec").describe() == (
        "sandbox: the 'echo-spec' executor",
        "",
    )


@pytest.mark.parametrize(
    "bad",
    [
        {"isolation": "thread"},
        {"os_sandbox": "firejail"},
        {"allow": "pandas"},  # a string, not a sequence of names
        {"allow": ("pandas", 3)},
        {"cell_timeout": 0},
        {"memory_mb": -1},
        {"memory_mb": "2048"},  # not a number
        {"disk_mb": True},
        {"cell_timeout": float("nan")},
        {"runtime": "runsc"},  # only for docker
        {"executor": "docker", "runtime": ""},
        {"options": [("image", "x")]},  # not a mapping
        {"cpus": 0},
        {"executor": ""},
    ],
)
def test_bad_values_are_a_user_error(bad: dict[str, Any]) -> None:
    with pytest.raises(UserError):
        SandboxSpec(**bad)


def test_options_reach_the_restricted_executor_unless_a_field_sets_them() -> None:
    ex = SandboxSpec(isolation="inline", options={"pids_limit": 9, "allow_pickle": True})()
    assert isinstance(ex, RestrictedExecutor)
    assert (ex.cgroup_limits.pids, ex.allow_pickle) == (9, True)
    with pytest.raises(UserError, match=r"\['timeout'\] are SandboxSpec fields"):
        SandboxSpec(options={"timeout": 5})()
    with pytest.raises(UserError, match="options for the 'restricted' executor"):
        SandboxSpec(options={"no_such_option": 1})()
    with pytest.raises(UserError, match="options for the 'docker' executor"):
        SandboxSpec(executor="docker", options={"no_such_option": 1})()
    with pytest.raises(UserError, match="not used by the ray executor"):
        SandboxSpec(executor="ray", options={"num_cpus": 2})


def test_a_spec_is_a_value() -> None:
    spec = SandboxSpec(executor="docker", options={"memory": "256m"})
    assert spec == SandboxSpec(executor="docker", options={"memory": "256m"})
    assert len({spec, SandboxSpec(executor="docker"), SandboxSpec()}) == 3  # hashable
    with pytest.raises(AttributeError):
        spec.executor = "ray"  # type: ignore[misc]


def test_an_unknown_executor_is_a_user_error_naming_the_known_ones() -> None:
    with pytest.raises(UserError, match="Known executors: .*restricted"):
        SandboxSpec(executor="nope")()


def test_allow_text_is_parsed_like_the_command_line() -> None:
    assert SandboxSpec.parse_allow(" pandas, numpy ,,") == ("pandas", "numpy")
    assert SandboxSpec.parse_allow(None) is None
    assert SandboxSpec(allow=["json"]).allow == ("json",)  # any sequence, kept as a tuple


def _build_and_run(spec: SandboxSpec) -> tuple[str, str]:
    """In a fresh interpreter: build the executor the spec describes and run one cell."""

    async def main() -> tuple[str, str]:
        async with spec() as ex:
            return type(ex).__name__, (await ex.execute("print(6 * 7)")).stdout

    return anyio.run(main)


def test_a_spec_pickles_and_builds_in_another_process() -> None:
    spec = SandboxSpec(isolation="inline", cell_timeout=20)
    agent_factory = CodeActAgentFactory(spec, max_steps=3)
    assert pickle.loads(pickle.dumps(agent_factory)).executor == spec
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        kind, out = pool.submit(_build_and_run, spec).result(timeout=120)
    assert (kind, out) == ("RestrictedExecutor", "42\n")


def test_an_agent_takes_a_spec_as_its_executor() -> None:
    llm = ScriptedLLM(["<execute>\nprint(2 ** 10)\n</execute>", "It is 1024."])
    agent = CodeActAgent(llm=llm, executor=SandboxSpec(isolation="inline"))
    result = agent.run_sync("2**10?")
    assert result.response.text == "It is 1024."
    assert "1024" in llm.requests[1].messages[-1].text


#: Calls that build an executor from options; outside ``codeact.executors`` only the spec may.
BUILDERS = {"RestrictedExecutor", "DockerExecutor", "RayExecutor", "get_executor", "with_limits",
            "default_executor", "restricted_executor"}  # fmt: skip
#: ``codeact doctor`` starts a bare RestrictedExecutor to test each isolation on this host.
DIAGNOSTICS = {"codeact/cli/_doctor.py"}


def executor_builds(root: Path) -> list[str]:
    """``file:line name`` of each call of a ``BUILDERS`` name under ``root``."""
    import ast

    found = []
    for file in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(file.read_text())):
            if isinstance(node, ast.Call):
                func = node.func
                name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                if name in BUILDERS:
                    found.append(f"{file.relative_to(root.parent.parent)}:{node.lineno} {name}")
    return found


def test_the_commands_and_batch_build_executors_only_through_the_spec() -> None:
    package = Path(__file__).resolve().parents[2] / "codeact"
    builds = [
        b
        for area in ("cli", "batch", "server", "mcp")
        for b in executor_builds(package / area)
        if b.split(":")[0] not in DIAGNOSTICS
    ]
    assert builds == [], "build it with codeact.executors.SandboxSpec instead"
    assert any("get_executor" in b for b in executor_builds(package / "executors"))  # sees calls
