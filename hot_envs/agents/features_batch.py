"""Action features for a batch of decisions, as array operations over all games at once.

:func:`policy_input_batch` gives exactly the rows that stacking
:func:`~hot_envs.agents.features.policy_input` per decision gives, bit for bit, in a fraction of
the time: each view is read once into arrays (its stages, card places and prize counts — the
small per-view part), and the per-action arithmetic — the heuristics' stakes, chances to win a
stage or a trick and scores, and every feature column — runs as numpy operations over all legal
actions of all decisions together. The float64 arithmetic follows the heuristics' own order of
operations, and ``erf`` and ``**`` (whose numpy versions may round differently from the C
library) are Python's, so the results are the same numbers, not near ones. The rare Heiße Luft
exchange and trophy decisions take the per-decision path. Each game's part:
:mod:`~hot_envs.agents.features_batch_luft`, :mod:`~hot_envs.agents.features_batch_karten`.

:func:`action_features_batch` is the flat form underneath: one feature row per legal action,
with its decision and slot, what a scorer that scores only the legal actions reads
(:meth:`hot_envs.agents.scorer.NumpyScorer.batch_legal_logits`).

:class:`ActionScorerInput` is what an action-scoring policy reads, as an object a single-agent
environment takes (``policy_input=ActionScorerInput(game)``): the environment then emits these
packed rows in place of its observations, computed for all its games at once, and knows nothing
of the model behind them.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Any

import numpy as np

from hot_envs.agents import features as ft
from hot_envs.agents.features import ActionRows
from hot_envs.core.engine import SeatViews
from hot_envs.core.games import get_game


def action_features_batch(
    game: str,
    views: Sequence[dict[str, Any]],
    legal: Sequence[Sequence[int]] | None = None,
    masks: np.ndarray | None = None,
) -> ActionRows:
    """The feature rows of every legal action of every view. The legal actions of view ``j``
    are ``legal[j]`` (ascending), or the non-zero entries of ``masks[j]`` (``(k, actions)``
    action masks), or by default its sorted ``legal_actions``."""
    spec = ft.SPECS[get_game(game).name]
    if masks is not None:
        if len(masks) != len(views):
            raise ValueError(f"{len(masks)} action masks for {len(views)} views")
        decision, actions = np.asarray(masks).nonzero()
        lengths = np.bincount(decision, minlength=len(views))
        legal = np.split(actions, np.cumsum(lengths)[:-1])
    else:
        if legal is None:
            legal = _legal_actions(views)
        if len(legal) != len(views):
            raise ValueError(f"{len(legal)} legal-action lists for {len(views)} views")
        lengths = np.fromiter(map(len, legal), np.int64, len(legal))
        actions = np.fromiter(chain.from_iterable(legal), np.int64, int(lengths.sum()))
        decision = np.repeat(np.arange(len(lengths)), lengths)
    if len(lengths) and lengths.max() > spec.slots:
        raise ValueError(f"{lengths.max()} legal actions exceed the {spec.slots} action slots")
    starts = np.cumsum(lengths) - lengths
    slot = np.arange(len(actions)) - starts[decision]
    features = np.zeros((len(actions), spec.size), np.float32)
    rows = ActionRows(lengths, decision, slot, actions.astype(np.int64), features)
    if len(actions):
        _fill(spec.game)(rows, starts, views, legal)
    return rows


def _legal_actions(views: Sequence[dict[str, Any]]) -> list[list[int]]:
    """The sorted ``legal_actions`` of every view (of :class:`~hot_envs.core.engine.SeatViews`
    without making the dicts)."""
    if isinstance(views, SeatViews):
        return [sorted(views.legal_actions(j)) for j in range(len(views))]
    return [sorted(view["legal_actions"]) for view in views]


def policy_input_batch(
    game: str, observations: np.ndarray, views: Sequence[dict[str, Any]]
) -> np.ndarray:
    """``(k, input_size)`` float32: row ``j`` is ``policy_input(game, observations[j],
    views[j])`` (:mod:`hot_envs.agents.features`), computed for all rows at once."""
    spec = ft.SPECS[get_game(game).name]
    observations = np.asarray(observations, dtype=np.float32)
    if observations.shape != (len(views), spec.observation_size):
        raise ValueError(
            f"observations {observations.shape} do not match {len(views)} views of "
            f"{spec.observation_size} entries"
        )
    rows = action_features_batch(game, views)
    d, width = spec.observation_size, spec.slots * spec.size
    packed = np.zeros((len(views), spec.input_size), dtype=np.float32)
    packed[:, :d] = observations
    block = packed[:, d : d + width].reshape(len(views), spec.slots, spec.size)  # a view
    block[rows.decision, rows.slot] = rows.features
    if not np.may_share_memory(block, packed):  # a copy after all (an empty batch)
        packed[:, d : d + width] = block.reshape(len(views), width)
    packed[:, d + width :] = -1.0
    packed[rows.decision, d + width + rows.slot] = rows.actions
    return packed


@dataclass(frozen=True)
class ActionScorerInput:
    """The input of the action-scoring policies (``hot_envs.training.policies``,
    :class:`~hot_envs.agents.scorer.NumpyScorer`) for a single-agent environment to emit
    (:class:`hot_envs.envs.driver.PolicyInput`): per decision the observation, a feature row per
    legal action and the actions' ids (:func:`~hot_envs.agents.features.policy_input`)."""

    game: str

    @property
    def size(self) -> int:
        return ft.SPECS[get_game(self.game).name].input_size

    def one(self, observation: np.ndarray, view: dict[str, Any]) -> np.ndarray:
        return ft.policy_input(self.game, observation, view)

    def batch(self, observations: np.ndarray, views: Sequence[dict[str, Any]]) -> np.ndarray:
        return policy_input_batch(self.game, observations, views)

    def arrays(
        self,
        games: Any,
        which: np.ndarray,
        seats: np.ndarray,
        observations: np.ndarray,
        out: np.ndarray,
    ) -> None:
        """The rows of seats ``seats`` in games ``which`` of an array engine, from its arrays
        (:func:`hot_envs.agents.arrays.fill_policy_input`)."""
        from hot_envs.agents.arrays import fill_policy_input

        fill_policy_input(games, which, seats, observations, out)


def batched_heuristic(game: str, agent: Any) -> Any | None:
    """``agent`` as a batched agent (:mod:`hot_envs.agents.batched`) that decides with the
    batched arithmetic — where ``agent`` is exactly the game's heuristic class and the game's
    batched features module has a ``BatchedHeuristic`` for it — else ``None``. It chooses what
    ``agent.act`` would, decision by decision, drawing the same numbers."""
    description = get_game(game)
    if not description.heuristic or type(agent) is not description.load("heuristic"):
        return None
    module = importlib.import_module(description.features_batch.partition(":")[0])
    batched = getattr(module, "BatchedHeuristic", None)
    return None if batched is None else batched(agent)


@functools.cache
def _fill(game: str) -> Callable[..., None]:
    """The game's ``fill_rows`` (its spec's ``features_batch``), imported once."""
    return get_game(game).load("features_batch")


__all__ = ["ActionRows", "action_features_batch", "batched_heuristic", "policy_input_batch"]
