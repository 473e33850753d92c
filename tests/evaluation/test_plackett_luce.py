"""The arena's ratings update (hot_envs.evaluation.rating_kernel.rate_games) against
openskill's ``PlackettLuce.rate``: the same numbers, bit for bit, for 2–6 one-player teams with
ties, compiled and as plain Python."""

from __future__ import annotations

import numpy as np
import pytest

from hot_envs.evaluation.rating_kernel import rate_games
from tests.batched.helpers import compiled_and_python

openskill = pytest.importorskip("openskill.models")


def updates(count: int, seed: int = 0) -> list[tuple[list, list, list]]:
    rng = np.random.default_rng(seed)
    games = []
    for _ in range(count):
        k = int(rng.integers(2, 7))
        returns = rng.choice([-1.0, -0.5, 0.0, 0.5, 1.0], k).tolist()
        ranks = [sum(other > r for other in returns) for r in returns]
        games.append((rng.uniform(5, 45, k).tolist(), rng.uniform(0.3, 9, k).tolist(), ranks))
    return games


def kernel_update(mus: list, sigmas: list, ranks: list, model) -> list[tuple[float, float]]:
    """One game of one-player teams, each its own agent, through the kernel."""
    k = len(mus)
    mu, sigma = np.array(mus), np.array(sigmas)
    agents, order = np.arange(k, dtype=np.int64)[None], np.zeros(1, dtype=np.int64)
    rank_rows, seats = np.array([ranks], dtype=np.int64), np.array([k], dtype=np.int64)
    rate_games(order, agents, rank_rows, seats, mu, sigma, model.beta, model.kappa, model.tau)
    return list(zip(mu.tolist(), sigma.tolist(), strict=True))


def test_the_update_is_openskills_to_the_last_bit():
    model = openskill.PlackettLuce()
    for mus, sigmas, ranks in updates(3000):
        teams = [[model.rating(m, s)] for m, s in zip(mus, sigmas, strict=True)]
        expected = [(team[0].mu, team[0].sigma) for team in model.rate(teams, ranks=ranks)]
        assert kernel_update(mus, sigmas, ranks, model) == expected, (mus, sigmas, ranks)


def test_compiled_and_python_rate_alike():
    code = """if True:
        import json
        from openskill.models import PlackettLuce
        from hot_envs.batched import COMPILED
        from tests.evaluation.test_plackett_luce import kernel_update, updates

        model = PlackettLuce()
        found = [kernel_update(*game, model) for game in updates(200, seed=3)]
        print(json.dumps([COMPILED, found]))
    """
    compiled, python = compiled_and_python(code)
    assert compiled == python
