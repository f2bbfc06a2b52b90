"""Reaching the Docker engine, translating its SDK's exceptions (by type, in one place) and
cleaning up after crashed processes."""

from __future__ import annotations

import contextlib
import os
import socket
from collections.abc import Iterator
from typing import Any

from codeact.errors import ExecutorError, UserError
from codeact.executors._owner import owner_alive

LABEL = "org.codeact.session"
LABEL_PID = "org.codeact.host-pid"
LABEL_HOST = "org.codeact.host"
#: ``<pid>.<start time>`` of the owning process: a reused pid does not keep orphans alive.
LABEL_OWNER = "org.codeact.owner"


class ContainerGone(ExecutorError):
    """The engine no longer knows the container (removed from outside, or never created)."""


@contextlib.contextmanager
def engine_errors(doing: str, *, image: str | None = None) -> Iterator[None]:
    """Translate the docker SDK's exceptions raised inside the block into codeact's tree:
    a missing image is a ``UserError`` (build it), a missing container ``ContainerGone``, any
    other engine or transport failure an ``ExecutorError`` saying what was being ``doing``."""
    import docker.errors
    import requests.exceptions

    try:
        yield
    except docker.errors.ImageNotFound as exc:
        raise UserError(
            f"The sandbox image {image!r} is missing. Build it with `codeact sandbox build` "
            "(or sandbox-image/build.sh)."
        ) from exc
    except docker.errors.NotFound as exc:
        raise ContainerGone(f"{doing}: the container is gone ({exc})") from exc
    except (docker.errors.DockerException, requests.exceptions.RequestException, OSError) as exc:
        raise ExecutorError(f"{doing}: {exc}") from exc


def docker_client(base_url: str | None = None) -> Any:
    """A docker SDK client for ``base_url`` (default: ``DOCKER_HOST`` or the local socket);
    ``UserError`` without the SDK, ``ExecutorError`` when no engine answers."""
    try:
        import docker
    except ImportError as exc:
        raise UserError(
            "DockerExecutor needs the docker SDK: pip install 'codeact[docker]'"
        ) from exc
    where = base_url or os.environ.get("DOCKER_HOST") or "local socket"
    with engine_errors(f"Cannot reach a Docker engine ({where}); start dockerd or set DOCKER_HOST"):
        client = docker.DockerClient(base_url=base_url) if base_url else docker.from_env()
        client.ping()
    return client


def engine_problem(base_url: str | None = None) -> str | None:
    """Why no Docker engine can be used (no SDK, no engine), or None when one answers."""
    try:
        client = docker_client(base_url)
    except (UserError, ExecutorError) as exc:
        return str(exc)
    client.close()
    return None


def image_present(image: str, client: Any) -> bool:
    """True when the engine behind ``client`` has ``image``."""
    import docker.errors

    with engine_errors(f"Cannot inspect the image {image!r}"):
        try:
            client.images.get(image)
        except docker.errors.ImageNotFound:
            return False
    return True


def remove_sandboxes(client: Any) -> int:
    """Remove every codeact sandbox container on the engine (any host, any process)."""
    removed = 0
    with engine_errors("Cannot list the sandbox containers"):
        found = client.api.containers(all=True, filters={"label": LABEL})
    for info in found:
        with contextlib.suppress(ExecutorError), engine_errors("Cannot remove a container"):
            client.api.remove_container(info["Id"], force=True)
            removed += 1
    return removed


def reap_orphans(client: Any) -> int:
    """Remove codeact containers left by processes of this host that no longer exist (same
    pid and start time; another live service's containers are never touched)."""
    removed = 0
    host = socket.gethostname()
    with engine_errors("Cannot list the sandbox containers"):
        found = client.api.containers(all=True, filters={"label": LABEL})
    for info in found:
        labels = info.get("Labels") or {}
        if labels.get(LABEL_HOST) != host:
            continue
        owner = labels.get(LABEL_OWNER)
        if owner is not None:
            if owner_alive(owner):
                continue
        else:  # made by an older codeact: the pid alone
            try:
                pid = int(labels.get(LABEL_PID, "0"))
            except ValueError:
                pid = 0
            if pid and _alive(pid):
                continue
        with contextlib.suppress(ExecutorError), engine_errors("Cannot remove a container"):
            client.api.remove_container(info["Id"], force=True)  # already gone: ContainerGone
            removed += 1
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
