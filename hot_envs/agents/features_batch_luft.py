"""Heiße Luft action features for a batch of decisions, as arrays
(:mod:`hot_envs.agents.features_batch`): the play views read into arrays in one pass (from their
compact form, :class:`~hot_envs.heisse_luft.serialize.CompactView`, which the engine hands out
without making the view dict), then :func:`hl.play_terms`, :func:`hl.scores_of_terms` and the
feature columns over every play of every decision at once, in the heuristic's order of float64
operations; exchange and trophy decisions (rare, ≤ 9 actions) take
:func:`~hot_envs.agents.features.luft_features`.

The same arithmetic decides for the heuristic itself: :func:`play_scores_batch` gives
:func:`hl.play_scores` of many decisions at once, and :class:`BatchedHeuristic` plays a
:class:`hl.HeisseLuftHeuristic` as a batched agent (:mod:`hot_envs.agents.batched`) that chooses
what its ``act`` chooses, decision by decision, from the same generator.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache, lru_cache
from itertools import chain
from math import erf
from operator import itemgetter
from typing import Any

import numpy as np

from hot_envs.agents import features as ft
from hot_envs.agents import heuristic_luft as hl
from hot_envs.agents.batched import BatchedHeuristicBase
from hot_envs.agents.features import ActionRows
from hot_envs.core.engine import SeatViews
from hot_envs.heisse_luft.facts import (
    CARD_SUIT,
    CARD_VALUE,
    EXCHANGE_PICK,
    MOUNTAIN,
    NUM_CARDS,
    SUIT_SIZES,
)
from hot_envs.heisse_luft.serialize import CompactView, compact_of_view


def fill_rows(rows: ActionRows, starts: np.ndarray, views: Sequence[dict], legal: Sequence) -> None:
    """Fill ``rows.features`` (:func:`~hot_envs.agents.features_batch.action_features_batch`;
    ``starts``: each decision's first row): plays as arrays, the rest per decision."""
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
    _luft_plays(out, _LuftTables(_compact(views, games.tolist())), rows, played, index)
    rows.features[played] = out


def play_scores_batch(views: Sequence[dict], legal: Sequence[Sequence[int]]) -> list[list[float]]:
    """``hl.play_scores(hl._Table(views[j]), legal[j])`` for every ``j`` (play decisions: every
    action of ``legal[j]`` a placement, in any order), as arrays: the same float64 numbers."""
    lengths = np.fromiter(map(len, legal), np.int64, len(legal))
    if not lengths.sum():
        return [[] for _ in legal]
    actions = np.fromiter(chain.from_iterable(legal), np.int64, int(lengths.sum()))
    game = np.repeat(np.arange(len(legal)), lengths)
    scores = _Terms(_LuftTables(_compact(views)), game, actions).scores.tolist()
    ends = np.cumsum(lengths).tolist()
    return [scores[end - n : end] for n, end in zip(lengths.tolist(), ends, strict=True)]


_BATCHED_PLAYS = 5  # from this many play decisions on the arrays cost less (~0.4 ms for one)


class BatchedHeuristic(BatchedHeuristicBase):
    """A :class:`hl.HeisseLuftHeuristic` (exactly that class) as a batched agent
    (:class:`~hot_envs.agents.batched.BatchedHeuristicBase`): play decisions are scored, by
    :func:`play_scores_batch`; exchange and trophy decisions go to the agent's ``choose``."""

    HEURISTIC = hl.HeisseLuftHeuristic
    THRESHOLD = _BATCHED_PLAYS

    def scored(self, actions: list[int]) -> bool:
        return actions[0] < EXCHANGE_PICK

    def scores_batch(self, views: Sequence[dict], legal: list[list[int]]) -> Sequence[Any]:
        return play_scores_batch(views, legal)

    def scores_one(self, view: dict, actions: list[int]) -> Any:
        return hl.play_scores(hl._Table(view), actions)


class _LuftTables:
    """The play views read into arrays in one pass (what :class:`~hl._Table` reads, for the
    whole batch), from their compact form (:class:`CompactView`): per game and stage ``stage``
    (in play, sign, our sum, theirs, open slots by suit ours and theirs, open slots, prizes by
    suit) and ``stake``, per game and suit the supply (count, mean, variance), per game and card
    (0–39) where it is. Only the stakes are looked up per view (cached); the rest is array
    arithmetic over the cards, in integers, so the numbers are :class:`~hl._Table`'s."""

    # stage columns
    IN_PLAY, SIGN, SUMS, OURS, THEIRS, SLOTS, PRIZES = 0, 1, 2, 4, 8, 12, 13

    def __init__(self, views: list[CompactView]) -> None:
        numbers, groups, stakes = [], [], []
        for view in views:
            me = view.player
            opp = 1 - me
            numbers += view.in_play
            numbers += view.terrain
            numbers.append(view.opponent_hand_size)
            groups += view.hand, view.discard_pile, view.known_opponent_cards
            groups += view.sides if me == 0 else _SIDE_1_FIRST(view.sides)  # ours first
            groups += view.prizes
            won, trophies = view.prizes_won, view.trophies
            players = (  # the arguments of hl._stake but the prizes, as hl._Table.stake makes them
                (won[me], len(trophies[me])),
                (won[opp], len(trophies[opp])),
                trophies[0] + trophies[1],
                view.three_for_one,
            )
            stakes.append(_stakes(players, view.prizes))
        n = len(views)
        number = np.frombuffer(bytes(numbers), np.uint8).astype(np.int64).reshape(n, 9)
        in_play = number[:, :4].astype(bool)
        # per view: how often each card is in the hand, the discard pile, the known opponent
        # cards and on each stage's side 0 and side 1, then each stage's prizes by suit
        counts = _counts(groups, NUM_CARDS).reshape(n, 15, NUM_CARDS)
        self.hand, self.discard, self.known = counts[:, :3].astype(bool).transpose(1, 0, 2)
        sides = counts[:, 3:11].reshape(n, 4, 2, NUM_CARDS) * in_play[:, :, None, None]
        self.on_stage = sides.any(axis=(1, 2))
        # per stage and side: the sum and the cards by suit (small integers, exact as floats)
        sums = (sides.reshape(n * 8, NUM_CARDS).astype(np.float64) @ _SUM_AND_SUITS).astype(int)
        sums = sums.reshape(n, 4, 2, 5)
        need = counts[:, 11:, :4] * in_play[:, :, None]
        missing = need[:, :, None, :] - sums[..., 1:]
        stage = np.zeros((n, 4, 17))
        stage[..., self.IN_PLAY] = in_play
        stage[..., self.SIGN] = np.where(number[:, 4:8] == MOUNTAIN, 1, -1) * in_play
        stage[..., self.SUMS : self.SUMS + 2] = sums[..., 0]
        stage[..., self.OURS : self.OURS + 4] = missing[:, :, 0]
        stage[..., self.THEIRS : self.THEIRS + 4] = missing[:, :, 1]
        stage[..., self.SLOTS] = missing.sum(axis=(2, 3))
        stage[..., self.PRIZES : self.PRIZES + 4] = need
        self.stage = stage
        self.stake = np.where(in_play, _flat(stakes, n * 4, np.float64).reshape(n, 4), 0.0)
        # what can still fill slots, by suit: hl._suit_supply of the cards off the stages
        masks = self.on_stage @ _SUIT_MASKS
        supply = np.stack([_supply_table(s)[masks[:, s]] for s in range(4)], axis=1)
        self.supply = supply[:, :, 0].astype(np.int64)
        self.mean, self.var = supply[:, :, 1], supply[:, :, 2]
        self.unseen = ~(self.on_stage | self.hand | self.discard | self.known)
        self.hidden = number[:, 8] - self.known.sum(axis=1)


def _compact(views: Sequence[dict], indices: Sequence[int] | None = None) -> list[CompactView]:
    """The compact form of views ``indices`` (default: all): the engine's own for
    :class:`SeatViews` (no dicts made), else read from the dicts."""
    if indices is None:
        indices = range(len(views))
    if isinstance(views, SeatViews):
        return [views.compact(j) or compact_of_view(views[j]) for j in indices]
    return [compact_of_view(views[j]) for j in indices]


def _flat(rows: list[tuple], count: int, dtype: type) -> np.ndarray:
    """``np.array(rows, dtype).ravel()`` of tuples of numbers (``count`` in all), faster."""
    return np.fromiter(chain.from_iterable(rows), dtype, count)


def _counts(groups: list[tuple[int, ...]], size: int) -> np.ndarray:
    """``(len(groups), size)`` int64: how often each id (0 … size − 1) is in each group (ids
    and group lengths read as bytes)."""
    lengths = np.frombuffer(bytes(map(len, groups)), np.uint8)
    ids = np.frombuffer(bytes(chain.from_iterable(groups)), np.uint8)
    at = np.repeat(np.arange(0, len(groups) * size, size), lengths) + ids
    return np.bincount(at, minlength=len(groups) * size).reshape(len(groups), size)


@lru_cache(maxsize=1 << 14)
def _stakes(players: tuple, prizes: tuple[tuple[int, ...], ...]) -> tuple[float, ...]:
    """:func:`hl._stake` of each stage's ``prizes`` (0 for none), cached: it changes only when a
    stage flies."""
    return tuple(hl._stake(*players, p) if p else 0.0 for p in prizes)


@cache
def _supply_table(suit: int) -> np.ndarray:
    """:func:`hl._suit_supply` of ``suit`` for every mask of its cards on the stages, as rows
    (count, mean, variance), made once."""
    size = SUIT_SIZES[suit]
    return np.array([hl._suit_supply.__wrapped__(suit, mask) for mask in range(1 << size)])


_SIDE_1_FIRST = itemgetter(1, 0, 3, 2, 5, 4, 7, 6)  # a compact view's sides, side 1 first
# a card's value and its suit as a one-hot: per side, the sum and the cards by suit
_SUM_AND_SUITS = np.array(
    [
        (value, *(float(s == suit) for s in range(4)))
        for suit, value in zip(CARD_SUIT, CARD_VALUE, strict=True)
    ]
)
# the cards on the stages as a bit mask over each suit's cards (hl._Table's on_stage per suit)
_SUIT_MASKS = np.zeros((NUM_CARDS, 4), np.int64)
for _card, _suit in enumerate(CARD_SUIT):
    _SUIT_MASKS[_card, _suit] = 1 << (_card - CARD_SUIT.index(_suit))


def _chance(diff: np.ndarray, spread: np.ndarray) -> np.ndarray:
    """:func:`hl._chance` elementwise (Python's ``erf``: numpy has none that rounds alike)."""
    z = diff / np.sqrt(2.0 * np.maximum(spread, hl.MIN_SPREAD))
    erfs = np.fromiter(map(erf, z.ravel().tolist()), np.float64, z.size).reshape(z.shape)
    return 0.5 * (1.0 + erfs)


def _luft_plays(
    out: np.ndarray, t: _LuftTables, rows: ActionRows, played: np.ndarray, index: np.ndarray
) -> None:
    """The play rows (``played`` of ``rows``): :func:`hl.play_terms`, :func:`hl.scores_of_terms`
    and the feature columns, over all of them at once."""
    game = index[rows.decision[played]]
    actions = rows.actions[played]
    terms = _Terms(t, game, actions)
    st, at = t.stage, terms.at
    ft.play_columns(
        out,
        actions,
        (terms.sign[at] > 0).astype(np.float32),
        (st[..., t.PRIZES : t.PRIZES + 4][at] * 0.25).astype(np.float32),
        terms.sums[at].astype(np.float32),
        st[..., t.SLOTS][at].astype(np.float32),
        np.stack([terms.stake[at], terms.now[at], terms.after], axis=1),
    )
    scores32 = terms.scores.astype(np.float32)
    starts = np.flatnonzero(np.r_[True, game[1:] != game[:-1]])
    best = np.maximum.reduceat(scores32, starts)
    counts = np.diff(np.r_[starts, len(game)])
    ft.luft_score_columns(out, scores32, np.repeat(counts, counts), np.repeat(best, counts))


class _Terms:
    """:func:`hl.play_terms` and :func:`hl.scores_of_terms` of play ``actions`` (each of game
    ``game`` of ``t``), float64 in their order of operations: per game and stage ``sign``,
    ``sums``, ``stake`` (cut when blocked) and ``now``; per action ``at`` (its game and stage),
    ``after`` and ``scores``."""

    def __init__(self, t: _LuftTables, game: np.ndarray, actions: np.ndarray) -> None:
        st = t.stage
        in_play, sign = st[..., t.IN_PLAY] > 0, st[..., t.SIGN]
        sums, slots = st[..., t.SUMS : t.SUMS + 2], st[..., t.SLOTS]
        ours, theirs = st[..., t.OURS : t.OURS + 4], st[..., t.THEIRS : t.THEIRS + 4]
        # Per stage, in play_terms' order of operations (sums of four terms left to right).
        lean = (ours - theirs) * t.mean[:, None, :]
        width = (ours + theirs) * t.var[:, None, :]
        expected = sums[..., 0] - sums[..., 1]
        expected = expected + (lean[..., 0] + lean[..., 1] + lean[..., 2] + lean[..., 3])
        spread = width[..., 0] + width[..., 1] + width[..., 2] + width[..., 3]
        stake = t.stake * np.where(_blocked(t, in_play, ours + theirs), hl.BLOCKED_FACTOR, 1.0)
        diff = sign * expected
        now = _chance(diff, spread)
        # Per play action, its stage's values gathered.
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
        self.sign, self.sums, self.stake, self.now = sign, sums, stake, now
        self.at, self.after = at, after
        self.scores = stake[at] * (after - now[at]) - _KEEP[card]


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
    missing = st[..., t.OURS : t.THEIRS + 4][at].reshape(-1, 2, 4).astype(np.int64)
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
    powers = map(pow, (1.0 - bad[guess]).tolist(), hidden[guess].tolist())  # Python's **
    p_theirs[guess] = 1.0 - np.fromiter(powers, np.float64, int(guess.sum()))
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
