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
