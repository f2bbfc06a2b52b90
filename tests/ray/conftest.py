"""A real local Ray cluster of two nodes for the RayExecutor tests, shared by the module:
the head (label ``node_a``) and one more raylet (``node_b``), one CPU each. Sessions ask for no
CPU (``num_cpus=0``) so that many fit, and for a label when a test needs a given node.

Without Ray these tests skip; with CODEACT_REQUIRE_RAY=1 (or CODEACT_REQUIRE_DOCKER=1, CI) a
missing Ray fails them."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.batch.test_ray import need_ray
from tests.helpers import wait_until

ROOT = Path(__file__).resolve().parents[2]
#: Faster failure detection than Ray's default (a killed node is noticed in a few seconds).
SYSTEM_CONFIG = {"health_check_period_ms": 500, "health_check_failure_threshold": 3}


class RayCluster:
    """The cluster: its address, and node ids by label."""

    def __init__(self, cluster: Any, ray: Any) -> None:
        self.cluster, self.ray = cluster, ray
        self.address: str = cluster.address

    def node_id(self, label: str) -> str:
        """The one live node carrying ``label`` (a node killed by an earlier test stays listed
        as alive until Ray's health check notices: wait for that)."""

        def one() -> list[str]:
            alive = [
                n["NodeID"] for n in self.ray.nodes() if n["Alive"] and label in n["Resources"]
            ]
            return alive if len(alive) == 1 else []

        (node,) = wait_until(one, f"exactly one live node labelled {label!r}", timeout=60)  # type: ignore[misc]
        return str(node)

    def add(self, label: str, *also: str) -> Any:
        """A new node carrying ``label`` (and the labels ``also``)."""
        resources = {name: 1000.0 for name in (label, *also)}
        node = self.cluster.add_node(num_cpus=1, resources=resources)
        self.cluster.wait_for_nodes()
        return node


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[RayCluster]:
    ray = need_ray()
    from ray.cluster_utils import Cluster

    old = os.environ.get("PYTHONPATH")
    # the nodes' workers import codeact (and the tests' helpers) from this checkout
    os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [old])])
    c = Cluster(
        initialize_head=True,
        head_node_args={
            "num_cpus": 1,
            "resources": {"node_a": 1000},
            "_system_config": SYSTEM_CONFIG,
        },
    )
    try:
        c.add_node(num_cpus=1, resources={"node_b": 1000})
        ray.init(address=c.address, log_to_driver=False)
        c.wait_for_nodes()
        yield RayCluster(c, ray)
    finally:
        ray.shutdown()
        c.shutdown()
        if old is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = old
