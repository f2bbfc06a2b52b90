"""Docker tests run against a real engine and the real sandbox image, through codeact's own
pytest plugin (``codeact.testing``): without an engine they skip with the reason — unless
CODEACT_REQUIRE_DOCKER=1 (CI), where a missing engine is a failure."""

from __future__ import annotations

import os
import subprocess

import pytest


@pytest.fixture(autouse=True)
def _needs_engine(sandbox_image: str) -> None:
    return None


def labelled_containers() -> list[str]:
    """Sandbox containers created by this test process (other processes may share the engine)."""
    out = subprocess.run(
        [
            "docker",
            "ps",
            "-aq",
            "--filter",
            "label=org.codeact.session",
            "--filter",
            f"label=org.codeact.host-pid={os.getpid()}",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return out.split()
