"""Sandbox containers for your own integration tests (testcontainers) and a pytest plugin.

``SandboxContainer`` starts the sandbox image with testcontainers and codeact's hardening; its
``executor()`` is a ``DockerExecutor`` attached to that container. Ryuk (testcontainers' reaper)
cannot be pulled on machines without a registry, so it is disabled and containers are cleaned
up by label instead (``cleanup_sandboxes()``).

The pytest plugin (enabled automatically when codeact is installed) adds the fixtures
``sandbox_image`` (builds the image if missing), ``sandbox`` (a started ``DockerExecutor``
for an async test), ``docker_runtime`` (parametrized: each test using it runs once under runc
and once under gVisor's runsc) and ``runtime_sandbox`` (a started ``DockerExecutor`` for that
runtime). Without a Docker engine they skip, unless ``CODEACT_REQUIRE_DOCKER=1``; without runsc
registered with the engine the runsc half skips, unless ``CODEACT_REQUIRE_DOCKER=1``.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator
from typing import Any

os.environ.setdefault("TESTCONTAINERS_RYUK_DISABLED", "true")

from codeact.executors.docker import (
    IMAGE,
    DockerExecutor,
    docker_client,
    engine_problem,
    remove_sandboxes,
)


class SandboxContainer:
    """A hardened sandbox container managed by testcontainers.

    ``with SandboxContainer() as box: ex = box.executor()`` then ``await ex.execute(...)``.
    """

    def __init__(self, image: str = IMAGE, **limits: Any) -> None:
        from testcontainers.core.container import DockerContainer

        self.template = DockerExecutor(image=image, **limits)
        opts = self.template.container_options()
        command = opts.pop("command")
        env = opts.pop("environment")
        tmpfs = opts.pop("tmpfs")
        opts.pop("detach", None)
        self.container = DockerContainer(image, command=command, env=env)
        self.container.tmpfs = dict(tmpfs)  # full mount options (with_tmpfs_mount only sets size)
        self.container.with_kwargs(**opts)

    def start(self) -> SandboxContainer:
        """Start the container (its kernel waits for the executor to attach)."""
        self.container.start()
        return self

    def stop(self) -> None:
        """Stop and remove the container (an executor that adopted it may have removed it)."""
        with contextlib.suppress(Exception):
            self.container.stop()

    def __enter__(self) -> SandboxContainer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def container_id(self) -> str:
        """The Docker id of the running container."""
        return str(self.container.get_wrapped_container().id)

    def executor(self, **kwargs: Any) -> DockerExecutor:
        """A ``DockerExecutor`` that adopts this container (``start()`` it or ``async with``)."""
        params = {
            "image": self.template.image,
            "memory": self.template.memory,
            "cpus": self.template.cpus,
            "pids_limit": self.template.pids_limit,
            "network": self.template.network,
            **kwargs,
        }
        return DockerExecutor(container_id=self.container_id, **params)


def cleanup_sandboxes() -> int:
    """Remove every codeact sandbox container on the engine; returns how many."""
    client = docker_client()
    try:
        return remove_sandboxes(client)
    finally:
        client.close()


#: The runtimes ``docker_runtime`` runs each test under.
RUNTIMES = ("runc", "runsc")


def engine_runtimes(docker_host: str | None = None) -> list[str]:
    """The OCI runtimes the Docker engine knows (``docker info``), e.g. ``["runc", "runsc"]``."""
    client = docker_client(docker_host)
    try:
        return sorted(client.info().get("Runtimes") or {})
    finally:
        client.close()


def runsc_available(docker_host: str | None = None) -> bool:
    """True when the engine is reachable and has gVisor registered as ``runsc``."""
    try:
        return "runsc" in engine_runtimes(docker_host)
    except Exception:
        return False


def runtime_problem(runtime: str, docker_host: str | None = None) -> str | None:
    """Why ``runtime`` cannot be used with the engine, or None when it can."""
    try:
        known = engine_runtimes(docker_host)
    except Exception as exc:
        return f"no Docker engine: {exc}"
    if runtime in known:
        return None
    hint = (
        " (gVisor: apt-get install runsc, add it to /etc/docker/daemon.json as "
        '{"runtimes": {"runsc": {"path": "/usr/bin/runsc", "runtimeArgs": ["--network=none"]}}} '
        "and send dockerd SIGHUP)"
        if runtime == "runsc"
        else ""
    )
    return f"the Docker engine has no {runtime!r} runtime (it has {', '.join(known)}){hint}"


def _engine_problem() -> str | None:
    return engine_problem()


def require_docker(runtime: str | None = None) -> None:
    """In a test: skip when no Docker engine (or no ``runtime`` registered with it) can be
    used, or fail with ``CODEACT_REQUIRE_DOCKER=1`` (CI), where a missing engine is a bug."""
    import pytest

    problem = _engine_problem()
    if problem is not None:
        problem = f"no Docker engine: {problem}"
    elif runtime is not None:
        problem = runtime_problem(runtime)
    if problem is None:
        return
    if os.environ.get("CODEACT_REQUIRE_DOCKER") == "1":
        pytest.fail(f"CODEACT_REQUIRE_DOCKER=1 but {problem}")
    pytest.skip(problem)


try:
    import pytest
except ImportError:  # pragma: no cover - the plugin is only loaded by pytest
    pytest = None  # type: ignore[assignment]

if pytest is not None:

    @pytest.fixture(scope="session")
    def sandbox_image() -> str:
        """The sandbox image, built if missing; skips (or fails in CI) without an engine."""
        require_docker()
        from codeact.executors.docker.image import build

        return build()

    @pytest.fixture
    async def sandbox(sandbox_image: str) -> AsyncIterator[DockerExecutor]:
        """A started ``DockerExecutor`` (removed after the test)."""
        async with DockerExecutor(image=sandbox_image) as ex:
            yield ex

    @pytest.fixture(scope="session", params=RUNTIMES)
    def docker_runtime(request: pytest.FixtureRequest, sandbox_image: str) -> str:
        """``"runc"``, then ``"runsc"``: the test runs under each. Pass it on as
        ``DockerExecutor(runtime=docker_runtime)``. A runtime the engine lacks skips (fails
        with ``CODEACT_REQUIRE_DOCKER=1``)."""
        runtime = str(request.param)
        require_docker(runtime)
        return runtime

    @pytest.fixture
    async def runtime_sandbox(
        docker_runtime: str, sandbox_image: str
    ) -> AsyncIterator[DockerExecutor]:
        """A started ``DockerExecutor`` under ``docker_runtime`` (removed after the test)."""
        async with DockerExecutor(image=sandbox_image, runtime=docker_runtime) as ex:
            yield ex
