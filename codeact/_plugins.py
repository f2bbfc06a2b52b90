"""One plug-in loader for every extension group (``codeact.executors``, ``codeact.llms``).

One precedence rule: **built-in names win**. An installed package cannot silently replace
``restricted`` or ``docker`` (the sandboxes) or ``openai``/``local`` (the model adapters); a
plug-in picks a name of its own. Names are compared as given by each caller (the model
providers are case-folded by their parser).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from importlib.metadata import entry_points
from typing import Any

from codeact.errors import UserError


def plugin_names(group: str, builtin: Mapping[str, str]) -> list[str]:
    """Every name ``group`` knows: the built-in ones and the installed entry points."""
    return sorted(set(builtin) | {ep.name for ep in entry_points(group=group)})


def find_plugin(group: str, name: str, builtin: Mapping[str, str]) -> str | None:
    """The ``module:attr`` target of ``name`` in ``group`` (a built-in first), or None."""
    if name in builtin:
        return builtin[name]
    return next((ep.value for ep in entry_points(group=group) if ep.name == name), None)


def load_target(target: str, what: str) -> Any:
    """Import ``module:attr``; a failure is a ``UserError`` naming ``what`` and the cause."""
    module_name, _, attr = target.partition(":")
    try:
        obj = importlib.import_module(module_name)
        for part in attr.split(".") if attr else []:
            obj = getattr(obj, part)
    except (ImportError, AttributeError) as exc:
        raise UserError(f"{what} ({target}) could not be loaded: {exc}") from exc
    return obj
