"""The observation vector against its documented layout, and the rendering."""

from __future__ import annotations

import numpy as np
import pytest

from hot_envs.heisse_karten import LAYOUT, State, action_mask, encode
from hot_envs.heisse_karten.facts import card_label
from tests.heisse_karten.helpers import play_out, position


def test_the_layout_is_version_1():
    assert LAYOUT.version == 1


@pytest.mark.parametrize("num_players", range(2, 7))
def test_one_shape_for_every_player_count(num_players):
    state = State.new(0, num_players)
    obs = LAYOUT.split(encode(state, 0))
    assert encode(state, num_players - 1).shape == (LAYOUT.size,) == (670,)
    assert obs["seats"].tolist() == [1.0] * num_players + [0.0] * (6 - num_players)
    assert obs["num_players"].tolist() == [float(n == num_players) for n in range(2, 7)]
    assert obs["hand_sizes"].tolist() == [1.0] * num_players + [0.0] * (6 - num_players)


def test_pieces_are_relative_to_the_observer():
    """Player_2 leads 10 and player_0 plays 5; player_1 observes: player_2 is its relative seat
    1 (next), player_0 its relative seat 2."""
    state = State.from_dict(position([[3], [6, 7], [11]], trick=[10, 5], leader=2))
    assert state.current_player == 1
    obs = LAYOUT.split(encode(state, 1))
    assert np.flatnonzero(obs["hand"]).tolist() == [5, 6]
    assert np.argwhere(obs["trick"]).tolist() == [[1, 9], [2, 4]]
    assert np.array_equal(obs["played"], obs["trick"])
    assert obs["leader"].tolist() == [0, 1, 0, 0, 0, 0]
    assert obs["trick_position"].tolist() == [0, 0, 1, 0, 0, 0]
    assert obs["hand_sizes"][:3].tolist() == [2 / 8, 1 / 8, 1 / 8]
    assert obs["scores"][:3].tolist() == pytest.approx([0, state.scores[2] / 600, 0])
    assert obs["draw_pile"][0] == obs["set_aside"][0] == obs["target_match"][0] == 0
    assert obs["tricks_done"][0] == pytest.approx(14 / 16)  # 42 cards taken, 16 tricks a round
    assert np.flatnonzero(action_mask(state, 1)).tolist() == [5, 6]
    assert not action_mask(state, 0).any() and not action_mask(state, 2).any()


def test_match_pieces_are_scaled_into_their_bounds():
    state = State.from_dict(
        position([[2], [4]], options={"target": 100}, totals=[99, -700], round=3)
    )
    obs = LAYOUT.split(encode(state, 1))
    assert obs["totals"][:2].tolist() == [-1.0, pytest.approx(0.99)]
    assert obs["match_round"][0] == 3 / 100 and obs["target_match"][0] == 1
    fixed = State.from_dict(position([[2], [4]], options={"rounds": 4}, totals=[300, 0], round=2))
    obs = LAYOUT.split(encode(fixed, 0))
    assert obs["totals"][:2].tolist() == [pytest.approx(300 / 2400), 0.0]
    assert obs["match_round"][0] == 0.5


def test_render_shows_only_the_viewers_hand():
    state = State.new(5, 3, rounds=2)
    text = state.render(1)
    assert f"Hand of player_1: {' '.join(card_label(c) for c in state.hands[1])}" in text
    assert "Hand of" not in state.render()
    assert "Totals:" in text and "To move: player_0" in text
    play_out(state, 5)
    assert "Game over. Winners:" in state.render()
