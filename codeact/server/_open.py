"""``open_store(url)``: a session store named by a path or URL (what ``codeact serve --db``
takes). The PostgreSQL driver is imported only when a ``postgresql://`` URL is opened."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

from codeact.errors import UserError

if TYPE_CHECKING:
    from codeact.server.store import SessionStore

POSTGRES_SCHEMES = ("postgresql", "postgres")
SQLITE_OPTIONS = ("busy_timeout", "exclusive")


def open_store(url: str | Path, **options: Any) -> SessionStore:
    """The store for ``url``: a file path or ``sqlite:///path`` (``SQLiteStore``, options
    ``busy_timeout``, ``exclusive``), ``memory:`` (``MemoryStore``), or ``postgresql://...``
    (``PostgresStore``; options are its pool and lease settings: ``min_size``, ``max_size``,
    ``timeout``, ``lease_s``, ...). Options that do not apply to the chosen store are refused
    with ``UserError``, except ``None`` values (left at their defaults)."""
    from codeact.server._sqlite import SQLiteStore
    from codeact.server.store import MemoryStore

    options = {k: v for k, v in options.items() if v is not None}
    text = str(url)
    scheme = urlsplit(text).scheme.lower() if "://" in text or text == "memory:" else ""
    if scheme in POSTGRES_SCHEMES:
        try:
            from codeact.server._postgres import PostgresStore
        except ImportError as exc:
            raise UserError(
                f"{text.split('@')[-1]!r} needs the PostgreSQL driver: "
                "pip install 'codeact[postgres]'"
            ) from exc
        return PostgresStore(text, **options)
    if text == "memory:":
        _only(options, (), "MemoryStore")
        return MemoryStore()
    if scheme == "sqlite":
        path = unquote(text[len("sqlite://") :])
        if not path.startswith("/") or path == "/":
            raise UserError(f"a SQLite URL needs an absolute path (sqlite:///path/to.db): {text!r}")
        text = path
    elif scheme:
        raise UserError(
            f"unknown store URL scheme {scheme!r} in {text!r}: use a file path, sqlite:///path, "
            "memory: or postgresql://..."
        )
    _only(options, SQLITE_OPTIONS, "SQLiteStore")
    return SQLiteStore(text, **options)


def check_store(make: Callable[[], SessionStore]) -> None:
    """Open a store made by ``make`` once, before serving: ``StoreUnavailable`` or
    ``SchemaError`` now rather than at the first request (the schema is migrated here)."""
    import anyio

    async def probe() -> None:
        store = make()
        try:
            await store.ping()
        finally:
            await store.aclose()

    anyio.run(probe)


def redact_url(url: str | Path) -> str:
    """The URL without its password (for logs and banners)."""
    text = str(url)
    parts = urlsplit(text) if "://" in text else None
    if parts is None or parts.password is None:
        return text
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return parts._replace(netloc=netloc).geturl()


def _only(options: dict[str, Any], allowed: tuple[str, ...], name: str) -> None:
    extra = sorted(set(options) - set(allowed))
    if extra:
        raise UserError(f"{name} has no option {', '.join(map(repr, extra))}")
