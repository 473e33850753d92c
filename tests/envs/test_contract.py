"""The contract both environments keep (docs/environments.md), written once and run for every
game setup: PettingZoo's API, seeding and render tests, registration, spaces, determinism, the
wrappers' handling of bad actions, and the information rule (no hidden card reaches an
observation).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import hot_envs  # noqa: F401  (registers the environments)
from hot_envs import heisse_karten, heisse_karten_v0
from hot_envs.core.errors import IllegalActionError
from tests.helpers import SETUPS, Setup, play_random, random_positions

setups = pytest.mark.parametrize("setup", SETUPS, ids=str)


@setups
def test_pettingzoo_api_test(setup: Setup) -> None:
    api_test(setup.env(), num_cycles=500)


@setups
def test_pettingzoo_seed_test(setup: Setup) -> None:
    seed_test(setup.env, num_cycles=300)


@setups
def test_pettingzoo_render_test(setup: Setup) -> None:
    render_test(setup.env)


@setups
def test_registered_with_pettingzoo(setup: Setup) -> None:
    env = pettingzoo.make("aec", setup.env_id, **setup.kwargs)
    env.reset(seed=1)
    assert env.unwrapped.metadata["name"] == setup.env_module.raw_env.metadata["name"]


@setups
def test_metadata_and_spaces(setup: Setup) -> None:
    env = setup.env()
    raw = env.unwrapped
    assert raw.metadata["render_modes"] == ["human", "ansi", "rgb_array"]
    assert raw.metadata["render_fps"] > 0
    assert raw.metadata["is_parallelizable"] is False
    assert raw.metadata["name"].endswith("_v0")
    for agent in env.possible_agents:
        space = env.observation_space(agent)
        assert space["observation"].shape == (setup.engine.LAYOUT.size,)
        assert space["observation"].dtype == np.float32
        assert space["action_mask"].dtype == np.int8
        assert env.action_space(agent).n == setup.engine.NUM_ACTIONS
    assert env.possible_agents == [f"player_{i}" for i in range(len(env.possible_agents))]


@setups
def test_same_seed_same_game(setup: Setup) -> None:
    assert play_random(setup.env(), seed=11) == play_random(setup.env(), seed=11)
    assert play_random(setup.env(), seed=11) != play_random(setup.env(), seed=12)


@setups
def test_final_rewards_are_the_engine_returns(setup: Setup) -> None:
    env = setup.env()
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        if terminated or truncated:
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    returns = env.unwrapped.game.returns()
    assert [totals[a] for a in env.possible_agents] == pytest.approx(returns)
    assert sum(returns) == pytest.approx(0.0)


@setups
def test_mask_marks_exactly_the_legal_actions(setup: Setup) -> None:
    env = setup.env()
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    for agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        game = env.unwrapped.game
        assert np.flatnonzero(obs["action_mask"]).tolist() == game.legal_actions()
        assert env.unwrapped.view(agent)["legal_actions"] == game.legal_actions()
        for other in env.agents:
            if other != agent:
                assert not env.observe(other)["action_mask"].any()
                assert env.unwrapped.view(other)["legal_actions"] == []
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


@setups
def test_illegal_action_ends_the_game_with_minus_one(setup: Setup) -> None:
    env = setup.env()
    env.reset(seed=2)
    agent = env.agent_selection
    illegal = int(np.flatnonzero(env.observe(agent)["action_mask"] == 0)[0])
    env.step(illegal)  # PettingZoo's logger warns; the game ends
    assert all(env.terminations.values())
    assert env.rewards[agent] == -1
    assert all(r == 0 for a, r in env.rewards.items() if a != agent)


@setups
def test_out_of_bounds_action_asserts(setup: Setup) -> None:
    env = setup.env()
    env.reset(seed=2)
    with pytest.raises(AssertionError):
        env.step(setup.engine.NUM_ACTIONS)


@setups
def test_raw_env_raises_illegal_action_error_and_changes_nothing(setup: Setup) -> None:
    env = setup.raw_env()
    env.reset(seed=4)
    before = env.unwrapped.game.to_dict()
    mask = env.observe(env.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(IllegalActionError, match=str(illegal)):
        env.step(illegal)
    assert env.unwrapped.game.to_dict() == before


@setups
def test_bad_options_fail_at_construction(setup: Setup) -> None:
    """An unknown option is a ValueError naming it, from the env and the engine alike (both take
    options as keywords: ``State.new(seed=None, **options)``)."""
    with pytest.raises(ValueError, match="no_such_option"):
        setup.env(no_such_option=1)
    with pytest.raises(ValueError, match="no_such_option"):
        setup.engine.State.new(seed=0, **setup.kwargs, no_such_option=1)
    with pytest.raises(ValueError):
        setup.env(render_mode="rgb_arrays")


@pytest.mark.parametrize("players", [0, 1, 7, "4", 2.0])
def test_wrong_player_count_is_refused(players: Any) -> None:
    with pytest.raises(ValueError, match="num_players"):
        heisse_karten_v0.env(num_players=players)
    with pytest.raises(ValueError, match="num_players"):
        heisse_karten.State.new(seed=0, num_players=players)


@setups
def test_no_hidden_information_in_observation_or_view(setup: Setup) -> None:
    """Redealing every card a player cannot see (State.from_view) leaves that player's
    observation and view unchanged — and from_view's states are consistent with the view."""
    rng = np.random.default_rng(0)
    changed = 0
    for state in random_positions(setup, games=8):
        for player in range(state.num_players):
            view = state.view(player)
            other = setup.engine.State.from_view(view, rng)
            assert other.view(player) == view
            np.testing.assert_array_equal(
                setup.engine.encode(other, player), setup.engine.encode(state, player)
            )
            changed += other.to_dict() != state.to_dict()
    assert changed > 0  # the redeal did move hidden cards


