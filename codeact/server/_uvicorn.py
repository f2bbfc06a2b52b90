"""Serving with uvicorn: JSON for uvicorn's own 400s, a header read timeout (slowloris), and a
SIGTERM drain (stop accepting, let live runs finish for a while, cancel the rest cleanly)."""

from __future__ import annotations

import asyncio
import json
import logging
import socket
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

log = logging.getLogger("codeact.server")


def _json_error(status: int, message: str, code: str) -> bytes:
    return json.dumps({"error": message, "code": code, "status": status}).encode()


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol, answering malformed requests with the server's JSON error shape
    and closing connections that take longer than ``header_timeout`` to send their headers."""

    header_timeout: float = 10.0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def _arm(self) -> None:
        self._armed_cycle = self.cycle
        self._header_timer: asyncio.TimerHandle | None = self.loop.call_later(
            self.header_timeout, self._headers_too_slow
        )

    def _disarm(self) -> None:
        timer, self._header_timer = getattr(self, "_header_timer", None), None
        if timer is not None:
            timer.cancel()

    def handle_events(self) -> None:
        super().handle_events()
        if self.cycle is not self._armed_cycle:  # a request's headers arrived
            self._disarm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._disarm()
            self._arm()  # the next request on this connection gets the same limit

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _headers_too_slow(self) -> None:
        self._header_timer = None
        if self.cycle is not self._armed_cycle or self.transport.is_closing():
            return
        idle = self.conn.their_state is h11.IDLE and not self.conn.trailing_data[0]
        if idle or self.conn.our_state is not h11.IDLE:
            self.transport.close()  # idle keep-alive, or a response was already sent
            return
        self._send_error(408, "the request headers were not received in time", "request_timeout")

    def send_400_response(self, msg: str) -> None:
        self._send_error(400, msg, "bad_http_request")

    def _send_error(self, status: int, message: str, code: str) -> None:
        body = _json_error(status, message, code)
        head = (
            b"HTTP/1.1 %d %s\r\ncontent-type: application/json\r\ncontent-length: %d\r\n"
            b"connection: close\r\n\r\n"
            % (status, b"Bad Request" if status == 400 else b"Request Timeout", len(body))
        )
        try:
            self.transport.write(head + body)
        finally:
            self.transport.close()


def protocol_class(header_timeout: float) -> type[GuardedH11Protocol]:
    return type("GuardedH11Protocol", (GuardedH11Protocol,), {"header_timeout": header_timeout})


class DrainingServer(uvicorn.Server):
    """On SIGTERM/SIGINT: stop accepting, drain the app's live runs, then shut down."""

    def __init__(self, config: uvicorn.Config, drain_timeout: float = 30.0) -> None:
        super().__init__(config)
        self.drain_timeout = drain_timeout

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        for server in self.servers:
            server.close()
        for sock in sockets or []:
            sock.close()
        agui = getattr(getattr(self.config.app, "state", None), "server", None)
        if agui is not None:
            if agui.runs:
                log.warning(
                    "draining %d live runs (up to %g s)", len(agui.runs), self.drain_timeout
                )
            try:
                await agui.drain(self.drain_timeout)
            except Exception:
                log.exception("draining failed")
        await super().shutdown(sockets)


def make_server(
    app: Any,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    drain_timeout: float = 30.0,
    header_timeout: float = 10.0,
    access_log: bool = False,
    **options: Any,
) -> DrainingServer:
    """A uvicorn server for a ``create_app`` app with the guarded protocol and the drain."""
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        http=protocol_class(header_timeout),
        lifespan="on",
        log_level="info" if access_log else "warning",
        access_log=access_log,
        timeout_graceful_shutdown=max(5, int(drain_timeout / 2)),
        **options,
    )
    return DrainingServer(config, drain_timeout)
