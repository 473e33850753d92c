"""Action features (hot_envs.agents.features): the packed input of action-scoring policies."""

from __future__ import annotations

import numpy as np
import pytest

from hot_envs.agents import make_agent
from hot_envs.agents.features import SPECS, action_features, policy_input, unpack
from hot_envs.core.games import get_game

CASES = [("heisse-luft", None), ("heisse-karten", 2), ("heisse-karten", 4), ("heisse-karten", 6)]


def _positions(game: str, players: int | None, games: int = 4, seed: int = 0):
    """(state, seat) at every decision of heuristic-vs-random games."""
    engine = get_game(game).engine
    for g in range(games):
        state = engine.State.new(
            seed=seed + g, **({} if players is None else {"num_players": players})
        )
        agents = [
            make_agent("heuristic" if p == 0 else "random", game, seed=g)
            for p in range(state.num_players)
        ]
        while not state.is_terminal():
            seat = state.current_player
            yield state, seat
            observation = {
                "observation": engine.encode(state, seat),
                "action_mask": engine.action_mask(state, seat),
            }
            state.apply(agents[seat].act(observation, state.view(seat)))


@pytest.mark.parametrize(("game", "players"), CASES)
def test_packed_input_holds_observation_features_and_legal_ids(game, players):
    engine = get_game(game).engine
    spec = SPECS[game]
    for state, seat in _positions(game, players, games=2):
        view = state.view(seat)
        packed = policy_input(game, engine.encode(state, seat), view)
        assert packed.shape == (spec.input_size,) and packed.dtype == np.float32
        observations, features, ids = unpack(spec, packed[None])
        legal = state.legal_actions()
        assert np.array_equal(observations[0], engine.encode(state, seat))
        assert ids[0, : len(legal)].tolist() == legal
        assert (ids[0, len(legal) :] == -1).all()
        assert not features[0, len(legal) :].any()
        assert np.isfinite(features).all()
        assert np.array_equal(features[0, : len(legal)], action_features(game, view, legal))


@pytest.mark.parametrize(("game", "players"), CASES)
def test_the_best_flag_marks_the_heuristics_choice(game, players):
    """The feature "is best" holds the heuristic's argmax (its ties included)."""
    engine = get_game(game).engine
    best_flag = {"heisse-luft": 33, "heisse-karten": 19}[game]
    checked = 0
    for state, seat in _positions(game, players, games=2, seed=10):
        legal = state.legal_actions()
        if len(legal) < 2:
            continue
        view = state.view(seat)
        observation = {
            "observation": engine.encode(state, seat),
            "action_mask": engine.action_mask(state, seat),
        }
        choice = make_agent("heuristic", game, seed=checked).act(observation, view)
        flags = action_features(game, view, legal)[:, best_flag]
        assert flags[legal.index(choice)] == 1.0
        checked += 1
    assert checked > 20


@pytest.mark.parametrize(("game", "players"), CASES)
def test_features_leak_nothing_hidden(game, players):
    """HL-8 / HK-5: a state redealt from a player's view (other hands and piles redrawn) gives
    that player the same packed input."""
    engine = get_game(game).engine
    rng = np.random.default_rng(1)
    differed = 0
    for state, seat in _positions(game, players, games=2, seed=20):
        view = state.view(seat)
        other = engine.State.from_view(view, rng)
        differed += other.to_dict() != state.to_dict()
        a = policy_input(game, engine.encode(state, seat), view)
        b = policy_input(game, engine.encode(other, seat), other.view(seat))
        assert np.array_equal(a, b)
    assert differed > 20  # the redeals really hid different cards


def test_more_legal_actions_than_slots_is_a_clear_error():
    engine = get_game("heisse-karten").engine
    state = engine.State.new(seed=0, num_players=2)
    view = state.view(0)
    view["legal_actions"] = list(range(SPECS["heisse-karten"].slots + 1))
    with pytest.raises(ValueError, match="action slots"):
        policy_input("heisse-karten", engine.encode(state, 0), view)
