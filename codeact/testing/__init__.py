"""Helpers for testing agents built on codeact.

* ``FakeOpenAIServer`` — an OpenAI-compatible server on 127.0.0.1 replaying scripted replies.
* ``SandboxContainer``, ``cleanup_sandboxes``, ``runsc_available`` and the pytest fixtures
  ``sandbox`` / ``sandbox_image`` / ``docker_runtime`` / ``runtime_sandbox`` (in
  ``codeact.testing.sandbox``, loaded lazily: they need the ``testing`` extra).
* ``codeact.testing.contract.ExecutorContract`` — the executor contract as a pytest suite: an
  executor's author subclasses it and provides an ``executor_factory`` fixture.
"""

from __future__ import annotations

from typing import Any

from codeact.testing.openai_server import FakeOpenAIServer, HTTPFailure, Malformed

__all__ = [
    "FakeOpenAIServer",
    "HTTPFailure",
    "Malformed",
    "SandboxContainer",
    "cleanup_sandboxes",
    "runsc_available",
]
_LAZY = ("SandboxContainer", "cleanup_sandboxes", "runsc_available")


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from codeact.testing import sandbox

        return getattr(sandbox, name)
    raise AttributeError(f"module 'codeact.testing' has no attribute {name!r}")
