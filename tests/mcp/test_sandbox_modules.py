"""Pieces of the MCP bridge without a server: JSON schemas as Python signatures, tools living in
``tools.<module>`` inside each executor, and names a sandbox cannot take."""

from __future__ import annotations

from typing import Any

import pytest

from codeact import RestrictedExecutor
from codeact.errors import UserError
from codeact.mcp._config import python_name
from codeact.mcp._schema import signature, type_text
from codeact.tools import BaseTool, ToolMetadata, ToolOutput

pytestmark = pytest.mark.anyio


def test_schemas_become_python_annotations_and_stubs() -> None:
    assert type_text({"type": "array", "items": {"type": "integer"}}) == "list[int]"
    assert type_text({"anyOf": [{"type": "string"}, {"type": "null"}]}) == "str | None"
    assert type_text({"enum": ["a", "b"]}) == 'Literal["a", "b"]'
    assert type_text({"type": "object", "additionalProperties": {"type": "number"}}) == (
        "dict[str, float]"
    )
    ref = {"$defs": {"P": {"type": "boolean"}}}
    assert type_text({"$ref": "#/$defs/P"}, ref["$defs"]) == "bool"
    sig = signature(
        "find",
        "Find things.",
        {
            "type": "object",
            "properties": {
                "limit": {"type": "integer", "default": 5},
                "from": {"type": "string", "description": "Start date."},
            },
            "required": ["from"],
        },
        {"type": "object", "properties": {"result": {"type": "array"}}},
    )
    assert sig.stub().splitlines()[0] == "def find(from_: str, limit: int = 5) -> list:"
    assert "from_: Start date." in sig.stub()
    assert sig.renamed == {"from_": "from"}
    assert [python_name(n) for n in ("get-weather", "2fa", "class", "_x", "--")] == [
        "get_weather",
        "t2fa",
        "class_",
        "t_x",
        "",
    ]


class Dotted(BaseTool):
    """A host tool the sandbox sees as ``tools.<module>.<name>``."""

    def __init__(self, sandbox_name: str) -> None:
        self.metadata = ToolMetadata(name=sandbox_name.replace(".", "__"), description="Echo.")
        self._sandbox = sandbox_name

    def sandbox_spec(self) -> tuple[str, list[str], str]:
        return self._sandbox, ["x"], "def echo(x) -> Any"

    async def acall(self, arguments: dict[str, Any], *, ctx: Any = None) -> ToolOutput:
        return ToolOutput(content="", raw_output={"got": arguments["x"], "from": self._sandbox})


@pytest.mark.parametrize("isolation", ["inline", "process"])
async def test_dotted_tools_are_submodules_of_tools(isolation: str) -> None:
    tools = [Dotted("crm.echo"), Dotted("files.echo")]
    async with RestrictedExecutor(tools=tools, isolation=isolation) as ex:  # type: ignore[arg-type]
        code = (
            "from tools.crm import echo\nimport tools.files\nfrom tools import crm\n"
            "print(echo(1), tools.files.echo(x=2), crm.echo(3)['from'])"
        )
        result = await ex.execute(code)
        assert result.ok, result.error
        assert result.stdout.strip() == (
            "{'got': 1, 'from': 'crm.echo'} {'got': 2, 'from': 'files.echo'} crm.echo"
        )
        missing = await ex.execute("from tools.nope import echo")
        assert missing.error is not None and missing.error.type == "ImportError"
        await ex.reset()
        bare = await ex.execute("echo")  # dotted tools are not bare names
        assert bare.error is not None and bare.error.type == "NameError"


def test_a_sandbox_name_that_is_not_module_dot_identifier_is_refused() -> None:
    for bad in ("a.b.c", "a-b.c", "a."):
        with pytest.raises(UserError, match="must be an identifier or 'module.identifier'"):
            RestrictedExecutor(tools=[Dotted(bad)]).check_tools()  # type: ignore[list-item]


@pytest.mark.docker
async def test_dotted_tools_in_the_docker_kernel(sandbox_image: str) -> None:
    from codeact import DockerExecutor

    tools = [Dotted("crm.echo")]
    async with DockerExecutor(image=sandbox_image, tools=tools) as ex:  # type: ignore[arg-type]
        result = await ex.execute("from tools.crm import echo\nimport tools.crm\necho(1)")
        assert result.ok, result.error
        assert result.value == "{'got': 1, 'from': 'crm.echo'}"
