"""The HTTP edge: JSON errors of one shape, bounded body reading and JSON parsing, and the
request checks that run before any route (Host allow-list, Origin, Content-Type)."""

from __future__ import annotations

import asyncio
import json
import logging
import math
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

import anyio
import anyio.to_thread
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from codeact.server._input import BadRequest

log = logging.getLogger("codeact.server")

#: Host names accepted when no allow-list is given (DNS-rebinding defence for local servers).
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
#: Bodies larger than this are parsed and validated in a worker thread, off the event loop.
THREAD_PARSE_BYTES = 64 * 1024

_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    408: "request_timeout",
    409: "conflict",
    413: "body_too_large",
    415: "unsupported_media_type",
    421: "misdirected_request",
    422: "invalid_input",
    429: "too_many_requests",
    500: "internal_error",
    503: "unavailable",
}


def error_body(status: int, message: str, code: str | None = None) -> dict[str, Any]:
    """The one error shape: ``{"error": <message>, "code": <machine code>, "status": <int>}``."""
    return {"error": message, "code": code or _CODES.get(status, "error"), "status": status}


def error_response(status: int, message: str, code: str | None = None) -> JSONResponse:
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    if status in (429, 503):  # busy or unavailable: say when to come back
        headers = {"Retry-After": "5"}
    return JSONResponse(error_body(status, message, code), status_code=status, headers=headers)


def bad_request_response(exc: BadRequest) -> JSONResponse:
    return error_response(exc.status, exc.message, exc.code)


async def http_exception_handler(request: Request, exc: Exception) -> Response:
    """404/405 and other Starlette HTTP errors as JSON."""
    status = exc.status_code if isinstance(exc, HTTPException) else 500
    detail = exc.detail if isinstance(exc, HTTPException) else "internal error"
    return error_response(status, str(detail))


async def internal_error_handler(request: Request, exc: Exception) -> Response:
    log.error("unhandled error answering %s %s", request.method, request.url.path, exc_info=exc)
    return error_response(500, "internal error (logged by the server)")


async def read_body(request: Request, limit: int, timeout: float | None) -> bytes:
    """The request body, refused past ``limit`` bytes (413) or ``timeout`` seconds (408)."""
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > limit:
        raise BadRequest(413, f"the body is larger than {limit} bytes")
    chunks: list[bytes] = []
    size = 0
    try:  # (asyncio's timeout: a third of the cost of a cancel scope, on every request)
        async with asyncio.timeout(timeout):
            async for chunk in request.stream():
                size += len(chunk)
                if size > limit:
                    raise BadRequest(413, f"the body is larger than {limit} bytes")
                chunks.append(chunk)
    except ClientDisconnect:
        log.debug("the client disconnected while sending the body of %s", request.url.path)
        raise BadRequest(400, "the client disconnected before the body was sent") from None
    except TimeoutError:
        raise BadRequest(408, f"the body was not received within {timeout:g} s") from None
    return b"".join(chunks)


#: JSON values (objects, arrays, strings, numbers) accepted in one body (413 past it). The
#: bound is checked on the raw bytes before parsing (commas and brackets, an upper bound on
#: the values): ``json.loads`` holds the GIL for the whole parse (≈ 0.27 s for 800,000
#: values, ≈ 0.08 s at this bound), which no worker thread helps with. Text with many commas
#: (a pasted CSV) counts too: large data goes through ``/files/upload``.
MAX_JSON_VALUES = 250_000


def json_tokens(body: bytes) -> int:
    """An upper bound on the values in a JSON text, cheap to count (C loops, no parse)."""
    return body.count(b",") + body.count(b"{") + body.count(b"[")


async def parse_json(body: bytes, max_depth: int) -> Any:
    """``load_json`` where it holds no other caller up: inline for small bodies, in a worker
    thread for large ones; bodies dense with values are refused before parsing (413)."""
    if len(body) <= THREAD_PARSE_BYTES:
        return load_json(body, max_depth)
    if json_tokens(body) > MAX_JSON_VALUES:
        raise BadRequest(
            413,
            f"the body holds more than {MAX_JSON_VALUES} JSON values (commas and brackets); "
            "send large data as a file (POST /files/upload)",
            "too_many_items",
        )
    return await anyio.to_thread.run_sync(load_json, body, max_depth)


