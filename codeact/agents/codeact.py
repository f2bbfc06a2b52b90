"""Deprecated: this module is now ``codeact.agents.code`` (the package name is not repeated in
the module's). Its names still import from here, with a ``DeprecationWarning``."""

from __future__ import annotations

import warnings
from typing import Any


def __getattr__(name: str) -> Any:
    from codeact.agents import code

    value = getattr(code, name)
    warnings.warn(
        f"codeact.agents.codeact is deprecated; import {name} from codeact.agents.code",
        DeprecationWarning,
        stacklevel=2,
    )
    return value
