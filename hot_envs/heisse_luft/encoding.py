"""Heiße Luft observation: one flat float32 vector in [0, 1] from the observer's point of view.

Seats are relative: index 0 of every per-player piece is the observer ("me"), index 1 the
opponent; stage sides likewise (own side first). Everything of HL-8 the observer may know is in
it, and nothing else: the opponent's hand appears only as its size and the cards revealed under
HL-3.4; the draw pile and prize deck only as sizes and (public) prize-deck composition.

Scaling: counts are divided by their maximum (hand and sizes by the card totals, sums by 52 =
4 × 13, per-suit prize counts by the suit's size), so every entry lies in [0, 1].
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import truediv
from typing import TYPE_CHECKING

import numpy as np

from hot_envs.core.observation import ObservationLayout, Piece
from hot_envs.heisse_luft.facts import (
    EXCHANGE,
    HAND_SIZE,
    NUM_ACTIONS,
    NUM_CARDS,
    NUM_STAGES,
    PLAY,
    SUIT_SIZES,
    TROPHY,
)

if TYPE_CHECKING:
    from hot_envs.heisse_luft.state import State

S, C = NUM_STAGES, NUM_CARDS
MAX_SIDE_SUM = 4 * 13
LAYOUT = ObservationLayout(
    [
        Piece("hand", (C,), "my hand cards (card index of HL-1.1)"),
        Piece("my_revealed", (C,), "my hand cards the opponent has seen (HL-3.4)"),
        Piece("opponent_known", (C,), "opponent's hand cards I have seen (HL-3.4)"),
        Piece("opponent_hand_size", (1,), "opponent's hand size / 8"),
        Piece("exchange_selection", (C,), "cards chosen so far in the current exchange"),
        Piece("discard_pile", (C,), "cards in the discard pile"),
        Piece("stage_in_play", (S,), "stage still in the game"),
        Piece("stage_mountain", (S,), "terrain: 1 mountain (higher wins), 0 lowland"),
        Piece("stage_prizes", (S, 4), "prize cards by suit ♥♦♣♠ / 4"),
        Piece("stage_cards", (S, 2, C), "balloon cards on [my side, opponent's side]"),
        Piece("stage_last", (S, 2), "last card at the stage placed by [me, opponent]"),
        Piece("stage_sums", (S, 2), "sum of [my side, opponent's side] / 52"),
        Piece("stage_missing", (S, 2, 4), "cards by suit each side still needs / 4"),
        Piece("stage_leading", (S, 2), "[I, opponent] would win the stage with its cards now"),
        Piece(
            "prizes_won", (2, 4), "prize cards held outside trophies, [me, opponent] × suit / size"
        ),
        Piece(
            "trophy_cards", (2, 4), "prize cards paid into trophies, [me, opponent] × suit / size"
        ),
        Piece("trophies", (2, 4), "trophies held, [me, opponent] × suit"),
        Piece("awarded", (4,), "suits whose trophy is taken (three-for-one sources, HL-6.2)"),
        Piece("prize_deck_counts", (4,), "prize deck composition by suit / suit size"),
        Piece("prize_deck_size", (1,), "prize deck size / 40"),
        Piece("draw_pile_size", (1,), "draw pile size / 40"),
        Piece("pass_streak", (1,), "turns in a row without a card played (HL-3.6)"),
        Piece("phase", (3,), "one-hot: play, exchange, trophy"),
        Piece("trophy_role", (2,), "in a trophy phase: I am [the stage winner, the other]"),
        Piece("to_move", (1,), "it is my decision"),
        Piece("three_for_one", (1,), "option three_for_one (HL-6.2) is on"),
        Piece("turn_progress", (1,), "turn / turn_limit"),
    ],
    version=1,
)
SIZE = LAYOUT.size

# Flat offsets, looked up once: building named views per call would cost more than the encoding
# itself. A piece's entries follow its shape row-major, e.g. stage_cards by (stage, side, card).
_HAND = LAYOUT.offset("hand")
_MY_REVEALED = LAYOUT.offset("my_revealed")
_OPPONENT_KNOWN = LAYOUT.offset("opponent_known")
_EXCHANGE_SELECTION = LAYOUT.offset("exchange_selection")
_DISCARD_PILE = LAYOUT.offset("discard_pile")
_TROPHIES = [LAYOUT.offset("trophies", rel) for rel in (0, 1)]
_AWARDED = LAYOUT.offset("awarded")
_PHASE = LAYOUT.offset("phase")
_TROPHY_ROLE = LAYOUT.offset("trophy_role")
_TO_MOVE = LAYOUT.offset("to_move")
_THREE_FOR_ONE = LAYOUT.offset("three_for_one")
# The pieces the observation and the full state write whole at every call, in the order of
# whole_values(); the observation's start with these two.
WHOLE_PIECES = (
    "prizes_won",
    "trophy_cards",
    "prize_deck_counts",
    "prize_deck_size",
    "draw_pile_size",
    "turn_progress",
)
_WHOLE = [
    i for name in ("opponent_hand_size", "pass_streak", *WHOLE_PIECES) for i in LAYOUT.indices(name)
]
_PRIZE_DIVISORS = SUIT_SIZES * 4  # prizes_won and trophy_cards: [me, opponent] × suit each


@dataclass(frozen=True)
class StageOffsets:
    """Where the stage pieces start in a layout that has them (the observation's, seen from
    one player; the full state's, seen from seat 0): per stage, and per side where it has two."""

    in_play: int
    mountain: int
    prizes: list[int]
    cards: list[list[int]]
    last: list[int]
    sums: list[int]
    missing: list[list[int]]
    leading: list[int]

    @classmethod
    def of(cls, layout: ObservationLayout) -> StageOffsets:
        at, sides = layout.offset, (0, 1)
        return cls(
            in_play=at("stage_in_play"),
            mountain=at("stage_mountain"),
            prizes=[at("stage_prizes", i) for i in range(S)],
            cards=[[at("stage_cards", i, side) for side in sides] for i in range(S)],
            last=[at("stage_last", i) for i in range(S)],
            sums=[at("stage_sums", i) for i in range(S)],
            missing=[[at("stage_missing", i, side) for side in sides] for i in range(S)],
            leading=[at("stage_leading", i) for i in range(S)],
        )


def stage_entries(
    state: State,
    me: int,
    at: StageOffsets,
    ones: list[int],
    index: list[int],
    value: list[float],
) -> None:
    """Append the stage pieces' nonzero entries: the 1s to ``ones``, the others to ``index`` and
    ``value``. Side 0 of every piece is seat ``me``'s (the observer, or seat 0 in the state)."""
    opp = 1 - me
    for i in range(NUM_STAGES):
        if not state.in_play[i]:
            continue
        ones.append(at.in_play + i)
        if state.terrain[i]:
            ones.append(at.mountain + i)
        prizes_at, (mine_missing_at, theirs_missing_at) = at.prizes[i], at.missing[i]
        mine_have, theirs_have = state.have[i][me], state.have[i][opp]
        for suit, need in enumerate(state.need[i]):
            if need:  # a side can miss only a suit the stage needs
                index.append(prizes_at + suit)
                value.append(need / 4)
                if need > mine_have[suit]:
                    index.append(mine_missing_at + suit)
                    value.append((need - mine_have[suit]) / 4)
                if need > theirs_have[suit]:
                    index.append(theirs_missing_at + suit)
                    value.append((need - theirs_have[suit]) / 4)
        mine, theirs = state.sides[i][me], state.sides[i][opp]
        mine_at, theirs_at = at.cards[i]
        if mine:
            ones += [mine_at + c for c in mine]
            index.append(at.sums[i])
            value.append(state.sums[i][me] / MAX_SIDE_SUM)
        if theirs:
            ones += [theirs_at + c for c in theirs]
            index.append(at.sums[i] + 1)
            value.append(state.sums[i][opp] / MAX_SIDE_SUM)
        last = state.last_player[i]
        if last is not None:
            ones.append(at.last[i] + (last != me))
            ones.append(at.leading[i] + (state.stage_leader(i) != me))


_STAGES = StageOffsets.of(LAYOUT)


def encode(state: State, player: int) -> np.ndarray:
    """``player``'s observation of ``state`` as described by :data:`LAYOUT`."""
    me, opp = player, 1 - player
    ones: list[int] = [_HAND + c for c in state.hands[me]]
    ones += [_MY_REVEALED + c for c in state.revealed[me]]
    ones += [_OPPONENT_KNOWN + c for c in state.revealed[opp]]
    ones += [_EXCHANGE_SELECTION + c for c in state.exchange_selection]
    ones += [_DISCARD_PILE + c for c in state.discard_pile]

    # Stage pieces are mostly 0: only their nonzero entries are listed.
    index: list[int] = []
    value: list[float] = []
    stage_entries(state, me, _STAGES, ones, index, value)

    my_trophies_at, their_trophies_at = _TROPHIES
    ones += [my_trophies_at + s for s in state.trophies[me]]
    ones += [their_trophies_at + s for s in state.trophies[opp]]
    ones += [_AWARDED + s for s in state.trophies[0] + state.trophies[1]]
    if state.phase in (PLAY, EXCHANGE, TROPHY):
        ones.append(_PHASE + state.phase)
    if state.phase == TROPHY:
        ones.append(_TROPHY_ROLE + (state.trophy_winner != me))
    if state.current_player == me:
        ones.append(_TO_MOVE)
    if state.options["three_for_one"]:
        ones.append(_THREE_FOR_ONE)

    obs = np.zeros(SIZE, dtype=np.float32)
    obs.put(ones, 1.0)  # put: faster than obs[ones] = 1.0 for a list of indices
    obs.put(index, value)
    obs[_WHOLE] = [len(state.hands[opp]) / HAND_SIZE, state.pass_streak, *whole_values(state, me)]
    return obs


def whole_values(state: State, me: int) -> list[float]:
    """The values of :data:`WHOLE_PIECES`, seat ``me``'s first where a piece is per seat."""
    won, paid, deck = state.prizes_won, state.trophy_cards, state.prize_deck
    whole = list(map(truediv, won[me] + won[1 - me] + paid[me] + paid[1 - me], _PRIZE_DIVISORS))
    whole += [deck.count(suit) / size for suit, size in enumerate(SUIT_SIZES)]
    whole += [len(deck) / 40, len(state.draw_pile) / NUM_CARDS]
    whole.append(min(state.turn / state.options["turn_limit"], 1.0))
    return whole


def action_mask(state: State, player: int) -> np.ndarray:
    """int8 mask over the 366 actions: 1 where legal for ``player`` (all 0 if not to move)."""
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    if state.current_player == player:
        mask.put(state.legal_actions(), 1)
    return mask
