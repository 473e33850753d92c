"""The uniform random agent and ``play_game``: legal play in every seat of both games through
the AEC environments, seeded determinism, uniformity, and the mask when a view has no list."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from hot_envs import heisse_karten_v0, heisse_luft, heisse_luft_v0
from hot_envs.agents.play import play_game
from hot_envs.agents.random_agent import RandomAgent

SETUPS = [(heisse_luft_v0, {})] + [(heisse_karten_v0, {"num_players": n}) for n in range(2, 7)]
IDS = ["heisse_luft"] + [f"heisse_karten-{n}p" for n in range(2, 7)]


class Recorder:
    """``on_action`` hook: records every action and checks it against the mover's mask."""

    def __init__(self) -> None:
        self.actions: list[tuple[str, int]] = []

    def __call__(self, name: str, observation: dict, view: dict, action: int) -> None:
        assert observation["action_mask"][action] == 1, f"{name} chose masked action {action}"
        assert action in view["legal_actions"]
        self.actions.append((name, action))


@pytest.mark.parametrize(("module", "kwargs"), SETUPS, ids=IDS)
def test_random_agents_play_full_games_in_every_seat(module, kwargs):
    """Every seat played by a random agent, to the end, only legal actions (an illegal one would
    end the game with -1 for its player through TerminateIllegalWrapper)."""
    env = module.env(**kwargs)
    for seed in range(3):
        recorder = Recorder()
        agents = {name: RandomAgent(seed * 10 + i) for i, name in enumerate(env.possible_agents)}
        rewards = play_game(env, agents, seed=seed, on_action=recorder)
        assert {name for name, _ in recorder.actions} == set(env.possible_agents)
        assert not env.agents  # every agent finished its game
        assert sum(rewards.values()) == pytest.approx(0.0)  # zero-sum: no illegal-move penalty


@pytest.mark.parametrize(("module", "kwargs"), SETUPS[:2], ids=IDS[:2])
def test_same_seed_same_actions(module, kwargs):
    def run(agent_seed: int) -> list[tuple[str, int]]:
        env = module.env(**kwargs)
        recorder = Recorder()
        agents = {n: RandomAgent(agent_seed + i) for i, n in enumerate(env.possible_agents)}
        play_game(env, agents, seed=5, on_action=recorder)
        return recorder.actions

    assert run(1) == run(1)
    assert run(1) != run(2)


def test_uniform_over_the_legal_actions():
    state = heisse_luft.State.new(seed=3)
    view = state.view(state.current_player)
    observation = {"action_mask": heisse_luft.action_mask(state, state.current_player)}
    legal = view["legal_actions"]
    agent = RandomAgent(0)
    counts = Counter(agent.act(observation, view) for _ in range(200 * len(legal)))
    assert set(counts) == set(legal)
    expected = 200
    chi2 = sum((counts[a] - expected) ** 2 / expected for a in legal)
    assert chi2 < 3 * len(legal)  # loose: a chi-square with len(legal) - 1 degrees of freedom


def test_uses_the_mask_when_the_view_has_no_legal_actions():
    mask = np.zeros(366, dtype=np.int8)
    mask[[7, 100, 365]] = 1
    agent = RandomAgent(0)
    assert {agent.act({"action_mask": mask}, {}) for _ in range(100)} == {7, 100, 365}


def test_reset_keeps_the_generator_running():
    a, b = RandomAgent(9), RandomAgent(9)
    mask = np.ones(48, dtype=np.int8)
    first = [a.act({"action_mask": mask}, {}) for _ in range(5)]
    a.reset()
    assert [b.act({"action_mask": mask}, {}) for _ in range(5)] == first
