"""Makes the repository root importable, so ``tests.golden`` and ``tests.heisse_karten.helpers``
import under a plain ``pytest`` run as well as under ``python -m pytest``."""

import sys
from pathlib import Path

ROOT = str(Path(__file__).resolve().parents[2])
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)
