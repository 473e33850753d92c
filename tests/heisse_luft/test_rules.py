"""Heiße Luft: one or more tests per rule of docs/rules.md (HL-1.1 … HL-8).

Every test names its rule id in the test name and, with the dot, in its docstring, so
``grep -r "HL-4.3" tests/`` finds it. Positions are built with ``State.from_dict`` through the
``positions`` helper (the setup rules use ``State.new``). Where the engine and docs/rules.md
disagree, the test follows docs/rules.md.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from hot_envs.heisse_luft import IllegalActionError, State
from hot_envs.heisse_luft.facts import (
    CARD_CODES,
    CARD_INDEX,
    SUIT_SIZES,
    THREE_FOR_ONE,
    TROPHY_PRICE,
    claimable_trophies,
    trophy_payment,
)

from .positions import (
    CLAIM,
    EXCHANGE_DONE,
    OPP,
    OWN,
    STOP,
    pick,
    play,
    position,
    position_dict,
    stage,
)

SUIT_COUNTS = {"H": 13, "D": 11, "C": 9, "S": 7}
ZERO = {"H": 0, "D": 0, "C": 0, "S": 0}


# ---------------------------------------------------------------------------------------- helpers


def won(**counts: int) -> dict[str, int]:
    """Prize counts by suit, e.g. ``won(H=7, S=2)``."""
    return {**ZERO, **counts}


def run(state: State, *actions: int) -> State:
    for action in actions:
        state.apply(action)
    return state


def stop_claims(state: State) -> State:
    """Everybody asked in the trophy phase declines (HL-6.4)."""
    while state.to_dict()["phase"] == "trophy":
        state.apply(STOP)
    return state


def assert_illegal(state: State, action: int) -> None:
    """``action`` is refused and the state is left as it was."""
    before = state.to_dict()
    assert action not in state.legal_actions()
    with pytest.raises(IllegalActionError):
        state.apply(action)
    assert state.to_dict() == before


def trophy_phase(
    won0: dict[str, int],
    won1: dict[str, int],
    *,
    winner: int = 0,
    asking: str = "winner",
    trophies: tuple[str, str] = ("", ""),
    **kwargs,
) -> State:
    """A trophy phase right after ``winner`` flew a stage; stage 1 (♣) stays in play and both
    players hold a ♣ that fits it, so the loser simply plays on afterwards."""
    asked = winner if asking == "winner" else 1 - winner
    kwargs.setdefault("stages", {1: stage("C")})
    kwargs.setdefault("hands", (["C1"], ["C2"]))
    return position(
        phase="trophy",
        current_player=asked,
        trophy_phase={"winner": winner, "asking": asking},
        prizes_won=(won0, won1),
        trophies=trophies,
        **kwargs,
    )


def p0_wins_stage_1(**kwargs) -> State:
    """player_0 is about to complete stage 1 (lowland, one ♦ prize) with ♦A against ♦K: after
    ``FLY_D`` player_0 has won the ♦ and player_1, the loser, moves next (stage 2 stays)."""
    kwargs.setdefault("hands", (["D1", "S3"], ["H2", "H3"]))
    kwargs.setdefault("stages", {1: stage("D", p1=["D13"], terrain="lowland"), 2: stage("HH")})
    return position(**kwargs)


FLY_D = play("D1", 1, OWN)


# ------------------------------------------------------------------------------ HL-1 components


def test_HL_1_1_balloon_cards_suits_values_and_index():
    """HL-1.1: 40 balloon cards, ♥ 1–13, ♦ without 4 and 10, ♣ 1 2 4 6 7 8 10 12 13,
    ♠ 1 3 5 7 9 11 13, indexed ♥ ♦ ♣ ♠ with values ascending."""
    values = {
        "H": list(range(1, 14)),
        "D": [1, 2, 3, 5, 6, 7, 8, 9, 11, 12, 13],
        "C": [1, 2, 4, 6, 7, 8, 10, 12, 13],
        "S": [1, 3, 5, 7, 9, 11, 13],
    }
    codes = [f"{suit}{v}" for suit in "HDCS" for v in values[suit]]
    assert len(codes) == 40
    assert list(CARD_CODES) == codes
    assert {code: i for i, code in enumerate(codes)} == CARD_INDEX
    assert [CARD_INDEX[c] for c in ("H13", "D1", "D13", "C1", "C13", "S1", "S13")] == [
        12, 13, 23, 24, 32, 33, 39
    ]  # fmt: skip
    dealt = State.new(seed=1).to_dict()
    assert sorted(dealt["hands"][0] + dealt["hands"][1] + dealt["draw_pile"]) == sorted(CARD_CODES)


@pytest.mark.parametrize("terrain", ["lowland", "mountain"])
def test_HL_1_1_ace_is_1_jack_11_queen_12_king_13(terrain):
    """HL-1.1: Ace=1, Jack=11, Queen=12, King=13. Q+A+K = 12+1+13 = 26 = J+6+9 exactly: the
    sums tie, so player_1, who places the last card, wins over lowland and mountain alike."""
    state = position(
        current_player=1,
        hands=(["C1"], ["H9"]),
        stages={3: stage("HHS", p0=["H12", "S1", "H13"], p1=["S11", "H6"], terrain=terrain)},
        prize_deck="CCC",
    )
    run(state, play("H9", 3, OWN))
    assert state.to_dict()["prizes_won"][1] == won(H=2, S=1)


def test_HL_1_2_forty_prize_cards_with_the_suit_counts():
    """HL-1.2: 40 prize cards, only the suit matters: ♥13 ♦11 ♣9 ♠7."""
    d = State.new(seed=3).to_dict()
    prizes = Counter(d["prize_deck"])
    for s in d["stages"]:
        prizes.update(s["prizes"])
    assert prizes == SUIT_COUNTS
    bad = position_dict(stages={1: stage("H")})
    bad["prize_deck"].append("H")  # a 14th ♥ prize card
    with pytest.raises(ValueError):
        State.from_dict(bad)


def test_HL_1_3_stage_n_holds_n_prizes_and_has_a_terrain():
    """HL-1.3: stage n holds exactly n prize cards while in play; each has a terrain."""
    for seed in range(5):
        stages = State.new(seed=seed).to_dict()["stages"]
        assert [len(s["prizes"]) for s in stages] == [1, 2, 3, 4]
        assert all(s["in_play"] and s["terrain"] in ("lowland", "mountain") for s in stages)
    with pytest.raises(ValueError):
        position(stages={2: stage("H")})  # stage 2 with one prize
    with pytest.raises(ValueError):
        position(stages={1: stage("HD")})  # stage 1 with two prizes


@pytest.mark.parametrize(
    ("held", "claimable"),
    [
        (won(H=7, D=5, C=5, S=3), ["H", "C"]),
        (won(H=6, D=6, C=4, S=4), ["D", "S"]),
    ],
)
def test_HL_1_4_trophy_prices_H7_D6_C5_S4(held, claimable):
    """HL-1.4: a trophy costs ♥7, ♦6, ♣5, ♠4 prize cards of its suit (one fewer is not enough)."""
    state = trophy_phase(held, won())
    assert state.legal_actions() == sorted([CLAIM[s] for s in claimable] + [STOP])


# ----------------------------------------------------------------------------------- HL-2 setup


def test_HL_2_1_starting_terrain():
    """HL-2.1: stages 1 and 3 start as lowland, 2 and 4 as mountain."""
    for seed in range(5):
        terrains = [s["terrain"] for s in State.new(seed=seed).to_dict()["stages"]]
        assert terrains == ["lowland", "mountain", "lowland", "mountain"]


class ScriptedShuffle(np.random.Generator):
    """A generator whose every shuffle puts 40 items in one given order: the prize deck comes out
    in the order we choose (the balloon deal uses the same order, which is harmless)."""

    def __init__(self, order: list[int]):
        super().__init__(np.random.PCG64(0))
        self.order = np.array(order)

    def permutation(self, x):
        assert len(self.order) == (x if isinstance(x, int) else len(x))
        return self.order if isinstance(x, int) else np.asarray(x)[self.order]

    def shuffle(self, x, axis=0):
        x[:] = [x[i] for i in self.order]


def new_with_prize_deck(top_first: str, **options) -> State:
    """``State.new`` with the prize deck shuffled into ``top_first`` (suit letters, top card
    first). The engine's deck before shuffling is ♥×13 ♦×11 ♣×9 ♠×7; which end of the shuffled
    list is the top is the engine's business, so it is found out with a first deal."""
    assert Counter(top_first) == SUIT_COUNTS
    unshuffled = "".join(s * n for s, n in SUIT_COUNTS.items())
    probe = State.new(seed=ScriptedShuffle(list(range(40))), **options)
    top_is_first = probe.to_dict()["stages"][0]["prizes"] == [unshuffled[0]]
    order_top_first = []
    free = {s: [i for i, t in enumerate(unshuffled) if t == s] for s in "HDCS"}
    for suit in top_first:
        order_top_first.append(free[suit].pop(0))
    order = order_top_first if top_is_first else order_top_first[::-1]
    return State.new(seed=ScriptedShuffle(order), **options)


