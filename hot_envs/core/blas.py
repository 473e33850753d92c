"""numpy's BLAS on one thread while agents play or a policy trains.

The agents' numpy networks and the action features multiply small matrices, where a BLAS thread
per core only waits for cores that the other game workers (and torch) keep busy: the arena and
the training script both run numpy's BLAS on one thread (docs/agents.md and docs/training.md
have the measurements). Needs threadpoolctl (the ``eval`` extra; without it nothing changes).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

BLAS_VARIABLES = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
"""The variables that a BLAS reads when numpy loads: how a started process learns the limit."""


@contextmanager
def one_blas_thread(*, children: bool = False) -> Iterator[None]:
    """numpy's BLAS on one thread in this process while the block runs — and, with
    ``children``, in every process started inside it (the variables of :data:`BLAS_VARIABLES`:
    a process started by spawn or forkserver loads numpy afresh; a forked one inherits the
    limit anyway). ``OPENBLAS_NUM_THREADS``, where the user set it, decides instead. Everything
    is as before when the block ends."""
    if "OPENBLAS_NUM_THREADS" in os.environ:
        yield
        return
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # the eval extra is not installed: numpy's own default
        yield
        return
    with ExitStack() as stack:
        if children:
            saved = {variable: os.environ.get(variable) for variable in BLAS_VARIABLES}
            stack.callback(_restore, saved)
            for variable in BLAS_VARIABLES:
                os.environ.setdefault(variable, "1")
        stack.enter_context(threadpool_limits(1, user_api="blas"))
        yield


def _restore(saved: dict[str, str | None]) -> None:
    for variable, value in saved.items():
        if value is None:
            os.environ.pop(variable, None)
        else:
            os.environ[variable] = value
