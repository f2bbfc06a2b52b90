"""The Docker backend: a hardened container per session (the ``docker`` extra)."""

from codeact.executors.docker.executor import IMAGE, DockerExecutor, SandboxPool, reap_orphans

__all__ = ["IMAGE", "DockerExecutor", "SandboxPool", "reap_orphans"]
