"""Action features: one vector per legal action, for policies that score actions (DouZero-style).

An MLP over the one-hot observation must learn every (card, stage, side) output of Heiße Luft
separately. An *action-scoring* policy instead describes each legal action by a feature vector —
what the card is, where it goes, what it does to the stage, what the stage is worth — and one
shared network turns (state embedding, action features) into that action's logit, so what is
learnt about one card or stage carries to all. The features are computed from the player's
``view`` only (the same information the observation holds, docs/rules.md HL-8 / HK-5), with the
heuristics' own arithmetic: stakes, chances to win a stage or a trick, and the heuristic's score
of the action, so a policy can start where the heuristic is and learn where to differ.

:func:`policy_input` packs one decision for such a policy into a single flat float32 vector:

    [ observation (LAYOUT.size) | features (SLOTS × FEATURES) | action ids (SLOTS) ]

legal actions in ascending id order, unused slots with features 0 and id −1. The layout per game
is :data:`SPECS`; :func:`unpack` splits a batch of such vectors again.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any, NamedTuple

import numpy as np

from hot_envs.agents import heuristic_luft as hl
from hot_envs.core.games import GAMES, get_game
from hot_envs.heisse_luft.facts import (
    CARD_SUIT,
    CARD_VALUE,
    CLAIM_TROPHY,
    EXCHANGE_DONE,
    EXCHANGE_PICK,
    STOP_CLAIMING,
    TROPHY_PRICE,
)


@dataclass(frozen=True)
class FeatureSpec:
    """The packed input of one game: ``slots`` legal actions at most, ``size`` features each."""

    game: str
    observation_size: int
    slots: int
    size: int

    @property
    def input_size(self) -> int:
        return self.observation_size + self.slots * (self.size + 1)


class AnchorColumns(NamedTuple):
    """Where a game's feature row says how far an action is from the heuristic's best move
    (``gap``: the score minus the best, at most 0); for a game of several table sizes, which
    column is 1 at N players (``players``: N → column; ``None`` for a game of one size); for a
    trick-taking game, which column is 1 when the player leads the trick (``leading``), as
    :func:`hot_envs.agents.anchored.compile_anchor` reads them."""

    gap: int
    players: Mapping[int, int] | None = None
    leading: int | None = None


class ActionRows(NamedTuple):
    """The legal actions of ``k`` decisions, flat: row ``r`` is action ``actions[r]`` in slot
    ``slot[r]`` of decision ``decision[r]``; ``features`` ``(rows, size)`` float32."""

    lengths: np.ndarray
    decision: np.ndarray
    slot: np.ndarray
    actions: np.ndarray
    features: np.ndarray


# ---------------------------------------------------------------------- Heiße Luft

# Per action: 6 kinds, suit (4), value, stage (4), side, mountain, prizes at the stage by suit (4),
# stage sums (own, theirs) before and after, open slots after, completes, leaves one slot,
# stake, P(win) now, after, after − now, keep cost, heuristic score, score − best, is best,
# exchange: chosen, in the heuristic's throw list, its rank there; claim: trophy price.
HL_FEATURES = 39
HL_SLOTS = 64  # 8 hand cards × 4 stages × 2 sides; exchange ≤ 9, trophy phase ≤ 5
HL_SHAPE = (HL_SLOTS, HL_FEATURES)  # the game's feature_shape
HL_ANCHOR = AnchorColumns(gap=32)  # the game's anchor_columns
_KIND_PLAY, _KIND_PICK, _KIND_DONE, _KIND_CLAIM, _KIND_STOP = range(5)


def luft_features(view: dict[str, Any], legal: Sequence[int]) -> np.ndarray:
    """Heiße Luft features of each action in ``legal`` (``len(legal) × HL_FEATURES``)."""
    out = np.zeros((len(legal), HL_FEATURES), dtype=np.float32)
    if not legal:
        return out
    table = hl._Table(view)
    first = legal[0]
    if first < EXCHANGE_PICK:
        terms = hl.play_terms(table, list(legal))
        _luft_plays(out, table, legal, terms)
        scores = hl.scores_of_terms(list(legal), terms)
    elif first < CLAIM_TROPHY:
        scores = _luft_exchange(out, table, view, legal)
    else:
        scores = hl.trophy_scores(table, list(legal))
        for row, action in enumerate(legal):
            if action == STOP_CLAIMING:
                out[row, _KIND_STOP] = 1.0
            else:
                suit = action - CLAIM_TROPHY
                out[row, _KIND_CLAIM] = 1.0
                out[row, 6 + suit] = 1.0
                out[row, 38] = TROPHY_PRICE[suit] / 7
    luft_score_columns(out, np.asarray(scores, dtype=np.float32), len(legal))
    return out


def _luft_plays(
    out: np.ndarray, table: Any, legal: Sequence[int], terms: list[tuple[float, float, float]]
) -> None:
    actions = np.asarray(legal)
    # Per stage (out-of-play stages are never named by a legal play): sign, prizes, sums, slots.
    mountain = np.zeros(4, dtype=np.float32)
    prizes = np.zeros((4, 4), dtype=np.float32)
    sums = np.zeros((4, 2), dtype=np.float32)
    slots = np.zeros(4, dtype=np.float32)
    for i, st in enumerate(table.stages):
        if st is not None:
            mountain[i] = st.sign > 0
            for s in st.prizes:
                prizes[i, s] += 0.25
            sums[i] = st.sums
            slots[i] = st.open_slots
    stage = actions >> 1 & 3
    play_columns(out, actions, mountain[stage], prizes[stage], sums[stage], slots[stage], terms)


def play_columns(
    out: np.ndarray,
    actions: np.ndarray,
    mountain: np.ndarray,
    prizes: np.ndarray,
    before: np.ndarray,
    slots: np.ndarray,
    terms: Any,
) -> None:
    """Fill the play columns of ``out`` (one row per play action) but the score columns. Per
    row, float32, of the action's stage: ``mountain``, ``prizes`` (quarters by suit),
    ``before`` (the two sums), ``slots`` (open slots); ``terms``: stake, P(win) now, after."""
    card, stage, side = actions >> 3, actions >> 1 & 3, actions & 1
    rows = np.arange(len(actions))
    value = _HL_VALUE[card]
    out[:, _KIND_PLAY] = 1.0
    out[rows, 6 + _HL_SUIT[card]] = 1.0
    out[:, 10] = value / 13
    out[rows, 11 + stage] = 1.0
    out[:, 15] = side
    out[:, 16] = mountain
    out[:, 17:21] = prizes
    out[:, 21:23] = before / 52
    out[:, 23] = (before[:, 0] + value * (side == 0)) / 52
    out[:, 24] = (before[:, 1] + value * (side == 1)) / 52
    left = slots - 1
    out[:, 25] = left / 8
    out[:, 26] = left == 0
    out[:, 27] = left == 1
    out[:, 28:31] = terms  # stake, P(win) now, after
    out[:, 34] = out[:, 30] - out[:, 29]
    out[:, 35] = _HL_KEEP[card]


def luft_score_columns(out: np.ndarray, scores: np.ndarray, count: Any, best: Any = None) -> None:
    """The heuristic's score columns of Heiße Luft rows and the legal-action count ``count``;
    ``best``: the best score of each row's decision (default: the best of ``scores``)."""
    best = scores.max() if best is None else best
    out[:, 31] = np.clip(scores, -2.0, 10.0)
    out[:, 32] = np.clip(scores - best, -2.0, 0.0)
    out[:, 33] = scores >= best - hl.HeisseLuftHeuristic.tolerance
    out[:, 5] = count / HL_SLOTS


