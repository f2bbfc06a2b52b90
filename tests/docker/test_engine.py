"""The engine's exceptions are translated by type in one place (``_engine.engine_errors``):
a missing image is a UserError, a missing container ContainerGone, an unreachable engine or a
refused request an ExecutorError — against the real engine."""

from __future__ import annotations

import pytest

from codeact.errors import ExecutorError, UserError
from codeact.executors.docker import (
    IMAGE,
    ContainerGone,
    DockerExecutor,
    docker_client,
    engine_problem,
    image_present,
)
from codeact.executors.docker._engine import engine_errors
from tests.docker.conftest import labelled_containers

pytestmark = [pytest.mark.anyio, pytest.mark.docker]
NO_IMAGE = "codeact-no-such-image:0"


def test_sdk_exceptions_are_mapped_by_type() -> None:
    client = docker_client()
    try:
        with pytest.raises(ContainerGone), engine_errors("inspecting"):
            client.containers.get("codeact-no-such-container")
        with (
            pytest.raises(UserError, match="is missing"),
            engine_errors("creating", image=NO_IMAGE),
        ):
            client.containers.create(NO_IMAGE)
        assert image_present(IMAGE, client) and not image_present(NO_IMAGE, client)
    finally:
        client.close()


def test_an_unreachable_engine_is_an_executor_error() -> None:
    with pytest.raises(ExecutorError, match="Cannot reach a Docker engine"):
        docker_client("tcp://127.0.0.1:9")
    assert "Cannot reach" in (engine_problem("tcp://127.0.0.1:9") or "")
    assert engine_problem() is None


async def test_a_missing_image_and_an_unknown_runtime_fail_typed_and_leave_nothing() -> None:
    with pytest.raises(UserError, match="codeact sandbox build"):
        async with DockerExecutor(image=NO_IMAGE):
            pass
    with pytest.raises(ExecutorError, match="runtime"):
        async with DockerExecutor(runtime="codeact-no-such-runtime"):
            pass
    assert labelled_containers() == []