def test_HL_2_2_stages_filled_in_order_from_the_top_of_the_shuffled_prize_deck():
    """HL-2.2: stage 1 gets the top card, stage 2 the next two, stage 3 three, stage 4 four."""
    deck = "H" + "DD" + "CCC" + "SHDC"
    rest = Counter(SUIT_COUNTS)
    rest.subtract(deck)
    rest_order = "".join(s * n for s, n in rest.items())
    state = new_with_prize_deck(deck + rest_order)
    d = state.to_dict()
    assert [s["prizes"] for s in d["stages"]] == [["H"], ["D", "D"], ["C", "C", "C"], list("SHDC")]
    assert "".join(d["prize_deck"]) == rest_order


def test_HL_2_2_prize_deck_is_shuffled_with_the_seed():
    """HL-2.2: the prize deck is shuffled: seeds give different layouts, a seed always the same."""
    layouts = {str(State.new(seed=s).to_dict()["stages"]) for s in range(10)}
    assert len(layouts) > 1
    assert State.new(seed=7).to_dict() == State.new(seed=7).to_dict()


def test_HL_2_3_fourth_spade_for_stage_4_goes_under_the_prize_deck_at_setup():
    """HL-2.3: at setup, a card that would be stage 4's 4th spade goes to the bottom of the prize
    deck and the next card is drawn instead."""
    head = "H" + "DD" + "CCC" + "SSS" + "S" + "H"
    rest = Counter(SUIT_COUNTS)
    rest.subtract(head)
    rest_order = "".join(s * n for s, n in rest.items())
    d = new_with_prize_deck(head + rest_order).to_dict()
    assert sorted(d["stages"][3]["prizes"]) == ["H", "S", "S", "S"]
    assert "".join(d["prize_deck"]) == rest_order + "S"


def test_HL_2_3_stage_4_never_holds_four_spades_at_setup():
    """HL-2.3: over many deals, stage 4 never holds a 4th spade prize."""
    for seed in range(300):
        d = State.new(seed=seed).to_dict()
        assert d["stages"][3]["prizes"].count("S") <= 3
        assert len(d["stages"][3]["prizes"]) == 4


def stage_4_flight(prize_deck: str, spare_prizes: str | int = "deck") -> State:
    """player_1 completes stage 4 (♥ ♦ ♣ ♠, mountain) and wins it, 9 against 4; stage 1 stays."""
    return position(
        current_player=1,
        hands=(["H5"], ["S3"]),
        stages={
            1: stage("H"),
            4: stage("HDCS", p0=["H1", "D1", "C1", "S1"], p1=["H2", "D2", "C2"]),
        },
        prize_deck=prize_deck,
        spare_prizes=spare_prizes,
        trophies=("C", ""),
    )


def test_HL_2_3_fourth_spade_goes_under_the_prize_deck_at_refill():
    """HL-2.3 / HL-5.4: refilling stage 4, a 4th spade goes to the bottom and the next card is
    drawn."""
    state = run(stage_4_flight("SSSSHDD"), play("S3", 4, OWN))
    d = state.to_dict()
    assert d["prizes_won"][1] == won(H=1, D=1, C=1, S=1)
    assert sorted(d["stages"][3]["prizes"]) == ["H", "S", "S", "S"]
    assert d["stages"][3]["in_play"]
    assert d["prize_deck"][:2] == ["D", "D"]
    assert d["prize_deck"][-1] == "S"


@pytest.mark.parametrize("deck", ["SSSS", "SSSSS", "HDC", ""])
def test_HL_2_3_stage_4_leaves_when_it_cannot_be_filled_legally(deck):
    """HL-2.3: with fewer than 4 cards, or fewer than 4 once spades beyond the third are set
    aside, stage 4 leaves the game; the cards stay in the prize deck (HL-5.4)."""
    state = run(stage_4_flight(deck, spare_prizes=0), play("S3", 4, OWN))
    d = state.to_dict()
    assert not d["stages"][3]["in_play"]
    assert d["stages"][3]["prizes"] == []
    assert sorted(d["prize_deck"]) == sorted(deck)
    assert d["stages"][0]["in_play"] and d["phase"] != "over"


def test_HL_2_3_a_stage_with_four_spade_prizes_is_rejected():
    """HL-2.3: no stage may ever hold 4 spade prizes."""
    with pytest.raises(ValueError):
        position(stages={4: stage("SSSS")})


def test_HL_2_4_deal_eight_each_rest_is_the_draw_pile():
    """HL-2.4: 8 balloon cards each, the other 24 face down as the draw pile, no discard pile;
    the balloon cards are shuffled."""
    hands = set()
    for seed in range(5):
        d = State.new(seed=seed).to_dict()
        assert [len(h) for h in d["hands"]] == [8, 8]
        assert len(d["draw_pile"]) == 24
        assert d["discard_pile"] == []
        assert sorted(d["hands"][0] + d["hands"][1] + d["draw_pile"]) == sorted(CARD_CODES)
        hands.add(tuple(d["hands"][0]))
    assert len(hands) > 1


def test_HL_2_5_starting_player():
    """HL-2.5: player_0 starts unless configured; the option may name 1 or draw at random
    (reproducibly from the seed)."""
    assert State.new(seed=0).current_player == 0
    assert State.new(seed=0, starting_player=0).current_player == 0
    assert State.new(seed=0, starting_player=1).current_player == 1
    firsts = [State.new(seed=s, starting_player="random").current_player for s in range(20)]
    assert set(firsts) == {0, 1}
    again = [State.new(seed=s, starting_player="random").current_player for s in range(20)]
    assert again == firsts


# ------------------------------------------------------------------------------------ HL-3 turn


def test_HL_3_1_exactly_the_fitting_card_stage_side_triples_are_legal():
    """HL-3.1: a card fits a side while (prizes of its suit) > (cards of its suit on that side).
    Stage 1 (♣), player_1's side holds ♣2; stage 3 (♥ ♥ ♦), player_0's side ♥5, player_1's side
    ♥2 ♦3. player_0 holds ♥7 ♦8 ♣4 ♠1."""
    state = position(
        hands=(["H7", "D8", "C4", "S1"], ["H1"]),
        stages={1: stage("C", p1=["C2"]), 3: stage("HHD", p0=["H5"], p1=["H2", "D3"])},
    )
    expected = [
        play("H7", 3, OWN),
        play("H7", 3, OPP),
        play("D8", 3, OWN),
        play("C4", 1, OWN),
    ]
    assert state.legal_actions() == sorted(expected)


