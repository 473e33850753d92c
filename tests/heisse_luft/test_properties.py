"""Property tests over thousands of random Heiße Luft games (random legal play, every option).

Each test draws a deal seed, a move-choice seed and the options, plays a whole game with
uniformly random legal actions and checks its property after every action.
"""

from __future__ import annotations

import copy
import json
import random
from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hot_envs.heisse_luft import LAYOUT, State, action_mask, encode
from hot_envs.heisse_luft.facts import (
    CARD_CODES,
    CARD_INDEX,
    CARD_VALUE,
    CLAIM_TROPHY,
    DEFAULT_TURN_LIMIT,
    EXCHANGE_PICK,
    HAND_SIZE,
    MAX_SPADES_AT_STAGE,
    NUM_ACTIONS,
    STAGE_SIZES,
    SUITS,
    TROPHY_PRICE,
)

from .random_games import (
    ALL_BALLOON_CARDS,
    ALL_PRIZE_CARDS,
    balloon_card_places,
    prize_card_totals,
    random_game,
)

seeds = st.integers(0, 2**32 - 1)
options = st.fixed_dictionaries(
    {},
    optional={
        "three_for_one": st.booleans(),
        "starting_player": st.sampled_from([0, 1, "random"]),
    },
)


def games(max_examples: int):
    """Decorate a test ``(seed, choice_seed, options)`` to run on ``max_examples`` random games."""

    def decorate(test):
        test = given(seed=seeds, choice_seed=seeds, options=options)(test)
        return settings(
            max_examples=max_examples,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow],
        )(test)

    return decorate


# ---------------------------------------------------------------------- cards and stages


@pytest.mark.slow
@games(120)
def test_every_balloon_card_exactly_once_after_every_action(seed, choice_seed, options):
    """HL-1.1: the 40 balloon cards are each in exactly one hand, pile or stage side."""
    state = State.new(seed=seed, **options)
    assert balloon_card_places(state.to_dict()) == ALL_BALLOON_CARDS
    for _ in random_game(state, choice_seed):
        assert balloon_card_places(state.to_dict()) == ALL_BALLOON_CARDS


@pytest.mark.slow
@games(120)
def test_every_prize_card_exactly_once_after_every_action(seed, choice_seed, options):
    """HL-1.2: the 40 prize cards are in the prize deck, at a stage, won or inside a trophy."""
    state = State.new(seed=seed, **options)
    assert prize_card_totals(state.to_dict()) == ALL_PRIZE_CARDS
    for _ in random_game(state, choice_seed):
        assert prize_card_totals(state.to_dict()) == ALL_PRIZE_CARDS


@pytest.mark.slow
@games(75)
def test_stage_sides_only_ever_hold_fitting_cards(seed, choice_seed, options):
    """HL-3.1: a side holds at most as many cards of a suit as the stage has prizes of it."""
    state = State.new(seed=seed, **options)
    for _ in random_game(state, choice_seed):
        for stage in state.to_dict()["stages"]:
            for side in stage["sides"]:
                for suit in SUITS:
                    on_side = sum(code[0] == suit for code in side)
                    assert on_side <= stage["prizes"].count(suit), (stage, suit)


@games(75)
def test_stages_in_play_hold_their_number_of_prizes_and_at_most_three_spades(
    seed, choice_seed, options
):
    """HL-1.3 stage n holds n prizes while in play; HL-2.3 never 4 spades; a stage out of the
    game holds nothing (HL-5.4)."""
    state = State.new(seed=seed, **options)
    for _ in random_game(state, choice_seed):
        for n, stage in zip(STAGE_SIZES, state.to_dict()["stages"], strict=True):
            if stage["in_play"]:
                assert len(stage["prizes"]) == n
                assert stage["prizes"].count("S") <= MAX_SPADES_AT_STAGE
                assert len(stage["sides"][0]) + len(stage["sides"][1]) < 2 * n
            else:
                assert stage["prizes"] == [] and stage["sides"] == [[], []]


