"""The three places a cell runs, for suites that must hold in each: the restricted executor
inline and in its process worker, and the Docker kernel (real engine and image)."""

from __future__ import annotations

from typing import Any

import pytest

from codeact.executors import CodeExecutor, RestrictedExecutor

MODES = ["inline", "process", pytest.param("docker", marks=pytest.mark.docker)]


def make_executor(request: pytest.FixtureRequest, mode: str, **options: Any) -> CodeExecutor:
    """An executor for ``mode``; Docker needs the sandbox image (the fixture builds it or
    skips) and gets generous limits: pandas and matplotlib load slowly on a busy machine."""
    if mode == "docker":
        request.getfixturevalue("sandbox_image")
        from codeact.executors.docker import DockerExecutor

        options.pop("allowed_modules", None)  # the container has its own packages
        options.setdefault("timeout", 120)
        return DockerExecutor(start_timeout=300, memory="1g", **options)
    options.setdefault("timeout", 60)
    return RestrictedExecutor(isolation=mode, **options)  # type: ignore[arg-type]