def test_HL_3_1_sides_are_relative_to_the_mover():
    """HL-3.1: the same table seen by player_1 as mover: its own side is sides[1]."""
    state = position(
        current_player=1,
        hands=(["H1"], ["H7", "D8", "C4", "S1"]),
        stages={1: stage("C", p1=["C2"]), 3: stage("HHD", p0=["H5"], p1=["H2", "D3"])},
    )
    expected = [
        play("H7", 3, OWN),
        play("H7", 3, OPP),
        play("D8", 3, OPP),
        play("C4", 1, OPP),
    ]
    assert state.legal_actions() == sorted(expected)


@pytest.mark.parametrize("mover", [0, 1])
@pytest.mark.parametrize("side", [OWN, OPP])
def test_HL_3_2_play_on_own_or_opponent_side_then_draw(mover, side):
    """HL-3.2: the card goes face up on the chosen side (own or opponent's), then the mover
    draws the top card of the draw pile and the other player moves."""
    hands = [["C1"], ["C2"]]
    hands[mover] = ["H7", "C4"]
    state = position(
        current_player=mover,
        hands=tuple(hands),
        stages={2: stage("HD")},
        draw_pile=["S5", "S7"],
    )
    run(state, play("H7", 2, side))
    d = state.to_dict()
    seat = mover if side == OWN else 1 - mover
    assert d["stages"][1]["sides"][seat] == ["H7"]
    assert d["stages"][1]["sides"][1 - seat] == []
    assert d["stages"][1]["last_player"] == mover
    assert sorted(d["hands"][mover]) == ["C4", "S5"]
    assert d["draw_pile"][0] == "S7"
    assert d["current_player"] == 1 - mover


def test_HL_3_3_a_fitting_card_must_be_played_even_if_it_only_helps_the_opponent():
    """HL-3.3: player_0's only fitting card is ♥A, and it fits only player_1's side of a lowland
    stage: it must be played; no pass, exchange or other action exists."""
    state = position(
        hands=(["H1", "C6", "S3"], ["D2"]),
        stages={1: stage("H", p0=["H2"], terrain="lowland")},
    )
    assert state.to_dict()["phase"] == "play"
    assert state.legal_actions() == [play("H1", 1, OPP)]
    for action in (pick("C6"), EXCHANGE_DONE, STOP, play("C6", 1, OWN)):
        assert_illegal(state, action)
    run(state, play("H1", 1, OPP))
    assert state.to_dict()["prizes_won"][1] == won(H=1)  # the opponent wins the stage


def stuck_position(hand: list[str], draw_pile: list[str], **kwargs) -> State:
    """player_0 holds no ♥ and stage 1 (♥) is the only stage: player_0 is stuck."""
    kwargs.setdefault("hands", (hand, ["D1", "D2"]))
    kwargs.setdefault("stages", {1: stage("H")})
    return position(draw_pile=draw_pile, **kwargs)


def test_HL_3_4_stuck_hand_is_revealed_and_only_exchange_picks_are_legal():
    """HL-3.4: with no fitting card the hand is revealed to the opponent and the player picks
    cards for the exchange, one at a time; "done" needs at least one card."""
    hand = ["C1", "C2", "C4", "S1", "S3"]
    state = stuck_position(hand, ["D3", "H9", "S5"])
    d = state.to_dict()
    assert (d["phase"], d["current_player"]) == ("exchange", 0)
    assert state.view(1)["known_opponent_cards"] == hand
    assert state.legal_actions() == sorted(pick(c) for c in hand)
    assert_illegal(state, EXCHANGE_DONE)
    run(state, pick("C1"))
    assert state.to_dict()["exchange_selection"] == ["C1"]
    assert state.view(1)["exchange_selection"] == ["C1"]
    assert state.legal_actions() == sorted([pick(c) for c in hand[1:]] + [EXCHANGE_DONE])
    assert_illegal(state, pick("C1"))  # already chosen
    assert_illegal(state, pick("H9"))  # not in the hand


def test_HL_3_4_after_the_exchange_a_fitting_card_must_be_played_then_drawn():
    """HL-3.4: the chosen cards are discarded and as many drawn; if one fits, the player must
    play it and draw one as usual. Drawn cards stay unknown to the opponent, the revealed ones
    that are still in the hand stay known."""
    state = stuck_position(["C1", "C2", "C4", "S1", "S3"], ["D3", "H9", "S5"])
    run(state, pick("C1"), pick("C2"), EXCHANGE_DONE)
    d = state.to_dict()
    assert d["phase"] == "play" and d["current_player"] == 0
    assert sorted(d["discard_pile"]) == ["C1", "C2"]
    assert sorted(d["hands"][0]) == sorted(["C4", "S1", "S3", "D3", "H9"])
    assert state.legal_actions() == [play("H9", 1, OWN), play("H9", 1, OPP)]
    assert state.view(1)["known_opponent_cards"] == ["C4", "S1", "S3"]
    run(state, play("H9", 1, OWN))
    d = state.to_dict()
    assert sorted(d["hands"][0]) == sorted(["C4", "S1", "S3", "D3", "S5"])  # drew ♠5
    assert d["current_player"] == 1
    assert d["turn"] == 1 and d["pass_streak"] == 0  # one turn, with a card played
    assert state.view(1)["known_opponent_cards"] == ["C4", "S1", "S3"]


def test_HL_3_4_fourth_pick_ends_the_choice_and_a_still_stuck_turn_ends_without_drawing():
    """HL-3.4: choosing a 4th card ends the choice by itself; if still nothing fits, the hand
    is revealed again (drawn cards included) and the turn ends with no card played and no
    normal draw."""
    hand = ["C1", "C2", "C4", "C6", "S1"]
    state = stuck_position(hand, ["D3", "D5", "S3", "C7", "H9"])
    run(state, pick("C1"), pick("C2"), pick("C4"))
    assert state.to_dict()["phase"] == "exchange"
    run(state, pick("C6"))
    d = state.to_dict()
    new_hand = ["S1", "D3", "D5", "S3", "C7"]
    assert sorted(d["hands"][0]) == sorted(new_hand)  # four drawn, none more
    assert d["draw_pile"][0] == "H9"
    assert sorted(d["discard_pile"]) == sorted(["C1", "C2", "C4", "C6"])
    assert d["current_player"] == 1
    assert d["turn"] == 1 and d["pass_streak"] == 1
    assert sorted(state.view(1)["known_opponent_cards"]) == sorted(new_hand)


def test_HL_3_4_revealed_cards_stay_known_until_played():
    """HL-3.4: a revealed card stays known to the opponent in later turns, until it is played
    (discarded ones are forgotten at once)."""
    state = position(
        hands=(["C4", "S1"], ["C6", "D1"]),
        stages={1: stage("H", p0=["H2"], terrain="lowland")},
        draw_pile=["H9", "D2", "D3"],
        prize_deck="C",
    )
    assert state.view(1)["known_opponent_cards"] == ["C4", "S1"]
    run(state, pick("S1"), EXCHANGE_DONE)  # draws ♥9: it fits player_1's side only
    assert state.view(1)["known_opponent_cards"] == ["C4"]
    run(state, play("H9", 1, OPP))  # player_0 wins stage 1; it gets a ♣ prize
    assert state.to_dict()["stages"][0]["prizes"] == ["C"]
    run(state, play("C6", 1, OWN))  # the loser, player_1, moves next
    assert state.view(1)["known_opponent_cards"] == ["C4"]
    run(state, play("C4", 1, OWN))
    assert state.view(1)["known_opponent_cards"] == []


