"""Shared set-up of the RLlib tests (each module skips itself without Ray): one local Ray per
module that needs it, with Ray's files in a short temp dir (Unix socket paths must stay under
~107 bytes, so not under pytest's long tmp paths) and ``~/ray_results`` redirected; everything
removed afterwards."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def ray_dirs() -> Iterator[Path]:
    """A short folder for Ray's session files and results, removed at the end."""
    root = Path(tempfile.mkdtemp(prefix="ray", dir="/tmp"))
    # RAY_TMPDIR: every file Ray writes outside a session dir (e.g. ray_current_cluster) too.
    settings = {"RAY_AUTH_MODE": "disabled", "RAY_TMPDIR": str(root)}  # local: no token
    saved = {key: os.environ.get(key) for key in settings}
    os.environ.update(settings)
    (root / "ray").mkdir()  # Ray's default temp dir under RAY_TMPDIR
    from hot_envs.training.rllib_train import redirect_ray_results

    redirect_ray_results(root / "ray_results")
    yield root
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="module")
def local_ray(ray_dirs: Path) -> Iterator[None]:
    """Ray on this machine (2 CPUs) for one test module."""
    import ray

    ray.init(num_cpus=2, include_dashboard=False, _temp_dir=str(ray_dirs / "local"))
    yield
    ray.shutdown()


@pytest.fixture
def cluster(ray_dirs: Path) -> Iterator[object]:
    """Two Ray nodes on this machine: a head with 0 CPUs (it only coordinates) and a node with
    2 CPUs, where every env runner has to go."""
    from ray.cluster_utils import Cluster

    cluster = Cluster(
        initialize_head=True,
        head_node_args={"num_cpus": 0, "temp_dir": str(ray_dirs / "cluster")},
    )
    cluster.add_node(num_cpus=2)
    cluster.wait_for_nodes()
    yield cluster
    import ray

    ray.shutdown()
    cluster.shutdown()
