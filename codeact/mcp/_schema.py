"""An MCP tool's JSON schemas as Python: the signature, the docstring and the parameter names
a sandbox calls it with."""

from __future__ import annotations

import inspect
import json
from dataclasses import dataclass, field
from typing import Any

from codeact.mcp._config import python_name

_SIMPLE = {
    "string": "str",
    "integer": "int",
    "number": "float",
    "boolean": "bool",
    "null": "None",
    "object": "dict",
    "array": "list",
}


def type_text(schema: Any, defs: dict[str, Any] | None = None, depth: int = 0) -> str:
    """A Python annotation for a JSON schema (``list[dict]``, ``str | None``, ``Literal[...]``)."""
    if not isinstance(schema, dict) or depth > 6:
        return "Any"
    defs = defs if defs is not None else schema.get("$defs") or schema.get("definitions") or {}
    ref = schema.get("$ref")
    if isinstance(ref, str):
        target = defs.get(ref.rsplit("/", 1)[-1])
        return type_text(target, defs, depth + 1) if target is not None else "Any"
    if "const" in schema:
        return f"Literal[{json.dumps(schema['const'])}]"
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return "Literal[" + ", ".join(json.dumps(v) for v in schema["enum"][:12]) + "]"
    for key in ("anyOf", "oneOf"):
        options = schema.get(key)
        if isinstance(options, list) and options:
            return _union([type_text(o, defs, depth + 1) for o in options])
    kind = schema.get("type")
    if isinstance(kind, list):
        return _union([type_text({**schema, "type": k}, defs, depth + 1) for k in kind])
    if kind == "array":
        items = schema.get("items")
        return f"list[{type_text(items, defs, depth + 1)}]" if items else "list"
    if kind == "object" or (kind is None and "properties" in schema):
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict) and not schema.get("properties"):
            return f"dict[str, {type_text(extra, defs, depth + 1)}]"
        return "dict"
    return _SIMPLE.get(kind, "Any") if isinstance(kind, str) else "Any"


def _union(parts: list[str]) -> str:
    seen: list[str] = []
    for part in parts:
        if part not in seen:
            seen.append(part)
    if "Any" in seen:
        return "Any"
    return " | ".join(seen)


@dataclass
class Param:
    """One parameter: its name in the schema, its Python name, annotation and default."""

    name: str
    py: str
    annotation: str
    required: bool
    default: str = "None"
    doc: str = ""


@dataclass
class Signature:
    """A tool's Python face: parameters (required first), return annotation, docstring."""

    name: str
    params: list[Param] = field(default_factory=list)
    returns: str = "Any"
    description: str = ""

    def stub(self) -> str:
        """``def name(a: int, b: str = "x") -> dict:`` plus an indented docstring."""
        args = ", ".join(
            f"{p.py}: {p.annotation}" + ("" if p.required else f" = {p.default}")
            for p in self.params
        )
        return f"def {self.name}({args}) -> {self.returns}:\n" + _indent(self.doc())

    def doc(self) -> str:
        """The docstring: description, ``Args:`` from the parameters' descriptions."""
        lines = [inspect.cleandoc(self.description) or f"Call {self.name}."]
        described = [p for p in self.params if p.doc]
        if described and "Args:" not in lines[0]:
            lines += ["", "Args:"] + [f"    {p.py}: {p.doc}" for p in described]
        return "\n".join(lines)

    @property
    def py_params(self) -> list[str]:
        """The Python parameter names, in positional order."""
        return [p.py for p in self.params]

    @property
    def renamed(self) -> dict[str, str]:
        """Python name -> schema name, for parameters whose names had to change."""
        return {p.py: p.name for p in self.params if p.py != p.name}


def _indent(doc: str) -> str:
    body = doc.replace('"""', "'''").replace("\n", "\n    ")
    return f'    """{body}\n    """'


def signature(
    name: str, description: str, input_schema: Any, output_schema: Any = None
) -> Signature:
    """The Python signature of a tool named ``name`` (already a Python name)."""
    schema = input_schema if isinstance(input_schema, dict) else {}
    defs = schema.get("$defs") or schema.get("definitions") or {}
    props = schema.get("properties")
    if not isinstance(props, dict):
        props = {}
    required = set(schema.get("required") or [])
    params: list[Param] = []
    taken: set[str] = set()
    for pname, pschema in props.items():
        py = python_name(str(pname)) or "arg"
        while py in taken:
            py += "_"
        taken.add(py)
        pschema = pschema if isinstance(pschema, dict) else {}
        default = "None"
        if "default" in pschema:
            default = _literal(pschema["default"])
        params.append(
            Param(
                name=str(pname),
                py=py,
                annotation=type_text(pschema, defs),
                required=pname in required,
                default=default,
                doc=str(pschema.get("description") or "").strip(),
            )
        )
    params.sort(key=lambda p: not p.required)  # stable: required first, schema order kept
    return Signature(name, params, _returns(output_schema), description or "")


def _returns(output_schema: Any) -> str:
    if not isinstance(output_schema, dict):
        return "str"
    wrapped = wrapped_result(output_schema)
    if wrapped is not None:
        return type_text(wrapped, output_schema.get("$defs") or {})
    return type_text(output_schema)


def wrapped_result(output_schema: Any) -> Any:
    """The schema of ``result`` when the output schema only wraps one value in
    ``{"result": ...}`` (as SDK servers do for non-object returns), else None."""
    if not isinstance(output_schema, dict):
        return None
    props = output_schema.get("properties")
    if isinstance(props, dict) and list(props) == ["result"]:
        return props["result"]
    return None


def _literal(value: Any) -> str:
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, (int, float, str)):
        return repr(value)
    return json.dumps(value)[:60]


__all__ = ["Param", "Signature", "signature", "type_text", "wrapped_result"]
