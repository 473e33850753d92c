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
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import numba

F = TypeVar("F", bound=Callable[..., Any])

COMPILED = os.environ.get("NUMBA_DISABLE_JIT", "0") in ("", "0")
"""Whether the kernels run as machine code (not disabled by ``NUMBA_DISABLE_JIT``)."""


def kernel(function: F) -> F:
    """``function`` compiled by numba (no Python objects, no GIL, cached on disk)."""
    return numba.njit(cache=True, nogil=True)(function)


def on_disk(function: Any) -> bool:
    """Whether numba's disk cache holds machine code of kernel ``function`` for its source as it
    is now, this Python and this numba — False: its first call compiles it. numba's own index
    reader answers (the dispatcher's cache index, checked for the versions and the source's
    stamp as loading checks them); without the compiler nothing compiles."""
    if not COMPILED:
        return True
    return bool(function._cache._cache_file._load_index())


_ANNOUNCED: set[str] = set()


def announce_compiling(what: str, seconds: int) -> None:
    """One line on stderr: ``what`` compiles now, about ``seconds`` long — for a caller that
    found its kernels not on disk (:func:`on_disk`). numba then caches them, so the line comes
    once per install; at most once per process and ``what``."""
    if what in _ANNOUNCED:
        return
    _ANNOUNCED.add(what)
    print(f"compiling {what} (once per install, about {seconds} s)…", file=sys.stderr, flush=True)
