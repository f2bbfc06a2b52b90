"""pytest plugin of codeact: the ``sandbox``, ``sandbox_image``, ``docker_runtime`` and
``runtime_sandbox`` fixtures (see ``codeact.testing.sandbox``). Loaded by the ``pytest11`` entry
point; inert without the ``testing`` extra."""

from __future__ import annotations

try:
    from codeact.testing.sandbox import docker_runtime, runtime_sandbox, sandbox, sandbox_image
except ImportError:  # the docker SDK / testcontainers are not installed
    pass
else:
    __all__ = ["docker_runtime", "runtime_sandbox", "sandbox", "sandbox_image"]
