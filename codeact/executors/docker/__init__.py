"""The Docker backend: a hardened container per session (the ``docker`` extra)."""

from codeact.executors.docker._engine import reap_orphans
from codeact.executors.docker.executor import IMAGE, DockerExecutor
from codeact.executors.docker.pool import SandboxPool

__all__ = ["IMAGE", "DockerExecutor", "SandboxPool", "reap_orphans"]
