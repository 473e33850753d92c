"""The one source of chance: the Python :class:`~hot_envs.core.chance.Stream` the per-game engines
draw from and the kernels' ``below``/``shuffle`` (hot_envs.batched.streams) give the same draws
from the same state, compiled and as plain Python."""

from __future__ import annotations

import json

import numpy as np
import pytest

from hot_envs.batched.streams import below, shuffle
from hot_envs.core.chance import M1, M2, Stream, stream_of
from tests.batched.helpers import compiled_and_python

SIZES = [1, 2, 3, 6, 40, 44, 48, 1 << 30]


def _python_draws(seed: int) -> list:
    stream = Stream.seeded(seed)
    draws = []
    for n in SIZES:
        draws.append(stream.integers(n))
        draws.append(stream.permutation(min(n, 48)))
    return [draws, list(stream.state)]


_KERNEL_DRAWS = """
import json
import numpy as np
from hot_envs import batched
from hot_envs.batched.streams import below, shuffle
from hot_envs.core.chance import stream_of
found = []
for seed in {seeds}:
    rng = np.array([stream_of(seed)], dtype=np.int64)
    draws = []
    for n in {sizes}:
        draws.append(int(below(rng, 0, n)))
        order = np.arange(min(n, 48), dtype=np.int64)
        shuffle(rng, 0, order, len(order))
        draws.append(order.tolist())
    found.append([draws, rng[0].tolist()])
print(json.dumps([batched.COMPILED, found]))
"""


def test_python_and_kernel_streams_draw_the_same():
    """``integers(n)`` is ``below``, ``permutation(n)`` is ``shuffle`` of ``range(n)``, and the
    words move alike: compiled and as plain Python (NUMBA_DISABLE_JIT)."""
    seeds = [0, 1, 2, 12345, 2**63 - 1, 2**64 - 1]
    code = _KERNEL_DRAWS.format(seeds=seeds, sizes=SIZES)
    compiled, python = compiled_and_python(code)
    expected = json.loads(json.dumps([_python_draws(seed) for seed in seeds]))
    assert compiled == expected
    assert python == expected


def test_in_process_kernels_match_a_long_stream():
    """Thousands of draws in a row stay in step (the kernels as this process runs them)."""
    stream = Stream.seeded(7)
    rng = np.array([stream_of(7)], dtype=np.int64)
    for n in range(1, 3000):
        assert stream.integers(n) == below(rng, 0, n)
    order = np.arange(48, dtype=np.int64)
    shuffle(rng, 0, order, 48)
    assert stream.permutation(48) == order.tolist()
    assert stream.state == tuple(rng[0].tolist())


def test_seeds_map_to_distinct_well_formed_streams():
    states = {stream_of(seed) for seed in range(10_000)}
    assert len(states) == 10_000
    assert all(1 <= x1 < M1 and 1 <= x2 < M2 for x1, x2 in states)


def test_copies_draw_alike_and_apart():
    stream = Stream.seeded(3)
    copy = stream.copy()
    assert copy == stream and copy is not stream
    assert copy.permutation(40) == stream.permutation(40)
    copy.integers(2)
    assert copy != stream


@pytest.mark.parametrize("seed", [-1, 2**64, 1.0, "3", True])
def test_a_bad_seed_is_refused(seed):
    with pytest.raises((TypeError, ValueError), match="seed must be an int"):
        Stream.seeded(seed)


def test_bad_words_are_refused():
    with pytest.raises(ValueError, match="words lie in"):
        Stream(0, 1)


def test_reset_gives_every_game_a_stream_of_its_own():
    """``reset(s)`` draws each game's stream at random from ``s``: no game shares its stream
    with another of the batch, nor with a game of ``reset(s + 1)`` (no shifted rows)."""
    from hot_envs import batched

    games = batched.make("heisse-karten", 64, num_players=2)
    seen = set()
    for seed in (5, 6):
        games.reset(seed=seed)
        seen |= {tuple(row) for row in games._rng.tolist()}
    assert len(seen) == 128
