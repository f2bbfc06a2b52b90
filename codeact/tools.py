"""Tools an agent can call: ``FunctionTool`` wraps a plain Python function.

A tool has a name, a description and a JSON schema of its arguments. Arguments are validated
before the call; a validation failure or an exception inside the tool becomes an error
``ToolOutput`` the model can read and react to, never a crash of the run. Sync functions run in a
worker thread so they never block the event loop.
"""

from __future__ import annotations

import inspect
import json
import typing
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

import anyio.to_thread
from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model, field_serializer

from codeact._docstrings import parse_docstring
from codeact.errors import UserError

RESERVED_TOOL_NAMES = frozenset({"handoff"})


class ToolOutput(BaseModel):
    """What a tool call produced: the text the model sees plus the raw value."""

    model_config = ConfigDict(arbitrary_types_allowed=True)
    content: str
    tool_name: str = ""
    is_error: bool = False
    raw_output: Any = None
    exception: BaseException | None = Field(default=None, exclude=True, repr=False)
    #: Set by a tool to end (True) or not end (False) the run from this call, overriding
    #: ``ToolMetadata.return_direct``.
    return_direct: bool | None = Field(default=None, exclude=True)
    #: For code execution: the executor's result as a dict.
    execution: dict[str, Any] | None = Field(default=None, exclude=True)
    #: Set by a handoff: the agent that takes the conversation over after this tool round.
    handoff_to: str | None = Field(default=None, exclude=True)
    #: Set by a tool to stop the later calls of the same reply: each gets this text as an
    #: error output instead of running (used by ``execute`` after a failed block).
    skip_later_calls: str | None = Field(default=None, exclude=True)

    @field_serializer("raw_output")
    def _ser_raw(self, value: Any) -> Any:
        try:
            json.dumps(value)
        except (TypeError, ValueError):
            return repr(value)
        return value

    def __str__(self) -> str:
        return self.content


class ToolMetadata(BaseModel):
    """Name, description, argument schema and behaviour flags of a tool."""

    name: str
    description: str
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})
    return_direct: bool = False

    def to_openai(self) -> dict[str, Any]:
        """The tool in the OpenAI ``tools=[...]`` format."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }


class BaseTool(ABC):
    """The tool seam: metadata plus one async call."""

    metadata: ToolMetadata
    #: True when the tool wants the run's ``Context`` (such tools cannot run inside a sandbox).
    needs_context: bool = False
    #: True when the *caller* runs the tool (``ClientTool``): the run ends after announcing
    #: the call, and the caller sends the result with the next turn.
    executed_by_caller: bool = False

    @property
    def name(self) -> str:
        """The tool's name as the model sees it."""
        return self.metadata.name

    def sandbox_spec(self) -> tuple[str, list[str], str]:
        """How code in a sandbox sees the tool: its name in the ``tools`` module (``"name"``,
        or ``"module.name"`` for ``from tools.module import name``), its parameter names in
        positional order, and its docstring."""
        params = list(self.metadata.parameters.get("properties", {}))
        return self.name, params, self.metadata.description

    @abstractmethod
    async def acall(self, arguments: dict[str, Any], *, ctx: Any = None) -> ToolOutput:
        """Run the tool. Must not raise for tool failures: return an error ``ToolOutput``."""


class ClientTool(BaseTool):
    """A tool the *caller* executes (e.g. an AG-UI front-end tool).

    When the model calls it, the run ends after announcing the call (no result is invented); the
    caller runs the tool and continues the conversation with the result as a tool message.
    """

    executed_by_caller = True

    def __init__(self, name: str, description: str = "", parameters: dict[str, Any] | None = None):
        self.metadata = ToolMetadata(
            name=name,
            description=description or f"Call {name}.",
            parameters=parameters or {"type": "object", "properties": {}},
        )

    async def acall(self, arguments: dict[str, Any], *, ctx: Any = None) -> ToolOutput:
        """Never runs on the server."""
        return ToolOutput(
            content=f"{self.name} is executed by the caller, not here",
            tool_name=self.name,
            is_error=True,
        )


def render_output(value: Any) -> str:
    """The text of a tool's return value as the model sees it (JSON for plain data)."""
    if isinstance(value, str):
        return value
    if isinstance(value, BaseModel):
        return value.model_dump_json()
    if isinstance(value, (dict, list, tuple, int, float, bool)) or value is None:
        try:
            return json.dumps(value, ensure_ascii=False, default=str)
        except (TypeError, ValueError):
            return str(value)
    return str(value)


def from_plain_json(value: Any) -> Any:
    """A plain-data copy of a tool's raw output for sandboxed code (anything not JSON-able,
    e.g. a ``pathlib.Path``, becomes its string)."""
    return json.loads(json.dumps(value, default=str))


def _is_context_annotation(annotation: Any) -> bool:
    from codeact.context import Context

    if annotation is Context:
        return True
    return isinstance(annotation, str) and annotation.split(".")[-1] == "Context"


