"""``observe``/``decide``, the step every engine-driven loop shares, give an agent exactly what
the environment gives it: the same observation dict and view, so the same action."""

from __future__ import annotations

import numpy as np
import pytest

from hot_envs.agents import make_agent
from hot_envs.agents.base import decide, observe
from hot_envs.core.games import GAMES


@pytest.mark.parametrize("game", GAMES.values(), ids=lambda g: g.name)
def test_decide_sees_what_the_environment_shows(game) -> None:
    env = game.env.env(**game.options(3 if game.max_players >= 3 else 2))
    env.reset(seed=4)
    engine, state = game.engine, env.unwrapped.game
    for name in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        seat = state.current_player
        ours = observe(engine, state, seat)
        assert ours.keys() == observation.keys()
        for key in ours:
            np.testing.assert_array_equal(ours[key], observation[key])
            assert ours[key].dtype == observation[key].dtype
        view = env.unwrapped.view(name)
        action = make_agent("heuristic", game.name, seed=seat).act(observation, view)
        assert decide(make_agent("heuristic", game.name, seed=seat), engine, state, seat) == action
        env.step(action)
