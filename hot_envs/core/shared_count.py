"""A count that a process pool's workers add to and their parent reads, for a progress bar over
work that the workers report only when a whole job ends (the arena's moves, the teacher's
decisions of ``hot_envs.training.imitation``).

    counter = shared_count.new()
    with ProcessPoolExecutor(n, initializer=shared_count.share, initargs=(counter,)) as pool:
        ...  # a worker calls shared_count.add(k); the parent reads counter.value
"""

from __future__ import annotations

import multiprocessing
from typing import Any

_shared: Any = None  # in a worker: the pool's counter


def new(start: int = 0) -> Any:
    """A counter to hand to :func:`share` as a pool's initializer argument."""
    return multiprocessing.Value("q", start)


def share(counter: Any) -> None:
    """A pool's initializer: this worker adds to ``counter``."""
    global _shared
    _shared = counter


def add(amount: int) -> None:
    """Add ``amount`` to the pool's counter (nothing outside a pool's worker)."""
    if _shared is not None:
        with _shared.get_lock():
            _shared.value += amount
