"""``critic_state=True``: the single-agent envs append the game's full state (the PettingZoo
env's ``state()``) to each learner's row, after the policy's entries, which stay as they are."""

from __future__ import annotations

import numpy as np
import pytest

from hot_envs.agents.arrays import ActionScorerInput
from hot_envs.core.games import get_game
from hot_envs.envs.single_agent import SingleAgentEnv
from hot_envs.envs.vector import VectorSingleAgentEnv

GAMES = [("heisse-luft", None), ("heisse-karten", [2, 3, 6])]


def state_of(game_name: str, game) -> np.ndarray:
    return get_game(game_name).env.raw_env.encode_state(game)


@pytest.mark.parametrize(("game", "players"), GAMES)
@pytest.mark.parametrize("scorer", [False, True])
def test_the_rows_are_the_policys_input_then_the_state_at_every_step(game, players, scorer):
    def make(critic_state: bool) -> VectorSingleAgentEnv:
        policy_input = ActionScorerInput(game) if scorer else None
        return VectorSingleAgentEnv(
            game,
            num_envs=6,
            players=players,
            opponents=["heuristic"],
            seed=3,
            policy_input=policy_input,
            critic_state=critic_state,
        )

    plain, critic = make(False), make(True)
    size = plain.single_observation_space.shape[0]
    assert critic.actor_size == plain.actor_size == size
    state_size = get_game(game).env.raw_env.state_layout.size
    assert critic.single_observation_space.shape == (size + state_size,)
    rows, _ = critic.reset()
    expected, _ = plain.reset()
    ended = 0
    rng = np.random.default_rng(0)
    for _ in range(50):  # Heiße Luft's first games end from step 24 on
        assert np.array_equal(rows[:, :size], expected)
        for row, played in zip(rows, critic.games, strict=True):
            assert np.array_equal(row[size:], state_of(game, played))
        assert critic.single_observation_space.contains(rows[0])
        actions = [int(rng.choice(np.flatnonzero(m))) for m in critic.action_masks()]
        rows, _, terminated, truncated, info = critic.step(actions)
        expected, _, _, _, plain_info = plain.step(actions)
        for i in np.flatnonzero(terminated | truncated):  # the finished game's last row
            ended += 1
            final = info["final_obs"][i]
            assert np.array_equal(final[:size], plain_info["final_obs"][i])
            assert final[size:].any()  # its state (the new game's is in rows)
    assert ended > 0


def test_the_one_game_env_appends_the_state_too():
    env = SingleAgentEnv("heisse-karten", players=4, opponents=["heuristic"], critic_state=True)
    observation, _ = env.reset(seed=5)
    size = env.actor_size
    assert size == get_game("heisse-karten").engine.LAYOUT.size
    while True:
        encode = get_game("heisse-karten").engine.encode
        assert np.array_equal(observation[:size], encode(env.game, env.seat))
        assert np.array_equal(observation[size:], state_of("heisse-karten", env.game))
        action = int(np.flatnonzero(env.action_masks())[0])
        observation, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            break


def test_critic_state_must_be_a_bool():
    with pytest.raises(ValueError, match="critic_state"):
        VectorSingleAgentEnv("heisse-luft", num_envs=2, critic_state="yes")
