"""The Heiße Karten heuristic and the action-scoring policy's input, straight from the arrays of
:class:`~hot_envs.batched.heisse_karten.ArrayHeisseKarten`, in compiled kernels.

Today's agents read each game's ``State`` and view dict; here nothing is made per game. A
kernel reads a seat's hand (a bit set), the round's played cards and the trick from the
engine's arrays — exactly what the seat's view holds (HK-5) — and computes
:func:`hot_envs.agents.heuristic_karten.card_scores` and
:func:`hot_envs.agents.features.policy_input` from them:

* :func:`card_scores`: the heuristic's score of every hand card of the seat to move;
* :class:`ArrayHeuristic`: a :class:`~hot_envs.agents.heuristic_karten.HeisseKartenHeuristic`
  deciding many games at once, choosing what its ``act`` chooses and drawing the same numbers
  from its generator, decision after decision;
* :class:`ArrayStyle`: each style of the opponent suite (:mod:`hot_envs.agents.styles_karten`)
  the same way;
* :func:`fill_policy_input`: the packed rows of an action-scoring policy.

The results are the same numbers, not near ones: the agent breaks ties among scores within
``tolerance`` of the best, so any rounding difference could change a move. The float64
arithmetic follows the heuristic's own order of operations; ``stays ** later`` is the C
library's ``pow`` of two doubles, as CPython's float power is (numba's integer power multiplies
and may round differently); the float32 feature columns round where numpy rounds (each float64
column once; the score columns after each float32 operation, as numpy computes them).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hot_envs.agents import features as ft
from hot_envs.agents import heuristic_karten as hk
from hot_envs.agents import styles_karten as sk
from hot_envs.agents.arrays import ArrayStyleBase
from hot_envs.batched.heisse_karten import ArrayHeisseKarten
from hot_envs.batched.jit import kernel
from hot_envs.heisse_karten.facts import CARD_VALUE, NUM_CARDS, TRICK_RANK

SPEC = ft.SPECS["heisse-karten"]
"""The packed layout :func:`fill_policy_input` writes (observation | slots × features | ids)."""

_VALUE = np.array(CARD_VALUE, dtype=np.int64)  # by card, 1..48 (HK-1.1)
_RANK = np.array(TRICK_RANK, dtype=np.int64)  # HK-3.2 by card: every black above every red
_BY_RANK = np.array(hk._BY_RANK, dtype=np.int64)  # the cards, lowest trick rank first
_BELOW = np.array(hk._BELOW, dtype=np.int64)  # by rank: the slots of the cards below it
_LEAD = np.array(hk.LEAD_SCORE, dtype=np.float64)  # by card: the score of leading it
_TEMPO = np.array([hk.TEMPO.get(n, hk.TEMPO_MANY) for n in range(7)], dtype=np.float64)
_KEEP = hk.KEEP
_TOLERANCE = hk.HeisseKartenHeuristic.tolerance  # the features' "is best" (features.py)
_OBSERVATION = SPEC.observation_size
_SLOTS, _FEATURES = SPEC.slots, SPEC.size
_IDS = _OBSERVATION + _SLOTS * _FEATURES  # where the action ids start in a packed row


def card_scores(games: ArrayHeisseKarten, which: Any) -> np.ndarray:
    """float64 ``(k, 48)``: row ``j`` holds, for game ``which[j]`` and its seat to move,
    ``hk.card_scores(view, hand)`` in column ``card - 1`` of each hand card, NaN elsewhere (a
    finished game's row is all NaN)."""
    which = _which(games, which)
    out = np.full((len(which), NUM_CARDS), np.nan)
    _card_scores(which, games._current, *_arrays(games), out)
    return out


def fill_policy_input(
    games: ArrayHeisseKarten, which: Any, seats: Any, observations: np.ndarray, out: np.ndarray
) -> None:
    """``out[j]`` = ``policy_input("heisse-karten", observations[j], view)`` of seat
    ``seats[j]`` in game ``which[j]`` (float32 ``(k, SPEC.input_size)``), bit for bit. The seat
    has legal actions — its hand (HK-3.1) — only where it is the seat to move; otherwise its
    row is the observation and the empty slots' −1 ids."""
    which = _which(games, which)
    seats = np.asarray(seats, dtype=np.int64)
    k = len(which)
    if seats.shape != (k,):
        raise ValueError(f"seats must be {k} ints, not shape {seats.shape}")
    if k and ((seats < 0) | (seats >= games.players[which])).any():
        raise ValueError("seats must lie in 0 .. each game's seat count - 1")
    observations = np.asarray(observations, dtype=np.float32)
    if observations.shape != (k, _OBSERVATION):
        raise ValueError(f"observations must be ({k}, {_OBSERVATION}), not {observations.shape}")
    if out.shape != (k, SPEC.input_size) or out.dtype != np.float32:
        raise ValueError(f"out must be float32 ({k}, {SPEC.input_size})")
    _fill(which, seats, observations, out, games._current, *_arrays(games), _TOLERANCE)


class ArrayHeuristic:
    """A :class:`~hot_envs.agents.heuristic_karten.HeisseKartenHeuristic` (exactly that class:
    a subclass may decide otherwise) deciding for the seat to move in many games at once, from
    the engine's arrays. :meth:`act_arrays` plays what ``agent.act`` plays decision by decision
    in the order given, drawing the same numbers from ``agent.rng``."""

    def __init__(self, agent: Any) -> None:
        if type(agent) is not hk.HeisseKartenHeuristic:
            raise TypeError(f"{agent!r} is not a plain HeisseKartenHeuristic")
        self.agent = agent

    def act_arrays(self, games: ArrayHeisseKarten, which: Any) -> np.ndarray:
        """The action of the seat to move in each game ``which[j]`` (int64 ``(k,)``), as
        ``ScoringAgent.act``: a forced move draws nothing; with ``epsilon`` each choice draws
        ``rng.random()`` and, below ``epsilon``, a uniform legal move; else the best score,
        ties within ``tolerance`` drawn. Scores and ties come from the kernels; Python loops
        only over the decisions that draw."""
        return self.agent.draw_many(*self.candidates(games, which))

    def candidates(self, games: ArrayHeisseKarten, which: Any) -> tuple[np.ndarray, ...]:
        """``(legal, top, counts)`` of ``ScoringAgent.draw_many``: per decision the legal
        actions and the best-scored ones; they depend on the agent's class and tolerance only,
        not on its generator (:func:`hot_envs.agents.arrays.act_rows`)."""
        which, legal, top, counts = _scratch(games, which)
        tolerance = self.agent.tolerance
        _best(which, games._current, *_arrays(games), tolerance, legal, top, counts)
        return legal, top, counts

    def __repr__(self) -> str:
        return f"ArrayHeuristic({self.agent!r})"


# The styles' codes in :func:`_style_best`, by class (exactly: a subclass may decide otherwise).
STYLE_CODES = {
    sk.LowCardDumper: 0,
    sk.GreedyTrickTaker: 1,
    sk.TrickAvoider: 2,
    sk.CardCounter: 3,
}


class ArrayStyle(ArrayStyleBase):
    """A style of :mod:`~hot_envs.agents.styles_karten` deciding for the seat to move in many
    games at once, from the engine's arrays: what its ``act`` plays, decision by decision in
    the order given, drawing the same numbers from ``agent.rng`` (the card counter's ties,
    ``epsilon``'s draws)."""

    codes = STYLE_CODES

    def candidates(self, games: ArrayHeisseKarten, which: Any) -> tuple[np.ndarray, ...]:
        """As :meth:`ArrayHeuristic.candidates`: one choice for the styles that never draw,
        the card counter's best-scored cards for it."""
        which, legal, top, counts = _scratch(games, which)
        tolerance = self.agent.tolerance
        _style_best(
            which, games._current, *_arrays(games), self.code, tolerance, legal, top, counts
        )
        return legal, top, counts


def _scratch(games: ArrayHeisseKarten, which: Any) -> tuple[np.ndarray, ...]:
    """``which`` checked (every game in progress) and empty ``legal``, ``top``, ``counts``."""
    which = _which(games, which)
    if (games._current[which] < 0).any():
        raise ValueError("a game in which is over: nobody is to move")
    k = len(which)
    legal = np.empty((k, NUM_CARDS), dtype=np.int64)
    top = np.empty((k, NUM_CARDS), dtype=np.int64)
    counts = np.empty((k, 2), dtype=np.int64)  # legal moves, best-scored moves
    return which, legal, top, counts


def _which(games: ArrayHeisseKarten, which: Any) -> np.ndarray:
    which = np.asarray(which)
    if which.ndim != 1 or (which.size and which.dtype.kind not in "iu"):
        raise ValueError(f"which must be a 1-d int array of game indices, not {which!r}"[:200])
    which = which.astype(np.int64, copy=False)
    if which.size and ((which < 0) | (which >= games.num_games)).any():
        raise ValueError(f"game indices must lie in 0 .. {games.num_games - 1}")
    return which


def _arrays(games: ArrayHeisseKarten) -> tuple:
    """The seat counts and the games' records, of which the scores read what a seat's view
    holds (HK-5): the hands (a kernel reads only the deciding seat's), the trick, the round's
    played cards."""
    return games.players, games.table


# -- kernels -------------------------------------------------------------------------------------


@kernel
def _trick_value(base, keeps, later, share, mean, stays, below):
    """``hk.trick_value`` operation for operation: the expected points for us and the chance
    that we take the trick. ``float(stays) ** float(later)`` is the C library's pow, as
    Python's ``stays**later`` (numba's power by an int multiplies; numpy's may round
    otherwise)."""
    expected = base + later * mean
    if not keeps:
        return -share * expected, 0.0
    chance = float(stays) ** float(later)
    ours = base + later * below
    theirs = expected - chance * ours
    return chance * ours - share * theirs, chance


@kernel
def _hand_cards(bits, out):
    """The cards of the hand ``bits`` as action ids ascending into ``out`` (HK-3.1: the legal
    actions, as the view lists them); their count."""
    c = 0
    for k in range(NUM_CARDS):
        if bits >> k & 1:
            out[c] = k
            c += 1
    return c


@kernel
def _unseen(r, bits, count, total):
    """``hk.Unseen`` in game ``r`` (its record) for the hand ``bits``: ``count``/``total`` (49
    each) its prefix counts and value sums over the cards in trick-rank order (HK-3.2), the
    unseen cards being those neither in the hand nor played this round (HK-5); returns their
    mean value."""
    seen = bits
    for i in range(r.played_len):
        seen |= 1 << (r.played_card[i] - 1)
    count[0] = 0
    total[0] = 0
    for slot in range(1, NUM_CARDS + 1):
        card = _BY_RANK[slot - 1]
        if seen >> (card - 1) & 1:
            count[slot] = count[slot - 1]
            total[slot] = total[slot - 1]
        else:
            count[slot] = count[slot - 1] + 1
            total[slot] = total[slot - 1] + _VALUE[card]
    unseen = count[NUM_CARDS]
    return total[NUM_CARDS] / unseen if unseen else 0.0


@kernel
def _trick_so_far(r, length):
    """The points of game ``r``'s trick so far and its highest trick rank (HK-3.2)."""
    base = 0
    best = 0
    for i in range(length):
        base += _VALUE[r.trick[i]]
        best = max(best, _RANK[r.trick[i]])
    return base, best


@kernel
def _score_hand(r, seat, n, count, total, out):
    """The heuristic's numbers for each card ``k + 1`` of ``seat``'s hand in game ``r``:
    ``out[k]`` = (score, the share of unseen cards beating it, value now, value usually,
    chance to take the trick; the terms 0 on a lead). ``count``/``total`` (49 each) are
    scratch: ``hk.Unseen``'s prefix counts and value sums over the cards in trick-rank order
    (HK-3.2), the unseen cards being those neither in the hand nor played this round (HK-5)."""
    bits = r.hands[seat]
    mean = _unseen(r, bits, count, total)
    unseen = count[NUM_CARDS]
    length = r.trick_len
    base, best = _trick_so_far(r, length)
    share = 1.0 / (n - 1)
    later = n - 1 - length
    tempo = _TEMPO[n]
    for k in range(NUM_CARDS):
        if not bits >> k & 1:
            continue
        card = k + 1  # HK-1.2
        rank = _RANK[card]
        value = _VALUE[card]
        beaten = (unseen - count[_BELOW[rank + 1]]) / unseen if unseen else 0.0
        out[k, 1] = beaten
        if length == 0:
            out[k, 0] = _LEAD[card]
            out[k, 2] = 0.0
            out[k, 3] = 0.0
            out[k, 4] = 0.0
            continue
        stays = 1.0 - beaten
        below_count = count[_BELOW[rank]]
        below = total[_BELOW[rank]] / below_count if below_count else 0.0
        now, chance = _trick_value(base + value, rank > best, later, share, mean, stays, below)
        usual, _ = _trick_value(value, True, n - 1, share, mean, stays, below)
        out[k, 0] = now - _KEEP * usual - tempo * chance
        out[k, 2] = now
        out[k, 3] = usual
        out[k, 4] = chance


@kernel
def _card_scores(which, current, players, table, out):
    """``out[j, card - 1]``: the score of each hand card of game ``which[j]``'s seat to move."""
    count = np.zeros(NUM_CARDS + 1, dtype=np.int64)
    total = np.zeros(NUM_CARDS + 1, dtype=np.int64)
    numbers = np.zeros((NUM_CARDS, 5))
    for j in range(which.shape[0]):
        b = which[j]
        seat = current[b]
        if seat < 0:
            continue
        _score_hand(table[b], seat, players[b], count, total, numbers)
        bits = table[b].hands[seat]
        for k in range(NUM_CARDS):
            if bits >> k & 1:
                out[j, k] = numbers[k, 0]


@kernel
def _best(which, current, players, table, tolerance, legal, top, counts):
    """``ScoringAgent.best`` but its draw, per decision: ``legal[j, :c]`` the ``c`` legal
    actions ascending (HK-3.1, as the view lists them), ``top[j, :t]`` those scoring at least
    the best score less ``tolerance``, ``counts[j]`` = (c, t). A forced move is its own top."""
    count = np.zeros(NUM_CARDS + 1, dtype=np.int64)
    total = np.zeros(NUM_CARDS + 1, dtype=np.int64)
    numbers = np.zeros((NUM_CARDS, 5))
    for j in range(which.shape[0]):
        b = which[j]
        seat = current[b]
        c = _hand_cards(table[b].hands[seat], legal[j])
        counts[j, 0] = c
        if c == 1:
            top[j, 0] = legal[j, 0]
            counts[j, 1] = 1
            continue
        _score_hand(table[b], seat, players[b], count, total, numbers)
        best = numbers[legal[j, 0], 0]
        for i in range(1, c):
            best = max(best, numbers[legal[j, i], 0])
        threshold = best - tolerance
        t = 0
        for i in range(c):
            if numbers[legal[j, i], 0] >= threshold:
                top[j, t] = legal[j, i]
                t += 1
        counts[j, 1] = t


@kernel
def _expected_points(r, seat, n, count, total, out):
    """``sk.expected_points`` of each card ``k + 1`` of ``seat``'s hand in game ``r`` into
    ``out[k]``: its points for this trick alone, the later players' cards drawn from the unseen
    ones (HK-5: neither in the hand nor played this round), a lead too. ``count``/``total``:
    scratch, as in :func:`_score_hand`."""
    bits = r.hands[seat]
    mean = _unseen(r, bits, count, total)
    unseen = count[NUM_CARDS]
    length = r.trick_len
    base, best = _trick_so_far(r, length)
    share = 1.0 / (n - 1)
    later = n - 1 - length
    for k in range(NUM_CARDS):
        if not bits >> k & 1:
            continue
        card = k + 1  # HK-1.2
        rank = _RANK[card]
        beaten = (unseen - count[_BELOW[rank + 1]]) / unseen if unseen else 0.0
        below_count = count[_BELOW[rank]]
        below = total[_BELOW[rank]] / below_count if below_count else 0.0
        out[k], _ = _trick_value(
            base + _VALUE[card], rank > best, later, share, mean, 1.0 - beaten, below
        )


@kernel
def _style_best(which, current, players, table, style, tolerance, legal, top, counts):
    """:func:`_best` for style ``style`` (:data:`STYLE_CODES`): 0 the lowest card; 1 leading the
    highest trick rank, following the lowest rank that beats the trick (HK-3.2), else the
    lowest; 2 leading the lowest rank, following the highest rank under the trick's best, else
    the lowest; 3 the card counter's best-scored cards (ties within ``tolerance``)."""
    count = np.zeros(NUM_CARDS + 1, dtype=np.int64)
    total = np.zeros(NUM_CARDS + 1, dtype=np.int64)
    points = np.zeros(NUM_CARDS)
    for j in range(which.shape[0]):
        b = which[j]
        r = table[b]
        seat = current[b]
        c = _hand_cards(r.hands[seat], legal[j])
        counts[j, 0] = c
        counts[j, 1] = 1
        top[j, 0] = legal[j, 0]  # a forced move, and the low-card dumper's choice
        if c == 1 or style == 0:
            continue
        if style == 3:
            _expected_points(r, seat, players[b], count, total, points)
            best = points[legal[j, 0]]
            for i in range(1, c):
                best = max(best, points[legal[j, i]])
            t = 0
            for i in range(c):
                if points[legal[j, i]] >= best - tolerance:
                    top[j, t] = legal[j, i]
                    t += 1
            counts[j, 1] = t
            continue
        length = r.trick_len
        best_rank = 0
        for i in range(length):
            best_rank = max(best_rank, _RANK[r.trick[i]])
        low = high = under = over = -1  # lowest and highest rank; highest under, lowest over
        for i in range(c):
            action = legal[j, i]
            rank = _RANK[action + 1]
            if low < 0 or rank < _RANK[low + 1]:
                low = action
            if high < 0 or rank > _RANK[high + 1]:
                high = action
            if rank < best_rank and (under < 0 or rank > _RANK[under + 1]):
                under = action
            if rank > best_rank and (over < 0 or rank < _RANK[over + 1]):
                over = action
        if style == 1:
            choice = high if length == 0 else (over if over >= 0 else low)
        else:
            choice = low if length == 0 else (under if under >= 0 else low)
        top[j, 0] = choice


@kernel
def _fill(which, seats, observations, out, current, players, table, tolerance):
    """``features.policy_input`` of each decision into ``out[j]``: the observation, then for
    each hand card of the seat to move (ascending, HK-3.1) ``karten_features``' row in its
    slot, then the ids (−1 past the legal ones). Each float64 column rounds to float32 once,
    as numpy's assignment does; the score columns compute in float32 after the float32
    scores, as ``karten_score_columns`` does."""
    count = np.zeros(NUM_CARDS + 1, dtype=np.int64)
    total = np.zeros(NUM_CARDS + 1, dtype=np.int64)
    numbers = np.zeros((NUM_CARDS, 5))
    scores = np.zeros(_SLOTS, dtype=np.float32)
    fifty = np.float32(50.0)
    for j in range(which.shape[0]):
        b = which[j]
        seat = seats[j]
        row = out[j]
        row[:] = 0.0
        row[:_OBSERVATION] = observations[j]
        row[_IDS:] = -1.0
        if seat != current[b]:
            continue
        n = players[b]
        r = table[b]
        _score_hand(r, seat, n, count, total, numbers)
        length = r.trick_len
        base = 0
        best_rank = 0
        for i in range(length):
            base += _VALUE[r.trick[i]]
            best_rank = max(best_rank, _RANK[r.trick[i]])
        bits = r.hands[seat]
        legal = 0
        for k in range(NUM_CARDS):
            legal += bits >> k & 1
        slot = 0
        for k in range(NUM_CARDS):
            if not bits >> k & 1:
                continue
            card = k + 1  # HK-1.2
            value = _VALUE[card]
            rank = _RANK[card]
            f = _OBSERVATION + slot * _FEATURES
            row[f + 0] = 1.0 if length == 0 else 0.0
            row[f + 1] = 1.0 if value > 0 else 0.0
            row[f + 2] = value / NUM_CARDS
            row[f + 3] = abs(value) / NUM_CARDS
            row[f + 4] = rank / 96
            row[f + 5] = 1.0 if rank > best_rank else 0.0
            row[f + 6] = base / 100
            row[f + 7] = (n - 1 - length) / 5
            row[f + n + 6] = 1.0  # 8–12: 2–6 players
            row[f + 13] = numbers[k, 1]
            row[f + 14] = numbers[k, 2] / 50
            row[f + 15] = numbers[k, 3] / 50
            row[f + 16] = numbers[k, 4]
            row[f + 20] = legal / _SLOTS
            scores[slot] = np.float32(numbers[k, 0])
            row[_IDS + slot] = k
            slot += 1
        best = scores[0]
        for i in range(1, slot):
            best = max(best, scores[i])
        threshold = np.float32(best - np.float32(tolerance))
        for i in range(slot):
            f = _OBSERVATION + i * _FEATURES
            row[f + 17] = np.float32(scores[i] / fifty)
            gap = np.float32(np.float32(scores[i] - best) / fifty)
            row[f + 18] = -4.0 if gap < -4.0 else (0.0 if gap > 0.0 else gap)
            row[f + 19] = 1.0 if scores[i] >= threshold else 0.0


__all__ = ["SPEC", "ArrayHeuristic", "ArrayStyle", "card_scores", "fill_policy_input"]
