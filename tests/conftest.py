"""Suite-wide set-up of the test tiers.

``pytest`` runs everything on every core (``-n auto --dist worksteal``); ``pytest -m "not slow"``
is the fast tier for the inner loop. The RLlib tests (they run Ray) and the browser tests (they
drive Chromium) count as slow wherever they are. The RLlib tests that run Ray in the test process
share one cluster per process and come first (:func:`run_order`); what several RLlib tests read is
trained once for all workers (``tests/rllib/test_training.py``).

Libraries' temporary files go under pytest's temp dir, not the machine's
(:func:`temp_dir_of_the_session`).

Every worker, and every process a test starts, runs torch and numpy's BLAS on one thread: the
workers already use every core, and a second thread per process on a busy machine made small
networks many times slower (OpenMP threads waiting for each other), not faster. A test that is
about thread counts sets them itself.

The garbage collector leaves what collection built alone (:func:`pytest_collection_finish`).
"""

from __future__ import annotations

import gc
import os
import tempfile
from collections.abc import Iterator

import pytest

for _variable in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")  # before torch or numpy load in this process
gc.set_threshold(10_000, 10, 10)  # before collection imports the libraries (see below)


@pytest.fixture(autouse=True, scope="session")
def temp_dir_of_the_session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """What libraries put in the temp dir goes under pytest's own, which pytest cleans up (SB3
    gives every model that learns without a logger of its own an empty folder there)."""
    tempfile.tempdir = str(tmp_path_factory.mktemp("tmp"))
    yield
    tempfile.tempdir = None


def pytest_collection_finish(session: pytest.Session) -> None:
    """Garbage collection for a test process. What collection left alive (the libraries the
    tests import, the test items: some 600,000 objects in a worker) is frozen: every full pass
    walked all of it again (~0.25 s a pass). The youngest generation is collected after 10,000
    new objects rather than Python's 700 (set as this module loads, so collection's imports
    gain from it too). Together they took a worker's passes from ~8,000 to a few hundred and its
    time in the collector from 4.5-9 s to 1-2.5 s; collecting the suite from 6.3 to 5.1 s."""
    gc.collect()
    gc.freeze()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.get_closest_marker("rllib") or item.path.name == "test_browser.py":
            item.add_marker(pytest.mark.slow)
    items.sort(key=run_order)


# The slow tests that take longest (whole training runs in processes of their own, a browser
# playing games), first among the slow ones: stolen last, one of them kept a worker busy for
# its tens of seconds while the other had finished.
LONGEST = ("training/test_fault_tolerance.py", "web/test_browser.py")


def run_order(item: pytest.Item) -> int:
    """Slow tests first, so that no worker is left with one at the end while the others wait
    (``--dist worksteal`` gives each xdist worker a contiguous share of this order and lets an idle
    one take from the end of another's): first those on the test process's RLlib cluster
    (``tests/rllib/conftest.py``), in turn, so that one worker starts it for all of them; then
    the other RLlib tests (those that start a run's own Ray in a subprocess among them); then the
    other slow tests, the longest (:data:`LONGEST`) first."""
    if "ray_cluster" in item.fixturenames:
        return 0
    if item.get_closest_marker("rllib"):
        return 1
    if item.get_closest_marker("slow"):
        return 2 if item.path.as_posix().endswith(LONGEST) else 3
    return 4
