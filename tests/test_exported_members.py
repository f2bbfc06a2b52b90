"""The public API is locked: every public module's ``__all__`` lists exactly what it defines
for users (httpx's ``test_exported_members.py`` is the model), every listed name resolves, and
the names users reach for first are where they look."""

from __future__ import annotations

import importlib
import inspect
import types

import pytest

PUBLIC_MODULES = [
    "codeact",
    "codeact.agents",
    "codeact.agents.validators",
    "codeact.batch",
    "codeact.errors",
    "codeact.events",
    "codeact.executors",
    "codeact.executors.docker",
    "codeact.executors.ray",
    "codeact.executors.restricted",
    "codeact.executors.wire",
    "codeact.llms",
    "codeact.notebooks",
    "codeact.mcp",
    "codeact.mcp.server",
    "codeact.server",
    "codeact.testing",
    "codeact.tools",
]

#: The package face. Changing it is an API change: update this list on purpose.
TOP_LEVEL = {
    "AgentWorkflow",
    "BaseAgent",
    "BaseTool",
    "BinaryPart",
    "ChatMemory",
    "ChatMessage",
    "CodeActAgent",
    "CodeActError",
    "CodeExecutor",
    "Context",
    "DockerExecutor",
    "ExecutionResult",
    "ExecutorError",
    "FunctionAgent",
    "FunctionTool",
    "LLMError",
    "MCPServer",
    "ReActAgent",
    "RestrictedExecutor",
    "RunError",
    "RunHandler",
    "TextPart",
    "ToolCallRequest",
    "ToolOutput",
    "UserError",
    "__version__",
}


def _home(obj: object) -> str:
    return getattr(obj, "__module__", "") or ""


def _defined_here(module: types.ModuleType, name: str) -> bool:
    obj = getattr(module, name)
    if isinstance(obj, types.ModuleType):
        return False
    return inspect.isclass(obj) or inspect.isfunction(obj)


@pytest.mark.parametrize("name", PUBLIC_MODULES)
def test_all_lists_what_the_module_offers(name: str) -> None:
    module = importlib.import_module(name)
    exported = set(module.__all__)
    for member in exported:
        assert getattr(module, member, None) is not None, (
            f"{name}.{member} is in __all__ but missing"
        )
    offered = {
        n
        for n in dir(module)
        if not n.startswith("_")
        and _defined_here(module, n)
        and (_home(getattr(module, n)) == name or _home(getattr(module, n)).startswith(name + "."))
    }
    assert offered <= exported, (
        f"{name} offers names missing from __all__: {sorted(offered - exported)}"
    )


def test_the_package_face_is_locked() -> None:
    import codeact

    assert set(codeact.__all__) == TOP_LEVEL


def test_users_find_errors_and_backends_where_they_look() -> None:
    import codeact
    import codeact.executors
    import codeact.llms
    from codeact.errors import ExecutorError, LLMError
    from codeact.executors.docker import DockerExecutor

    assert codeact.DockerExecutor is DockerExecutor is codeact.executors.DockerExecutor
    assert codeact.ExecutorError is ExecutorError is codeact.executors.ExecutorError
    assert codeact.LLMError is LLMError is codeact.llms.LLMError


def test_importing_codeact_loads_no_optional_dependency() -> None:
    import subprocess
    import sys

    code = (
        "import sys, codeact, codeact.executors, codeact.llms, codeact.agents.validators\n"
        "import codeact.notebooks\n"
        "codeact.DockerExecutor\n"
        "heavy = [m for m in ('docker', 'uvicorn', 'openai', 'psycopg', 'ray', 'playwright', "
        "'nbformat') "
        "if m in sys.modules]\nprint(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout


@pytest.mark.parametrize("name", PUBLIC_MODULES)
def test_every_public_exception_is_in_the_one_error_tree(name: str) -> None:
    from codeact.errors import CodeActError

    module = importlib.import_module(name)
    for member in module.__all__:
        obj = getattr(module, member)
        if inspect.isclass(obj) and issubclass(obj, Exception) and not issubclass(obj, Warning):
            assert issubclass(obj, CodeActError), f"{name}.{member} is outside CodeActError"


def test_store_errors_keep_their_old_base_too() -> None:
    from codeact.errors import StoreError
    from codeact.server.store import SchemaError, StoreLocked, StoreUnavailable, ThreadBusy

    for cls in (SchemaError, StoreLocked, StoreUnavailable, ThreadBusy):
        assert issubclass(cls, StoreError) and issubclass(cls, RuntimeError)
