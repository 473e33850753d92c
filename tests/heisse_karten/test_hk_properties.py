"""Property tests over thousands of seeded random games, hundreds for each player count (2–6)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hot_envs.heisse_karten import LAYOUT, State, action_mask, encode
from hot_envs.heisse_karten.facts import CARD_VALUE, MAX_TARGET_ROUNDS, TRICKS_PER_ROUND
from tests.heisse_karten.helpers import play_out, random_states

PLAYER_COUNTS = pytest.mark.parametrize("num_players", range(2, 7))
seeds = st.integers(0, 2**32 - 1)
options = st.one_of(
    st.just({}),
    st.fixed_dictionaries({"rounds": st.integers(1, 3)}),
    st.fixed_dictionaries({"target": st.integers(1, 400), "reward_mode": st.just("score")}),
    st.fixed_dictionaries({"first_leader": st.just("random")}),
)


def cards_of(d: dict) -> list[int]:
    piles = d["hands"] + [d["draw_pile"], d["set_aside"]] + d["taken"]
    return sorted([c for pile in piles for c in pile] + [card for _, card in d["trick"]])


@pytest.mark.slow
@PLAYER_COUNTS
@settings(max_examples=120, deadline=None)
@given(seed=seeds)
def test_cards_scores_and_masks_hold_after_every_action(num_players, seed):
    """48 cards accounted for, scores == taken cards' values, legal actions == mask, the
    observation within its bounds, after every action of a game with the expected trick count."""
    tricks = 0
    for state in random_states(State.new(seed, num_players), seed):
        d = state.to_dict()
        assert cards_of(d) == list(range(1, 49))
        taken_values = [sum(CARD_VALUE[c] for c in pile) for pile in d["taken"]]
        assert state.scores == taken_values
        assert sum(state.scores) == sum(taken_values)
        tricks = sum(len(pile) for pile in d["taken"]) // num_players
        for player in range(num_players):
            mask = action_mask(state, player)
            legal = state.legal_actions() if player == state.current_player else []
            assert mask.dtype == np.int8 and np.flatnonzero(mask).tolist() == legal
        obs = encode(state, state.current_player or 0)
        assert obs.shape == (LAYOUT.size,) and obs.dtype == np.float32
        assert (obs >= LAYOUT.low).all() and (obs <= LAYOUT.high).all()
    assert tricks == TRICKS_PER_ROUND[num_players]
    assert len(state.played) == num_players * tricks


@pytest.mark.slow
@PLAYER_COUNTS
@settings(max_examples=30, deadline=None)
@given(seed=seeds, match=options)
def test_to_dict_from_dict_round_trip(num_players, seed, match):
    """to_dict → JSON → from_dict gives an equal dict, and the copy plays on the same way
    (up to the next deal, which comes from each state's own generator)."""
    state, rng = State.new(seed, num_players, **match), np.random.default_rng(seed)
    while True:
        d = state.to_dict()
        copy = State.from_dict(json.loads(json.dumps(d)), seed=seed)
        assert copy.to_dict() == d
        if state.is_terminal():
            break
        legal = state.legal_actions()
        action = legal[rng.integers(len(legal))]
        state.apply(action)
        copy.apply(action)
        if not state.round_finished or state.is_terminal():
            assert copy.to_dict() == state.to_dict()


@PLAYER_COUNTS
@settings(max_examples=25, deadline=None)
@given(seed=seeds, split=st.integers(0, 44))
def test_a_position_without_played_round_trips_while_it_plays_on(num_players, seed, split):
    """A position set up without ``played`` (its ``taken`` piles from before any history) keeps
    round-tripping as tricks complete: ``taken`` then holds more than ``played`` accounts for."""
    state, rng = State.new(seed, num_players), np.random.default_rng(seed)
    for _ in range(split):
        if state.is_terminal():
            break
        legal = state.legal_actions()
        state.apply(legal[rng.integers(len(legal))])
    d = state.to_dict()
    del d["played"]
    state = State.from_dict(d, seed=seed)
    while True:
        d = state.to_dict()
        assert State.from_dict(json.loads(json.dumps(d)), seed=seed).to_dict() == d
        if state.is_terminal():
            break
        legal = state.legal_actions()
        state.apply(legal[rng.integers(len(legal))])


@pytest.mark.slow
@PLAYER_COUNTS
@settings(max_examples=60, deadline=None)
@given(seed=seeds, split=st.integers(0, 89), other_seed=seeds)
def test_clones_are_independent(num_players, seed, split, other_seed):
    """A clone plays on without touching the original (nor the original the clone), and a clone
    played the same way ends the same, later deals of the match included."""
    state, rng = State.new(seed, num_players, rounds=2), np.random.default_rng(seed)
    for _ in range(split):  # a two-round match has at least 90 actions
        legal = state.legal_actions()
        state.apply(legal[rng.integers(len(legal))])
    at_split = state.to_dict()
    same, other = state.clone(), state.clone()
    play_out(other, other_seed)
    assert state.to_dict() == same.to_dict() == at_split
    play_out(state, seed)
    assert same.to_dict() == at_split
    play_out(same, seed)
    assert same.to_dict() == state.to_dict()
    assert same.returns() == state.returns()


@pytest.mark.slow
@PLAYER_COUNTS
@settings(max_examples=120, deadline=None)
@given(seed=seeds, match=options)
def test_matches_end_as_configured(num_players, seed, match):
    """HK-4.4 a match ends after its rounds, or after the round in which a total reaches the
    target (at most the round cap); totals add up the rounds; rewards sum to zero."""
    state = State.new(seed, num_players, **match)
    rounds = state.options["rounds"]
    target = state.options["target"]
    finished, totals, aside = 0, [0] * num_players, 0
    for _ in random_states(state, seed):
        if state.round_finished:  # every card but the set-aside ones was taken: 600 - 576 = 24
            finished += 1
            assert sum(state.totals) - sum(totals) == 24 - aside
            totals = state.totals
        aside = sum(CARD_VALUE[c] for c in state.set_aside)
    assert finished == state.round + 1 <= rounds
    if target is None:
        assert finished == rounds
    else:
        assert max(state.totals) >= target or finished == rounds == MAX_TARGET_ROUNDS
    assert sum(state.returns()) == pytest.approx(0, abs=1e-9)
    assert state.winners() == [s for s, t in enumerate(state.totals) if t == max(state.totals)]


@pytest.mark.slow
@PLAYER_COUNTS
@settings(max_examples=15, deadline=None)
@given(seed=seeds, view_seed=seeds)
def test_from_view_agrees_with_the_view(num_players, seed, view_seed):
    """from_view builds a full state that gives every player's view back unchanged."""
    rng = np.random.default_rng(view_seed)
    for state in random_states(State.new(seed, num_players, rounds=2), seed):
        for player in {state.current_player or 0, int(rng.integers(num_players))}:
            view = state.view(player)
            assert State.from_view(view, rng).view(player) == view
