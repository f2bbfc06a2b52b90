"""The real PostgreSQL the tests start (``codeact.testing.postgres``). Without the Debian
binaries or psycopg the tests that need it skip, unless ``CODEACT_REQUIRE_POSTGRES=1`` (CI)
makes that a failure."""

from __future__ import annotations

import os

import pytest

from codeact.testing.postgres import PostgresServer, free_port

__all__ = ["PostgresServer", "free_port", "start_or_skip"]


def start_or_skip() -> PostgresServer:
    """A started server, or a skip (a failure with ``CODEACT_REQUIRE_POSTGRES=1``)."""
    required = os.environ.get("CODEACT_REQUIRE_POSTGRES") == "1"
    try:
        import psycopg  # noqa: F401
    except ImportError:
        if required:
            raise
        pytest.skip("psycopg is not installed (pip install 'codeact[postgres]')")
    try:
        server = PostgresServer()
    except FileNotFoundError as exc:
        if required:
            raise
        pytest.skip(str(exc))
    server.start()
    return server
