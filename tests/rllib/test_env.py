"""The turn-based RLlib env: observations for the mover only, every seat's reward at the end,
illegal actions counted (not raised), fixed agents moving for a seat, clear config errors."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pytest

from tests.rllib.conftest import needs_ray

if TYPE_CHECKING:
    from hot_envs.rllib.env import TurnBasedEnv

pytestmark = needs_ray

CASES = [("heisse-luft", None), ("heisse-karten", 3)]


def play_random(env: TurnBasedEnv, seed: int):
    """Random legal play to the end; returns the steps' outputs and the movers."""
    rng = np.random.default_rng(seed)
    observations, _ = env.reset(seed=seed)
    steps = []
    while True:
        assert len(observations) == 1  # turn-based: only the mover observes
        ((agent, observation),) = observations.items()
        assert agent == f"player_{env.state.current_player}"
        legal = np.flatnonzero(observation["action_mask"])
        result = env.step({agent: int(rng.choice(legal))})
        steps.append(result)
        observations, _, terminateds, truncateds, _ = result
        if terminateds["__all__"] or truncateds["__all__"]:
            return steps


@pytest.mark.parametrize(("game", "players"), CASES)
def test_a_game_ends_with_every_seats_observation_and_return(game, players) -> None:
    from hot_envs.rllib.env import TurnBasedEnv

    env = TurnBasedEnv({"game": game, "players": players})
    steps = play_random(env, seed=1)
    *middle, (observations, rewards, terminateds, truncateds, _) = steps
    assert all(set(r.values()) <= {0.0} for _, r, *_ in middle)
    assert set(observations) == set(rewards) == set(env.possible_agents)
    returns = env.state.returns()
    assert [rewards[a] for a in env.possible_agents] == returns
    assert terminateds["__all__"] and not truncateds["__all__"]
    assert env.illegal_actions == 0
    space = env.observation_spaces["player_0"]
    assert all(space.contains(o) for o in observations.values())


def test_seeded_resets_deal_the_same_game() -> None:
    from hot_envs.rllib.env import TurnBasedEnv

    env = TurnBasedEnv({"game": "heisse-karten", "players": 4})
    first, _ = env.reset(seed=7)
    again, _ = env.reset(seed=7)
    assert first.keys() == again.keys()
    for agent in first:
        np.testing.assert_array_equal(first[agent]["observation"], again[agent]["observation"])


@pytest.mark.parametrize("bad", ["masked", "out of range"])
def test_an_illegal_action_is_counted_and_ends_the_game_with_minus_one(bad) -> None:
    from hot_envs.rllib.env import TurnBasedEnv

    env = TurnBasedEnv({"game": "heisse-luft"})
    observations, _ = env.reset(seed=0)
    ((agent, observation),) = observations.items()
    action = int(np.flatnonzero(observation["action_mask"] == 0)[0]) if bad == "masked" else 366
    observations, rewards, terminateds, _, infos = env.step({agent: action})
    assert env.illegal_actions == 1
    assert infos == {agent: {"illegal_action": True}}
    assert rewards == {a: (-1.0 if a == agent else 0.0) for a in env.possible_agents}
    assert terminateds["__all__"] and set(observations) == set(env.possible_agents)


def test_a_fixed_agent_moves_for_the_seat_that_hands_over() -> None:
    from hot_envs.rllib.env import TurnBasedEnv, fixed_agent_action

    env = TurnBasedEnv({"game": "heisse-karten", "players": 3, "fixed_agents": ["heuristic"]})
    observations, _ = env.reset(seed=3)
    moves = 0
    while True:
        (agent,) = observations
        before = len(env.state.view(0)["played"])
        observations, _, terminateds, _, _ = env.step({agent: fixed_agent_action(0)})
        moves += 1
        if terminateds["__all__"]:
            break
        assert len(env.state.view(0)["played"]) == before + 1
    assert env.illegal_actions == 0 and moves == 48  # every card played by the heuristic


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"game": "heisse-luft", "players": 3}, "2-player game"),
        ({"game": "heisse-karten", "players": 7}, "7"),
        ({"game": "chess"}, "unknown game"),
        ({"game": "heisse-luft", "seats": 2}, "unknown TurnBasedEnv config keys"),
        ({"game": "heisse-luft", "fixed_agents": ["grandmaster"]}, "unknown agent spec"),
    ],
)
def test_bad_config_is_a_clear_error(config, message) -> None:
    from hot_envs.rllib.env import TurnBasedEnv

    with pytest.raises(ValueError, match=message):
        TurnBasedEnv(config)