def test_HL_3_5_draw_from_an_empty_draw_pile_reshuffles_the_discard_pile_with_the_seed():
    """HL-3.5: with the draw pile empty, the discard pile is shuffled (seeded) into a new draw
    pile and the top card drawn."""

    def after_play(seed: int) -> dict:
        state = position(
            hands=(["H7"], ["D1"]), stages={2: stage("HD")}, spare_cards="discard", seed=seed
        )
        old_discard = state.to_dict()["discard_pile"]
        assert state.to_dict()["draw_pile"] == [] and len(old_discard) == 38
        d = run(state, play("H7", 2, OWN)).to_dict()
        assert d["discard_pile"] == []
        assert len(d["hands"][0]) == 1 and d["hands"][0][0] in old_discard
        assert sorted(d["hands"][0] + d["draw_pile"]) == sorted(old_discard)
        return d

    assert after_play(1) == after_play(1)
    assert len({tuple(after_play(seed)["draw_pile"]) for seed in range(5)}) > 1


def test_HL_3_5_exchange_reshuffle_can_bring_back_the_cards_just_discarded():
    """HL-3.4 / HL-3.5: exchanged cards go to the discard pile before drawing, so a reshuffle
    takes them along."""
    brought_back = 0
    for seed in range(60):
        state = stuck_position(["C1", "C2", "S1"], ["D9"], spare_cards="discard", seed=seed)
        old_discard = state.to_dict()["discard_pile"]
        d = run(state, pick("C1"), pick("C2"), EXCHANGE_DONE).to_dict()
        drawn = sorted(set(d["hands"][0]) - {"S1"})
        assert "D9" in drawn and len(d["hands"][0]) == 3
        (second,) = set(drawn) - {"D9"}
        assert sorted([second, *d["draw_pile"]]) == sorted(old_discard + ["C1", "C2"])
        brought_back += second in ("C1", "C2")
    assert brought_back > 0


def test_HL_3_5_nothing_is_drawn_when_both_piles_are_empty():
    """HL-3.5: with both piles empty nothing is drawn. Hands (≤ 16) and stages (≤ 19) never hold
    all 40 cards, so no legal position gets there; the piles are emptied on the engine state."""
    state = position(hands=(["H7", "C1"], ["D1"]), stages={2: stage("HD")})
    state.draw_pile.clear()
    state.discard_pile.clear()
    run(state, play("H7", 2, OWN))
    assert state.to_dict()["hands"][0] == ["C1"]
    assert state.current_player == 1


def cluttered_stuck(pass_streak: int) -> State:
    """player_0 holds only spades, no stage wants a spade; stages 1 and 3 hold balloon cards."""
    return position(
        hands=(["S1", "S3", "S5"], ["S9"]),
        stages={1: stage("H", p1=["H3"]), 3: stage("HDC", p0=["D5"], p1=["C7", "H4"])},
        draw_pile=["S7", "S11"],
        pass_streak=pass_streak,
    )


def test_HL_3_6_two_stuck_turns_in_a_row_clear_every_stage():
    """HL-3.6: the second turn in a row without a card played (one by each player) sends every
    stage's balloon cards to the discard pile; prizes stay; the streak starts again at 0 and
    the next player moves as usual."""
    state = cluttered_stuck(pass_streak=1)
    run(state, pick("S1"), EXCHANGE_DONE)  # draws ♠7: still stuck, the turn ends
    d = state.to_dict()
    assert [s["sides"] for s in d["stages"]] == [[[], []]] * 4
    assert [s["prizes"] for s in d["stages"]] == [["H"], [], ["H", "D", "C"], []]
    assert sorted(d["discard_pile"]) == sorted(["S1", "H3", "D5", "C7", "H4"])
    assert d["pass_streak"] == 0
    assert d["current_player"] == 1


def test_HL_3_6_one_stuck_turn_clears_nothing():
    """HL-3.6: a single turn without a card only starts the streak."""
    state = cluttered_stuck(pass_streak=0)
    run(state, pick("S1"), EXCHANGE_DONE)
    d = state.to_dict()
    assert d["pass_streak"] == 1
    assert d["stages"][0]["sides"] == [[], ["H3"]]
    assert d["stages"][2]["sides"] == [["D5"], ["C7", "H4"]]


def test_HL_3_6_a_played_card_ends_the_streak():
    """HL-3.6: a turn with a card played resets the streak, so the next stuck turn is the first."""
    state = position(
        hands=(["H5"], ["S1"]),
        stages={1: stage("H", p1=["H3"]), 3: stage("HDC", p0=["D5"])},
        draw_pile=["S3", "S5", "S7"],
        pass_streak=1,
    )
    run(state, play("H5", 3, OWN))
    assert state.to_dict()["pass_streak"] == 0
    run(state, pick("S1"), EXCHANGE_DONE)  # player_1 is stuck and stays stuck
    d = state.to_dict()
    assert d["pass_streak"] == 1
    assert d["stages"][2]["sides"] == [["D5", "H5"], []]


# -------------------------------------------------------------------------------- HL-4 flying


def test_HL_4_1_stage_flies_after_the_movers_draw():
    """HL-4.1: the stage is flown after the turn's draw: with an empty draw pile the reshuffle
    happens before the stage's balloon cards reach the discard pile."""
    state = position(
        hands=(["H1"], ["D1"]),
        stages={1: stage("H", p1=["H9"]), 2: stage("DD")},
        spare_cards="discard",
    )
    old_discard = state.to_dict()["discard_pile"]
    d = run(state, play("H1", 1, OWN)).to_dict()
    assert sorted(d["discard_pile"]) == ["H1", "H9"]
    assert len(d["hands"][0]) == 1 and d["hands"][0][0] in old_discard
    assert d["prizes_won"][0] == won(H=1)
    assert d["turn"] == 1


def test_HL_4_1_an_incomplete_stage_does_not_fly():
    """HL-4.1: a stage flies only when both sides hold a balloon for every prize."""
    state = position(hands=(["H7"], ["D1"]), stages={2: stage("HD", p0=["H3", "D5"])})
    d = run(state, play("H7", 2, OPP)).to_dict()
    assert d["stages"][1]["sides"] == [["H3", "D5"], ["H7"]]
    assert d["stages"][1]["prizes"] == ["H", "D"]
    assert d["prizes_won"] == [ZERO, ZERO]


@pytest.mark.parametrize(("terrain", "winner"), [("lowland", 0), ("mountain", 1)])
def test_HL_4_2_lowland_lower_sum_wins_mountain_higher_sum_wins(terrain, winner):
    """HL-4.2: player_0 completes stage 1 with ♣4 against ♣10: lower wins over lowland, higher
    over mountain."""
    state = position(
        hands=(["C4"], ["D1"]),
        stages={1: stage("C", p1=["C10"], terrain=terrain), 2: stage("DD")},
    )
    run(state, play("C4", 1, OWN))
    assert state.to_dict()["prizes_won"][winner] == won(C=1)
    assert state.to_dict()["prizes_won"][1 - winner] == ZERO


def test_HL_4_2_the_rulebook_example():
    """HL-4.2 (seed's example): stage 2, mountain, prizes ♦ ♣. Ben (player_1) ♦K ♣7 = 20, Anna
    (player_0) ♦J ♣10 = 21: Anna wins both prizes, stage 2 becomes lowland with two new prizes,
    and Ben moves."""
    state = position(
        hands=(["C10"], ["H1"]),
        stages={2: stage("DC", p0=["D11"], p1=["D13", "C7"], terrain="mountain")},
        prize_deck="HS",
    )
    d = run(state, play("C10", 2, OWN)).to_dict()
    assert d["prizes_won"] == [won(D=1, C=1), ZERO]
    assert d["stages"][1]["terrain"] == "lowland"
    assert d["stages"][1]["prizes"] == ["H", "S"]
    assert sorted(d["discard_pile"]) == sorted(["D11", "C10", "D13", "C7"])
    assert d["current_player"] == 1


