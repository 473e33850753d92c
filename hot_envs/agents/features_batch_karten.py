"""Heiße Karten action features for a batch of decisions, as arrays
(:mod:`hot_envs.agents.features_batch`): :class:`hk.Unseen` of every view as prefix arrays,
then :func:`hk.card_terms`, :func:`hk.card_scores` and the feature columns of every card of
every decision at once, in the heuristic's order of float64 operations.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from hot_envs.agents import features as ft
from hot_envs.agents import heuristic_karten as hk
from hot_envs.agents.features import ActionRows
from hot_envs.heisse_karten.facts import NUM_CARDS as HK_CARDS


def fill_rows(rows: ActionRows, starts: np.ndarray, views: Sequence[dict], legal: Sequence) -> None:
    """:func:`hk.card_terms`, :func:`hk.card_scores` and the feature columns of every card."""
    k = len(views)
    info, out_of_sight = [], []
    for j, view in enumerate(views):
        trick = [card for _, card in view["trick"]]
        info.append(
            (
                view["num_players"],
                len(trick),
                max(map(hk.TRICK_RANK.__getitem__, trick), default=0),
                sum(map(hk.CARD_VALUE.__getitem__, trick)),
            )
        )
        out_of_sight.extend((j, hk._SLOT[card]) for card in view["hand"])
        out_of_sight.extend((j, hk._SLOT[card]) for _, card in view["played"])
    players, trick_length, best_rank, base = np.array(info, dtype=np.int64).T
    # hk.Unseen for all views: unseen cards by rank slot, prefix counts and value sums
    count = np.broadcast_to(_ALL_COUNT, (k, len(_ALL_COUNT))).copy()
    if out_of_sight:
        seen = np.array(out_of_sight, dtype=np.int64)
        count[seen[:, 0], seen[:, 1]] = 0
    total = np.cumsum(count * _ALL_TOTAL, axis=1)
    count = np.cumsum(count, axis=1)
    n = count[:, HK_CARDS]
    mean = np.where(n > 0, total[:, HK_CARDS] / np.maximum(n, 1), 0.0)
    g = rows.decision
    cards = rows.actions + 1  # HK-1.2
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
            base[gf] + value[f], rank[f] > best_rank[gf], later, share, mean[gf], stays, below[f]
        )
        usual, _ = _trick_value(
            value[f], np.ones(len(f), bool), nf - 1, share, mean[gf], stays, below[f]
        )
        terms[f] = np.stack([now, usual, chance], axis=1)
    ft.karten_columns(
        rows.features, cards, players[g], trick_length[g], best_rank[g], base[g], beaten, terms
    )
    tempo = np.array([hk.TEMPO.get(p, hk.TEMPO_MANY) for p in range(7)])[players[g]]
    scores = np.where(
        follow, terms[:, 0] - hk.KEEP * terms[:, 1] - tempo * terms[:, 2], _LEAD[cards]
    ).astype(np.float32)
    best = np.maximum.reduceat(scores, starts[rows.lengths > 0])
    ft.karten_score_columns(
        rows.features, scores, rows.lengths[g], np.repeat(best, rows.lengths[rows.lengths > 0])
    )


def _trick_value(
    base: np.ndarray,
    keeps: np.ndarray,
    later: np.ndarray,
    share: np.ndarray,
    mean: np.ndarray,
    stays: np.ndarray,
    below: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`hk.trick_value` elementwise (Python's ``**``, as numpy's may round differently)."""
    expected = base + later * mean
    chance = np.array([s**n for s, n in zip(stays.tolist(), later.tolist(), strict=True)])
    ours = base + later * below
    theirs = expected - chance * ours
    value = np.where(keeps, chance * ours - share * theirs, -share * expected)
    return value, np.where(keeps, chance, 0.0)


_HK_VALUE, _HK_RANK = ft._HK_VALUE, ft._HK_RANK
_BELOW = np.asarray(hk._BELOW)
_ALL_COUNT = np.asarray(hk._ALL_COUNT, dtype=np.int64)
_ALL_TOTAL = np.asarray(hk._ALL_TOTAL, dtype=np.int64)
_LEAD = np.asarray(hk.LEAD_SCORE, dtype=np.float64)
