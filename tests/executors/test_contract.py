"""The executor contract of ``codeact.testing.contract`` over every executor codeact ships:
RestrictedExecutor inline and in a worker process inside the OS sandbox, DockerExecutor under
runc and under gVisor (runsc). The Docker cases are marked ``docker``: without an engine (or
without runsc) they skip, and with CODEACT_REQUIRE_DOCKER=1 (CI) they fail instead."""

from __future__ import annotations

import os
from typing import Any

import pytest

from codeact.executors import RestrictedExecutor
from codeact.executors.restricted._ossandbox import os_sandbox_status
from codeact.testing.contract import ExecutorContract, ExecutorFactory

BACKENDS = [
    pytest.param("inline", id="restricted-inline"),
    pytest.param("process", id="restricted-process-bwrap"),
    pytest.param("runc", id="docker-runc", marks=pytest.mark.docker),
    pytest.param("runsc", id="docker-runsc", marks=pytest.mark.docker),
]


def _require_bubblewrap() -> None:
    status = os_sandbox_status()
    if status.available:
        return
    message = f"bubblewrap is needed: {status.detail} ({status.fix})"
    if os.environ.get("CI") == "true" or os.environ.get("CODEACT_REQUIRE_DOCKER") == "1":
        pytest.fail(message)
    pytest.skip(message)


class TestEveryExecutor(ExecutorContract):
    @pytest.fixture(params=BACKENDS)
    def executor_factory(self, request: pytest.FixtureRequest) -> ExecutorFactory:
        backend = str(request.param)
        if backend == "inline":
            return lambda **kw: RestrictedExecutor(isolation="inline", **kw)
        if backend == "process":
            _require_bubblewrap()
            return lambda **kw: RestrictedExecutor(isolation="process", os_sandbox="bwrap", **kw)
        from codeact.executors.docker import DockerExecutor
        from codeact.testing.sandbox import require_docker

        require_docker(backend)
        image = request.getfixturevalue("sandbox_image")

        def docker(**kw: Any) -> DockerExecutor:
            return DockerExecutor(image=image, runtime=backend, **kw)

        return docker
