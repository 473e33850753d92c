"""The array engines' compiler: numba where it is installed, plain Python where it is not.

The kernels of :mod:`hot_envs.batched` are written once, as loops over games on numpy arrays
of scalars — the style numba compiles to machine code. With numba (the ``fast`` extra, also in
``train`` and ``test``) :func:`kernel` compiles them on first use and caches the machine code
beside the source; without it, or with ``NUMBA_DISABLE_JIT=1``, the same functions run as
Python: the same results from the same seeds, about a hundred times slower
(docs/benchmarks.md, "Games in arrays"). ``import hot_envs`` never needs numba.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

try:
    import numba
except ImportError:  # pragma: no cover - the fallback is tested with NUMBA_DISABLE_JIT
    numba = None

COMPILED = numba is not None and os.environ.get("NUMBA_DISABLE_JIT", "0") in ("", "0")
"""Whether the kernels run as machine code (numba installed and not disabled)."""


def kernel(function: F) -> F:
    """``function`` compiled by numba (no Python objects, no GIL, cached on disk), or as it is
    where numba is missing."""
    if numba is None:
        return function
    return numba.njit(cache=True, nogil=True)(function)
