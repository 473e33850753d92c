"""The games' one source of chance: :class:`Stream`, L'Ecuyer's combined generator in Python.

Both engines take every chance event of a game — the deals (HL-2.2, HL-2.4, HK-2.2), a random
first seat (HL-2.5, HK-2.4), Heiße Luft's reshuffle (HL-3.5) and Heiße Karten's next round
(HK-4.4) — from one stream per game, seeded by an int: the per-game engine's ``State`` from a
:class:`Stream`, the array engines (:mod:`hot_envs.batched`) from the same two words of state per
row, drawn by their kernels (``hot_envs.batched.streams.below`` and ``shuffle``) with the same
arithmetic. So the same seed and the same actions give the same game on either engine, and a
``State`` loaded into an array row (``ArrayGames.load_state``) goes on there exactly as it would
have gone on by itself.

The generator is L'Ecuyer's combination of two multiplicative congruential generators
(Communications of the ACM 31(6), 1988; Numerical Recipes' ``ran2`` without the shuffle table):
period about 2.3·10¹⁸, and every product fits in an int64, so the arithmetic is the same in
numba and in Python. An int seed becomes its two words by SplitMix64 (:func:`stream_of`).
"""

from __future__ import annotations

import operator
import os

M1, A1 = 2147483563, 40014
M2, A2 = 2147483399, 40692
"""The two generators' moduli and multipliers: word one lives in ``1 .. M1 - 1``, word two in
``1 .. M2 - 1``."""

_MASK64 = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15  # SplitMix64's increment


def stream_of(seed: int) -> tuple[int, int]:
    """The generator state of the game seeded by ``seed`` (an int in ``0 .. 2⁶⁴ - 1``): two
    rounds of SplitMix64 (Steele, Lea and Flood, OOPSLA 2014) mapped into each word's range — a
    microsecond, where a numpy Generator takes tens (a training driver seeds every deal)."""
    words = []
    for _ in range(2):
        seed = (seed + _GOLDEN) & _MASK64
        z = seed
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        words.append(z ^ (z >> 31))
    return words[0] % (M1 - 1) + 1, words[1] % (M2 - 1) + 1


class Stream:
    """One game's chance source (``hot_envs.core.engine.ChanceSource``): L'Ecuyer's generator in
    two ints, drawing exactly what the array kernels draw from the same state.

    ``integers(n)`` is the kernels' ``below``: one step of both generators, ``z = x1 - x2``
    folded into ``1 .. M1 - 1``, then ``z % n``. ``permutation(n)`` is the kernels' ``shuffle``
    of ``range(n)``: Fisher–Yates from the top, position ``i`` swapped with ``integers(i + 1)``.
    """

    __slots__ = ("x1", "x2")

    def __init__(self, x1: int, x2: int) -> None:
        if not (1 <= x1 < M1 and 1 <= x2 < M2):
            raise ValueError(f"a stream's words lie in 1..{M1 - 1} and 1..{M2 - 1}, not {x1, x2}")
        self.x1, self.x2 = int(x1), int(x2)

    @classmethod
    def seeded(cls, seed: int | None = None) -> Stream:
        """The stream of the int ``seed`` in ``0 .. 2⁶⁴ - 1`` (:func:`stream_of`; a bool is a
        ``TypeError``, a seed out of range a ``ValueError``); ``None``: fresh entropy."""
        if seed is None:
            seed = int.from_bytes(os.urandom(8), "little")
        try:
            value = None if isinstance(seed, bool) else operator.index(seed)
        except TypeError:
            value = None
        if value is None:
            raise TypeError(f"seed must be an int, not {seed!r}")
        if not 0 <= value <= _MASK64:
            raise ValueError(f"seed must be an int from 0 to 2**64 - 1, not {value}")
        return cls(*stream_of(value))

    @property
    def state(self) -> tuple[int, int]:
        """The two words, as an array engine's row holds them."""
        return self.x1, self.x2

    def copy(self) -> Stream:
        """An independent stream in the same state."""
        return Stream(self.x1, self.x2)

    def integers(self, n: int) -> int:
        """A uniform int in ``0 .. n - 1`` (bias under n / 2³¹)."""
        x1 = self.x1 = self.x1 * A1 % M1
        x2 = self.x2 = self.x2 * A2 % M2
        z = x1 - x2
        if z < 1:
            z += M1 - 1
        return z % n

    def permutation(self, n: int) -> list[int]:
        """A shuffle of ``range(n)``: Fisher–Yates, the swaps of the kernels' ``shuffle``."""
        order = list(range(n))
        x1, x2 = self.x1, self.x2
        for i in range(n - 1, 0, -1):
            x1 = x1 * A1 % M1
            x2 = x2 * A2 % M2
            z = x1 - x2
            if z < 1:
                z += M1 - 1
            j = z % (i + 1)
            order[i], order[j] = order[j], order[i]
        self.x1, self.x2 = x1, x2
        return order

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Stream) and self.state == other.state

    __hash__ = None  # type: ignore[assignment]  (a stream changes as it draws)

    def __repr__(self) -> str:
        return f"Stream({self.x1}, {self.x2})"
