"""No hidden information leaks (HK-5): what a player cannot see never changes what they get."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hot_envs.heisse_karten import State, action_mask, encode
from tests.heisse_karten.helpers import position, random_states

PLAYER_COUNTS = pytest.mark.parametrize("num_players", range(2, 7))


def reshuffle_hidden(d: dict, viewer: int, rng: np.random.Generator) -> dict:
    """``d`` with the cards ``viewer`` cannot see (other hands, draw pile, set-aside cards)
    shuffled among those places, each keeping its size."""
    others = [seat for seat in range(d["num_players"]) if seat != viewer]
    places = [d["hands"][seat] for seat in others] + [d["draw_pile"], d["set_aside"]]
    hidden = [card for place in places for card in place]
    rng.shuffle(hidden)
    new, start = [], 0
    for place in places:
        new.append(hidden[start : start + len(place)])
        start += len(place)
    hands = list(d["hands"])
    for seat, hand in zip(others, new, strict=False):
        hands[seat] = hand
    return {**d, "hands": hands, "draw_pile": new[-2], "set_aside": new[-1]}


def seen_by(state: State, viewer: int) -> tuple:
    return (
        state.view(viewer),
        encode(state, viewer).tobytes(),
        action_mask(state, viewer).tobytes(),
        state.render(viewer),
    )


@PLAYER_COUNTS
@settings(max_examples=80, deadline=None)  # per table size: 400 in all
@given(
    seed=st.integers(0, 2**32 - 1),
    rounds=st.sampled_from([1, 3]),
    steps=st.integers(0, 3 * 48),
    shuffle_seed=st.integers(0, 99),
)
def test_hk_5_hidden_cards_change_nothing_a_player_gets(
    num_players, seed, rounds, steps, shuffle_seed
):
    """HK-5 other hands, the draw pile's order and the set-aside cards leave a player's view,
    observation, mask and rendering unchanged — at any play of a game or of a 3-round match
    (HK-4.4), the last plays and the finished game included."""
    state = State.new(seed, num_players, rounds=rounds, first_leader="random")
    for i, _ in enumerate(random_states(state, seed)):
        if i == steps:
            break
    rng = np.random.default_rng(shuffle_seed)
    d = state.to_dict()
    for viewer in range(num_players):
        other = State.from_dict(reshuffle_hidden(d, viewer, rng))
        assert seen_by(other, viewer) == seen_by(state, viewer)


def test_hk_5_draw_pile_order_is_hidden_from_everybody():
    """HK-5 nobody sees the draw pile's order."""
    state = State.new(9, 3)
    d = state.to_dict()
    other = State.from_dict({**d, "draw_pile": d["draw_pile"][::-1]})
    for viewer in range(3):
        assert seen_by(other, viewer) == seen_by(state, viewer)


def test_a_swap_between_two_hands_shows_only_to_their_owners():
    """The leak test can fail: a card moved between player_1 and player_2 shows to them only."""
    d = position([[2, 4], [6, 8], [10, 12]])
    swapped = {**d, "hands": [[2, 4], [6, 10], [8, 12]]}
    state, other = State.from_dict(d), State.from_dict(swapped)
    assert seen_by(other, 0) == seen_by(state, 0)
    for viewer in (1, 2):
        assert not np.array_equal(encode(other, viewer), encode(state, viewer))
        assert other.view(viewer) != state.view(viewer)