@setups
def test_observation_lies_in_its_space(setup: Setup) -> None:
    env = setup.env()
    env.reset(seed=0)
    for state in random_positions(setup, games=4):
        env.unwrapped.game = state
        for agent in env.possible_agents:
            assert env.observation_space(agent).contains(env.observe(agent))


@setups
def test_engine_clone_is_independent(setup: Setup) -> None:
    for state in random_positions(setup, games=2)[::5]:
        before = state.to_dict()
        clone = state.clone()
        while not clone.is_terminal():
            clone.apply(clone.legal_actions()[0])
        assert state.to_dict() == before


@setups
def test_actions_after_the_end_are_refused(setup: Setup) -> None:
    state = setup.new_state(9)
    while not state.is_terminal():
        state.apply(state.legal_actions()[-1])
    assert state.legal_actions() == []
    with pytest.raises(IllegalActionError, match="over"):
        state.apply(0)


@setups
def test_reset_can_set_up_a_position(setup: Setup) -> None:
    state = random_positions(setup, games=1, seed=21)[3]
    env = setup.env()
    env.reset(seed=0, options={"state": state.to_dict()})
    game = env.unwrapped.game
    assert game.to_dict() == state.to_dict()
    assert env.agent_selection == f"player_{state.current_player}"
    with pytest.raises(ValueError):
        env.reset(options={"state": {"phase": "nonsense"}})


def test_docs_hold_the_current_observation_tables() -> None:
    """docs/environments.md holds the layouts' tables (``python -m hot_envs.cli.docs`` writes
    them)."""
    from hot_envs.cli.docs import DOC, with_tables

    text = DOC.read_text(encoding="utf-8")
    assert with_tables(text) == text, "run: python -m hot_envs.cli.docs"


@setups
def test_env_docstring_documents_the_observation_table(setup: Setup) -> None:
    doc = setup.env_module.raw_env.__doc__
    assert setup.engine.LAYOUT.table() in doc
    for section in (
        "Description",
        "Action Space",
        "Observation Space",
        "Rewards",
        "Starting State",
        "Episode End",
        "Arguments",
    ):
        assert f"## {section}" in doc
