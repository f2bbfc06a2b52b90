"""Helpers for testing agents built on codeact.

* ``FakeOpenAIServer`` — an OpenAI-compatible server on 127.0.0.1 replaying scripted replies.
* ``SandboxContainer``, ``cleanup_sandboxes`` and the pytest fixtures ``sandbox`` /
  ``sandbox_image`` (in ``codeact.testing.sandbox``, loaded lazily: they need the ``testing``
  extra).
"""

from __future__ import annotations

from typing import Any

from codeact.testing.openai_server import FakeOpenAIServer, HTTPFailure, Malformed

__all__ = ["FakeOpenAIServer", "HTTPFailure", "Malformed", "SandboxContainer", "cleanup_sandboxes"]


def __getattr__(name: str) -> Any:
    if name in ("SandboxContainer", "cleanup_sandboxes"):
        from codeact.testing import sandbox

        return getattr(sandbox, name)
    raise AttributeError(f"module 'codeact.testing' has no attribute {name!r}")