def load_json(body: bytes, max_depth: int) -> Any:
    """Parse JSON, refusing (400) invalid text, nesting deeper than ``max_depth``, integers
    past Python's digit limit, numbers past a double's range (``1e400`` would become
    ``Infinity``, then ``null``) and strings holding lone surrogates (which cannot be
    encoded)."""
    try:
        data = json.loads(body, parse_constant=_no_constant)
    except RecursionError:
        raise BadRequest(400, f"the body nests deeper than {max_depth} levels") from None
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError, int digit limit
        raise BadRequest(400, f"the body is not valid JSON: {_short(exc)}") from None
    check_json(data, max_depth)
    return data


def _no_constant(name: str) -> Any:
    raise BadRequest(400, f"the body is not valid JSON: {name} is not a JSON number")


def check_json(data: Any, max_depth: int) -> None:
    """Walk ``data`` without recursion: depth and encodable strings (keys included)."""
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, str):
            _check_str(node)
        elif isinstance(node, float) and not math.isfinite(node):
            raise BadRequest(400, "the body holds a number too large for a double (e.g. 1e400)")
        elif isinstance(node, dict | list):
            if depth > max_depth:
                raise BadRequest(400, f"the body nests deeper than {max_depth} levels")
            if isinstance(node, dict):
                for k, v in node.items():
                    _check_str(k)
                    stack.append((v, depth + 1))
            else:
                stack.extend((v, depth + 1) for v in node)


def _check_str(s: str) -> None:
    if not s.isascii():
        try:
            s.encode("utf-8")
        except UnicodeEncodeError:
            raise BadRequest(
                400, "the body holds a lone UTF-16 surrogate (\\ud800-\\udfff) in a string"
            ) from None


def _short(exc: Exception) -> str:
    text = str(exc)
    return text if len(text) <= 200 else text[:200] + "..."


def _host_name(host: str) -> str:
    host = host.strip().lower()
    if host.startswith("["):  # [::1]:8000
        return host[1 : host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


class Guard:
    """Pure ASGI middleware in front of everything: Host allow-list (421), Origin against the
    CORS list (403) and a JSON Content-Type on POST (415) — the CSRF and DNS-rebinding
    defences. Errors are JSON like every other answer."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        allowed_hosts: Sequence[str] | None,
        cors_origins: Sequence[str],
    ) -> None:
        self.app = app
        hosts = list(LOOPBACK_HOSTS if allowed_hosts is None else allowed_hosts)
        self.any_host = "*" in hosts
        self.hosts = {_host_name(h) for h in hosts}
        self.origins = set(cors_origins)
        self.any_origin = "*" in self.origins

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        refusal = self._refuse(scope["method"], headers, scope.get("scheme", "http"))
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        await self.app(scope, receive, send)

    def _refuse(self, method: str, headers: dict[str, str], scheme: str) -> Response | None:
        host = headers.get("host", "")
        if not self.any_host and _host_name(host) not in self.hosts:
            return error_response(
                421, f"host {host!r} is not allowed (see allowed_hosts / --allowed-host)"
            )
        origin = headers.get("origin")
        if origin is not None and not self._origin_ok(origin, host, scheme):
            return error_response(403, f"origin {origin!r} is not allowed", "bad_origin")
        if method == "POST":
            ctype = headers.get("content-type", "").split(";")[0].strip().lower()
            if ctype != "application/json" and not ctype.endswith("+json"):
                return error_response(
                    415, "requests must have Content-Type: application/json", "bad_content_type"
                )
        return None

    def _origin_ok(self, origin: str, host: str, scheme: str) -> bool:
        if self.any_origin or origin in self.origins:
            return True
        # same-origin requests (a page served by this host) carry their own origin: scheme,
        # host and port must all match (https://host:port is another origin than http://...)
        return bool(host) and same_origin(origin, scheme, host)


def same_origin(origin: str, scheme: str, host: str) -> bool:
    """Whether ``origin`` is ``scheme://host`` (default ports filled in, names compared
    without case)."""
    try:
        seen, here = urlsplit(origin), urlsplit(f"//{host}")
        default = {"http": 80, "https": 443}.get(scheme.lower())
        seen_port, here_port = seen.port or default, here.port or default
    except ValueError:  # a malformed port or bracket
        return False
    if seen.scheme.lower() != scheme.lower() or not seen.hostname or seen.path or seen.query:
        return False
    return (seen.hostname, seen_port) == (here.hostname, here_port)