@pytest.mark.slow
@games(75)
def test_hands_always_hold_eight_cards(seed, choice_seed, options):
    """HL-2.4/HL-3.2/HL-3.4: every play and exchange is followed by as many draws, and the piles
    never run dry (at most 16 balloons lie on unflown stages), so hands stay at 8 cards."""
    state = State.new(seed=seed, **options)
    for _ in random_game(state, choice_seed):
        assert [len(hand) for hand in state.to_dict()["hands"]] == [HAND_SIZE, HAND_SIZE]


@games(50)
def test_pass_streak_and_turn_stay_in_range(seed, choice_seed, options):
    """HL-3.6 the pass streak is 0 or 1 between actions; HL-7.3 turns grow by at most one."""
    state = State.new(seed=seed, **options)
    turn = state.turn
    for _ in random_game(state, choice_seed):
        assert state.pass_streak in (0, 1)
        assert state.turn - turn in (0, 1)
        turn = state.turn


@pytest.mark.slow
@games(60)
def test_trophy_cards_pay_each_trophy_exactly(seed, choice_seed, options):
    """HL-6.1/6.2: the cards inside a player's trophies pay their prices exactly (a card of the
    claimed suit counts one, three of an awarded suit count one); HL-6.3 without three-for-one
    each trophy holds its price in its own suit."""
    state = State.new(seed=seed, **options)
    for _ in random_game(state, choice_seed):
        d = state.to_dict()
        awarded = d["trophies"][0] + d["trophies"][1]
        for trophies, cards in zip(d["trophies"], d["trophy_cards"], strict=True):
            price = sum(TROPHY_PRICE[SUITS.index(s)] for s in trophies)
            paid = sum(cards.values())
            if state.options["three_for_one"]:
                # each group of three stands for one card: two cards more than the price
                assert paid >= price and (paid - price) % 2 == 0
                assert all(cards[s] == 0 for s in SUITS if s not in awarded)
            else:
                assert cards == {s: TROPHY_PRICE[i] * (s in trophies) for i, s in enumerate(SUITS)}


# ---------------------------------------------------------------------- actions and masks


@pytest.mark.slow
@games(60)
def test_legal_actions_are_sorted_distinct_in_range_and_present_until_the_end(
    seed, choice_seed, options
):
    """The engine contract: legal_actions() is a sorted list of ids in 0..365, non-empty while
    the game runs, and the mover is a seat until the game is over."""
    state = State.new(seed=seed, **options)
    for _ in random_game(state, choice_seed):
        legal = state.legal_actions()
        assert legal == sorted(set(legal))
        assert all(type(a) is int and 0 <= a < NUM_ACTIONS for a in legal)
        if state.is_terminal():
            assert legal == [] and state.current_player is None
        else:
            assert legal and state.current_player in (0, 1)


@pytest.mark.slow
@games(60)
def test_action_mask_equals_legal_actions_for_the_mover_and_is_zero_for_the_other(
    seed, choice_seed, options
):
    """The mask marks exactly legal_actions() for the player to move, nothing for the other."""
    state = State.new(seed=seed, **options)
    for _ in random_game(state, choice_seed):
        for seat in (0, 1):
            mask = action_mask(state, seat)
            assert mask.dtype == np.int8 and mask.shape == (NUM_ACTIONS,)
            if seat == state.current_player:
                assert np.flatnonzero(mask).tolist() == state.legal_actions()
            else:
                assert not mask.any()


