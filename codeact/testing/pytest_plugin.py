"""pytest plugin of codeact: the ``sandbox`` and ``sandbox_image`` fixtures (see
``codeact.testing.sandbox``). Loaded by the ``pytest11`` entry point; inert without the
``testing`` extra."""

from __future__ import annotations

try:
    from codeact.testing.sandbox import sandbox, sandbox_image
except ImportError:  # the docker SDK / testcontainers are not installed
    pass
else:
    __all__ = ["sandbox", "sandbox_image"]
