"""``GuardedType``: what the sandbox sees for a builtin type whose constructor could
materialise a huge range (``list``, ``tuple``...): calls are size-checked, everything else
behaves as with the real type."""

from __future__ import annotations

from typing import Any

from codeact.executors.restricted._guards import PolicyError
from codeact.executors.restricted._policy import SAFE_DUNDERS
from codeact.executors.restricted._sizes import too_many


class GuardedType:
    """Stands in for a builtin type (``list``, ``tuple``...) whose constructor would materialise
    a huge range: calls are size-checked; ``isinstance``, subclassing, ``list.append``,
    ``list[int]`` and ``type(x) is list`` behave as with the real type."""

    __slots__ = ("_type",)

    def __init__(self, tp: type) -> None:
        object.__setattr__(self, "_type", tp)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        too_many(self._type.__name__, args)
        return self._type(*args, **kwargs)

    def __instancecheck__(self, obj: Any) -> bool:
        return isinstance(obj, self._type)

    def __subclasscheck__(self, cls: Any) -> bool:
        return issubclass(
            cls.__dict__.get("_type", cls) if isinstance(cls, GuardedType) else cls, self._type
        )

    def __mro_entries__(self, bases: tuple[Any, ...]) -> tuple[type]:
        return (self._type,)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") and name not in SAFE_DUNDERS:
            raise AttributeError(name)
        return getattr(self._type, name)

    def __setattr__(self, name: str, value: Any) -> None:
        raise PolicyError(f"cannot set attributes on {self._type.__name__!r}")

    def __getitem__(self, item: Any) -> Any:
        return self._type[item]

    def __or__(self, other: Any) -> Any:
        return self._type | (other._type if isinstance(other, GuardedType) else other)

    def __ror__(self, other: Any) -> Any:
        return (other._type if isinstance(other, GuardedType) else other) | self._type

    def __repr__(self) -> str:
        return repr(self._type)

    def __eq__(self, other: object) -> bool:
        return other is self or other is self._type

    def __hash__(self) -> int:
        return hash(self._type)