@pytest.mark.slow
@games(50)
def test_a_play_puts_the_named_card_on_the_named_side(seed, choice_seed, options):
    """Action ids (docs/rules.md): 8 * card + 2 * (stage - 1) + side moves the card from the
    mover's hand to their own (0) or the opponent's (1) side of the stage — or flies the stage it
    completes (HL-4.1), which clears both sides."""
    state = State.new(seed=seed, **options)
    chooser = random.Random(choice_seed)
    while not state.is_terminal():
        action = chooser.choice(state.legal_actions())
        mover, before = state.current_player, state.to_dict()
        state.apply(action)
        if action >= EXCHANGE_PICK:
            continue
        card, slot = divmod(action, 8)
        stage, relative_side = divmod(slot, 2)
        side = mover ^ relative_side
        sides_before = before["stages"][stage]["sides"]
        after = state.to_dict()
        assert CARD_CODES[card] in before["hands"][mover]
        assert CARD_CODES[card] not in after["hands"][mover]
        if len(sides_before[0]) + len(sides_before[1]) + 1 == 2 * STAGE_SIZES[stage]:
            assert after["stages"][stage]["sides"] == [[], []]
        else:
            expected = [sides_before[0][:], sides_before[1][:]]
            expected[side].append(CARD_CODES[card])
            assert after["stages"][stage]["sides"] == expected
            assert after["stages"][stage]["last_player"] == mover


# ---------------------------------------------------------------------- flights and trophies


def completed_stage_winner(stage: dict, mover: int) -> int:
    """HL-4.2 lowland: lower sum wins, mountain: higher; HL-4.3 a tie goes to the mover, who
    placed the completing card."""
    sums = [sum(CARD_VALUE[CARD_INDEX[code]] for code in side) for side in stage["sides"]]
    if sums[0] == sums[1]:
        return mover
    lower_wins = stage["terrain"] == "lowland"
    return 0 if (sums[0] < sums[1]) == lower_wins else 1