@pytest.mark.parametrize("terrain", ["lowland", "mountain"])
@pytest.mark.parametrize("side", [OWN, OPP])
@pytest.mark.parametrize("mover", [0, 1])
def test_HL_4_3_tie_goes_to_last_card_even_on_opponent_side(terrain, side, mover):
    """HL-4.3: equal sums (8 : 8): the player who placed the last card wins, whichever side the
    card went on and whatever the terrain."""
    sides = [[], []]
    if side == OWN:  # the mover completes their own side: ♥6 + ♦2 against ♥3 ♦5
        sides[mover], sides[1 - mover], last = ["H6"], ["H3", "D5"], "D2"
    else:  # the mover completes the opponent's side: ♥3 + ♦5 against ♥6 ♦2
        sides[mover], sides[1 - mover], last = ["H6", "D2"], ["H3"], "D5"
    hands = [["C1"], ["C2"]]
    hands[mover] = [last]
    state = position(
        current_player=mover,
        hands=tuple(hands),
        stages={2: stage("HD", *sides, terrain=terrain, last=1 - mover), 1: stage("C")},
    )
    run(state, play(last, 2, side))
    assert state.to_dict()["prizes_won"][mover] == won(H=1, D=1)


# --------------------------------------------------------------------------- HL-5 after flight


def stage_3_flight(terrain: str = "lowland", prize_deck: str = "DSCH", **kwargs) -> State:
    """player_0 completes stage 3 (♥ ♥ ♣) with ♣2: 1+2+2 = 5 against 10+11+12 = 33, so player_0
    wins over lowland and loses over mountain. Stage 1 (♦) holds player_0's ♦A."""
    kwargs.setdefault("prizes_won", (won(), won()))
    return position(
        hands=(["C2", "S1"], ["D5"]),
        stages={
            1: stage("D", p0=["D1"]),
            3: stage("HHC", p0=["H1", "H2"], p1=["H10", "H11", "C12"], terrain=terrain),
        },
        draw_pile=["S3"],
        prize_deck=prize_deck,
        **kwargs,
    )


FLY_3 = play("C2", 3, OWN)


def test_HL_5_1_winner_takes_the_stage_prizes():
    """HL-5.1: the winner takes exactly the stage's prize cards."""
    d = run(stage_3_flight(), FLY_3).to_dict()
    assert d["prizes_won"] == [won(H=2, C=1), ZERO]


def test_HL_5_2_the_stage_balloons_go_to_the_discard_pile():
    """HL-5.2: all balloon cards of the flown stage are discarded; other stages keep theirs."""
    d = run(stage_3_flight(), FLY_3).to_dict()
    assert sorted(d["discard_pile"]) == sorted(["H1", "H2", "C2", "H10", "H11", "C12"])
    assert d["stages"][2]["sides"] == [[], []]
    assert d["stages"][2]["last_player"] is None
    assert d["stages"][0]["sides"] == [["D1"], []]


@pytest.mark.parametrize(("before", "after"), [("lowland", "mountain"), ("mountain", "lowland")])
def test_HL_5_3_the_terrain_is_turned_over(before, after):
    """HL-5.3: the flown stage's terrain flips; other stages keep theirs."""
    d = run(stage_3_flight(before), FLY_3).to_dict()
    assert d["stages"][2]["terrain"] == after
    assert d["stages"][0]["terrain"] == "lowland"


def test_HL_5_4_refill_from_the_top_of_the_prize_deck():
    """HL-5.4: the stage gets as many prize cards as its number, from the top of the deck."""
    state = stage_3_flight(prize_deck="DSCH")
    deck_before = state.to_dict()["prize_deck"]
    d = run(state, FLY_3).to_dict()
    assert d["stages"][2]["prizes"] == ["D", "S", "C"]
    assert d["stages"][2]["in_play"]
    assert d["prize_deck"] == deck_before[3:]


def test_HL_5_4_stage_leaves_the_game_when_the_prize_deck_is_short():
    """HL-5.4: with fewer prize cards in the deck than the stage's number, the stage leaves the
    game for good and the cards stay in the deck; the game goes on with the other stages."""
    state = stage_3_flight(prize_deck="DS", spare_prizes=1, trophies=("", "S"))
    d = run(state, FLY_3).to_dict()
    assert not d["stages"][2]["in_play"]
    assert d["stages"][2]["prizes"] == []
    assert d["prize_deck"] == ["D", "S"]
    assert (d["phase"], d["current_player"]) == ("play", 1)
    assert all(play("D5", 3, side) not in state.legal_actions() for side in (OWN, OPP))


def test_HL_5_5_trophy_phase_follows_after_the_refill():
    """HL-5.5 (with HL-5.1–5.4 in order): the trophy phase comes after the prizes were taken, the
    balloons discarded, the terrain flipped and the stage refilled, and the prizes just won
    already count."""
    state = stage_3_flight(prizes_won=(won(H=5), won()))
    d = run(state, FLY_3).to_dict()
    assert (d["phase"], d["current_player"]) == ("trophy", 0)
    assert state.legal_actions() == [CLAIM["H"], STOP]
    assert d["prizes_won"][0] == won(H=7, C=1)
    assert d["stages"][2]["sides"] == [[], []]
    assert d["stages"][2]["terrain"] == "mountain"
    assert d["stages"][2]["prizes"] == ["D", "S", "C"]


def test_HL_5_6_the_loser_moves_next_even_if_they_just_moved():
    """HL-5.6: player_0 completes stage 3 over mountain and loses: player_0 moves again."""
    d = run(stage_3_flight("mountain"), FLY_3).to_dict()
    assert d["prizes_won"] == [ZERO, won(H=2, C=1)]
    assert (d["phase"], d["current_player"]) == ("play", 0)


def test_HL_5_6_the_loser_moves_next_after_the_trophy_phase():
    """HL-5.6: player_0 wins and claims; then player_1, the loser, moves."""
    state = run(stage_3_flight(prizes_won=(won(H=5), won())), FLY_3, CLAIM["H"])
    d = state.to_dict()
    assert d["trophies"] == [["H"], []]
    assert (d["phase"], d["current_player"]) == ("play", 1)


# -------------------------------------------------------------------------------- HL-6 trophies


def test_HL_6_1_claim_pays_the_exact_price_and_extra_cards_stay():
    """HL-6.1: claiming ♥ with 9 ♥ prizes pays 7 into the trophy; 2 ♥ (and the ♦) stay."""
    state = trophy_phase(won(H=9, D=2), won())
    run(state, CLAIM["H"])
    d = state.to_dict()
    assert d["trophies"] == [["H"], []]
    assert d["prizes_won"][0] == won(H=2, D=2)
    assert d["trophy_cards"][0] == won(H=7)


def test_HL_6_1_nobody_else_can_claim_an_awarded_suit():
    """HL-6.1: player_1 owns the ♥ trophy, so player_0's 7 ♥ do not claim it (they pay three
    for one towards ♠ instead)."""
    state = trophy_phase(won(H=6, S=2), won(), trophies=("", "H"))
    assert state.legal_actions() == [CLAIM["S"], STOP]


def test_HL_6_1_a_trophy_is_never_lost():
    """HL-6.1: a claimed trophy and the cards paid into it stay through later flights."""
    state = run(trophy_phase(won(H=7), won()), CLAIM["H"])
    assert state.current_player == 1  # the loser moves on
    run(state, play("C2", 1, OWN), play("C1", 1, OWN))  # stage 1 flies again
    d = state.to_dict()
    assert d["prizes_won"][0] == won(C=1)  # 1 < 2 over lowland
    assert d["trophies"] == [["H"], []]
    assert d["trophy_cards"][0] == won(H=7)


def test_HL_6_2_rulebook_example_three_hearts_stand_in_for_a_fourth_spade():
    """HL-6.2 (seed's example): Ben owns ♥. Anna holds 3 ♠ and 3 ♥ and claims ♠ with her 3 ♠
    plus her 3 ♥ as the 4th card."""
    state = trophy_phase(won(S=3, H=3), won(), trophies=("", "H"))
    assert state.legal_actions() == [CLAIM["S"], STOP]
    run(state, CLAIM["S"])
    d = state.to_dict()
    assert d["trophies"][0] == ["S"]
    assert d["prizes_won"][0] == ZERO
    assert d["trophy_cards"][0] == won(S=3, H=3)


