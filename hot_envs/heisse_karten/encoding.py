"""Observation vector and action mask for one Heiße Karten player (HK-5).

Seats are *relative* to the observing player: relative seat 0 is the player, 1 the next player in
seat order, and so on. Every seat-indexed piece is padded to 6 seats, so one observation shape
(670 floats) serves every player count and one policy can be trained for all of them. The vector
holds exactly what HK-5 makes public, plus the player's own hand. Every value lies in [0, 1]
except ``scores`` and ``totals``, which can be negative and are scaled into [-1, 1]: a round's
score lies in -576..600 and is divided by 600 (the black cards' sum); a match total is divided by
its *total scale*, 600 × rounds in a match of fixed rounds, or the target in a match played to a
target (a total may pass the target in the last round and drop far below zero: clipped).
``trick_position`` is the mover's place in the trick (0: leading). ``LAYOUT.table()`` lists the
pieces (docs/environments.md, "Heiße Karten observation").
"""

from __future__ import annotations

import numpy as np

from hot_envs.core.observation import ObservationLayout, Piece
from hot_envs.heisse_karten.facts import (
    BLACK_SUM,
    HAND_SIZE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NUM_ACTIONS,
    NUM_CARDS,
    SET_ASIDE,
    TRICKS_PER_ROUND,
)
from hot_envs.heisse_karten.serialize import check_int
from hot_envs.heisse_karten.state import State

SEATS = MAX_PLAYERS
MAX_SET_ASIDE = max(SET_ASIDE.values())
PLAYER_COUNTS = range(MIN_PLAYERS, MAX_PLAYERS + 1)

LAYOUT = ObservationLayout(
    [
        Piece("hand", (NUM_CARDS,), "1 where I hold card k+1"),
        Piece(
            "trick", (SEATS, NUM_CARDS), "1: relative seat r played card k+1 in the current trick"
        ),
        Piece(
            "played", (SEATS, NUM_CARDS), "1: relative seat r played card k+1 this round, trick too"
        ),
        Piece("scores", (SEATS,), f"round score of relative seat r / {BLACK_SUM}", low=-1.0),
        Piece(
            "totals", (SEATS,), "match total of relative seat r / total scale, clipped", low=-1.0
        ),
        Piece("hand_sizes", (SEATS,), f"cards in relative seat r's hand / {HAND_SIZE}"),
        Piece("draw_pile", (1,), f"cards in the draw pile / {NUM_CARDS}"),
        Piece("set_aside", (1,), f"set-aside cards / {MAX_SET_ASIDE} (HK-2.3)"),
        Piece("num_players", (len(PLAYER_COUNTS),), "one-hot number of players: 2, 3, 4, 5, 6"),
        Piece("seats", (SEATS,), "1 for each relative seat in the game"),
        Piece("leader", (SEATS,), "one-hot relative seat of the trick's leader"),
        Piece("trick_position", (SEATS,), "one-hot number of cards in the trick"),
        Piece("tricks_done", (1,), "tricks taken this round / tricks per round"),
        Piece("match_round", (1,), "round index / rounds (the cap in a target match)"),
        Piece("target_match", (1,), "1 in a match played to a target (HK-4.4)"),
    ],
    version=1,
)


# Flat offsets, looked up once: building named views per call would cost more than the encoding
# itself. Card k of a card row sits at ``row + k - 1``, so these rows start one entry early.
_HAND = LAYOUT.offset("hand") - 1
_TRICK = [LAYOUT.offset("trick", r) - 1 for r in range(SEATS)]
_PLAYED = [LAYOUT.offset("played", r) - 1 for r in range(SEATS)]
_LEADER = LAYOUT.offset("leader")
_TRICK_POSITION = LAYOUT.offset("trick_position")
_TARGET_MATCH = LAYOUT.offset("target_match")
# Per player count n (and observing player): the constants of encode().
# _PLAYED_BY_SEAT[n][player][seat]: the played row of absolute ``seat`` as ``player`` sees it.
_PLAYED_BY_SEAT = {
    n: [[_PLAYED[(seat - player) % n] for seat in range(n)] for player in range(n)]
    for n in PLAYER_COUNTS
}


def per_player_count(
    layout: ObservationLayout, draw_pile: str, set_aside: str
) -> tuple[dict[int, list[int]], dict[int, np.ndarray]]:
    """Per player count n, where ``layout`` (the observation's or the full state's, which name
    the pile sizes ``draw_pile`` and ``set_aside``) has the entries that are 1 in every n-player
    state (num_players, seats), and the indices of the values :func:`whole_values` gives."""
    ones, whole = {}, {}
    for n in PLAYER_COUNTS:
        ones[n] = [layout.offset("num_players", n - MIN_PLAYERS)] + layout.indices("seats")[:n]
        seats = [i for name in ("scores", "totals", "hand_sizes") for i in layout.indices(name)[:n]]
        rest = (draw_pile, set_aside, "tricks_done", "match_round")
        whole[n] = np.array(seats + [i for name in rest for i in layout.indices(name)])
    return ones, whole


_PLAYER_COUNT_ONES, _WHOLE = per_player_count(LAYOUT, "draw_pile", "set_aside")


def encode(state: State, player: int) -> np.ndarray:
    """``player``'s observation of ``state`` as a float32 vector laid out as :data:`LAYOUT`."""
    n = state.num_players
    player = check_int(player, "player", 0, n - 1)
    options = state.options
    leader = (state.leader - player) % n  # relative seats from here on
    played_at = _PLAYED_BY_SEAT[n][player]

    ones = [_HAND + card for card in state.hands[player]]
    ones += [_TRICK[(leader + i) % n] + card for i, card in enumerate(state.trick)]
    ones += [played_at[seat] + card for seat, card in state.played]
    ones += _PLAYER_COUNT_ONES[n]
    ones.append(_LEADER + leader)
    ones.append(_TRICK_POSITION + len(state.trick))
    if options["target"] is not None:
        ones.append(_TARGET_MATCH)

    obs = np.zeros(LAYOUT.size, dtype=np.float32)
    obs.put(ones, 1.0)  # put: faster than obs[ones] = 1.0 for a list of indices
    obs[_WHOLE[n]] = whole_values(state, player)  # relative seats: the player first
    return obs


def whole_values(state: State, first: int) -> list[float]:
    """The values of the pieces written whole, in their order (:data:`_WHOLE`, and the full
    state's): the scores, totals and hand sizes of the seats from ``first`` on, then the draw
    pile, the set-aside cards, the tricks done and the match round."""
    n, options = state.num_players, state.options
    scale = options["target"] or BLACK_SUM * options["rounds"]  # the total scale
    whole = [score / BLACK_SUM for score in state.scores[first:] + state.scores[:first]]
    whole += [  # clipped to [-1, 1]
        total / scale if -scale <= total <= scale else (1.0 if total > 0 else -1.0)
        for total in state.totals[first:] + state.totals[:first]
    ]
    whole += [len(hand) / HAND_SIZE for hand in state.hands[first:] + state.hands[:first]]
    return whole + [
        state.draw_pile_size / NUM_CARDS,
        len(state.set_aside) / MAX_SET_ASIDE,
        min(1.0, sum(map(len, state.taken)) // n / TRICKS_PER_ROUND[n]),
        state.round / options["rounds"],
    ]


def action_mask(state: State, player: int) -> np.ndarray:
    """int8 mask over the 48 actions: 1 for each card ``player`` may play now, else 0."""
    player = check_int(player, "player", 0, state.num_players - 1)
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    if state.current_player == player:
        mask.put(state.legal_actions(), 1)
    return mask