def could_claim_any(d: dict, p: int) -> bool:
    """HL-6.1/6.2 from the dict: some untaken trophy is paid by p's prizes (three of an awarded
    suit count one, if the option is on)."""
    awarded = d["trophies"][0] + d["trophies"][1]
    held = d["prizes_won"][p]
    groups = sum(held[s] // 3 for s in awarded) if d["options"]["three_for_one"] else 0
    return any(
        suit not in awarded and held[suit] + groups >= TROPHY_PRICE[i]
        for i, suit in enumerate(SUITS)
    )


@pytest.mark.slow
@games(60)
def test_flights_follow_hl4_and_hl5(seed, choice_seed, options):
    """A play completing a stage flies it: the HL-4.2/4.3 winner takes the prizes (HL-5.1), the
    stage's cards go to the discard pile (HL-5.2), the terrain turns (HL-5.3), the stage is
    refilled or leaves the game with the prize deck untouched (HL-5.4), the winner is asked
    about trophies first if they can claim (HL-6.4), and the loser moves next (HL-5.6)."""
    state = State.new(seed=seed, **options)
    chooser = random.Random(choice_seed)
    loser = None  # of the last flight, until the next turn starts
    while not state.is_terminal():
        before, mover = state.to_dict(), state.current_player
        action = chooser.choice(state.legal_actions())
        state.apply(action)
        after = state.to_dict()
        if loser is not None and after["phase"] in ("play", "exchange"):
            assert after["current_player"] == loser
            loser = None
        if action >= EXCHANGE_PICK:
            continue
        card, slot = divmod(action, 8)
        i, relative_side = divmod(slot, 2)
        stage = copy.deepcopy(before["stages"][i])
        stage["sides"][mover ^ relative_side].append(CARD_CODES[card])
        if len(stage["sides"][0]) + len(stage["sides"][1]) < 2 * STAGE_SIZES[i]:
            continue
        winner = completed_stage_winner(stage, mover)
        won = Counter(before["prizes_won"][winner]) + Counter(stage["prizes"])
        assert after["prizes_won"][winner] == {s: won[s] for s in SUITS}
        assert set(stage["sides"][0] + stage["sides"][1]) <= set(after["discard_pile"])
        flown = after["stages"][i]
        if flown["in_play"]:
            assert flown["terrain"] != stage["terrain"] and flown["sides"] == [[], []]
            assert len(after["prize_deck"]) == len(before["prize_deck"]) - STAGE_SIZES[i]
        else:
            assert after["prize_deck"] == before["prize_deck"]
        if after["phase"] == "trophy":
            asked = winner if could_claim_any(after, winner) else 1 - winner
            assert after["current_player"] == asked
            loser = 1 - winner
        elif after["phase"] == "over":
            assert not any(s["in_play"] for s in after["stages"])
        else:
            assert not could_claim_any(after, 0) and not could_claim_any(after, 1)
            assert after["current_player"] == 1 - winner


@pytest.mark.slow
@games(60)
def test_claims_pay_as_hl6_2_says(seed, choice_seed, options):
    """HL-6.1/6.2: a claim pays the price with cards of the claimed suit first, then with groups
    of three from the awarded suit held most (ties ♥ ♦ ♣ ♠); HL-7.1 a second trophy wins."""
    state = State.new(seed=seed, **options)
    chooser = random.Random(choice_seed)
    while not state.is_terminal():
        before, p = state.to_dict(), state.current_player
        action = chooser.choice(state.legal_actions())
        state.apply(action)
        if not CLAIM_TROPHY <= action < CLAIM_TROPHY + 4:
            continue
        suit, price = SUITS[action - CLAIM_TROPHY], TROPHY_PRICE[action - CLAIM_TROPHY]
        held, paid = dict(before["prizes_won"][p]), dict(before["trophy_cards"][p])
        own = min(held[suit], price)
        held[suit] -= own
        paid[suit] += own
        awarded = before["trophies"][0] + before["trophies"][1]
        for _ in range(price - own):
            source = max(awarded, key=lambda s: (held[s], -SUITS.index(s)))
            held[source] -= 3
            paid[source] += 3
        after = state.to_dict()
        assert after["prizes_won"][p] == held and after["trophy_cards"][p] == paid
        assert after["trophies"][p] == before["trophies"][p] + [suit]
        if len(after["trophies"][p]) == 2:
            assert after["phase"] == "over" and after["winner"] == p


# ---------------------------------------------------------------------- formats and copies


@pytest.mark.slow
@games(50)
def test_to_dict_from_dict_round_trip_after_every_action(seed, choice_seed, options):
    """from_dict(to_dict()) rebuilds the same dict and the same legal actions, also through
    JSON text."""
    state = State.new(seed=seed, **options)
    for _ in random_game(state, choice_seed):
        d = state.to_dict()
        rebuilt = State.from_dict(json.loads(json.dumps(d)))
        assert rebuilt.to_dict() == d
        assert rebuilt.legal_actions() == state.legal_actions()


@pytest.mark.slow
@games(50)
def test_a_clone_can_be_played_without_changing_the_original(seed, choice_seed, options):
    """clone() is independent: a random action applied to a clone leaves the original's dict
    unchanged, at every point of the game."""
    state = State.new(seed=seed, **options)
    chooser = np.random.default_rng(seed)
    for _ in random_game(state, choice_seed):
        if state.is_terminal():
            break
        before = state.to_dict()
        clone = state.clone()
        legal = clone.legal_actions()
        clone.apply(legal[chooser.integers(len(legal))])
        assert state.to_dict() == before


@pytest.mark.slow
@games(75)
def test_a_clone_played_like_the_original_ends_the_same(seed, choice_seed, options):
    """A clone taken mid-game and given the original's remaining actions passes through the same
    dicts (reshuffles included) to the same end; playing the clone on to a different end first
    changes nothing for the original."""
    state = State.new(seed=seed, **options)
    split = seed % 60
    actions = list(random_game(state.clone(), choice_seed))
    for action in actions[:split]:
        state.apply(action)
    clone = state.clone()
    for _ in random_game(state.clone(), choice_seed + 1):  # a third copy, played elsewhere
        pass
    for action in actions[split:]:
        state.apply(action)
        clone.apply(action)
        assert clone.to_dict() == state.to_dict()
    assert clone.is_terminal() and clone.returns() == state.returns()


# ---------------------------------------------------------------------- the end


@pytest.mark.slow
@games(120)
def test_games_end_well_before_the_turn_limit(seed, choice_seed, options):
    """HL-7.3: normal games end by the rules, never by truncation (they stay under 300 turns)."""
    state = State.new(seed=seed, **options)
    for _ in random_game(state, choice_seed):
        pass
    assert state.is_terminal() and not state.is_truncated()
    assert state.turn < 300 < DEFAULT_TURN_LIMIT


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=seeds, choice_seed=seeds, options=options, turn_limit=st.integers(1, 120))
def test_a_turn_limit_truncates_the_game_without_a_winner(seed, choice_seed, options, turn_limit):
    """HL-7.3: the limit changes nothing but the end. The same game without a limit plays the
    same actions; if it ends first, the limited game ends there too, by the rules and with the
    same result; otherwise the limited game stops truncated once turn_limit turns are done, with
    no winner and 0 returns."""
    limited = State.new(seed=seed, turn_limit=turn_limit, **options)
    free = State.new(seed=seed, **options)
    free_actions = random_game(free, choice_seed)
    for action in random_game(limited, choice_seed):
        assert next(free_actions) == action
        assert limited.turn <= turn_limit
    if limited.is_truncated():
        assert limited.turn == turn_limit and limited.to_dict()["winner"] is None
        assert limited.returns() == [0.0, 0.0]
        assert not free.is_terminal() and free.turn == turn_limit
    else:
        assert next(free_actions, None) is None  # the unlimited game ended at the same action
        assert limited.to_dict() == {**free.to_dict(), "options": limited.to_dict()["options"]}
        assert limited.to_dict()["winner"] is not None