_HL_SUIT = np.asarray(CARD_SUIT)
_HL_VALUE = np.asarray(CARD_VALUE, dtype=np.float32)
_HL_KEEP = np.asarray(hl._KEEP, dtype=np.float32) / hl.KEEP_COST


def _luft_exchange(
    out: np.ndarray, table: Any, view: dict[str, Any], legal: Sequence[int]
) -> list[float]:
    """Exchange picks and "done"; the score is 1 for the heuristic's next choice, else 0."""
    throw = hl.exchange_cards(table)
    chosen = len(view["exchange_selection"])
    choice = hl.exchange_action(table, view, list(legal))
    scores = []
    for row, action in enumerate(legal):
        f = out[row]
        f[36] = chosen / 4
        if action == EXCHANGE_DONE:
            f[_KIND_DONE] = 1.0
        else:
            card = action - EXCHANGE_PICK
            f[_KIND_PICK] = 1.0
            f[6 + CARD_SUIT[card]] = 1.0
            f[10] = CARD_VALUE[card] / 13
            f[35] = hl._KEEP[card] / hl.KEEP_COST
            if card in throw:
                f[37] = 1.0 - throw.index(card) / 4
        scores.append(1.0 if action == choice else 0.0)
    return scores


# ---------------------------------------------------------------------- Heiße Karten

