"""Suite-wide set-up of the test tiers.

``pytest`` runs everything on every core (``-n auto``); ``pytest -m "not slow"`` is the fast tier
for the inner loop. The RLlib tests (each starts a local Ray) and the browser tests (each drives
Chromium) count as slow wherever they are. The RLlib tests also share one xdist worker
(``--dist loadgroup``), so no two local Ray instances start at once on a small machine.
"""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.get_closest_marker("rllib"):
            item.add_marker(pytest.mark.xdist_group("ray"))
            item.add_marker(pytest.mark.slow)
        elif item.path.name == "test_browser.py":
            item.add_marker(pytest.mark.slow)
