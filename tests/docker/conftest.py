"""Docker tests run against a real engine and the real sandbox image.

Without an engine they skip with the reason — unless CODEACT_REQUIRE_DOCKER=1 (CI), where a
missing engine or image is a failure.
"""

from __future__ import annotations

import os
import subprocess

import pytest

REQUIRED = os.environ.get("CODEACT_REQUIRE_DOCKER") == "1"


def _engine_problem() -> str | None:
    try:
        import docker
    except ImportError:
        return "the docker SDK is not installed (pip install 'codeact[docker]')"
    try:
        docker.from_env().ping()
    except Exception as exc:
        return f"no Docker engine reachable: {exc}"
    return None


@pytest.fixture(scope="session")
def sandbox_image() -> str:
    problem = _engine_problem()
    if problem is not None:
        if REQUIRED:
            pytest.fail(f"CODEACT_REQUIRE_DOCKER=1 but {problem}")
        pytest.skip(problem)
    from codeact.executors.docker import IMAGE
    from codeact.executors.docker.image import build

    build()
    return IMAGE


@pytest.fixture(autouse=True)
def _needs_engine(sandbox_image: str) -> None:
    return None


def labelled_containers() -> list[str]:
    out = subprocess.run(
        ["docker", "ps", "-aq", "--filter", "label=org.codeact.session"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return out.split()
