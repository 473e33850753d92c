"""PettingZoo's optional ``state()`` / ``state_space`` (docs/environments.md, "The full state:
``state()`` and ``state_space``"): the full game as one flat vector in seat order, in its space,
read back to the engine's own state, and never part of an observation.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import state_test
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from hot_envs import heisse_karten, heisse_karten_v0, heisse_luft
from hot_envs.heisse_karten import state_encoding as hk_state
from hot_envs.heisse_karten.facts import BLACK_SUM, HAND_SIZE
from hot_envs.heisse_luft import state_encoding as hl_state
from hot_envs.heisse_luft.facts import DRAW, NUM_CARDS, OVER, SUIT_SIZES, TROPHY
from tests.helpers import SETUPS, Setup, play_random, random_positions

# The contract's setups, plus Heiße Karten matches: totals, rounds, a drawn first leader and
# score rewards all reach the state vector.
MATCHES = [
    Setup(
        heisse_karten_v0,
        heisse_karten,
        "hot_envs/heisse_karten-v0",
        {"num_players": 3, "rounds": 2, "first_leader": "random", "reward_mode": "score"},
    ),
    Setup(
        heisse_karten_v0,
        heisse_karten,
        "hot_envs/heisse_karten-v0",
        {"num_players": 5, "target": 150},
    ),
]
ALL = SETUPS + MATCHES
setups = pytest.mark.parametrize("setup", SETUPS, ids=str)
all_setups = pytest.mark.parametrize("setup", ALL, ids=str)


def state_module(setup: Setup) -> Any:
    return hl_state if setup.engine is heisse_luft else hk_state


def game_facts(state: Any) -> dict:
    """``state.to_dict()`` without what never matters to the game: the order of Heiße Karten's
    set-aside cards, which are never drawn (HK-2.3)."""
    d = state.to_dict()
    if "set_aside" in d:
        d["set_aside"] = sorted(d["set_aside"])
    return d


@setups
def test_pettingzoo_state_test(setup: Setup) -> None:
    """PettingZoo's own state test passes, and warns about nothing (bounds, dtype, shape)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any warning of state_test fails the test
        state_test(setup.env(), turn_based_aec_to_parallel(setup.env()), num_cycles=100)


@all_setups
def test_state_space_is_the_layout_on_every_instance(setup: Setup) -> None:
    env = setup.env()
    layout = state_module(setup).STATE_LAYOUT
    space = env.state_space  # through the wrappers, as PettingZoo's tests read it
    assert space is env.unwrapped.state_space
    assert env.unwrapped.state_layout is layout
    assert space.shape == (layout.size,) and space.dtype == np.float32
    np.testing.assert_array_equal(space.low, layout.low)
    np.testing.assert_array_equal(space.high, layout.high)
    assert (space.low < space.high).all()
    assert space is not setup.env().state_space  # one per instance, like the other spaces


def test_heisse_karten_state_has_one_shape_for_every_player_count() -> None:
    shapes = {heisse_karten_v0.env(num_players=n).state_space.shape for n in range(2, 7)}
    assert shapes == {(hk_state.STATE_SIZE,)}


@all_setups
def test_state_lies_in_its_space_and_depends_only_on_the_game(setup: Setup) -> None:
    """Over many positions of random games: in the space, float32, the same for the same game
    (a clone, a second call), and reading it changes nothing."""
    env = setup.raw_env()
    env.reset(seed=0)
    encode_state = state_module(setup).encode_state
    for state in random_positions(setup, games=6, seed=3):
        env.unwrapped.game = state
        before = state.to_dict()
        vector = env.state()
        assert vector.dtype == np.float32 and vector.shape == env.state_space.shape
        assert env.state_space.contains(vector)
        np.testing.assert_array_equal(vector, env.state())
        np.testing.assert_array_equal(vector, encode_state(state.clone()))
        assert state.to_dict() == before


