"""Built-in scoring hooks for evaluation sets (``--score exact|contains|MODULE:FN``)."""

from __future__ import annotations

import importlib
import math
from typing import Any

from codeact.batch._types import ScoreFn, Task, TaskResult
from codeact.errors import UserError


def _given(result: TaskResult) -> Any:
    return result.value if result.value is not None else (result.answer or "")


def _number(x: Any) -> float | None:
    if isinstance(x, bool):
        return None
    if isinstance(x, int | float):
        return float(x)
    try:
        return float(str(x).strip().replace(",", ""))
    except ValueError:
        return None


def exact(task: Task, result: TaskResult) -> float | None:
    """1.0 when the answer (the ``final_answer`` value, else the text) equals ``expected``:
    numbers within 1e-6 relative, text ignoring case and surrounding space. None when the task
    has no ``expected``."""
    if task.expected is None:
        return None
    if not result.ok:
        return 0.0
    given = _given(result)
    a, b = _number(given), _number(task.expected)
    if a is not None and b is not None:
        return float(math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9))
    if isinstance(task.expected, dict | list):
        return float(given == task.expected)
    return float(str(given).strip().casefold() == str(task.expected).strip().casefold())


def contains(task: Task, result: TaskResult) -> float | None:
    """1.0 when ``expected`` appears in the answer text (or value), ignoring case."""
    if task.expected is None:
        return None
    if not result.ok:
        return 0.0
    haystack = f"{result.answer or ''} {'' if result.value is None else result.value}"
    return float(str(task.expected).strip().casefold() in haystack.casefold())


BUILTIN: dict[str, ScoreFn] = {"exact": exact, "contains": contains}


def load_score(spec: str) -> ScoreFn:
    """The scoring hook ``spec`` names: ``exact``, ``contains`` or ``MODULE:FUNCTION`` (a
    ``UserError`` when it cannot be loaded or is not callable)."""
    if spec in BUILTIN:
        return BUILTIN[spec]
    module_name, _, attr = spec.partition(":")
    if not attr:
        raise UserError(f"--score must be exact, contains or MODULE:FUNCTION, got {spec!r}")
    try:
        fn = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise UserError(f"Cannot load --score {spec}: {exc}") from exc
    if not callable(fn):
        raise UserError(f"--score {spec} is not callable")
    return fn  # type: ignore[no-any-return]
