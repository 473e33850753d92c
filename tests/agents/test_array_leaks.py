"""No hidden card reaches what the array agents read (HL-8, HK-5): two positions that differ
only in what the seat to move cannot see — the other hands, the piles' order — give it the same
heuristic scores, the same action-scorer rows and the same heuristic moves from the arrays."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from hot_envs import batched
from hot_envs.agents import array_karten, array_luft
from hot_envs.agents.heuristic_karten import HeisseKartenHeuristic
from hot_envs.agents.heuristic_luft import HeisseLuftHeuristic
from hot_envs.heisse_karten import State as KartenState
from hot_envs.heisse_luft import State as LuftState
from tests.heisse_luft.test_information import HIDDEN_EDITS


def luft_pairs(count: int, seed: int) -> list[tuple[dict, dict]]:
    """Heiße Luft positions of random play and the same with hidden cards moved for the
    mover (the information tests' edits: hand against draw pile, the piles reshuffled)."""
    rng, pairs = random.Random(seed), []
    while len(pairs) < count:
        state = LuftState.new(seed=rng.randrange(2**32))
        for _ in range(rng.randrange(0, 120)):
            if state.is_terminal():
                break
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
        if state.is_terminal():
            continue
        edit = HIDDEN_EDITS[len(pairs) % len(HIDDEN_EDITS)]
        other = edit(state, state.current_player, rng)
        if other != state.to_dict():
            pairs.append((state.to_dict(), other))
    return pairs


def karten_pairs(count: int, num_players: int, seed: int) -> list[tuple[dict, dict]]:
    """Heiße Karten positions of random play and the same with the other hands, the draw pile
    and the cards set aside dealt anew (sizes kept)."""
    rng, pairs = np.random.default_rng(seed), []
    while len(pairs) < count:
        state = KartenState.new(int(rng.integers(2**32)), num_players)
        for _ in range(int(rng.integers(0, 40))):
            legal = state.legal_actions()
            state.apply(legal[int(rng.integers(len(legal)))])
        if state.is_terminal():
            continue
        d, seat = state.to_dict(), state.current_player
        hidden = [c for s, hand in enumerate(d["hands"]) if s != seat for c in hand]
        hidden += d["draw_pile"] + d["set_aside"]
        shuffled = [int(c) for c in rng.permutation(hidden)]
        other = json.loads(json.dumps(d))
        for s in range(num_players):
            if s != seat:
                size = len(other["hands"][s])
                other["hands"][s], shuffled = sorted(shuffled[:size]), shuffled[size:]
        size = len(other["draw_pile"])
        other["draw_pile"], other["set_aside"] = shuffled[:size], shuffled[size:]
        if other != d:
            pairs.append((d, other))
    return pairs


def loaded(game: str, pairs: list[tuple[dict, dict]], **options) -> batched.ArrayGames:
    """Game 2k holds pair k's first position, game 2k + 1 its second."""
    games = batched.make(game, 2 * len(pairs), **options)
    games.reset(seed=0)
    for k, (first, second) in enumerate(pairs):
        games.load(2 * k, first)
        games.load(2 * k + 1, second)
    return games


def assert_blind(games, module, heuristic, scores) -> None:
    which = np.arange(games.num_games)
    found = scores(games, which)
    np.testing.assert_array_equal(found[0::2], found[1::2])  # NaNs at the same places too
    seats = games.current_player
    observations = games.observe()
    rows = np.zeros((games.num_games, module.SPEC.input_size), dtype=np.float32)
    module.fill_policy_input(games, which, seats, observations, rows)
    np.testing.assert_array_equal(rows[0::2], rows[1::2])
    first = module.ArrayHeuristic(heuristic(5, epsilon=0.1)).act_arrays(games, which[0::2])
    second = module.ArrayHeuristic(heuristic(5, epsilon=0.1)).act_arrays(games, which[1::2])
    assert first.tolist() == second.tolist()


def test_hidden_heisse_luft_cards_change_nothing_an_array_agent_reads():
    pairs = luft_pairs(90, seed=1)
    games = loaded("heisse-luft", pairs)
    assert_blind(games, array_luft, HeisseLuftHeuristic, array_luft.play_scores)


@pytest.mark.parametrize("num_players", [2, 4, 6])
def test_hidden_heisse_karten_cards_change_nothing_an_array_agent_reads(num_players):
    pairs = karten_pairs(60, num_players, seed=num_players)
    games = loaded("heisse-karten", pairs, num_players=num_players)
    assert_blind(games, array_karten, HeisseKartenHeuristic, array_karten.card_scores)


def test_the_comparison_sees_a_visible_difference():
    """It can fail: two positions the mover can tell apart (another hand of its own) give it
    other rows."""
    (first, _), (second, _) = karten_pairs(2, 3, seed=9)
    games = loaded("heisse-karten", [(first, second)], num_players=3)
    rows = np.zeros((2, array_karten.SPEC.input_size), dtype=np.float32)
    array_karten.fill_policy_input(games, np.arange(2), games.current_player, games.observe(), rows)
    assert not np.array_equal(rows[0], rows[1])
