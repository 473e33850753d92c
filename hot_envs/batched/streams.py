"""Each game's own random stream, inside the kernels: L'Ecuyer's combined generator.

Every game of a batch carries two int64 words of generator state (``rng[game]``), so a game's
deals and reshuffles depend on its own seed only — not on the batch size or on the other games —
and are the same compiled or not (:mod:`hot_envs.batched.jit`). The generator is L'Ecuyer's
combination of two multiplicative congruential generators (Communications of the ACM 31(6),
1988; Numerical Recipes' ``ran2`` without the shuffle table): period about 2.3·10¹⁸, and every
product fits in an int64, so the arithmetic is the same in numba and in Python.
"""

from __future__ import annotations

import numpy as np

from hot_envs.batched.jit import kernel

M1, A1 = 2147483563, 40014
M2, A2 = 2147483399, 40692


def stream_of(seed: int) -> tuple[int, int]:
    """The generator state of one game seeded by the int ``seed`` (≥ 0): two rounds of
    SplitMix64 (Steele, Lea and Flood, OOPSLA 2014) mapped into each word's range — a
    microsecond, where a numpy Generator takes tens (a training driver seeds every deal)."""
    words = []
    for _ in range(2):
        seed = (seed + 0x9E3779B97F4A7C15) & _MASK64
        z = seed
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        words.append(z ^ (z >> 31))
    return words[0] % (M1 - 1) + 1, words[1] % (M2 - 1) + 1


_MASK64 = (1 << 64) - 1


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