class FunctionTool(BaseTool):
    """A tool made from a plain (sync or async) Python function."""

    def __init__(
        self,
        fn: Callable[..., Any],
        metadata: ToolMetadata,
        args_model: type[BaseModel],
        ctx_param: str | None = None,
    ) -> None:
        self.fn = fn
        self.metadata = metadata
        self.args_model = args_model
        self.ctx_param = ctx_param
        self.needs_context = ctx_param is not None
        self._is_async = inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(
            getattr(fn, "__call__", None)  # noqa: B004 - callable objects with async __call__
        )

    @classmethod
    def from_function(
        cls,
        fn: Callable[..., Any],
        name: str | None = None,
        description: str | None = None,
        return_direct: bool = False,
        *,
        _allow_reserved: bool = False,
    ) -> FunctionTool:
        """Build a tool from ``fn``'s signature, type hints and docstring.

        The JSON schema comes from the parameters and their annotations (pydantic), with argument
        descriptions read from the docstring (Google ``Args:``, Sphinx ``:param:`` or NumPy style).
        A parameter annotated ``Context`` receives the run's context and is hidden from the model.
        """
        tool_name = name or getattr(fn, "__name__", None)
        if not tool_name or not tool_name.isidentifier():
            raise UserError(f"Tool name {tool_name!r} is not a valid identifier; pass name=...")
        if tool_name in RESERVED_TOOL_NAMES and not _allow_reserved:
            raise UserError(f"'{tool_name}' is a reserved tool name. Please use a different name.")
        summary, arg_docs = parse_docstring(inspect.getdoc(fn))
        args_model, ctx_param = _build_args_model(fn, tool_name, arg_docs)
        schema = args_model.model_json_schema()
        _strip_titles(schema)
        meta = ToolMetadata(
            name=tool_name,
            description=description or summary or f"Call {tool_name}.",
            parameters=schema,
            return_direct=return_direct,
        )
        return cls(fn, meta, args_model, ctx_param)

    def signature(self) -> str:
        """The tool as a Python stub line, e.g. ``def lookup(key: str) -> dict``."""
        sig = inspect.signature(self.fn)
        params = [p for n, p in sig.parameters.items() if n != self.ctx_param]
        text = str(sig.replace(parameters=params))
        text = text.replace("'", "")
        prefix = "async def" if self._is_async else "def"
        return f"{prefix} {self.name}{text}"

    async def acall(self, arguments: dict[str, Any], *, ctx: Any = None) -> ToolOutput:
        """Validate ``arguments`` and call the function; errors become error outputs."""
        try:
            parsed = self.args_model.model_validate(arguments)
        except ValidationError as exc:
            return ToolOutput(
                content=f"Invalid arguments for tool {self.name}: {_short_validation(exc)}",
                tool_name=self.name,
                is_error=True,
                exception=exc,
            )
        kwargs = {k: getattr(parsed, k) for k in type(parsed).model_fields}
        if parsed.model_extra:
            kwargs.update(parsed.model_extra)
        if self.ctx_param is not None:
            kwargs[self.ctx_param] = ctx
        try:
            if self._is_async:
                result = await typing.cast(Callable[..., Awaitable[Any]], self.fn)(**kwargs)
            else:
                result = await anyio.to_thread.run_sync(partial(self.fn, **kwargs))
        except Exception as exc:  # the model reads the error and may recover
            return ToolOutput(
                content=f"Error calling tool {self.name}: {type(exc).__name__}: {exc}",
                tool_name=self.name,
                is_error=True,
                raw_output=str(exc),
                exception=exc,
            )
        return ToolOutput(content=render_output(result), tool_name=self.name, raw_output=result)

    async def __call__(self, **kwargs: Any) -> ToolOutput:
        return await self.acall(kwargs)


def _build_args_model(
    fn: Callable[..., Any], tool_name: str, arg_docs: dict[str, str]
) -> tuple[type[BaseModel], str | None]:
    sig = inspect.signature(fn)
    try:
        hints = typing.get_type_hints(fn)
    except Exception:  # unresolved forward references: fall back to raw annotations
        hints = {}
    fields: dict[str, Any] = {}
    ctx_param: str | None = None
    allow_extra = False
    for pname, param in sig.parameters.items():
        annotation = hints.get(pname, param.annotation)
        if param.kind is inspect.Parameter.VAR_POSITIONAL:
            continue
        if param.kind is inspect.Parameter.VAR_KEYWORD:
            allow_extra = True
            continue
        if _is_context_annotation(annotation) or _is_context_annotation(param.annotation):
            ctx_param = pname
            continue
        if annotation is inspect.Parameter.empty:
            annotation = Any
        default = ... if param.default is inspect.Parameter.empty else param.default
        fields[pname] = (annotation, Field(default, description=arg_docs.get(pname) or None))
    config = ConfigDict(extra="allow" if allow_extra else "forbid", arbitrary_types_allowed=True)
    model = create_model(f"{tool_name}_args", __config__=config, **fields)
    return model, ctx_param


def _strip_titles(schema: Any) -> None:
    if isinstance(schema, dict):
        schema.pop("title", None)
        for key, value in schema.items():
            if key == "properties" and isinstance(value, dict):
                for prop in value.values():
                    _strip_titles(prop)
            elif isinstance(value, (dict, list)):
                _strip_titles(value)
    elif isinstance(schema, list):
        for item in schema:
            _strip_titles(item)


def _short_validation(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors():
        loc = ".".join(str(x) for x in err["loc"]) or "(arguments)"
        parts.append(f"{loc}: {err['msg']}")
    return "; ".join(parts)


def to_tool(obj: BaseTool | Callable[..., Any]) -> BaseTool:
    """Accept a tool or a plain function and return a tool."""
    if isinstance(obj, BaseTool):
        return obj
    if callable(obj):
        return FunctionTool.from_function(obj)
    raise UserError(f"Expected a tool or a function, got {type(obj).__name__}")


__all__ = [
    "BaseTool",
    "ClientTool",
    "FunctionTool",
    "RESERVED_TOOL_NAMES",
    "ToolMetadata",
    "from_plain_json",
    "ToolOutput",
    "render_output",
    "to_tool",
]
