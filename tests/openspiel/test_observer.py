"""Observation and information-state tensors and strings through OpenSpiel's observer API: the
tensor is the environment's observation, and nothing a player may not know (HL-8, HK-5) reaches
that player's tensors or strings."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from open_spiel.python.observation import INFO_STATE_OBS_TYPE, make_observation

from hot_envs import heisse_karten, heisse_karten_v0, heisse_luft, heisse_luft_v0
from hot_envs.openspiel import KARTEN, LUFT
from tests.openspiel.helpers import GAME_STRINGS, decision_states

PUBLIC = pyspiel.IIGObservationType(
    public_info=True, perfect_recall=False, private_info=pyspiel.PrivateInfoType.NONE
)
PRIVATE = pyspiel.IIGObservationType(
    public_info=False, perfect_recall=False, private_info=pyspiel.PrivateInfoType.SINGLE_PLAYER
)


def _observations(game):
    """Every observer the game offers, by name."""
    return {
        "observation": make_observation(game),
        "information state": make_observation(game, INFO_STATE_OBS_TYPE),
        "public": make_observation(game, PUBLIC),
        "private": make_observation(game, PRIVATE),
    }


def _seen(observations, state, player: int) -> dict:
    """What ``player`` gets from every observer: strings and tensors, and pyspiel's own."""
    seen = {}
    for name, observation in observations.items():
        seen[name] = observation.string_from(state, player)
        if observation.tensor is not None:
            observation.set_from(state, player)
            seen[name + " tensor"] = observation.tensor.copy()
    seen["InformationStateString"] = state.information_state_string(player)
    seen["InformationStateTensor"] = np.array(state.information_state_tensor(player))
    seen["ObservationString"] = state.observation_string(player)
    seen["ObservationTensor"] = np.array(state.observation_tensor(player))
    return seen


def _same(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)


@pytest.mark.parametrize(
    "game_string, env_module, kwargs",
    [
        (LUFT, heisse_luft_v0, {}),
        ("python_heisse_karten(players=3)", heisse_karten_v0, {"num_players": 3}),
        ("python_heisse_karten(players=6)", heisse_karten_v0, {"num_players": 6}),
    ],
)
def test_the_tensors_are_the_environments_observation(game_string, env_module, kwargs) -> None:
    game = pyspiel.load_game(game_string)
    env = env_module.env(**kwargs)
    observations = _observations(game)
    for state in decision_states(game_string, seed=1, every=3):
        if not state.is_terminal():
            env.reset(options={"state": state.engine.to_dict()})
        for player in range(game.num_players()):
            expected = (
                env.observe(f"player_{player}")["observation"]
                if not state.is_terminal()
                else env.unwrapped.encode(state.engine, player)
            )
            assert np.array_equal(np.array(state.observation_tensor(player), np.float32), expected)
            assert np.array_equal(
                np.array(state.information_state_tensor(player), np.float32), expected
            )
            observations["observation"].set_from(state, player)
            assert observations["observation"].tensor.dtype == np.float32
            assert np.array_equal(observations["observation"].tensor, expected)


def test_the_tensor_pieces_are_the_layouts() -> None:
    for game_string, engine in ((LUFT, heisse_luft), (KARTEN, heisse_karten)):
        observation = make_observation(pyspiel.load_game(game_string))
        assert list(observation.dict) == [piece.name for piece in engine.LAYOUT.pieces]
        assert [v.shape for v in observation.dict.values()] == [
            piece.shape for piece in engine.LAYOUT.pieces
        ]
        assert observation.tensor.size == engine.LAYOUT.size
        assert pyspiel.load_game(game_string).observation_tensor_size() == engine.LAYOUT.size
    assert make_observation(pyspiel.load_game(LUFT), PUBLIC).tensor is None


def test_the_strings_show_the_players_hand_and_the_information_state_the_actions() -> None:
    state = next(decision_states("python_heisse_karten(players=3)", seed=0, every=4))
    for _ in range(2):  # two cards played
        state.apply_action(state.legal_actions()[0])
    hand = state.engine.hands[1]
    observation = state.observation_string(1)
    assert "Hand of player_1:" in observation and "Hand of player_0" not in observation
    public = make_observation(state.get_game(), PUBLIC).string_from(state, 1)
    assert "Hand of" not in public
    private = make_observation(state.get_game(), PRIVATE).string_from(state, 1)
    assert private.startswith("Hand of player_1:") and str(hand[0]) in private
    moves = [f"{a.player}:{a.action}" for a in state.full_history() if a.player >= 0]
    assert state.information_state_string(1).endswith("Actions: " + " ".join(moves))
    assert len(moves) == 2


def test_other_observation_kinds_are_refused() -> None:
    game = pyspiel.load_game(KARTEN)
    every = pyspiel.IIGObservationType(
        perfect_recall=False, private_info=pyspiel.PrivateInfoType.ALL_PLAYERS
    )
    with pytest.raises(ValueError, match="every player's private cards"):
        make_observation(game, every)
    with pytest.raises(ValueError, match="observation parameters are not supported"):
        make_observation(game, None, {"cards": 1})


@pytest.mark.parametrize("game_string", GAME_STRINGS)
def test_nothing_hidden_leaks_into_a_players_tensors_or_strings(game_string: str) -> None:
    """Deal a player's unseen cards again (``resample_from_infostate``): everything that player
    gets must stay the same, while the full state (hands, piles) changes."""
    game = pyspiel.load_game(game_string)
    observations = _observations(game)
    rng = np.random.default_rng(7)
    resampled = checked = 0
    for state in decision_states(game_string, seed=3, every=4):
        if state.is_terminal():
            continue
        for player in range(game.num_players()):
            other = state.resample_from_infostate(player, rng.random)
            resampled += str(other) != str(state)
            assert _same(_seen(observations, other, player), _seen(observations, state, player))
            checked += 1
    assert checked >= 10
    assert resampled >= checked // 2  # the hidden cards did change


def test_the_leak_test_catches_a_leak() -> None:
    """The same comparison sees the full state's string change: a string that showed a hidden
    card would fail the test above."""
    state = next(decision_states(KARTEN, seed=0, every=3))
    rng = np.random.default_rng(0)
    other = state.resample_from_infostate(0, rng.random)
    assert str(other) != str(state)
    assert other.observation_string(1) != state.observation_string(1)  # seat 1's hand