def test_HL_6_2_several_groups_from_the_suit_held_most_each_time():
    """HL-6.2: ♠ with 1 ♠ + three groups: ♥ (6 ♥ > 5 ♦), then ♦ (5 > 3 ♥), then ♥ (3 > 2 ♦).
    player_0 owns ♦, player_1 owns ♥; the ♠ trophy is player_0's second, so they win."""
    state = trophy_phase(won(S=1, H=6, D=5), won(), trophies=("D", "H"))
    assert state.legal_actions() == [CLAIM["S"], STOP]
    run(state, CLAIM["S"])
    d = state.to_dict()
    assert d["trophies"][0] == ["D", "S"]
    assert d["trophy_cards"][0] == won(D=6 + 3, H=6, S=1)
    assert d["prizes_won"][0] == won(D=2)


def test_HL_6_2_payment_tie_takes_hearts_before_diamonds():
    """HL-6.2: with equally many ♥ and ♦ (both awarded), the group of three is paid in ♥."""
    state = trophy_phase(won(S=3, H=3, D=3), won(), trophies=("D", "H"))
    run(state, CLAIM["S"])
    d = state.to_dict()
    assert d["trophy_cards"][0] == won(D=6, S=3, H=3)
    assert d["prizes_won"][0] == won(D=3)


def test_HL_6_2_the_payment_order_example_of_the_docs_is_a_real_position():
    """HL-6.2, docs/rules.md example 3: the payment-order position it describes is one the
    engine accepts (from_dict), and the claim pays and leaves what the text says."""
    text = (Path(__file__).parents[2] / "docs" / "rules.md").read_text(encoding="utf-8")
    text = " ".join(text.split())
    held = re.search(r"claiming ♠ \(price 4\) with (\d+) ♠, (\d+) ♥ and (\d+) ♦", text)
    left = re.search(r"Left over: (\d+) ♥ and (\d+) ♦\.", text)
    assert held and left
    spades, hearts, diamonds = map(int, held.groups())
    state = trophy_phase(won(S=spades, H=hearts, D=diamonds), won(), trophies=("D", "H"))
    assert CLAIM["S"] in state.legal_actions()
    run(state, CLAIM["S"])
    assert state.to_dict()["prizes_won"][0] == won(H=int(left[1]), D=int(left[2]))


def test_HL_6_2_own_suit_pays_first():
    """HL-6.2: with 5 ♠ and 3 ♥ (♥ awarded), the ♠ trophy takes 4 ♠; 1 ♠ and the 3 ♥ stay."""
    state = trophy_phase(won(S=5, H=3), won(), trophies=("", "H"))
    run(state, CLAIM["S"])
    d = state.to_dict()
    assert d["trophy_cards"][0] == won(S=4)
    assert d["prizes_won"][0] == won(S=1, H=3)


def test_HL_6_2_a_trophy_paid_without_a_card_of_its_own_suit():
    """HL-6.2: 12 ♥ (♥ awarded) pay four groups for the ♠ trophy, with no ♠ at all. (In a real
    game two awarded suits leave at most 11 spare cards, so player_1's ♥ trophy here is padded
    with ♦ to free enough ♥.)"""
    state = trophy_phase(
        won(H=12),
        won(),
        trophies=("", "H"),
        trophy_cards=(won(), won(H=1, D=6)),
        stages={1: stage("D")},
        hands=(["D1"], ["D2"]),
    )
    assert state.legal_actions() == [CLAIM["S"], STOP]
    run(state, CLAIM["S"])
    d = state.to_dict()
    assert d["trophy_cards"][0] == won(H=12)
    assert d["prizes_won"][0] == ZERO
    assert d["trophies"][0] == ["S"]


def test_HL_6_2_suits_without_an_awarded_trophy_do_not_pay():
    """HL-6.2: three-for-one needs the group's suit to be awarded: with no trophy out, 3 ♠ and
    3 ♣ claim nothing, so there is no trophy phase."""
    d = run(p0_wins_stage_1(prizes_won=(won(S=3, C=3), won())), FLY_D).to_dict()
    assert (d["phase"], d["current_player"]) == ("play", 1)
    assert d["trophies"] == [[], []]


@given(
    held=st.tuples(*(st.integers(0, n) for n in SUIT_SIZES)),
    awarded=st.lists(st.integers(0, 3), max_size=2, unique=True),
)
def test_HL_6_1_and_6_2_a_claimable_trophy_is_one_its_payment_covers(held, awarded):
    """HL-6.1/6.2: a free trophy is claimable exactly when it can be paid for (own suit first,
    then groups of three of awarded suits, the suit held most first); the payment is the price,
    a group of three counted as one card, and never more of a suit than is held."""
    claimable = claimable_trophies(held, awarded, three_for_one=True)
    for suit in range(4):
        if suit in awarded:
            assert suit not in claimable
            continue
        try:
            paid = trophy_payment(held, suit, awarded)
        except ValueError:
            assert suit not in claimable
            continue
        assert suit in claimable
        assert all(p <= h for p, h in zip(paid, held, strict=True))
        groups = sum(paid[s] for s in range(4) if s != suit)
        assert paid[suit] + groups // THREE_FOR_ONE == TROPHY_PRICE[suit]
        assert all(paid[s] % THREE_FOR_ONE == 0 for s in range(4) if s != suit)
        assert all(paid[s] == 0 for s in range(4) if s != suit and s not in awarded)
    assert claimable_trophies(held, awarded, three_for_one=False) == [
        s for s in range(4) if s not in awarded and held[s] >= TROPHY_PRICE[s]
    ]


@pytest.mark.parametrize("three_for_one", [True, False])
def test_HL_6_3_variant_without_three_for_one(three_for_one):
    """HL-6.3: with ``three_for_one=False`` only a trophy's own suit pays: the rulebook's 3 ♠ +
    3 ♥ no longer claim ♠, so nobody is asked."""
    state = p0_wins_stage_1(
        prizes_won=(won(S=3, H=3), won()),
        trophies=("", "H"),
        options={"three_for_one": three_for_one},
    )
    d = run(state, FLY_D).to_dict()
    if three_for_one:
        assert (d["phase"], d["current_player"]) == ("trophy", 0)
        assert state.legal_actions() == [CLAIM["S"], STOP]
    else:
        assert (d["phase"], d["current_player"]) == ("play", 1)


def test_HL_6_4_claims_only_in_the_trophy_phase():
    """HL-6.4: 7 ♥ in hand do not allow a claim during a play turn."""
    state = position(hands=(["H5"], ["H6"]), stages={1: stage("H")}, prizes_won=(won(H=7), won()))
    assert_illegal(state, CLAIM["H"])
    assert_illegal(state, STOP)


def test_HL_6_4_winner_decides_first_and_again_after_a_claim():
    """HL-6.4: the stage winner is asked first; after a claim they decide again."""
    state = run(p0_wins_stage_1(prizes_won=(won(D=5, C=5), won(S=4))), FLY_D)
    d = state.to_dict()
    assert (d["phase"], d["current_player"]) == ("trophy", 0)
    assert d["trophy_phase"] == {"winner": 0, "asking": "winner"}
    assert state.legal_actions() == [CLAIM["D"], CLAIM["C"], STOP]  # ♦ 5 + the ♦ just won
    run(state, CLAIM["C"])
    assert state.current_player == 0
    assert state.to_dict()["trophy_phase"] == {"winner": 0, "asking": "winner"}
    assert state.legal_actions() == [CLAIM["D"], STOP]


