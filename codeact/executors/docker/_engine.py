"""Reaching the Docker engine and cleaning up after crashed processes."""

from __future__ import annotations

import os
import socket
from typing import Any

from codeact.errors import ExecutorError, UserError

LABEL = "org.codeact.session"
LABEL_PID = "org.codeact.host-pid"
LABEL_HOST = "org.codeact.host"


def docker_client(base_url: str | None = None) -> Any:
    """A docker SDK client for ``base_url`` (default: ``DOCKER_HOST`` or the local socket)."""
    try:
        import docker
    except ImportError as exc:
        raise UserError(
            "DockerExecutor needs the docker SDK: pip install 'codeact[docker]'"
        ) from exc
    try:
        client = docker.DockerClient(base_url=base_url) if base_url else docker.from_env()
        client.ping()
    except Exception as exc:
        raise ExecutorError(
            f"Cannot reach a Docker engine "
            f"({base_url or os.environ.get('DOCKER_HOST') or 'local socket'}): {exc}. "
            "Start dockerd or set DOCKER_HOST."
        ) from exc
    return client


def reap_orphans(client: Any) -> int:
    """Remove codeact containers left by processes of this host that no longer exist."""
    removed = 0
    host = socket.gethostname()
    for info in client.api.containers(all=True, filters={"label": LABEL}):
        labels = info.get("Labels") or {}
        if labels.get(LABEL_HOST) != host:
            continue
        try:
            pid = int(labels.get(LABEL_PID, "0"))
        except ValueError:
            pid = 0
        if pid and _alive(pid):
            continue
        try:
            client.api.remove_container(info["Id"], force=True)
            removed += 1
        except Exception:  # already gone
            pass
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
