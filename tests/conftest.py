"""Suite-wide set-up of the test tiers.

``pytest`` runs everything on every core (``-n auto``); ``pytest -m "not slow"`` is the fast tier
for the inner loop. The RLlib tests (each starts a local Ray) and the browser tests (each drives
Chromium) count as slow wherever they are. Two workers may each run a local Ray at once (each in
its own temp folder); what several RLlib tests read is trained once for all workers
(``tests/rllib/test_training.py``).

Every worker, and every process a test starts, runs torch and numpy's BLAS on one thread: the
workers already use every core, and a second thread per process on a busy machine made small
networks many times slower (OpenMP threads waiting for each other), not faster. A test that is
about thread counts sets them itself.
"""

from __future__ import annotations

import os

import pytest

for _variable in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")  # before torch or numpy load in this process


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.get_closest_marker("rllib") or item.path.name == "test_browser.py":
            item.add_marker(pytest.mark.slow)
