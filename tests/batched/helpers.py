"""What the array engines' tests share."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from typing import Any


def compiled_and_python(code: str) -> tuple[Any, Any]:
    """The JSON ``code`` prints, run with the kernels compiled and again as plain Python
    (``NUMBA_DISABLE_JIT=1``, what runs without numba); the first value each prints is
    ``hot_envs.batched.COMPILED``, checked and dropped. The plain-Python run needs an interpreter
    of its own (numba reads the variable as it is imported); the compiled one runs in this
    process, whose kernels are compiled already (a fresh interpreter only where this one runs
    without numba)."""
    from hot_envs import batched

    runs = {}
    if batched.COMPILED:
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(compile(code, "<compiled run>", "exec"), {"__name__": "__compiled_run__"})
        runs["0"] = printed.getvalue()
    for disable in ("1",) if runs else ("1", "0"):
        result = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            env={**os.environ, "NUMBA_DISABLE_JIT": disable},
            check=True,
        )
        runs[disable] = result.stdout
    for disable, printed in runs.items():
        compiled, runs[disable] = json.loads(printed)
        assert compiled is (disable == "0"), "numba should compile the kernels here"
    return runs["0"], runs["1"]
