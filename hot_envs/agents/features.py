"""Action features: one vector per legal action, for policies that score actions (DouZero-style).

An *action-scoring* policy describes each legal action by a feature vector — what the card is,
where it goes, what it does to the stage, what the stage is worth — and one shared network turns
(state embedding, action features) into its logit, so what is learnt about one card or stage
carries to all (an MLP over the observation learns every output separately). The features come
from the player's ``view`` only (HL-8, HK-5) with the heuristics' own arithmetic — stakes,
chances, the heuristic's score — so a policy can start where the heuristic is. The game's array
kernels compute them (:mod:`hot_envs.agents.array_luft`, :mod:`~hot_envs.agents.array_karten`),
for one view or many games at once.

:func:`policy_input` packs one decision for such a policy into a single flat float32 vector:

    [ observation (LAYOUT.size) | features (SLOTS × FEATURES) | action ids (SLOTS) ]

legal actions in ascending id order, unused slots with features 0 and id −1. The layout per game
is :data:`SPECS`; :func:`unpack` splits a batch of such vectors again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from hot_envs.agents.base import kernels
from hot_envs.core.games import GAMES, get_game


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


# ---------------------------------------------------------------------- Heiße Karten

# Per card: leading, black, value, |value|, trick rank, beats the trick so far, trick points,
# players still to play, player count (2–6 one-hot), share of unseen cards that beat it,
# value now, value usually, chance to take the trick, heuristic score, score − best, is best.
HK_FEATURES = 21
HK_SLOTS = 8  # HK-2.2 hands hold 8 cards
HK_SHAPE = (HK_SLOTS, HK_FEATURES)  # the game's feature_shape
HK_ANCHOR = AnchorColumns(18, {n: n + 6 for n in range(2, 7)}, leading=0)  # anchor_columns


def view_features(view: dict[str, Any], legal: Sequence[int]) -> np.ndarray:
    """:func:`action_features` for the game the view is of."""
    return action_features(view["game"], view, legal)


# ---------------------------------------------------------------------- packing

SPECS = {
    game.name: FeatureSpec(game.name, game.engine.LAYOUT.size, *game.load("feature_shape"))
    for game in GAMES.values()
}


def action_features(game: str, view: dict[str, Any], legal: Sequence[int]) -> np.ndarray:
    """The feature rows of ``legal`` (the view's legal actions, ascending) in ``view``'s
    position, cut from its packed input (the rows of one decision belong together: the best
    score, the number of legal actions)."""
    legal = [int(action) for action in legal]
    if legal != sorted(view["legal_actions"]):
        raise ValueError(
            f"legal must be the view's legal actions in ascending order, not {legal}"[:200]
        )
    spec = SPECS[get_game(game).name]
    start = spec.observation_size
    packed = policy_input(game, np.zeros(start, dtype=np.float32), view)
    return packed[start : start + len(legal) * spec.size].reshape(len(legal), spec.size).copy()


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
    return kernels(name).view_policy_input(observation, view)


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
