"""Shared set-up of the RLlib tests (each module skips itself without Ray): Ray's files in a short
temp dir (Unix socket paths must stay under ~107 bytes, so not under pytest's long tmp paths) and
``~/ray_results`` redirected, everything removed afterwards; and one two-node Ray cluster per
test process for the tests that run RLlib in that process.

Starting Ray and its processes is most of what an RLlib test costs, so the cluster is started
once, by the first test that needs it, and stopped after the last one in a row; each test joins
it as a job of its own (``with ray_cluster.job(): …``) that ends with the test, so the cluster
keeps nothing of a test's run but the files in ``ray_dirs``. The tests that run the script in a
subprocess start its own Ray, as a user's run does. ``tests/conftest.py`` orders the tests that
use the cluster first, so that one xdist worker runs them all in a row instead of each worker
starting a cluster.

No module here imports Ray as it is collected (:data:`needs_ray` asks whether it is installed
without importing it): every xdist worker collects every module, and importing Ray costs
1.2-1.4 s of CPU; the tests import it when they run.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

needs_ray = pytest.mark.skipif(
    importlib.util.find_spec("ray") is None,
    reason="needs the rllib extra: pip install -e '.[rllib]'",
)


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


class SharedCluster:
    """Two Ray nodes on this machine, started on first use: a head with 0 CPUs (it only
    coordinates) and a node with 2 CPUs, where every env runner has to go."""

    def __init__(self, temp_dir: Path) -> None:
        self.temp_dir = temp_dir
        self._cluster = None

    @property
    def address(self) -> str:
        if self._cluster is None:
            from ray.cluster_utils import Cluster

            self._cluster = Cluster(
                initialize_head=True,
                head_node_args={"num_cpus": 0, "temp_dir": str(self.temp_dir)},
            )
            self._cluster.add_node(num_cpus=2)
            self._cluster.wait_for_nodes()
            # Like `ray start`, the head wrote its address where a plain ray.init() looks for a
            # running Ray: a run started meanwhile (the signal tests') would join this cluster
            # instead of starting its own. It is reached by its address only.
            from ray._private.utils import get_ray_address_file

            Path(get_ray_address_file(None)).unlink(missing_ok=True)
        return self._cluster.address

    @contextmanager
    def job(self) -> Iterator[None]:
        """This process as a fresh job on the cluster (as a run with ``--address`` joins one),
        disconnected at the end; the cluster's processes keep running."""
        import ray

        ray.shutdown()  # a connection that a failed test left behind
        ray.init(address=self.address)
        try:
            yield
        finally:
            ray.shutdown()

    def shutdown(self) -> None:
        """Stop the cluster (the next use starts it again)."""
        import ray

        ray.shutdown()
        if self._cluster is not None:
            self._cluster.shutdown()
            self._cluster = None


STARTED: list[SharedCluster] = []


@pytest.fixture(scope="session")
def ray_cluster(ray_dirs: Path) -> Iterator[SharedCluster]:
    """The test process's cluster (module docstring)."""
    cluster = SharedCluster(ray_dirs / "cluster")
    STARTED.append(cluster)
    yield cluster
    cluster.shutdown()
    STARTED.remove(cluster)


def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """Once the next test does not use the cluster, it is stopped: idle, its processes still
    take a few per cent of a core."""
    if nextitem is None or "ray_cluster" not in nextitem.fixturenames:
        for cluster in STARTED:
            cluster.shutdown()
