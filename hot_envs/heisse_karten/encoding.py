"""Observation vector and action mask for one Heiße Karten player (HK-5).

Seats are *relative* to the observing player: relative seat 0 is the player, 1 the next player in
seat order, and so on. Every seat-indexed piece is padded to 6 seats, so one observation shape
(670 floats) serves every player count and one policy can be trained for all of them. The vector
holds exactly what HK-5 makes public, plus the player's own hand. Every value lies in [0, 1]
except ``scores`` and ``totals``, which can be negative and are scaled into [-1, 1]: a round's
score lies in -576..600 and is divided by 600 (the black cards' sum); a match total is divided by
its *total scale*, 600 × rounds in a match of fixed rounds, or the target in a match played to a
target (a total may pass the target in the last round and drop far below zero: clipped).
``trick_position`` is the mover's place in the trick (0: leading).

LAYOUT (version 1):

| piece | slice | shape | range | meaning |
|---|---|---|---|---|
| `hand` | 0:48 | (48,) | [0, 1] | 1 where I hold card k+1 |
| `trick` | 48:336 | (6, 48) | [0, 1] | 1: relative seat r played card k+1 in the current trick |
| `played` | 336:624 | (6, 48) | [0, 1] | 1: relative seat r played card k+1 this round, trick too |
| `scores` | 624:630 | (6,) | [-1, 1] | round score of relative seat r / 600 |
| `totals` | 630:636 | (6,) | [-1, 1] | match total of relative seat r / total scale, clipped |
| `hand_sizes` | 636:642 | (6,) | [0, 1] | cards in relative seat r's hand / 8 |
| `draw_pile` | 642:643 | (1,) | [0, 1] | cards in the draw pile / 48 |
| `set_aside` | 643:644 | (1,) | [0, 1] | set-aside cards / 3 (HK-2.3) |
| `num_players` | 644:649 | (5,) | [0, 1] | one-hot number of players: 2, 3, 4, 5, 6 |
| `seats` | 649:655 | (6,) | [0, 1] | 1 for each relative seat in the game |
| `leader` | 655:661 | (6,) | [0, 1] | one-hot relative seat of the trick's leader |
| `trick_position` | 661:667 | (6,) | [0, 1] | one-hot number of cards in the trick |
| `tricks_done` | 667:668 | (1,) | [0, 1] | tricks taken this round / tricks per round |
| `match_round` | 668:669 | (1,) | [0, 1] | round index / rounds (the cap in a target match) |
| `target_match` | 669:670 | (1,) | [0, 1] | 1 in a match played to a target (HK-4.4) |
"""

from __future__ import annotations

import numpy as np

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
from hot_envs.observation import ObservationLayout, Piece

SEATS = MAX_PLAYERS
MAX_SET_ASIDE = max(SET_ASIDE.values())

LAYOUT = ObservationLayout(
    [
        Piece("hand", (NUM_CARDS,), "1 where I hold card k+1"),
        Piece(
            "trick",
            (SEATS, NUM_CARDS),
            "1: relative seat r played card k+1 in the current trick",
        ),
        Piece(
            "played",
            (SEATS, NUM_CARDS),
            "1: relative seat r played card k+1 this round, trick too",
        ),
        Piece(
            "scores",
            (SEATS,),
            f"round score of relative seat r / {BLACK_SUM}",
            low=-1.0,
        ),
        Piece(
            "totals",
            (SEATS,),
            "match total of relative seat r / total scale, clipped",
            low=-1.0,
        ),
        Piece("hand_sizes", (SEATS,), f"cards in relative seat r's hand / {HAND_SIZE}"),
        Piece("draw_pile", (1,), f"cards in the draw pile / {NUM_CARDS}"),
        Piece("set_aside", (1,), f"set-aside cards / {MAX_SET_ASIDE} (HK-2.3)"),
        Piece(
            "num_players",
            (MAX_PLAYERS - MIN_PLAYERS + 1,),
            "one-hot number of players: 2, 3, 4, 5, 6",
        ),
        Piece("seats", (SEATS,), "1 for each relative seat in the game"),
        Piece("leader", (SEATS,), "one-hot relative seat of the trick's leader"),
        Piece(
            "trick_position",
            (SEATS,),
            "one-hot number of cards in the trick",
        ),
        Piece("tricks_done", (1,), "tricks taken this round / tricks per round"),
        Piece("match_round", (1,), "round index / rounds (the cap in a target match)"),
        Piece("target_match", (1,), "1 in a match played to a target (HK-4.4)"),
    ],
    version=1,
)


def encode(state: State, player: int) -> np.ndarray:
    """``player``'s observation of ``state`` as a float32 vector laid out as :data:`LAYOUT`."""
    n = state.num_players
    player = check_int(player, "player", 0, n - 1)
    obs = np.zeros(LAYOUT.size, dtype=np.float32)
    v = LAYOUT.views(obs)
    relative = np.array([(seat - player) % n for seat in range(n)], dtype=np.intp)

    v["hand"][np.array(state.hands[player], dtype=np.intp) - 1] = 1.0
    trick_seats = relative[(state.leader + np.arange(len(state.trick))) % n]
    v["trick"][trick_seats, np.array(state.trick, dtype=np.intp) - 1] = 1.0
    if state.played:
        seats, cards = np.array(state.played, dtype=np.intp).T
        v["played"][relative[seats], cards - 1] = 1.0

    v["scores"][relative] = np.array(state.scores) / BLACK_SUM
    options = state.options
    total_scale = options["target"] or BLACK_SUM * options["rounds"]
    v["totals"][relative] = np.clip(np.array(state.totals) / total_scale, -1.0, 1.0)
    v["hand_sizes"][relative] = [len(hand) / HAND_SIZE for hand in state.hands]
    v["draw_pile"][0] = state.draw_pile_size / NUM_CARDS
    v["set_aside"][0] = len(state.set_aside) / MAX_SET_ASIDE

    v["num_players"][n - MIN_PLAYERS] = 1.0
    v["seats"][:n] = 1.0
    v["leader"][relative[state.leader]] = 1.0
    v["trick_position"][len(state.trick)] = 1.0
    tricks_taken = sum(len(pile) for pile in state.taken) // n
    v["tricks_done"][0] = min(1.0, tricks_taken / TRICKS_PER_ROUND[n])
    v["match_round"][0] = state.round / options["rounds"]
    v["target_match"][0] = options["target"] is not None
    return obs


def action_mask(state: State, player: int) -> np.ndarray:
    """int8 mask over the 48 actions: 1 for each card ``player`` may play now, else 0."""
    player = check_int(player, "player", 0, state.num_players - 1)
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    if state.current_player == player:
        mask[state.legal_actions()] = 1
    return mask
