"""Heiße Karten's full state as one flat float32 vector (PettingZoo's optional ``state()``).

Unlike the observation (:mod:`hot_envs.heisse_karten.encoding`), this vector is seen from no
player: seats are absolute (index 0 is ``player_0``) and it holds what HK-5 hides too — every
hand, the draw pile in drawing order and the set-aside cards. It is meant for centralised critics
during training and must never reach a player's observation (docs/environments.md, "The full
state"). Like the observation it is padded to 6 seats, so one state shape serves every player
count and one critic can be trained for all of them.

Scaling follows the observation's: every value lies in [0, 1] except ``scores`` and ``totals``
(the observation's scales, in [-1, 1]). The draw pile's order is written as ``1 − place / 48``
with place 0 the top card, so the card drawn next is 1 and every card in the pile is above 0.
"""

from __future__ import annotations

import numpy as np

from hot_envs.core.observation import ObservationLayout, Piece
from hot_envs.heisse_karten.encoding import (
    MAX_SET_ASIDE,
    PLAYER_COUNTS,
    SEATS,
    per_player_count,
    whole_values,
)
from hot_envs.heisse_karten.facts import BLACK_SUM, HAND_SIZE, NUM_CARDS
from hot_envs.heisse_karten.state import State

STATE_LAYOUT = ObservationLayout(
    [
        Piece("hands", (SEATS, NUM_CARDS), "1: seat s holds card k+1"),
        Piece("draw_pile", (NUM_CARDS,), "1: card k+1 is in the draw pile"),
        Piece(
            "draw_order",
            (NUM_CARDS,),
            f"1 − place from the top / {NUM_CARDS} in the draw pile (HK-3.1), else 0",
        ),
        Piece("set_aside", (NUM_CARDS,), "1: card k+1 is set aside unseen (HK-2.3)"),
        Piece("trick", (SEATS, NUM_CARDS), "1: seat s played card k+1 in the current trick"),
        Piece("played", (SEATS, NUM_CARDS), "1: seat s played card k+1 this round, trick too"),
        Piece("taken", (SEATS, NUM_CARDS), "1: card k+1 is in a trick seat s took (HK-3.3)"),
        Piece("scores", (SEATS,), f"round score of seat s / {BLACK_SUM}", low=-1.0),
        Piece("totals", (SEATS,), "match total of seat s / total scale, clipped", low=-1.0),
        Piece("hand_sizes", (SEATS,), f"cards in seat s's hand / {HAND_SIZE}"),
        Piece("draw_pile_size", (1,), f"cards in the draw pile / {NUM_CARDS}"),
        Piece("set_aside_size", (1,), f"set-aside cards / {MAX_SET_ASIDE} (HK-2.3)"),
        Piece("num_players", (len(PLAYER_COUNTS),), "one-hot number of players: 2, 3, 4, 5, 6"),
        Piece("seats", (SEATS,), "1 for each seat in the game"),
        Piece("current_player", (SEATS,), "one-hot seat to move (none once the match is over)"),
        Piece("leader", (SEATS,), "one-hot seat that led the current trick"),
        Piece(
            "first_leader",
            (SEATS,),
            "one-hot option first_leader: round r's first leader is seat first_leader + r",
        ),
        Piece("trick_position", (SEATS,), "one-hot number of cards in the trick"),
        Piece("tricks_done", (1,), "tricks taken this round / tricks per round"),
        Piece("match_round", (1,), "round index / rounds (the cap in a target match)"),
        Piece("target_match", (1,), "1 in a match played to a target (HK-4.4)"),
        Piece("score_rewards", (1,), 'option reward_mode is "score" (HK-4.3)'),
    ],
    version=1,
)
STATE_SIZE = STATE_LAYOUT.size

# Flat offsets, looked up once (as in encoding.py). Card k of a card row sits at ``row + k - 1``,
# so these rows start one entry early.
_HANDS = [STATE_LAYOUT.offset("hands", s) - 1 for s in range(SEATS)]
_DRAW_PILE = STATE_LAYOUT.offset("draw_pile") - 1
_DRAW_ORDER = STATE_LAYOUT.offset("draw_order") - 1
_SET_ASIDE = STATE_LAYOUT.offset("set_aside") - 1
_TRICK = [STATE_LAYOUT.offset("trick", s) - 1 for s in range(SEATS)]
_PLAYED = [STATE_LAYOUT.offset("played", s) - 1 for s in range(SEATS)]
_TAKEN = [STATE_LAYOUT.offset("taken", s) - 1 for s in range(SEATS)]
_CURRENT_PLAYER = STATE_LAYOUT.offset("current_player")
_LEADER = STATE_LAYOUT.offset("leader")
_FIRST_LEADER = STATE_LAYOUT.offset("first_leader")
_TRICK_POSITION = STATE_LAYOUT.offset("trick_position")
_TARGET_MATCH = STATE_LAYOUT.offset("target_match")
_SCORE_REWARDS = STATE_LAYOUT.offset("score_rewards")
_PLAYER_COUNT_ONES, _WHOLE = per_player_count(STATE_LAYOUT, "draw_pile_size", "set_aside_size")


def encode_state(state: State) -> np.ndarray:
    """The full ``state`` as a float32 vector laid out as :data:`STATE_LAYOUT`, seat 0 first."""
    n = state.num_players
    options = state.options
    ones: list[int] = []
    for seat in range(n):
        ones += [_HANDS[seat] + card for card in state.hands[seat]]
        ones += [_TAKEN[seat] + card for card in state.taken[seat]]
    pile = state._draw_pile  # top card last; the engine keeps it private, this is its full view
    ones += [_DRAW_PILE + card for card in pile]
    order_index = [_DRAW_ORDER + card for card in pile]
    order_value = [1.0 - (len(pile) - 1 - i) / NUM_CARDS for i in range(len(pile))]
    ones += [_SET_ASIDE + card for card in state.set_aside]
    ones += [_TRICK[(state.leader + i) % n] + card for i, card in enumerate(state.trick)]
    ones += [_PLAYED[seat] + card for seat, card in state.played]
    ones += _PLAYER_COUNT_ONES[n]
    if state.current_player is not None:
        ones.append(_CURRENT_PLAYER + state.current_player)
    ones.append(_LEADER + state.leader)
    ones.append(_FIRST_LEADER + options["first_leader"])
    ones.append(_TRICK_POSITION + len(state.trick))
    if options["target"] is not None:
        ones.append(_TARGET_MATCH)
    if options["reward_mode"] == "score":
        ones.append(_SCORE_REWARDS)

    vector = np.zeros(STATE_LAYOUT.size, dtype=np.float32)
    vector.put(ones, 1.0)  # put: faster than vector[ones] = 1.0 for a list of indices
    vector.put(order_index, order_value)
    vector[_WHOLE[n]] = whole_values(state, 0)  # the observation's values, seat 0 first
    return vector
