"""What ``done`` from ``ArrayGames.step`` means: the game *is over* — it stays set on later steps
until ``reset_done`` deals the game again — and the games that ended on a step are
``done & ~before``; their returns come on that step alone."""

from __future__ import annotations

import numpy as np
import pytest

from hot_envs import batched


@pytest.mark.parametrize("game", ["heisse-luft", "heisse-karten"])
def test_done_means_over_and_the_step_that_ends_a_game_gives_its_rewards(game):
    options = {"num_players": 3} if game == "heisse-karten" else {}
    games = batched.make(game, 8, **options)
    games.reset(seed=1)
    rng = np.random.default_rng(1)
    ended_on = np.full(8, -1)
    step = 0
    while not games.done.all():
        before = games.done.copy()
        rewards, done = games.step(games.sample_legal(rng))
        ended = done & ~before
        assert (done >= before).all()  # a game over stays over
        assert (done == games.done).all()  # the same flags
        assert not rewards[~ended].any()  # returns on the step that ends a game alone
        if game == "heisse-karten":  # zero-sum win rewards: a winner in every ended game
            assert (rewards[ended].max(axis=1) > 0).all()
        ended_on[ended] = step
        step += 1
    assert (ended_on >= 0).all()
    rewards, done = games.step(np.zeros(8, dtype=np.int64))  # every game over: nothing moves
    assert done.all() and not rewards.any()
    dealt = games.reset_done()
    assert dealt.all() and not done.any()  # the view shows the new deals
