"""Each game's own random stream, inside the kernels: L'Ecuyer's combined generator.

Every game of a batch carries two int64 words of generator state (``rng[game]``), so a game's
deals and reshuffles depend on its own seed only — not on the batch size or on the other games —
and are the same compiled or not (:mod:`hot_envs.batched.jit`). The generator, its constants and
the mapping of an int seed to its two words (:func:`~hot_envs.core.chance.stream_of`) are
:mod:`hot_envs.core.chance`'s: :func:`below` and :func:`shuffle` draw what its ``Stream``'s
``integers`` and ``permutation`` draw from the same state, so a row seeded with ``s`` deals what
the per-game engine's ``State.new(seed=s)`` deals (``tests/batched/test_streams.py``).
"""

from __future__ import annotations

import numpy as np

from hot_envs.batched.jit import kernel
from hot_envs.core.chance import A1, A2, M1, M2


def seed_streams(seed: int | np.random.Generator | None, count: int) -> np.ndarray:
    """``count`` fresh generator states, int64 ``(count, 2)``, drawn from ``seed`` (an int, a
    numpy Generator or ``None`` for fresh entropy)."""
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    # Row by row, so that the first games' states do not depend on ``count``.
    return rng.integers(1, np.array([M1, M2]), size=(count, 2), dtype=np.int64)


@kernel
def below(rng: np.ndarray, game: int, n: int) -> int:
    """A uniform int in ``0 .. n-1`` from game ``game``'s stream (bias under n / 2³¹)."""
    x1 = rng[game, 0] * A1 % M1
    x2 = rng[game, 1] * A2 % M2
    rng[game, 0] = x1
    rng[game, 1] = x2
    z = x1 - x2
    if z < 1:
        z += M1 - 1
    return z % n


@kernel
def shuffle(rng: np.ndarray, game: int, values: np.ndarray, count: int) -> None:
    """Shuffle ``values[:count]`` in place (Fisher–Yates) from game ``game``'s stream."""
    for i in range(count - 1, 0, -1):
        j = below(rng, game, i + 1)
        values[i], values[j] = values[j], values[i]
