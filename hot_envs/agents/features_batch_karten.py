"""Heiße Karten action features for a batch of decisions, as arrays
(:mod:`hot_envs.agents.features_batch`): :class:`hk.Unseen` of every view as prefix arrays,
then :func:`hk.card_terms`, :func:`hk.card_scores` and the feature columns of every card of
every decision at once, in the heuristic's order of float64 operations.

The same arithmetic decides for the heuristic itself: :func:`card_scores_batch` gives
:func:`hk.card_scores` of many decisions at once, and :class:`BatchedHeuristic` plays a
:class:`hk.HeisseKartenHeuristic` as a batched agent (:mod:`hot_envs.agents.batched`) that
chooses what its ``act`` chooses, decision by decision, from the same generator.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain
from operator import itemgetter
from typing import Any

import numpy as np

from hot_envs.agents import features as ft
from hot_envs.agents import heuristic_karten as hk
from hot_envs.agents.batched import BatchedHeuristicBase
from hot_envs.agents.features import ActionRows
from hot_envs.heisse_karten.facts import NUM_CARDS as HK_CARDS


def fill_rows(rows: ActionRows, starts: np.ndarray, views: Sequence[dict], legal: Sequence) -> None:
    """:func:`hk.card_terms`, :func:`hk.card_scores` and the feature columns of every card."""
    g = rows.decision
    cards = rows.actions + 1  # HK-1.2
    t = _Terms(views, g, cards)
    ft.karten_columns(
        rows.features,
        cards,
        t.players[g],
        t.trick_length[g],
        t.best_rank[g],
        t.base[g],
        t.beaten,
        t.terms,
    )
    scores = t.scores.astype(np.float32)
    best = np.maximum.reduceat(scores, starts[rows.lengths > 0])
    ft.karten_score_columns(
        rows.features, scores, rows.lengths[g], np.repeat(best, rows.lengths[rows.lengths > 0])
    )


def card_scores_batch(views: Sequence[dict], legal: Sequence[Sequence[int]]) -> list[list[float]]:
    """``hk.card_scores(views[j], [a + 1 for a in legal[j]])`` for every ``j``, as arrays: the
    same float64 numbers (a lead's score, an int there, as the float of the same value)."""
    lengths = np.fromiter(map(len, legal), np.int64, len(legal))
    if not lengths.sum():
        return [[] for _ in legal]
    cards = np.fromiter(chain.from_iterable(legal), np.int64, int(lengths.sum())) + 1  # HK-1.2
    g = np.repeat(np.arange(len(legal)), lengths)
    scores = _Terms(views, g, cards).scores.tolist()
    ends = np.cumsum(lengths).tolist()
    return [scores[end - n : end] for n, end in zip(lengths.tolist(), ends, strict=True)]


_BATCHED_DECISIONS = 24  # from this many decisions on the arrays cost less (~10 µs each one by one)


class BatchedHeuristic(BatchedHeuristicBase):
    """A :class:`hk.HeisseKartenHeuristic` (exactly that class) as a batched agent
    (:class:`~hot_envs.agents.batched.BatchedHeuristicBase`): every decision with a choice is
    scored, by :func:`card_scores_batch`."""

    HEURISTIC = hk.HeisseKartenHeuristic
    THRESHOLD = _BATCHED_DECISIONS

    def scores_batch(self, views: Sequence[dict], legal: list[list[int]]) -> Sequence[Any]:
        return card_scores_batch(views, legal)

    def scores_one(self, view: dict, actions: list[int]) -> Any:
        return hk.card_scores(view, [a + 1 for a in actions])


class _Terms:
    """:func:`hk.card_terms` and :func:`hk.card_scores` of ``cards`` (card numbers; each of
    decision ``g`` of ``views``), float64 in their order of operations: per decision
    ``players``, ``trick_length``, ``best_rank`` and ``base`` (the trick's points); per card
    ``beaten`` (:meth:`hk.Unseen.beaten`), ``terms`` (now, usually, chance; zeros on a lead)
    and ``scores``."""

    def __init__(self, views: Sequence[dict], g: np.ndarray, cards: np.ndarray) -> None:
        views = list(views)  # read several times: each view made once, then a plain list
        k = len(views)
        every = np.arange(k)
        players = np.fromiter((view["num_players"] for view in views), np.int64, k)
        # the trick so far: its length, best trick rank (0 when empty) and points
        trick, trick_length = _cards_of_pairs([view["trick"] for view in views])
        in_trick = np.repeat(every, trick_length)
        best_rank = np.zeros(k, np.int64)
        np.maximum.at(best_rank, in_trick, _HK_RANK[trick])
        base = np.zeros(k, np.int64)
        np.add.at(base, in_trick, _HK_VALUE[trick])
        # hk.Unseen for all views: unseen cards by rank slot, prefix counts and value sums
        hands = [view["hand"] for view in views]
        hand_length = np.fromiter(map(len, hands), np.int64, k)
        hand = np.fromiter(chain.from_iterable(hands), np.int64, int(hand_length.sum()))
        played, played_length = _cards_of_pairs([view["played"] for view in views])
        width = len(_ALL_COUNT)
        count = np.broadcast_to(_ALL_COUNT, (k, width)).copy()
        count.reshape(-1)[np.repeat(every, hand_length) * width + _SLOT[hand]] = 0
        count.reshape(-1)[np.repeat(every, played_length) * width + _SLOT[played]] = 0
        total = np.cumsum(count * _ALL_TOTAL, axis=1)
        count = np.cumsum(count, axis=1)
        n = count[:, HK_CARDS]
        mean = np.where(n > 0, total[:, HK_CARDS] / np.maximum(n, 1), 0.0)
        value, rank = _HK_VALUE[cards], _HK_RANK[cards]
        n_g = n[g]
        beaten = np.where(n_g > 0, (n_g - count[g, _BELOW[rank + 1]]) / np.maximum(n_g, 1), 0.0)
        below_count = count[g, _BELOW[rank]]
        below = np.where(below_count > 0, total[g, _BELOW[rank]] / np.maximum(below_count, 1), 0.0)
        follow = trick_length[g] > 0
        terms = np.zeros((len(cards), 3))
        f = np.flatnonzero(follow)
        if len(f):
            gf, nf = g[f], players[g[f]]
            share = 1.0 / (nf - 1)
            stays = 1.0 - beaten[f]
            later = nf - 1 - trick_length[gf]
            now, chance = _trick_value(
                base[gf] + value[f],
                rank[f] > best_rank[gf],
                later,
                share,
                mean[gf],
                stays,
                below[f],
            )
            usual, _ = _trick_value(
                value[f], np.ones(len(f), bool), nf - 1, share, mean[gf], stays, below[f]
            )
            terms[f] = np.stack([now, usual, chance], axis=1)
        tempo = _TEMPO[players[g]]
        self.players, self.trick_length = players, trick_length
        self.best_rank, self.base, self.beaten, self.terms = best_rank, base, beaten, terms
        self.scores = np.where(
            follow, terms[:, 0] - hk.KEEP * terms[:, 1] - tempo * terms[:, 2], _LEAD[cards]
        )


def _cards_of_pairs(pairs: Sequence[Sequence]) -> tuple[np.ndarray, np.ndarray]:
    """The cards of the ``[seat, card]`` pairs of every list of ``pairs``, one after another,
    and how many each list holds."""
    lengths = np.fromiter(map(len, pairs), np.int64, len(pairs))
    cards = map(_SECOND, chain.from_iterable(pairs))
    return np.fromiter(cards, np.int64, int(lengths.sum())), lengths


def _trick_value(
    base: np.ndarray,
    keeps: np.ndarray,
    later: np.ndarray,
    share: np.ndarray,
    mean: np.ndarray,
    stays: np.ndarray,
    below: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`hk.trick_value` elementwise (Python's ``pow``, as numpy's may round differently)."""
    expected = base + later * mean
    chance = np.fromiter(map(pow, stays.tolist(), later.tolist()), np.float64, len(stays))
    ours = base + later * below
    theirs = expected - chance * ours
    value = np.where(keeps, chance * ours - share * theirs, -share * expected)
    return value, np.where(keeps, chance, 0.0)


_HK_VALUE, _HK_RANK = ft._HK_VALUE, ft._HK_RANK
_BELOW = np.asarray(hk._BELOW)
_SLOT = np.asarray(hk._SLOT)
_SECOND = itemgetter(1)
_ALL_COUNT = np.asarray(hk._ALL_COUNT, dtype=np.int64)
_ALL_TOTAL = np.asarray(hk._ALL_TOTAL, dtype=np.int64)
_LEAD = np.asarray(hk.LEAD_SCORE, dtype=np.float64)
_TEMPO = np.array([hk.TEMPO.get(p, hk.TEMPO_MANY) for p in range(7)])  # by player count