@all_setups
def test_observations_are_the_same_with_or_without_state(setup: Setup) -> None:
    """Calling state() before every move leaves every observation, mask and reward as it was,
    and the observation keeps its keys and shape."""

    class CallsState:
        """The env, with state() called on every last()."""

        def __init__(self, env: Any) -> None:
            self.env = env

        def __getattr__(self, name: str) -> Any:
            return getattr(self.env, name)

        def last(self) -> Any:
            self.env.state()
            return self.env.last()

    plain = play_random(setup.env(), seed=5)
    assert play_random(CallsState(setup.env()), seed=5) == plain
    env = setup.env()
    env.reset(seed=5)
    obs = env.observe(env.agent_selection)
    assert set(obs) == {"observation", "action_mask"}
    assert obs["observation"].shape == (setup.engine.LAYOUT.size,)


@all_setups
def test_hidden_cards_change_the_state_but_no_observation(setup: Setup) -> None:
    """Redealing what a player cannot see (State.from_view) keeps that player's observation and
    changes the state vector whenever it moved a card that matters: the state holds the hidden
    information, the observation does not."""
    rng = np.random.default_rng(1)
    encode_state = state_module(setup).encode_state
    changed = 0
    for state in random_positions(setup, games=6, seed=7):
        for player in range(state.num_players):
            other = setup.engine.State.from_view(state.view(player), rng)
            np.testing.assert_array_equal(
                setup.engine.encode(other, player), setup.engine.encode(state, player)
            )
            if game_facts(other) != game_facts(state):
                assert not np.array_equal(encode_state(other), encode_state(state))
                changed += 1
            else:
                np.testing.assert_array_equal(encode_state(other), encode_state(state))
    assert changed > 0


def pile_order(order: np.ndarray, size: int) -> list[int]:
    """Indices of the pile's cards, top first, read from a ``draw_order`` piece."""
    cards = np.flatnonzero(order)
    top_first = sorted(cards, key=lambda c: -order[c])
    np.testing.assert_allclose(
        sorted(order[cards], reverse=True), [1 - i / size for i in range(len(cards))], atol=1e-6
    )
    return [int(c) for c in top_first]


@pytest.mark.parametrize("setup", [s for s in SETUPS if s.engine is heisse_luft], ids=str)
def test_heisse_luft_state_reads_back_to_the_game(setup: Setup) -> None:
    """Every piece decodes back to the engine's state, seat 0 first; the cards and prize cards
    add up to the game's (HL-1.1, HL-1.2)."""
    layout = hl_state.STATE_LAYOUT
    for state in random_positions(setup, games=6, seed=11):
        p = layout.split(hl_state.encode_state(state))
        for seat in (0, 1):
            assert np.flatnonzero(p["hands"][seat]).tolist() == sorted(state.hands[seat])
            assert set(np.flatnonzero(p["revealed"][seat]).tolist()) == state.revealed[seat]
            for i in range(4):
                side = np.flatnonzero(p["stage_cards"][i, seat]).tolist()
                assert side == sorted(state.sides[i][seat])
            assert np.flatnonzero(p["trophies"][seat]).tolist() == sorted(state.trophies[seat])
            np.testing.assert_allclose(
                p["prizes_won"][seat] * SUIT_SIZES, state.prizes_won[seat], atol=1e-5
            )
        assert pile_order(p["draw_order"], NUM_CARDS) == state.draw_pile[::-1]
        assert np.flatnonzero(p["draw_pile"]).tolist() == sorted(state.draw_pile)
        deck = p["prize_deck"]
        assert deck[: len(state.prize_deck)].sum(axis=1).tolist() == [1] * len(state.prize_deck)
        assert not deck[len(state.prize_deck) :].any()
        assert deck.argmax(axis=1)[: len(state.prize_deck)].tolist() == state.prize_deck[::-1]
        assert np.flatnonzero(p["discard_pile"]).tolist() == sorted(state.discard_pile)
        # Every balloon card is in exactly one place.
        places = (
            p["hands"].sum(0) + p["draw_pile"] + p["discard_pile"] + p["stage_cards"].sum((0, 1))
        )
        assert places.tolist() == [1] * NUM_CARDS
        prizes = (
            p["prize_deck"].sum(0)
            + (p["stage_prizes"] * 4).sum(0)
            + ((p["prizes_won"] + p["trophy_cards"]) * SUIT_SIZES).sum(0)
        )
        np.testing.assert_allclose(prizes, SUIT_SIZES, atol=1e-4)
        assert p["phase"].argmax() == state.phase and p["phase"].sum() == 1
        mover = np.flatnonzero(p["current_player"]).tolist()
        assert mover == ([] if state.current_player is None else [state.current_player])
        assert np.flatnonzero(p["trophy_winner"]).tolist() == (
            [state.trophy_winner] if state.phase == TROPHY else []
        )
        if state.phase == OVER and state.winner is not None:
            assert p["winner"].argmax() == (2 if state.winner == DRAW else state.winner)
        else:
            assert not p["winner"].any()


