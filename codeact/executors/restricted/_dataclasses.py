"""``dataclasses.make_dataclass`` for the sandbox: ordinary classes made from field names, marked
as sandbox-made, without a way around the policy's class rules."""

from __future__ import annotations

import dataclasses
import keyword
from typing import Any

from codeact.executors.restricted._guards import (
    SANDBOX_CLASSES,
    PolicyError,
    sandbox_class,
)
from codeact.executors.restricted._policy import FORBIDDEN_DEFS

#: Options of make_dataclass a cell may pass (``module`` would misname where the class lives).
_OPTIONS = frozenset(
    {
        "init",
        "repr",
        "eq",
        "order",
        "unsafe_hash",
        "frozen",
        "match_args",
        "kw_only",
        "slots",
        "weakref_slot",
    }
)


def _check_name(name: Any, what: str) -> str:
    if type(name) is not str or not name.isidentifier() or keyword.iskeyword(name):
        raise TypeError(f"{what} must be a valid identifier, got {name!r}")
    if name.startswith("_"):
        raise PolicyError(f"{what} {name!r} may not start with an underscore in the sandbox")
    return name


def _field_name(spec: Any) -> str:
    if isinstance(spec, str):
        return _check_name(spec, "field name")
    if isinstance(spec, tuple) and len(spec) in (2, 3):
        return _check_name(spec[0], "field name")
    raise TypeError(
        f"invalid field specification {spec!r}: use 'name', (name, type) or "
        "(name, type, field(...))"
    )


def _check_namespace(namespace: Any) -> dict[str, Any]:
    if namespace is None:
        return {}
    if not isinstance(namespace, dict):
        raise TypeError("namespace must be a dict")
    for key in namespace:
        if type(key) is not str:
            raise TypeError("namespace keys must be strings")
        dunder = key.startswith("__") and key.endswith("__")
        if (
            key in FORBIDDEN_DEFS
            or (key.startswith("_") and not dunder)
            or (
                dunder
                and key
                in (
                    "__class__",
                    "__dict__",
                    "__slots__",
                    "__getattribute__",
                    "__init_subclass__",
                    "__set_name__",
                    "__class_getitem__",
                    "__module__",
                    "__qualname__",
                )
            )
        ):
            raise PolicyError(f"{key!r} cannot be set through make_dataclass in the sandbox")
    return dict(namespace)


def safe_make_dataclass(
    cls_name: Any, fields: Any, *, bases: Any = (), namespace: Any = None, **options: Any
) -> type:
    """``dataclasses.make_dataclass`` with the sandbox's class rules: identifiers for the class
    and field names (no underscore prefix), bases that the sandbox made (or none), a namespace
    without special hooks; the class is marked as made by the sandbox."""
    _check_name(cls_name, "class name")
    fields = list(fields)
    for spec in fields:
        _field_name(spec)
    if not isinstance(bases, tuple) or any(b not in SANDBOX_CLASSES for b in bases):
        raise PolicyError("make_dataclass bases must be classes defined in the sandbox")
    unknown = set(options) - _OPTIONS
    if unknown:
        raise TypeError(f"make_dataclass() got unexpected keyword arguments {sorted(unknown)}")
    cls = dataclasses.make_dataclass(
        cls_name, fields, bases=bases, namespace=_check_namespace(namespace), **options
    )
    cls.__module__ = "__main__"
    return sandbox_class(cls)  # type: ignore[no-any-return]
