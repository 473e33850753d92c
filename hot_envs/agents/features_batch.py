"""Action features for a batch of decisions, as array operations over all games at once.

:func:`policy_input_batch` gives exactly the rows that stacking
:func:`~hot_envs.agents.features.policy_input` per decision gives, bit for bit, in a fraction of
the time: each view is read once into arrays (its stages, card places and prize counts — the
small per-view part), and the per-action arithmetic — the heuristics' stakes, chances to win a
stage or a trick and scores, and every feature column — runs as numpy operations over all legal
actions of all decisions together. The float64 arithmetic follows the heuristics' own order of
operations, and ``erf`` and ``**`` (whose numpy versions may round differently from the C
library) are Python's, so the results are the same numbers, not near ones. The rare Heiße Luft
exchange and trophy decisions take the per-decision path.

:func:`action_features_batch` is the flat form underneath: one feature row per legal action,
with its decision and slot, what a scorer that scores only the legal actions reads
(:meth:`hot_envs.agents.scorer.NumpyScorer.batch_legal_logits`).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from itertools import chain
from math import erf
from operator import itemgetter
from typing import Any, NamedTuple

import numpy as np

from hot_envs.agents import features as ft
from hot_envs.agents import heuristic_karten as hk
from hot_envs.agents import heuristic_luft as hl
from hot_envs.games import get_game
from hot_envs.heisse_karten.facts import NUM_CARDS as HK_CARDS
from hot_envs.heisse_luft.facts import CARD_INDEX, EXCHANGE_PICK, NUM_CARDS, SUITS


class ActionRows(NamedTuple):
    """The legal actions of ``k`` decisions, flat: row ``r`` is action ``actions[r]`` in slot
    ``slot[r]`` of decision ``decision[r]``; ``features`` ``(rows, size)`` float32."""

    lengths: np.ndarray
    decision: np.ndarray
    slot: np.ndarray
    actions: np.ndarray
    features: np.ndarray


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
            legal = [sorted(view["legal_actions"]) for view in views]
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
        _FILL[spec.game](rows, starts, views, legal)
    return rows


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


# ---------------------------------------------------------------------- Heiße Luft


def _luft(rows: ActionRows, starts: np.ndarray, views: Sequence[dict], legal: Sequence) -> None:
    first = rows.actions[np.minimum(starts, len(rows.actions) - 1)]
    play = (rows.lengths > 0) & (first < EXCHANGE_PICK)
    for j in np.flatnonzero(~play & (rows.lengths > 0)).tolist():  # exchange, trophies: rare
        start = starts[j]
        rows.features[start : start + rows.lengths[j]] = ft.luft_features(
            views[j], [int(a) for a in legal[j]]
        )
    games = np.flatnonzero(play)
    if not len(games):
        return
    played = play[rows.decision]
    index = np.cumsum(play) - 1  # decision → its place among the play decisions
    out = np.zeros((int(played.sum()), ft.HL_FEATURES), np.float32)
    _luft_plays(out, _LuftTables([views[j] for j in games.tolist()]), rows, played, index)
    rows.features[played] = out


class _LuftTables:
    """The play views read into arrays in one pass (what :class:`~hl._Table` reads, for the
    whole batch): per game and stage ``stage`` (in play, sign, our sum, theirs, open slots by
    suit ours and theirs, open slots, stake, prizes by suit), per game and suit the supply
    (count, mean, variance), per game and card (0–39) where it is."""

    # stage columns
    IN_PLAY, SIGN, SUMS, OURS, THEIRS, SLOTS, PRIZES = 0, 1, 2, 4, 8, 12, 13

    def __init__(self, views: list[dict[str, Any]]) -> None:
        stages, stakes, supply, places, hidden = [], [], [], [], []
        for view in views:
            me, opp = view["player"], 1 - view["player"]
            won, trophies = view["prizes_won"], view["trophies"]
            players = (  # the arguments of hl._stake but the prizes, as hl._Table.stake makes them
                (_BY_SUIT(won[me]), len(trophies[me])),
                (_BY_SUIT(won[opp]), len(trophies[opp])),
                tuple(map(hl.SUIT_OF_LETTER.__getitem__, trophies[0] + trophies[1])),
                view["options"]["three_for_one"],
            )
            on_stage = 0
            for stage in view["stages"]:
                if not stage["in_play"]:
                    stages.append(_OUT_OF_PLAY)
                    stakes.append(0.0)
                    continue
                sides = stage["sides"]
                row, cards, prizes = _stage_row(
                    stage["terrain"], tuple(stage["prizes"]), tuple(sides[me]), tuple(sides[opp])
                )
                stages.append(row)
                stakes.append(hl._stake(*players, prizes))
                on_stage |= cards
            supply.append(_supplies(on_stage))
            known = view["known_opponent_cards"]
            places.append(
                (on_stage, _bits(view["hand"]), _bits(view["discard_pile"]), _bits(known))
            )
            hidden.append(view["opponent_hand_size"] - len(known))
        n = len(views)
        self.stage = np.array(stages, dtype=np.float64).reshape(n, 4, len(_OUT_OF_PLAY))
        self.stake = np.array(stakes, dtype=np.float64).reshape(n, 4)
        supply_array = np.array(supply, dtype=np.float64).reshape(n, 4, 3)
        self.supply = supply_array[:, :, 0].astype(np.int64)
        self.mean, self.var = supply_array[:, :, 1], supply_array[:, :, 2]
        bits = np.array(places, dtype=np.int64)[:, :, None] >> np.arange(NUM_CARDS) & 1
        self.on_stage, self.hand, self.discard, self.known = bits.astype(bool).transpose(1, 0, 2)
        self.unseen = ~(self.on_stage | self.hand | self.discard | self.known)
        self.hidden = np.array(hidden, dtype=np.int64)


_BY_SUIT = itemgetter(*SUITS)  # prize counts by suit index from the view's dict
_OUT_OF_PLAY = (0,) * 17


@lru_cache(maxsize=1 << 14)
def _stage_row(
    terrain: str, prizes: tuple[str, ...], ours: tuple[str, ...], theirs: tuple[str, ...]
) -> tuple[tuple[int, ...], int, tuple[int, ...]]:
    """A stage's :data:`_LuftTables` columns (from :func:`hl._read_stage`), its cards as a bit
    mask and its prize suits. Cached as that is: positions share most stages."""
    st, cards = hl._read_stage(terrain, prizes, ours, theirs)
    suits = tuple(st.prizes)
    row = (1, st.sign, *st.sums, *st.missing[0], *st.missing[1], st.open_slots)
    return row + tuple(map(suits.count, range(4))), cards, suits


@lru_cache(maxsize=1 << 14)
def _supplies(on_stage: int) -> tuple[float, ...]:
    """:func:`hl._suit_supply` of the four suits, flat, for the cards ``on_stage`` (a mask)."""
    return tuple(
        chain.from_iterable(
            hl._suit_supply(s, on_stage >> hl._SUIT_START[s] & hl._SUIT_BITS[s]) for s in range(4)
        )
    )


def _bits(codes: list[str]) -> int:
    """The cards of ``codes`` as a bit mask over card indices."""
    mask = 0
    for code in codes:
        mask |= 1 << CARD_INDEX[code]
    return mask


def _chance(diff: np.ndarray, spread: np.ndarray) -> np.ndarray:
    """:func:`hl._chance` elementwise (Python's ``erf``: numpy has none that rounds alike)."""
    z = diff / np.sqrt(2.0 * np.maximum(spread, hl.MIN_SPREAD))
    erfs = np.array([erf(x) for x in z.ravel().tolist()], dtype=np.float64).reshape(z.shape)
    return 0.5 * (1.0 + erfs)


def _luft_plays(
    out: np.ndarray, t: _LuftTables, rows: ActionRows, played: np.ndarray, index: np.ndarray
) -> None:
    """The play rows (``played`` of ``rows``): :func:`hl.play_terms`, :func:`hl.scores_of_terms`
    and the feature columns, over all of them at once."""
    st = t.stage
    in_play, sign = st[..., t.IN_PLAY] > 0, st[..., t.SIGN]
    sums, slots, stake = st[..., t.SUMS : t.SUMS + 2], st[..., t.SLOTS], t.stake
    ours, theirs = st[..., t.OURS : t.OURS + 4], st[..., t.THEIRS : t.THEIRS + 4]
    # Per stage, in play_terms' order of operations (sums of four terms left to right).
    lean = (ours - theirs) * t.mean[:, None, :]
    width = (ours + theirs) * t.var[:, None, :]
    expected = (
        sums[..., 0] - sums[..., 1] + (lean[..., 0] + lean[..., 1] + lean[..., 2] + lean[..., 3])
    )
    spread = width[..., 0] + width[..., 1] + width[..., 2] + width[..., 3]
    stake = stake * np.where(_blocked(t, in_play, ours + theirs), hl.BLOCKED_FACTOR, 1.0)
    diff = sign * expected
    now = _chance(diff, spread)
    # Per play action, its stage's values gathered.
    game = index[rows.decision[played]]
    actions = rows.actions[played]
    card, stage, side = actions >> 3, actions >> 1 & 3, actions & 1
    suit, value = ft._HL_SUIT[card], _VALUE[card]
    at = (game, stage)
    left, sgn = slots[at] - 1, sign[at]
    after = np.empty(len(actions))
    done = left == 0  # the card completes the stage: exact, a tie ours (HL-4.3)
    final = sums[at][:, 0] - sums[at][:, 1] + np.where(side == 0, value, -value)
    after[done] = sgn[done] * final[done] >= 0
    wide = left >= 2
    shift = sgn * (value - t.mean[game, suit])
    moved = np.where(side == 0, diff[at] + shift, diff[at] - shift)
    after[wide] = _chance(moved[wide], (spread[at] - t.var[game, suit])[wide])
    last = left == 1
    if last.any():
        after[last] = _last_slot(t, game[last], card[last], side[last], stage[last], sgn[last])
    scores = stake[at] * (after - now[at]) - _KEEP[card]
    ft.play_columns(
        out,
        actions,
        (sign[at] > 0).astype(np.float32),
        (st[..., t.PRIZES : t.PRIZES + 4][at] * 0.25).astype(np.float32),
        sums[at].astype(np.float32),
        slots[at].astype(np.float32),
        np.stack([stake[at], now[at], after], axis=1),
    )
    scores32 = scores.astype(np.float32)
    starts = np.flatnonzero(np.r_[True, game[1:] != game[:-1]])
    best = np.maximum.reduceat(scores32, starts)
    counts = np.diff(np.r_[starts, len(game)])
    ft.luft_score_columns(out, scores32, np.repeat(counts, counts), np.repeat(best, counts))


def _blocked(t: _LuftTables, in_play: np.ndarray, demand: np.ndarray) -> np.ndarray:
    """:meth:`hl._Table.blocked` per game and stage: the stages nearer completion take the cards
    of the supply first (HL-3.1)."""
    n = len(in_play)
    key = np.where(in_play, t.stage[..., t.SLOTS] * 4 + np.arange(4), np.inf)
    order = np.argsort(key, axis=1, kind="stable")
    left = t.supply.copy()
    blocked = np.zeros((n, 4), dtype=bool)
    games = np.arange(n)
    for i in order.T:
        need = demand[games, i]
        counted = in_play[games, i]
        short = counted & (need > left).any(axis=1)
        blocked[games, i] = short
        left -= np.where((counted & ~short)[:, None], need, 0).astype(np.int64)
    return blocked


def _last_slot(
    t: _LuftTables,
    game: np.ndarray,
    card: np.ndarray,
    side: np.ndarray,
    stage: np.ndarray,
    sign: np.ndarray,
) -> np.ndarray:
    """:func:`hl.last_slot_chance` of each (game, card, side, stage), the opponent to move."""
    at = (game, stage)
    st = t.stage
    value = _VALUE_INT[card]
    sums = st[..., t.SUMS : t.SUMS + 2][at].astype(np.int64)
    sums[np.arange(len(card)), side] += value
    missing = np.stack(
        [st[..., t.OURS : t.OURS + 4][at], st[..., t.THEIRS : t.THEIRS + 4][at]], axis=1
    ).astype(np.int64)
    missing[np.arange(len(card)), side, ft._HL_SUIT[card]] -= 1
    slot_side = np.where(missing[:, 0].any(axis=1), 0, 1)
    slot_suit = (missing[np.arange(len(card)), slot_side] == 1).argmax(axis=1)
    sign = sign.astype(np.int64)
    diff = sign * (sums[:, 0] - sums[:, 1])
    to_slot = np.where(slot_side == 0, sign, -sign)
    final = diff[:, None] + to_slot[:, None] * _VALUE_INT[None, :]  # per card on the slot
    fits = ft._HL_SUIT[None, :] == slot_suit[:, None]
    theirs, ours = fits & (final <= 0), fits & (final >= 0)
    unseen = t.unseen[game]
    n_unseen = t.unseen.sum(axis=1)[game]
    hidden = t.hidden[game]
    bad = (theirs & unseen).sum(axis=1) / np.maximum(n_unseen, 1)
    guess = (n_unseen > 0) & (hidden > 0)
    p_theirs = np.zeros(len(card))
    p_theirs[guess] = 1.0 - np.array(
        [(1.0 - b) ** h for b, h in zip(bad[guess].tolist(), hidden[guess].tolist(), strict=True)]
    )
    others = t.hand[game].copy()
    others[np.arange(len(card)), card] = False
    pool = fits & (unseen | t.discard[game])
    pool_count = pool.sum(axis=1)
    good = np.where(pool_count > 0, (ours & pool).sum(axis=1) / np.maximum(pool_count, 1), 0.0)
    chance = np.where((ours & others).any(axis=1), 1.0 - p_theirs, (1.0 - p_theirs) * good)
    return np.where((theirs & t.known[game]).any(axis=1), 0.0, chance)


_VALUE_INT = ft._HL_VALUE.astype(np.int64)
_VALUE = _VALUE_INT.astype(np.float64)
_KEEP = np.asarray(hl._KEEP, dtype=np.float64)


# ---------------------------------------------------------------------- Heiße Karten


def _karten(rows: ActionRows, starts: np.ndarray, views: Sequence[dict], legal: Sequence) -> None:
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

_FILL = {"heisse-luft": _luft, "heisse-karten": _karten}

__all__ = ["ActionRows", "action_features_batch", "policy_input_batch"]
