"""Heiße Luft's full state as one flat float32 vector (PettingZoo's optional ``state()``).

Unlike the observation (:mod:`hot_envs.heisse_luft.encoding`), this vector is seen from no
player: every per-player piece is indexed by seat (index 0 is ``player_0``), and it holds the
hidden parts of HL-8 too — both hands, the draw pile in drawing order and the prize deck in
refilling order. It is meant for centralised critics during training and must never reach a
player's observation (docs/environments.md, "The full state").

Scaling follows the observation's: counts by their maximum, sums by 52, so every entry lies in
[0, 1]. A pile's order is written as ``1 − place / 40`` with place 0 the top card, so the card
drawn next is 1 and every card in the pile is above 0.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from hot_envs.core.observation import ObservationLayout, Piece
from hot_envs.heisse_luft.encoding import WHOLE_PIECES, StageOffsets, stage_entries, whole_values
from hot_envs.heisse_luft.facts import (
    DRAW,
    NUM_CARDS,
    NUM_STAGES,
    OVER,
    SUIT_SIZES,
    TROPHY,
)

if TYPE_CHECKING:
    from hot_envs.heisse_luft.state import State

S, C = NUM_STAGES, NUM_CARDS
NUM_PRIZES = sum(SUIT_SIZES)  # 40 prize cards (HL-1.2): the prize deck's most

STATE_LAYOUT = ObservationLayout(
    [
        Piece("hands", (2, C), "seat s holds card c (card index of HL-1.1)"),
        Piece("revealed", (2, C), "seat s's hand cards the other seat has seen (HL-3.4)"),
        Piece("exchange_selection", (C,), "cards chosen so far in the current exchange"),
        Piece("draw_pile", (C,), "card c is in the draw pile"),
        Piece("draw_order", (C,), "1 − place from the top / 40 in the draw pile (HL-3.5), else 0"),
        Piece("discard_pile", (C,), "cards in the discard pile"),
        Piece("stage_in_play", (S,), "stage still in the game"),
        Piece("stage_mountain", (S,), "terrain: 1 mountain (higher wins), 0 lowland"),
        Piece("stage_prizes", (S, 4), "prize cards by suit ♥♦♣♠ / 4"),
        Piece("stage_cards", (S, 2, C), "balloon cards on seat s's side of the stage"),
        Piece("stage_last", (S, 2), "last card at the stage placed by seat s"),
        Piece("stage_sums", (S, 2), "sum of seat s's side / 52"),
        Piece("stage_missing", (S, 2, 4), "cards by suit seat s's side still needs / 4"),
        Piece("stage_leading", (S, 2), "seat s would win the stage with its cards now"),
        Piece(
            "prize_deck",
            (NUM_PRIZES, 4),
            "row i: one-hot suit of the i-th prize card from the top (refills take it, HL-5.4)",
        ),
        Piece("prize_deck_counts", (4,), "prize deck composition by suit / suit size"),
        Piece("prize_deck_size", (1,), "prize deck size / 40"),
        Piece("draw_pile_size", (1,), "draw pile size / 40"),
        Piece("prizes_won", (2, 4), "prize cards held outside trophies, seat × suit / size"),
        Piece("trophy_cards", (2, 4), "prize cards paid into trophies, seat × suit / size"),
        Piece("trophies", (2, 4), "trophies held, seat × suit"),
        Piece("pass_streak", (1,), "turns in a row without a card played (HL-3.6)"),
        Piece("phase", (4,), "one-hot: play, exchange, trophy, over"),
        Piece("current_player", (2,), "one-hot seat to move (none once the game is over)"),
        Piece("trophy_winner", (2,), "in a trophy phase: one-hot seat that won the stage (HL-6.4)"),
        Piece("winner", (3,), "once over: one-hot player_0, player_1, draw (none if truncated)"),
        Piece("three_for_one", (1,), "option three_for_one (HL-6.2) is on"),
        Piece("turn_progress", (1,), "turn / turn_limit"),
    ],
    version=1,
)
STATE_SIZE = STATE_LAYOUT.size

# Flat offsets, looked up once (as in encoding.py): per-call views would cost more than the work.
_HANDS = [STATE_LAYOUT.offset("hands", s) for s in (0, 1)]
_REVEALED = [STATE_LAYOUT.offset("revealed", s) for s in (0, 1)]
_EXCHANGE_SELECTION = STATE_LAYOUT.offset("exchange_selection")
_DRAW_PILE = STATE_LAYOUT.offset("draw_pile")
_DRAW_ORDER = STATE_LAYOUT.offset("draw_order")
_DISCARD_PILE = STATE_LAYOUT.offset("discard_pile")
_STAGES = StageOffsets.of(STATE_LAYOUT)  # the observation's stage pieces, seat 0 first
_PRIZE_DECK = STATE_LAYOUT.offset("prize_deck")
_TROPHIES = [STATE_LAYOUT.offset("trophies", s) for s in (0, 1)]
_PHASE = STATE_LAYOUT.offset("phase")
_CURRENT_PLAYER = STATE_LAYOUT.offset("current_player")
_TROPHY_WINNER = STATE_LAYOUT.offset("trophy_winner")
_WINNER = STATE_LAYOUT.offset("winner")
_THREE_FOR_ONE = STATE_LAYOUT.offset("three_for_one")
# The pieces written whole at every call: the pass streak, then the observation's (whole_values).
_WHOLE = [i for name in ("pass_streak", *WHOLE_PIECES) for i in STATE_LAYOUT.indices(name)]


def encode_state(state: State) -> np.ndarray:
    """The full ``state`` as a float32 vector laid out as :data:`STATE_LAYOUT`, seat 0 first."""
    ones: list[int] = []
    for seat in (0, 1):
        ones += [_HANDS[seat] + c for c in state.hands[seat]]
        ones += [_REVEALED[seat] + c for c in state.revealed[seat]]
    ones += [_EXCHANGE_SELECTION + c for c in state.exchange_selection]
    ones += [_DISCARD_PILE + c for c in state.discard_pile]
    pile = state.draw_pile  # top card last
    ones += [_DRAW_PILE + c for c in pile]
    index = [_DRAW_ORDER + c for c in pile]
    value = [1.0 - (len(pile) - 1 - i) / NUM_CARDS for i in range(len(pile))]
    deck = state.prize_deck  # top card last; row 0 of the piece is the top
    ones += [_PRIZE_DECK + 4 * (len(deck) - 1 - i) + suit for i, suit in enumerate(deck)]

    stage_entries(state, 0, _STAGES, ones, index, value)

    for seat in (0, 1):
        ones += [_TROPHIES[seat] + suit for suit in state.trophies[seat]]
    ones.append(_PHASE + state.phase)
    if state.current_player is not None:
        ones.append(_CURRENT_PLAYER + state.current_player)
    if state.phase == TROPHY:
        ones.append(_TROPHY_WINNER + state.trophy_winner)
    if state.phase == OVER and state.winner is not None:
        ones.append(_WINNER + (2 if state.winner == DRAW else state.winner))
    if state.options["three_for_one"]:
        ones.append(_THREE_FOR_ONE)

    vector = np.zeros(STATE_SIZE, dtype=np.float32)
    vector.put(ones, 1.0)  # put: faster than vector[ones] = 1.0 for a list of indices
    vector.put(index, value)
    vector[_WHOLE] = [state.pass_streak, *whole_values(state, 0)]  # seat 0 first
    return vector
