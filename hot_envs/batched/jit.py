"""The array engines' compiler: numba.

The kernels of :mod:`hot_envs.batched` are written once, as loops over games on numpy arrays
of scalars — the style numba compiles to machine code. :func:`kernel` compiles them on first use
and caches the machine code beside the source; with ``NUMBA_DISABLE_JIT=1`` the same functions
run as Python, for debugging and coverage: the same results from the same seeds, about a hundred
times slower (docs/benchmarks.md, "Games in arrays"). ``import hot_envs`` does not load numba:
this module is imported with the first array engine or kernel.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, TypeVar

import numba

F = TypeVar("F", bound=Callable[..., Any])

COMPILED = os.environ.get("NUMBA_DISABLE_JIT", "0") in ("", "0")
"""Whether the kernels run as machine code (not disabled by ``NUMBA_DISABLE_JIT``)."""


def kernel(function: F) -> F:
    """``function`` compiled by numba (no Python objects, no GIL, cached on disk)."""
    return numba.njit(cache=True, nogil=True)(function)
