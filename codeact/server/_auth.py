"""Who is calling: the ``authenticate`` hook, its ``Principal`` and the bearer-token mode."""

from __future__ import annotations

import hmac
import inspect
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from starlette.requests import Request


@dataclass(frozen=True)
class Principal:
    """An authenticated caller. ``id`` owns the threads it creates; ``claims`` is free-form."""

    id: str
    claims: Mapping[str, Any] = field(default_factory=dict)


#: Sees the HTTP request (headers, cookies, ``request.client``); returns the caller, or None
#: to refuse it (401). May be sync or async.
Authenticate = Callable[[Request], "Principal | Awaitable[Principal | None] | None"]


async def call_authenticate(hook: Authenticate, request: Request) -> Principal | None:
    result = hook(request)
    if inspect.isawaitable(result):
        result = await result
    if result is not None and not isinstance(result, Principal):
        raise TypeError(f"authenticate must return a Principal or None, got {type(result)!r}")
    return result


def bearer_token(token: str, principal: str = "token") -> Authenticate:
    """``Authorization: Bearer <token>`` (compared in constant time) as ``Principal(principal)``."""
    if not token:
        raise ValueError("the bearer token is empty")
    expected = token.encode()

    def authenticate(request: Request) -> Principal | None:
        scheme, _, given = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer":
            return None
        if hmac.compare_digest(given.strip().encode(), expected):
            return Principal(principal)
        return None

    return authenticate