def test_HL_6_4_after_the_winner_stops_the_other_decides_then_the_winner_again():
    """HL-6.4: winner stops → the other claims → the winner is asked again → the winner stops →
    the other, who can claim nothing more, is not asked: the phase ends, the loser moves."""
    state = run(p0_wins_stage_1(prizes_won=(won(C=5), won(S=4))), FLY_D)
    assert state.legal_actions() == [CLAIM["C"], STOP]
    run(state, STOP)
    d = state.to_dict()
    assert d["current_player"] == 1
    assert d["trophy_phase"] == {"winner": 0, "asking": "other"}
    assert state.legal_actions() == [CLAIM["S"], STOP]
    run(state, CLAIM["S"])
    assert state.current_player == 0
    assert state.to_dict()["trophy_phase"] == {"winner": 0, "asking": "winner"}
    assert state.legal_actions() == [CLAIM["C"], STOP]
    run(state, STOP)
    d = state.to_dict()
    assert (d["phase"], d["current_player"]) == ("play", 1)
    assert d["trophies"] == [[], ["S"]]
    assert d["prizes_won"][0] == won(C=5, D=1)  # claiming is optional: the cards stay


def test_HL_6_4_the_phase_ends_when_the_other_player_stops():
    """HL-6.4: the other player stops: the phase ends even though the winner could still claim."""
    state = run(p0_wins_stage_1(prizes_won=(won(C=5), won(S=4))), FLY_D, STOP, STOP)
    d = state.to_dict()
    assert (d["phase"], d["current_player"]) == ("play", 1)
    assert d["trophies"] == [[], []]


def test_HL_6_4_a_winner_who_cannot_claim_is_not_asked_until_a_new_trophy_opens_three_for_one():
    """HL-6.4: the winner (4 ♣, 3 ♥) cannot claim, so the other (7 ♥) is asked first; their ♥
    trophy makes the winner's 3 ♥ a fifth ♣, so the winner is asked next."""
    state = run(p0_wins_stage_1(prizes_won=(won(C=4, H=3), won(H=7))), FLY_D)
    assert state.current_player == 1
    assert state.to_dict()["trophy_phase"] == {"winner": 0, "asking": "other"}
    run(state, CLAIM["H"])
    assert state.current_player == 0
    assert state.legal_actions() == [CLAIM["C"], STOP]
    run(state, CLAIM["C"])
    d = state.to_dict()
    assert d["trophies"] == [["C"], ["H"]]
    assert (d["phase"], d["current_player"]) == ("play", 1)  # nobody can claim more


def test_HL_6_4_the_other_decides_again_when_the_winner_still_cannot_claim():
    """HL-6.4: the other claims, the winner still can claim nothing, so the other decides again."""
    state = run(p0_wins_stage_1(prizes_won=(won(), won(S=4, C=5))), FLY_D)
    assert state.current_player == 1
    run(state, CLAIM["S"])
    assert state.current_player == 1
    assert state.legal_actions() == [CLAIM["C"], STOP]
    run(state, STOP)
    assert (state.to_dict()["phase"], state.current_player) == ("play", 1)


def test_HL_6_4_no_trophy_phase_when_nobody_can_claim():
    """HL-6.4: if neither player can claim, nobody is asked and the loser moves."""
    d = run(p0_wins_stage_1(prizes_won=(won(H=6), won(S=3))), FLY_D).to_dict()
    assert (d["phase"], d["current_player"]) == ("play", 1)


# ------------------------------------------------------------------------------ HL-7 game end


def test_HL_7_1_second_trophy_wins_at_once_in_the_middle_of_the_trophy_phase():
    """HL-7.1: the winner owns ♦ and claims ♣: they win at once, before player_1 (who could
    claim ♠) is asked, with stages still in play."""
    state = run(p0_wins_stage_1(prizes_won=(won(C=5), won(S=4)), trophies=("D", "")), FLY_D)
    run(state, CLAIM["C"])
    d = state.to_dict()
    assert d["phase"] == "over" and d["winner"] == 0
    assert state.is_terminal() and not state.is_truncated()
    assert state.current_player is None and state.legal_actions() == []
    assert state.returns() == [1.0, -1.0]
    assert d["trophies"] == [["D", "C"], []]
    assert d["stages"][0]["in_play"]


def test_HL_7_1_the_other_player_can_win_mid_phase_too():
    """HL-7.1: player_1 (other) owns ♦ and claims ♠ after the winner's first trophy."""
    state = run(p0_wins_stage_1(prizes_won=(won(C=5), won(S=4)), trophies=("", "D")), FLY_D)
    run(state, CLAIM["C"])  # player_0's first trophy; they can claim nothing more
    assert state.current_player == 1
    run(state, CLAIM["S"])
    assert state.to_dict()["winner"] == 1
    assert state.returns() == [-1.0, 1.0]


def last_flight(won0: dict, won1: dict, trophies: tuple[str, str], **kwargs) -> State:
    """Stage 1 (♥, lowland) is the last stage and the prize deck is empty: player_0 completes it
    with ♥A against ♥9 and wins the ♥; then the stage leaves the game (HL-5.4)."""
    state = position(
        hands=(["H1"], ["D1"]),
        stages={1: stage("H", p1=["H9"], terrain="lowland")},
        prizes_won=(won0, won1),
        trophies=trophies,
        **kwargs,
    )
    assert state.to_dict()["prize_deck"] == []
    return run(state, play("H1", 1, OWN))


def totals(d: dict) -> list[int]:
    return [sum(d["prizes_won"][p].values()) + sum(d["trophy_cards"][p].values()) for p in (0, 1)]


def test_HL_7_2_more_trophies_win_when_no_stage_is_left():
    """HL-7.2: 1 trophy against 0 wins, though player_1 holds 35 prize cards to player_0's 5."""
    state = last_flight(won(), won(H=12, D=11, C=9, S=3), ("S", ""))
    stop_claims(state)  # player_1 could claim ♥, ♦ or ♣ but declines
    d = state.to_dict()
    assert not d["stages"][0]["in_play"]
    assert totals(d) == [5, 35]
    assert d["phase"] == "over" and d["winner"] == 0
    assert state.returns() == [1.0, -1.0]


def test_HL_7_2_equal_trophies_more_prize_cards_win_counting_trophy_cards():
    """HL-7.2: 1 trophy each; player_0 holds 15 loose prize cards to player_1's 14, but player_1's
    ♣ trophy was paid with 4 ♣ + 3 ♠ (7 cards): 19 against 21, player_1 wins."""
    state = last_flight(
        won(H=6, D=6, C=2),
        won(H=6, D=5, C=3),
        ("S", "C"),
        trophy_cards=(won(S=4), won(C=4, S=3)),
    )
    stop_claims(state)
    d = state.to_dict()
    assert [sum(d["prizes_won"][p].values()) for p in (0, 1)] == [15, 14]
    assert totals(d) == [19, 21]
    assert d["winner"] == 1
    assert state.returns() == [-1.0, 1.0]


def test_HL_7_2_equal_trophies_and_prize_cards_is_a_draw():
    """HL-7.2: 1 trophy and 20 prize cards each: a draw, 0 for both."""
    state = last_flight(won(H=6, D=6, C=2, S=1), won(H=6, D=5, C=2, S=2), ("S", "C"))
    stop_claims(state)
    d = state.to_dict()
    assert totals(d) == [20, 20]
    assert d["phase"] == "over" and d["winner"] == "draw"
    assert not state.is_truncated()
    assert state.returns() == [0.0, 0.0]


def test_HL_7_2_the_last_flights_trophy_phase_still_runs():
    """HL-7.2 / HL-5.4: the last stage left the game, but its flight's trophy phase runs first: a
    second trophy claimed there wins (HL-7.1); declining lets HL-7.2 decide."""
    state = last_flight(won(H=6), won(H=6, D=11, C=4, S=3), ("S", "C"))
    d = state.to_dict()
    assert not any(s["in_play"] for s in d["stages"])
    assert (d["phase"], d["current_player"]) == ("trophy", 0)
    declined = stop_claims(state.clone())
    assert declined.to_dict()["winner"] == 1  # 11 against 29 prize cards
    run(state, CLAIM["H"])
    assert state.to_dict()["winner"] == 0