# Per card: leading, black, value, |value|, trick rank, beats the trick so far, trick points,
# players still to play, player count (2–6 one-hot), share of unseen cards that beat it,
# value now, value usually, chance to take the trick, heuristic score, score − best, is best.
HK_FEATURES = 21
HK_SLOTS = 8  # HK-2.2 hands hold 8 cards
HK_SHAPE = (HK_SLOTS, HK_FEATURES)  # the game's feature_shape
HK_ANCHOR = AnchorColumns(18, {n: n + 6 for n in range(2, 7)}, leading=0)  # anchor_columns


def karten_features(view: dict[str, Any], legal: Sequence[int]) -> np.ndarray:
    """Heiße Karten features of each action in ``legal`` (``len(legal) × HK_FEATURES``)."""
    return _rows("heisse-karten", view, legal)


# ---------------------------------------------------------------------- packing

SPECS = {
    game.name: FeatureSpec(game.name, game.engine.LAYOUT.size, *game.load("feature_shape"))
    for game in GAMES.values()
}


def action_features(game: str, view: dict[str, Any], legal: Sequence[int]) -> np.ndarray:
    """The feature rows of ``legal`` (ascending action ids) in ``view``'s position."""
    return _features(get_game(game).name)(view, legal)


def policy_input(game: str, observation: np.ndarray, view: dict[str, Any]) -> np.ndarray:
    """One decision packed for an action-scoring policy (module docstring); ``observation`` is
    the environment's observation vector, ``view`` the engine's view of the same player. The
    game's array kernels compute it (their ``view_policy_input``) on a one-game record written
    from the view, as they compute many games' rows at once (``fill_policy_input``)."""
    name = get_game(game).name
    spec = SPECS[name]
    if len(view["legal_actions"]) > spec.slots:
        raise ValueError(
            f"{len(view['legal_actions'])} legal actions exceed the {spec.slots} action slots"
        )
    if name == "heisse-karten":
        return _kernels(name).view_policy_input(observation, view)
    legal = sorted(view["legal_actions"])
    packed = np.zeros(spec.input_size, dtype=np.float32)
    packed[: spec.observation_size] = observation
    start = spec.observation_size
    block = packed[start : start + spec.slots * spec.size].reshape(spec.slots, spec.size)
    block[: len(legal)] = luft_features(view, legal)
    ids = packed[start + spec.slots * spec.size :]
    ids[:] = -1.0
    ids[: len(legal)] = legal
    return packed


def unpack(spec: FeatureSpec, batch: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Split packed inputs ``(B, input_size)`` into observations ``(B, D)``, features
    ``(B, slots, size)`` and action ids ``(B, slots)`` (−1 for an unused slot)."""
    d, k, f = spec.observation_size, spec.slots, spec.size
    return (
        batch[:, :d],
        batch[:, d : d + k * f].reshape(-1, k, f),
        batch[:, d + k * f :],
    )


__all__ = [
    "ActionRows",
    "FeatureSpec",
    "SPECS",
    "action_features",
    "policy_input",
    "unpack",
]


def _rows(game: str, view: dict[str, Any], legal: Sequence[int]) -> np.ndarray:
    """The feature rows of ``view``'s legal actions (``legal``: all of them, ascending), cut
    from its packed input: the rows of one decision belong together (the best score, the
    number of legal actions)."""
    legal = [int(action) for action in legal]
    if legal != sorted(view["legal_actions"]):
        raise ValueError(
            f"legal must be the view's legal actions in ascending order, not {legal}"[:200]
        )
    spec = SPECS[game]
    start = spec.observation_size
    packed = policy_input(game, np.zeros(start, dtype=np.float32), view)
    return packed[start : start + len(legal) * spec.size].reshape(len(legal), spec.size).copy()


@functools.cache
def _kernels(game: str) -> ModuleType:
    """The game's array kernels (its spec's ``arrays`` module), imported on first use."""
    return importlib.import_module(get_game(game).arrays)


@functools.cache
def _features(game: str) -> Callable[[dict[str, Any], Sequence[int]], np.ndarray]:
    """The game's per-view action features (its spec's ``features``), looked up once."""
    return get_game(game).load("features")
