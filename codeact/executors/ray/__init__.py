"""The Ray backend: each session's kernel on a node of a Ray cluster, in that node's sandbox
(the ``ray`` extra). Importing this package does not import Ray; starting a session does."""

from codeact.executors.ray._nodes import NodeReport, probe_nodes
from codeact.executors.ray._peer import RayPeer
from codeact.executors.ray.executor import RayExecutor, cluster_memory_mb, connect_ray

__all__ = [
    "NodeReport",
    "RayExecutor",
    "RayPeer",
    "cluster_memory_mb",
    "connect_ray",
    "probe_nodes",
]
