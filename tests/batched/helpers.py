"""What the array engines' tests share."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any


def compiled_and_python(code: str) -> tuple[Any, Any]:
    """The JSON ``code`` prints, run with the kernels compiled and again as plain Python
    (``NUMBA_DISABLE_JIT=1``, what runs without numba), each in a fresh interpreter; the
    first value each prints is ``hot_envs.batched.COMPILED``, checked and dropped."""
    runs = {}
    for disable in ("1", "0"):
        result = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            env={**os.environ, "NUMBA_DISABLE_JIT": disable},
            check=True,
        )
        compiled, found = json.loads(result.stdout)
        assert compiled is (disable == "0"), "numba should compile the kernels here"
        runs[disable] = found
    return runs["0"], runs["1"]
