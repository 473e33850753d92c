"""Heiße Luft observation: one flat float32 vector in [0, 1] from the observer's point of view.

Seats are relative: index 0 of every per-player piece is the observer ("me"), index 1 the
opponent; stage sides likewise (own side first). Everything of HL-8 the observer may know is in
it, and nothing else: the opponent's hand appears only as its size and the cards revealed under
HL-3.4; the draw pile and prize deck only as sizes and (public) prize-deck composition.

Scaling: counts are divided by their maximum (hand and sizes by the card totals, sums by 52 =
4 × 13, per-suit prize counts by the suit's size), so every entry lies in [0, 1].
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

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
from hot_envs.observation import ObservationLayout, Piece

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
_AT = {name: s.start for name, s in LAYOUT.slices.items()}


def encode(state: State, player: int) -> np.ndarray:
    """``player``'s observation of ``state`` as described by :data:`LAYOUT`."""
    obs = np.zeros(SIZE, dtype=np.float32)
    me, opp = player, 1 - player
    ones: list[int] = [_AT["hand"] + c for c in state.hands[me]]
    ones += [_AT["my_revealed"] + c for c in state.revealed[me]]
    ones += [_AT["opponent_known"] + c for c in state.revealed[opp]]
    ones += [_AT["exchange_selection"] + c for c in state.exchange_selection]
    ones += [_AT["discard_pile"] + c for c in state.discard_pile]
    index: list[int] = [_AT["opponent_hand_size"]]
    value: list[float] = [len(state.hands[opp]) / HAND_SIZE]

    for i in range(NUM_STAGES):
        if not state.in_play[i]:
            continue
        ones.append(_AT["stage_in_play"] + i)
        if state.terrain[i]:
            ones.append(_AT["stage_mountain"] + i)
        need = state.need[i]
        for suit in range(4):
            if need[suit]:
                index.append(_AT["stage_prizes"] + 4 * i + suit)
                value.append(need[suit] / 4)
        for rel, side in enumerate((me, opp)):
            cards = state.sides[i][side]
            ones += [_AT["stage_cards"] + (2 * i + rel) * C + c for c in cards]
            have = state.have[i][side]
            for suit in range(4):
                if need[suit] > have[suit]:
                    index.append(_AT["stage_missing"] + 4 * (2 * i + rel) + suit)
                    value.append((need[suit] - have[suit]) / 4)
            if cards:
                index.append(_AT["stage_sums"] + 2 * i + rel)
                value.append(state.sums[i][side] / MAX_SIDE_SUM)
        last = state.last_player[i]
        if last is not None:
            ones.append(_AT["stage_last"] + 2 * i + (last != me))
            ones.append(_AT["stage_leading"] + 2 * i + (state.stage_leader(i) != me))

    deck_counts = [0] * 4
    for suit in state.prize_deck:
        deck_counts[suit] += 1
    for rel, p in enumerate((me, opp)):
        for suit in range(4):
            index += [_AT["prizes_won"] + 4 * rel + suit, _AT["trophy_cards"] + 4 * rel + suit]
            value += [
                state.prizes_won[p][suit] / SUIT_SIZES[suit],
                state.trophy_cards[p][suit] / SUIT_SIZES[suit],
            ]
        ones += [_AT["trophies"] + 4 * rel + s for s in state.trophies[p]]
    ones += [_AT["awarded"] + s for s in state.trophies[0] + state.trophies[1]]
    for suit in range(4):
        index.append(_AT["prize_deck_counts"] + suit)
        value.append(deck_counts[suit] / SUIT_SIZES[suit])
    index += [_AT["prize_deck_size"], _AT["draw_pile_size"], _AT["pass_streak"]]
    value += [len(state.prize_deck) / 40, len(state.draw_pile) / NUM_CARDS, state.pass_streak]
    if state.phase in (PLAY, EXCHANGE, TROPHY):
        ones.append(_AT["phase"] + state.phase)
    if state.phase == TROPHY:
        ones.append(_AT["trophy_role"] + (state.trophy_winner != me))
    if state.current_player == me:
        ones.append(_AT["to_move"])
    if state.options["three_for_one"]:
        ones.append(_AT["three_for_one"])
    index.append(_AT["turn_progress"])
    value.append(min(state.turn / state.options["turn_limit"], 1.0))

    obs[ones] = 1.0
    obs[index] = value
    return obs


def action_mask(state: State, player: int) -> np.ndarray:
    """int8 mask over the 366 actions: 1 where legal for ``player`` (all 0 if not to move)."""
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    if state.current_player == player:
        mask[state.legal_actions()] = 1
    return mask