@games(60)
def test_returns_are_a_win_a_loss_or_a_draw_and_match_the_winner(seed, choice_seed, options):
    """HL-7.4: returns are (1, −1), (−1, 1) or (0, 0), matching the dict's winner."""
    state = State.new(seed=seed, **options)
    for _ in random_game(state, choice_seed):
        if not state.is_terminal():
            assert state.returns() == [0.0, 0.0]
    expected = {0: [1.0, -1.0], 1: [-1.0, 1.0], "draw": [0.0, 0.0]}
    assert state.returns() == expected[state.to_dict()["winner"]]


@pytest.mark.slow
@games(100)
def test_the_winner_is_who_hl7_says(seed, choice_seed, options):
    """HL-7.1 two trophies win at once; HL-7.2 otherwise, with no stage left, more trophies
    win, then more prize cards (trophy cards included), else a draw."""
    state = State.new(seed=seed, **options)
    for _ in random_game(state, choice_seed):
        pass
    d = state.to_dict()
    trophies = [len(t) for t in d["trophies"]]
    prizes = [sum(d["prizes_won"][p].values()) + sum(d["trophy_cards"][p].values()) for p in (0, 1)]
    if max(trophies) >= 2:
        assert d["winner"] == trophies.index(max(trophies)) and min(trophies) < 2
    else:
        assert not any(stage["in_play"] for stage in d["stages"])
        for key in (trophies, prizes):
            if key[0] != key[1]:
                assert d["winner"] == (0 if key[0] > key[1] else 1)
                break
        else:
            assert d["winner"] == "draw"


# ---------------------------------------------------------------------- observations


@games(75)
def test_observations_are_float32_of_the_layout_size_within_its_bounds(seed, choice_seed, options):
    """The observation vector of either seat has LAYOUT.size float32 entries in [0, 1]."""
    assert (LAYOUT.low == 0).all() and (LAYOUT.high == 1).all()
    state = State.new(seed=seed, **options)
    for _ in random_game(state, choice_seed):
        for seat in (0, 1):
            obs = encode(state, seat)
            assert obs.dtype == np.float32 and obs.shape == (LAYOUT.size,)
            assert ((obs >= 0) & (obs <= 1)).all()
