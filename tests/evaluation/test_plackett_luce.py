"""The arena's ratings update (hot_envs.evaluation.arena.plackett_luce) against openskill's
``PlackettLuce.rate``: the same numbers, bit for bit, for 2–6 one-player teams with ties."""

from __future__ import annotations

import numpy as np
import pytest

from hot_envs.evaluation.arena import plackett_luce

openskill = pytest.importorskip("openskill.models")


def test_the_update_is_openskills_to_the_last_bit():
    model = openskill.PlackettLuce()
    rng = np.random.default_rng(0)
    for _ in range(3000):
        k = int(rng.integers(2, 7))
        mus = rng.uniform(5, 45, k).tolist()
        sigmas = rng.uniform(0.3, 9, k).tolist()
        returns = rng.choice([-1.0, -0.5, 0.0, 0.5, 1.0], k).tolist()
        ranks = [sum(other > r for other in returns) for r in returns]
        teams = [[model.rating(m, s)] for m, s in zip(mus, sigmas, strict=True)]
        expected = [(team[0].mu, team[0].sigma) for team in model.rate(teams, ranks=ranks)]
        assert plackett_luce(mus, sigmas, ranks, model) == expected, (mus, sigmas, ranks)


def test_the_compiled_passes_give_the_python_loops_numbers(monkeypatch):
    from hot_envs import batched
    from hot_envs.evaluation import arena
    from hot_envs.evaluation.arena import GameRecord, MatchResult, ratings

    if not batched.COMPILED:
        pytest.skip("the kernel runs compiled with numba only")
    rng = np.random.default_rng(1)
    records, lineups = [], [(0, 1, 1, 1), (1, 2, 2, 2), (2, 0, 0, 0), (0, 1, 2, 2)]
    for index in range(800):
        seats = tuple(int(x) for x in rng.permutation(4))
        returns = tuple(float(x) for x in rng.choice([-1.0, 0.0, 0.25, 1.0], 4))
        records.append(GameRecord(index % 4, index, seats, returns, 10, (0.0,) * 4, (1,) * 4))
    result = MatchResult("heisse-karten", ["a", "b", "c"], lineups, records, seed=5)
    compiled = ratings(result)
    monkeypatch.setattr(arena, "_compiled_passes", lambda *args: None)
    assert ratings(result) == compiled
