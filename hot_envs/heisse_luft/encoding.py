"""Heiße Luft observation: one flat float32 vector in [0, 1] from the observer's point of view.

Seats are relative: index 0 of every per-player piece is the observer ("me"), index 1 the
opponent; stage sides likewise (own side first). Everything of HL-8 the observer may know is in
it, and nothing else: the opponent's hand appears only as its size and the cards revealed under
HL-3.4; the draw pile and prize deck only as sizes and (public) prize-deck composition.

Scaling: counts are divided by their maximum (hand and sizes by the card totals, sums by 52 =
4 × 13, per-suit prize counts by the suit's size), so every entry lies in [0, 1].
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain
from operator import truediv
from typing import TYPE_CHECKING

import numpy as np

from hot_envs.core.observation import ObservationLayout, Piece
from hot_envs.heisse_luft.facts import (
    EXCHANGE,
    HAND_SIZE,
    LOWLAND,
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
# The pieces written whole at every call, in the order encode() lists their values.
_WHOLE = np.array(
    LAYOUT.indices("opponent_hand_size")
    + LAYOUT.indices("prizes_won")
    + LAYOUT.indices("trophy_cards")
    + LAYOUT.indices("prize_deck_counts")
    + LAYOUT.indices("prize_deck_size")
    + LAYOUT.indices("draw_pile_size")
    + LAYOUT.indices("pass_streak")
    + LAYOUT.indices("turn_progress")
)
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

    won, paid, deck = state.prizes_won, state.trophy_cards, state.prize_deck
    whole = [len(state.hands[opp]) / HAND_SIZE]
    whole += map(truediv, won[me] + won[opp] + paid[me] + paid[opp], _PRIZE_DIVISORS)
    whole += [deck.count(suit) / size for suit, size in enumerate(SUIT_SIZES)]
    whole += [len(deck) / 40, len(state.draw_pile) / NUM_CARDS, state.pass_streak]
    whole.append(min(state.turn / state.options["turn_limit"], 1.0))

    obs = np.zeros(SIZE, dtype=np.float32)
    obs.put(ones, 1.0)  # put: faster than obs[ones] = 1.0 for a list of indices
    obs.put(index, value)
    obs[_WHOLE] = whole
    return obs


def encode_rows(states: Sequence[State], players: Sequence[int], out: np.ndarray) -> None:
    """Row ``j`` of ``out`` (``(len(states), SIZE)`` float32, written in place):
    ``encode(states[j], players[j])`` for every ``j``, the same numbers. Each state's fields are
    read in one pass, as bytes (all are small integers) but the turn's progress; the pieces are
    then computed for all rows at once, as array arithmetic on those integers and their
    quotients (so the same float32 values)."""
    k = len(states)
    groups: list = []  # per row the ids of each of _GROUP_AT's pieces
    decks: list = []  # per row the prize deck's suits
    numbers: list = []  # per row the _NUMBERS
    progress: list = []  # per row the turn's progress
    for state, me in zip(states, players, strict=True):
        opp = 1 - me
        hands, revealed, trophies = state.hands, state.revealed, state.trophies
        (a, b), (c, d), (e, f), (g, h) = state.sides
        groups += (hands[me], revealed[me], revealed[opp], state.exchange_selection)
        groups += (state.discard_pile, trophies[me], trophies[opp], trophies[0], trophies[1])
        groups += (a, b, c, d, e, f, g, h) if me == 0 else (b, a, d, c, f, e, h, g)
        decks.append(state.prize_deck)
        won, paid, have, options = state.prizes_won, state.trophy_cards, state.have, state.options
        numbers += (me, state.phase, state.current_player == me, state.trophy_winner != me)
        numbers += (options["three_for_one"], len(hands[opp]), len(state.prize_deck))
        numbers += (len(state.draw_pile), state.pass_streak)
        progress.append(min(state.turn / options["turn_limit"], 1.0))
        numbers += won[me] + won[opp] + paid[me] + paid[opp]
        numbers += state.in_play
        numbers += state.terrain
        numbers += map(_SEAT_OR_NONE.__getitem__, state.last_player)
        for need, has, sums in zip(state.need, have, state.sums, strict=True):
            numbers += need + has[me] + has[opp] + sums
    obs = np.zeros((k, SIZE), dtype=np.float32)
    # the card and suit sets as 1s
    lengths = np.frombuffer(bytes(map(len, groups)), np.uint8)
    ids = np.frombuffer(bytes(chain.from_iterable(groups)), np.uint8)
    starts = np.arange(0, k * SIZE, SIZE)[:, None] + _GROUP_AT
    obs.put(np.repeat(starts.ravel(), lengths) + ids, 1.0)
    cards_on = lengths.reshape(k, len(_GROUP_AT))[:, _SIDES_GROUP:].reshape(k, S, 2) > 0
    n = np.frombuffer(bytes(numbers), np.uint8).astype(np.int64).reshape(k, _NUMBERS)
    me, phase = n[:, 0], n[:, 1]
    in_play = n[:, _IN_PLAY_AT : _IN_PLAY_AT + S].astype(bool)
    terrain = n[:, _IN_PLAY_AT + S : _IN_PLAY_AT + 2 * S]
    last = n[:, _IN_PLAY_AT + 2 * S : _STAGE_AT]
    stage = n[:, _STAGE_AT:].reshape(k, S, 14)
    need, mine, theirs, sums = stage[..., :4], stage[..., 4:8], stage[..., 8:12], stage[..., 12:]
    # the stage pieces, of the stages in play (stage_entries)
    obs[:, _CARDS : _CARDS + S * 2 * C] *= np.repeat(in_play, 2 * C, axis=1)
    obs[:, _IN_PLAY : _IN_PLAY + S] = in_play
    obs[:, _MOUNTAIN : _MOUNTAIN + S] = (terrain != 0) & in_play
    need = need * in_play[:, :, None]
    obs[:, _PRIZES : _PRIZES + S * 4] = (need / 4).reshape(k, S * 4)
    missing = np.stack([np.maximum(need - mine, 0), np.maximum(need - theirs, 0)], axis=2)
    obs[:, _MISSING : _MISSING + S * 2 * 4] = (missing / 4).reshape(k, S * 2 * 4)
    relative = np.where(me[:, None, None] == 0, sums, sums[..., ::-1])  # mine first
    shown = cards_on & in_play[:, :, None]
    obs[:, _SUMS : _SUMS + S * 2] = np.where(shown, relative / MAX_SIDE_SUM, 0.0).reshape(k, -1)
    row, at = np.nonzero((last != _SEAT_OR_NONE[None]) & in_play)
    lower_wins = terrain == LOWLAND
    lower_ahead = (sums[..., 0] < sums[..., 1]) != lower_wins  # stage_leader: seat 1 if so
    leader = np.where(sums[..., 0] == sums[..., 1], last, lower_ahead)
    obs[row, _LAST + 2 * at + (last[row, at] != me[row])] = 1.0
    obs[row, _LEADING + 2 * at + (leader[row, at] != me[row])] = 1.0
    # the rest
    shown = (phase == PLAY) | (phase == EXCHANGE) | (phase == TROPHY)
    obs[shown, _PHASE + phase[shown]] = 1.0
    asked = np.flatnonzero(phase == TROPHY)
    obs[asked, _TROPHY_ROLE + n[asked, 3]] = 1.0
    obs[:, _TO_MOVE] = n[:, 2]
    obs[:, _THREE_FOR_ONE] = n[:, 4]
    deck = np.bincount(
        np.repeat(np.arange(0, 4 * k, 4), np.frombuffer(bytes(map(len, decks)), np.uint8))
        + np.frombuffer(bytes(chain.from_iterable(decks)), np.uint8),
        minlength=4 * k,
    ).reshape(k, 4)
    whole = np.empty((k, len(_WHOLE)))  # in _WHOLE's order
    whole[:, 0] = n[:, 5] / HAND_SIZE
    whole[:, 1:17] = n[:, _WON_AT : _WON_AT + 16] / _PRIZE_DIVISORS_ARRAY
    whole[:, 17:21] = deck / _SUIT_SIZES_ARRAY
    whole[:, 21] = n[:, 6] / 40
    whole[:, 22] = n[:, 7] / NUM_CARDS
    whole[:, 23] = n[:, 8]
    whole[:, 24] = progress
    obs[:, _WHOLE] = whole
    out[:] = obs


# encode_rows' layout: the offsets of its card and suit sets, in the order it lists them per row
_GROUP_AT = np.array(
    [_HAND, _MY_REVEALED, _OPPONENT_KNOWN, _EXCHANGE_SELECTION, _DISCARD_PILE, *_TROPHIES]
    + [_AWARDED, _AWARDED]
    + [_STAGES.cards[i][side] for i in range(S) for side in (0, 1)]
)
_SIDES_GROUP = len(_GROUP_AT) - 2 * S
_SEAT_OR_NONE = {0: 0, 1: 1, None: 2}
# its numbers per row: 9 single ones, prizes won and paid (16), per stage in play, terrain and
# last player, then per stage need, our have, theirs (4 each) and the sums by seat (2)
_WON_AT = 9
_IN_PLAY_AT = _WON_AT + 16
_STAGE_AT = _IN_PLAY_AT + 3 * S
_NUMBERS = _STAGE_AT + 14 * S
_IN_PLAY, _MOUNTAIN = _STAGES.in_play, _STAGES.mountain
_PRIZES, _CARDS, _MISSING = _STAGES.prizes[0], _STAGES.cards[0][0], _STAGES.missing[0][0]
_LAST, _SUMS, _LEADING = _STAGES.last[0], _STAGES.sums[0], _STAGES.leading[0]
_PRIZE_DIVISORS_ARRAY = np.array(_PRIZE_DIVISORS)
_SUIT_SIZES_ARRAY = np.array(SUIT_SIZES)


def action_mask(state: State, player: int) -> np.ndarray:
    """int8 mask over the 366 actions: 1 where legal for ``player`` (all 0 if not to move)."""
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    if state.current_player == player:
        mask.put(state.legal_actions(), 1)
    return mask
