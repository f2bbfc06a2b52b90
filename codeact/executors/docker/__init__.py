"""The Docker backend: a hardened container per session (the ``docker`` extra).

Besides the executor and its pool, the names tools around it need (the CLI, ``codeact.testing``):
``SESSION_LABEL`` (every sandbox container carries it), ``docker_client``, ``engine_problem``,
``image_present``, ``remove_sandboxes`` and ``reap_orphans``. Importing this package does not
import the docker SDK; those functions do.
"""

from codeact.executors.docker._engine import LABEL as SESSION_LABEL
from codeact.executors.docker._engine import (
    ContainerGone,
    docker_client,
    engine_problem,
    image_present,
    reap_orphans,
    remove_sandboxes,
)
from codeact.executors.docker.executor import DockerExecutor
from codeact.executors.docker.image import IMAGE
from codeact.executors.docker.pool import SandboxPool

__all__ = [
    "IMAGE",
    "SESSION_LABEL",
    "ContainerGone",
    "DockerExecutor",
    "SandboxPool",
    "docker_client",
    "engine_problem",
    "image_present",
    "reap_orphans",
    "remove_sandboxes",
]