@pytest.mark.parametrize("setup", [s for s in ALL if s.engine is heisse_karten], ids=str)
def test_heisse_karten_state_reads_back_to_the_game(setup: Setup) -> None:
    """Every piece decodes back to the engine's state in seat order; hand sizes are the hands'
    card counts; each of the 48 cards is in exactly one place (HK-1.1); padded seats are empty."""
    layout = hk_state.STATE_LAYOUT
    for state in random_positions(setup, games=4, seed=13):
        n, d = state.num_players, state.to_dict()
        p = layout.split(hk_state.encode_state(state))
        for seat in range(6):
            cards = np.flatnonzero(p["hands"][seat]) + 1
            assert cards.tolist() == (state.hands[seat] if seat < n else [])
            assert p["hand_sizes"][seat] * HAND_SIZE == pytest.approx(len(cards))
            taken = (np.flatnonzero(p["taken"][seat]) + 1).tolist()
            assert taken == (sorted(state.taken[seat]) if seat < n else [])
            played = (np.flatnonzero(p["played"][seat]) + 1).tolist()
            assert played == sorted(card for s, card in state.played if s == seat)
        trick = {(int(s), int(c) + 1) for s, c in zip(*np.nonzero(p["trick"]), strict=True)}
        assert trick == {(s, c) for s, c in d["trick"]}
        assert [c + 1 for c in pile_order(p["draw_order"], 48)] == d["draw_pile"]
        assert (np.flatnonzero(p["set_aside"]) + 1).tolist() == sorted(state.set_aside)
        places = p["hands"].sum(0) + p["draw_pile"] + p["set_aside"] + p["played"].sum(0)
        assert places.tolist() == [1] * 48
        np.testing.assert_allclose(p["scores"][:n] * BLACK_SUM, state.scores, atol=1e-3)
        scale = state.options["target"] or BLACK_SUM * state.options["rounds"]
        np.testing.assert_allclose(
            p["totals"][:n], np.clip(np.array(state.totals) / scale, -1, 1), atol=1e-6
        )
        assert not p["scores"][n:].any() and not p["totals"][n:].any()
        assert p["seats"].tolist() == [1] * n + [0] * (6 - n)
        assert p["num_players"].argmax() == n - 2
        mover = np.flatnonzero(p["current_player"]).tolist()
        assert mover == ([] if state.current_player is None else [state.current_player])
        assert p["leader"].argmax() == state.leader
        assert p["first_leader"].argmax() == state.options["first_leader"]
        assert p["trick_position"].argmax() == len(state.trick)
        assert p["score_rewards"][0] == (state.options["reward_mode"] == "score")


def test_docs_hold_the_state_section_and_its_tables() -> None:
    from hot_envs.cli.docs import DOC, STATE_BEGIN, state_tables

    text = DOC.read_text(encoding="utf-8")
    assert "## The full state: `state()` and `state_space`" in text
    assert STATE_BEGIN in text and state_tables() in text, "run: python -m hot_envs.cli.docs"


@setups
def test_env_docstring_has_a_state_section(setup: Setup) -> None:
    doc = setup.env_module.raw_env.__doc__
    assert "## State" in doc and f"({state_module(setup).STATE_SIZE},)" in doc
