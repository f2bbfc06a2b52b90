"""Run-time helpers of ``match`` class patterns (see ``_matchrw``): the keyword and positional
sub-patterns a cell's ``match`` reads, read through the guarded ``getattr``."""

from __future__ import annotations

from typing import Any

from codeact.executors.restricted._guards import check_attr_name, guarded_getattr


class _NoMatch:
    """What ``_match_attr_`` returns for an attribute the object does not have."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<no match>"


NO_MATCH = _NoMatch()


def match_attr(obj: Any, name: str) -> Any:
    """A ``match`` class pattern's keyword read through the guards (``_match_attr_``): a
    refused name raises as ``obj.name`` would; a missing one is ``NO_MATCH`` (no match)."""
    check_attr_name(obj, name)
    try:
        return guarded_getattr(obj, name)
    except AttributeError:
        return NO_MATCH


#: Classes whose one positional sub-pattern is the subject itself (``case int(n)``); the
#: flag that says so is inherited, as ``issubclass`` is.
_MATCH_SELF = (bool, bytearray, bytes, dict, float, frozenset, int, list, set, str, tuple)


def match_positional(obj: Any, cls: Any, index: int, count: int) -> Any:
    """A ``match`` class pattern's positional sub-pattern number ``index`` (of ``count``)
    read through the guards (``_match_pos_``): the name comes from ``cls.__match_args__``
    as in CPython, and is read as ``obj.name`` would be; missing is ``NO_MATCH``."""
    names = getattr(cls, "__match_args__", None) if isinstance(cls, type) else None
    if names is None:
        if isinstance(cls, type) and issubclass(cls, _MATCH_SELF) and count == 1:
            return obj
        raise TypeError(f"{_name_of(cls)}() accepts 0 positional sub-patterns ({count} given)")
    if type(names) is not tuple:
        raise TypeError(f"{_name_of(cls)}.__match_args__ must be a tuple (got {type(names)})")
    if count > len(names):
        raise TypeError(
            f"{_name_of(cls)}() accepts {len(names)} positional sub-pattern"
            f"{'' if len(names) == 1 else 's'} ({count} given)"
        )
    name = names[index]
    if type(name) is not str:
        raise TypeError(f"__match_args__ elements must be strings (got {type(name).__name__})")
    return match_attr(obj, name)


def _name_of(cls: Any) -> str:
    return str(getattr(cls, "__qualname__", type(cls).__name__))