def test_HL_7_3_turn_limit_truncates_without_a_winner():
    """HL-7.3: reaching ``turn_limit`` turns ends the game, truncated, with no winner."""
    state = position(
        hands=(["H7"], ["D1"]), stages={2: stage("HD")}, options={"turn_limit": 5}, turn=4
    )
    run(state, play("H7", 2, OWN))
    d = state.to_dict()
    assert d["turn"] == 5
    assert d["phase"] == "over" and d["winner"] is None
    assert state.is_terminal() and state.is_truncated()
    assert state.returns() == [0.0, 0.0]
    assert state.current_player is None and state.legal_actions() == []


def test_HL_7_3_exchange_picks_are_not_turns():
    """HL-7.3: picks and "done" of an exchange are inside one turn; the play after them ends it."""
    state = stuck_position(["C1", "C2", "S1"], ["H9", "D3"], options={"turn_limit": 5}, turn=4)
    run(state, pick("C1"), pick("C2"), EXCHANGE_DONE)
    assert state.to_dict()["turn"] == 4 and not state.is_terminal()
    run(state, play("H9", 1, OWN))
    assert state.to_dict()["turn"] == 5 and state.is_truncated()


def test_HL_7_3_a_stuck_turn_counts_as_one_turn():
    """HL-7.3: a stuck turn without a card played is a turn."""
    state = stuck_position(["C1", "C2", "S1"], ["D3", "S3"], options={"turn_limit": 5}, turn=4)
    run(state, pick("C1"), pick("C2"), EXCHANGE_DONE)
    assert state.to_dict()["turn"] == 5 and state.is_truncated()


def test_HL_7_3_trophy_decisions_are_not_turns():
    """HL-7.3: claims and stops in the trophy phase do not move the turn counter; the trophy
    phase of the limit's last turn still runs to its end."""
    state = p0_wins_stage_1(prizes_won=(won(C=5), won(S=4)), options={"turn_limit": 3}, turn=2)
    run(state, FLY_D)
    assert state.to_dict()["turn"] == 3
    assert state.to_dict()["phase"] == "trophy"  # the limit is reached, the phase still runs
    copy = State.from_dict(state.to_dict())  # and the position reads back as it is
    assert copy.to_dict() == state.to_dict() and copy.legal_actions() == state.legal_actions()
    run(state, CLAIM["C"])  # player_0's first trophy; then player_1 is asked
    assert state.to_dict()["turn"] == 3 and state.current_player == 1
    run(state, STOP)
    assert state.to_dict()["turn"] == 3
    assert state.is_truncated() and state.to_dict()["trophies"] == [["C"], []]


def test_HL_7_3_default_limit_and_random_games_hit_a_small_limit():
    """HL-7.3: the default limit is 2000 turns; a game with ``turn_limit=10`` ends truncated after
    exactly 10 turns unless decided before."""
    assert State.new(seed=0).to_dict()["options"]["turn_limit"] == 2000
    rng = np.random.default_rng(0)
    state = State.new(seed=0, turn_limit=10)
    while not state.is_terminal():
        state.apply(int(rng.choice(state.legal_actions())))
    d = state.to_dict()
    assert d["turn"] == 10 and state.is_truncated() and state.returns() == [0.0, 0.0]


@pytest.mark.parametrize(
    ("winner", "expected"),
    [(0, [1.0, -1.0]), (1, [-1.0, 1.0]), ("draw", [0.0, 0.0]), (None, [0.0, 0.0])],
)
def test_HL_7_4_returns_at_the_end(winner, expected):
    """HL-7.4: +1 winner, −1 loser; 0 each for a draw or a truncation."""
    state = position(phase="over", current_player=None, winner=winner, turn=10)
    assert state.is_terminal()
    assert state.returns() == expected


def test_HL_7_4_no_reward_before_the_end():
    """HL-7.4: rewards only when the game ends: a player with a trophy and more prizes gets 0
    while the game runs."""
    state = p0_wins_stage_1(prizes_won=(won(H=5), won()), trophies=("S", ""))
    assert state.returns() == [0.0, 0.0]
    run(state, FLY_D)
    assert not state.is_terminal() and state.returns() == [0.0, 0.0]


# --------------------------------------------------------------------------- HL-8 information


def info_position(**kwargs) -> State:
    kwargs.setdefault("hands", (["H7", "C4", "S1"], ["D8", "D9", "C6"]))
    kwargs.setdefault("draw_pile", ["H2", "H3", "S5"])
    kwargs.setdefault("prize_deck", "SDCH")
    return position(
        stages={1: stage("C", p1=["C2"]), 3: stage("HHD", p0=["H5"], p1=["H4", "D3"])},
        discard_pile=["S13"],
        prizes_won=(won(H=2), won(D=1)),
        **kwargs,
    )


def card_codes_in(obj) -> set[str]:
    """Every balloon card code anywhere in a JSON-like object."""
    if isinstance(obj, str):
        return {obj} if obj in CARD_INDEX else set()
    if isinstance(obj, dict):
        return set().union(*(card_codes_in(v) for v in obj.values()), set())
    if isinstance(obj, list | tuple):
        return set().union(*(card_codes_in(v) for v in obj), set())
    return set()


def test_HL_8_view_shows_own_hand_opponent_hand_size_and_public_table():
    """HL-8: own hand private; of the opponent's hand only its size; the table is public."""
    state = info_position()
    d, v = state.to_dict(), state.view(0)
    assert v["player"] == 0
    assert sorted(v["hand"]) == ["C4", "H7", "S1"]
    assert v["opponent_hand_size"] == 3
    assert v["known_opponent_cards"] == []
    for key in ("stages", "prizes_won", "trophies", "discard_pile", "pass_streak", "phase"):
        assert v[key] == d[key], key
    assert v["current_player"] == 0 and v["turn"] == d["turn"]
    assert v["draw_pile_size"] == len(d["draw_pile"])
    assert v["prize_deck_size"] == len(d["prize_deck"])
    assert v["legal_actions"] == state.legal_actions()
    assert state.view(1)["legal_actions"] == []
    hidden = set(d["hands"][1]) | set(d["draw_pile"])
    assert not card_codes_in(v) & hidden


def test_HL_8_view_hides_the_draw_pile_order_and_the_prize_deck_order():
    """HL-8: nobody knows the draw pile or prize deck order, nor the opponent's unknown cards:
    states differing only there give the same view."""
    a = info_position()
    b = info_position(
        hands=(["H7", "C4", "S1"], ["D8", "H2", "C6"]),  # ♦9 and ♥2 swapped with the draw pile
        draw_pile=["S5", "D9", "H3"],
        prize_deck="HCDS",
    )
    assert a.to_dict() != b.to_dict()
    assert a.view(0) == b.view(0)
    assert "draw_pile" not in a.view(0) and "prize_deck" not in a.view(0)
    assert "hands" not in a.view(0)


def test_HL_8_revealed_cards_are_the_only_known_opponent_cards():
    """HL-8 / HL-3.4: after player_1's stuck turn, player_0 knows player_1's revealed hand; the
    card player_1 drew in the exchange and played is never shown."""
    state = position(
        current_player=1,
        hands=(["D2"], ["C1", "C4", "S1"]),
        stages={1: stage("H")},
        draw_pile=["H9", "S3", "D5"],
    )
    assert state.view(0)["known_opponent_cards"] == ["C1", "C4", "S1"]
    assert state.view(1)["known_opponent_cards"] == []
    run(state, pick("C1"), EXCHANGE_DONE, play("H9", 1, OWN))
    v = state.view(0)
    assert v["known_opponent_cards"] == ["C4", "S1"]
    assert "S3" not in card_codes_in(v)  # drawn after the play, never shown
