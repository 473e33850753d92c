"""The Heiße Karten heuristic, the opponent suite's styles and the action-scoring policy's
input: one implementation, compiled kernels over the arrays of
:class:`~hot_envs.batched.heisse_karten.ArrayHeisseKarten`.

A kernel reads a seat's hand (a bit set), the round's played cards and the trick from a game's
record — exactly what the seat's view holds (HK-5) — and computes:

* :class:`ArrayHeuristic`: the heuristic (:mod:`hot_envs.agents.heuristic_karten`, whose
  docstring gives the strategy) deciding many games at once, choosing what its ``act``
  chooses and drawing the same numbers from its generator, decision after decision;
* :class:`ArrayStyle`: each style of the opponent suite (:mod:`hot_envs.agents.styles_karten`)
  the same way;
* :func:`fill_policy_input`: the packed rows of an action-scoring policy
  (:func:`hot_envs.agents.features.policy_input`);
* :func:`card_scores`: the heuristic's score of every hand card of the seat to move.

One decision from a view (the agents' ``act``, ``policy_input``) runs the same kernels on a
one-game record that :func:`view_game` writes from the view alone: the seat's hand, the trick
and the round's played cards, nothing else (the other hands stay empty).

``stays ** later`` is the C library's ``pow`` of two doubles; the float32 feature columns round
each float64 number once, the score columns after each float32 operation.
"""

from __future__ import annotations

import threading
from typing import Any, NamedTuple

import numpy as np

from hot_envs.agents.arrays import (
    HEURISTIC,
    ArrayScoring,
    game_indices,
    policy_input_args,
    record,
)
from hot_envs.agents.features import SPECS
from hot_envs.agents.styles_karten import CardCounter, GreedyTrickTaker, LowCardDumper, TrickAvoider
from hot_envs.batched.heisse_karten import GAME, ArrayHeisseKarten
from hot_envs.batched.jit import kernel
from hot_envs.heisse_karten.facts import CARD_VALUE, CARDS, NUM_CARDS, TRICK_RANK, is_black

SPEC = SPECS["heisse-karten"]
"""The packed layout :func:`fill_policy_input` writes (observation | slots × features | ids)."""

# The heuristic's weights (heuristic_karten's docstring), tuned in heuristic-against-heuristic
# matches (two players) and against random players (three to six).
KEEP = 1.3  # weight of a card's usual value against the value of playing it now
TEMPO = {2: 45.0}  # points a taken trick costs because its taker leads next, by player count
TEMPO_MANY = 20.0  # … with three players or more
LEAD_BLACK_BONUS = 20  # a black lead counts this much lower than its value
TOLERANCE = 1e-9  # scores this close to the best count as equally good ("is best" too)

# The styles' codes in the kernels, as their classes set them (the heuristic's is HEURISTIC).
LOW_DUMPER, TRICK_TAKER = LowCardDumper.code, GreedyTrickTaker.code
TRICK_AVOIDER, CARD_COUNTER = TrickAvoider.code, CardCounter.code

_NUM_RANKS = 2 * NUM_CARDS + 1  # trick ranks: red c → c (1–47), black c → c + 48 (50–96)
_VALUE = np.array(CARD_VALUE, dtype=np.int64)  # by card, 1..48 (HK-1.1)
_RANK = np.array(TRICK_RANK, dtype=np.int64)  # HK-3.2 by card: every black above every red
# The cards in trick-rank order (slot k + 1 holds the k-th lowest, so that prefix sums over
# the slots count the cards below a rank), and by rank r the slot prefix of the cards below r.
_BY_RANK = np.array(sorted(CARDS, key=TRICK_RANK.__getitem__), dtype=np.int64)
_BELOW = np.array(
    [sum(TRICK_RANK[card] < r for card in CARDS) for r in range(_NUM_RANKS + 1)], dtype=np.int64
)
# By card the score of leading it: lead low cards, blacks LEAD_BLACK_BONUS lower.
_LEAD = np.array(
    [0.0] + [-abs(CARD_VALUE[c]) + (LEAD_BLACK_BONUS if is_black(c) else 0) for c in CARDS]
)
_TEMPO = np.array([TEMPO.get(n, TEMPO_MANY) for n in range(7)], dtype=np.float64)
_OBSERVATION = SPEC.observation_size
_SLOTS, _FEATURES = SPEC.slots, SPEC.size
_IDS = _OBSERVATION + _SLOTS * _FEATURES  # where the action ids start in a packed row
_FIRST = np.zeros(1, dtype=np.int64)  # "game 0" of a one-game record
# A decision's scratch, one record made in Python (no kernel compiles an allocation): the
# unseen cards' prefix counts and value sums over the cards in trick-rank order, the numbers
# of each hand card (:func:`_score_hand`) and the float32 scores of the packed rows.
_WORK = np.dtype(
    [
        ("count", np.int64, NUM_CARDS + 1),
        ("total", np.int64, NUM_CARDS + 1),
        ("numbers", np.float64, (NUM_CARDS, 6)),
        ("scores", np.float32, _SLOTS),
    ]
)


def card_scores(games: ArrayHeisseKarten, which: Any) -> np.ndarray:
    """float64 ``(k, 48)``: row ``j`` holds, for game ``which[j]`` and its seat to move, the
    heuristic's score of each hand card in column ``card - 1``, NaN elsewhere (a finished
    game's row is all NaN)."""
    which = game_indices(games, which, ArrayHeisseKarten)
    out = np.full((len(which), NUM_CARDS), np.nan)
    _card_scores(which, games._current, games.players, games.table, record(_WORK), out)
    return out


def fill_policy_input(
    games: ArrayHeisseKarten, which: Any, seats: Any, observations: np.ndarray, out: np.ndarray
) -> None:
    """:func:`hot_envs.agents.arrays.fill_policy_input` on Heiße Karten's array engine: a seat
    not to move has no legal actions (its row the observation and −1 ids)."""
    args = policy_input_args(games, which, seats, observations, out, ArrayHeisseKarten)
    _fill(*args, out, games.table, games._current, games.players, record(_WORK))


class ArrayHeuristic(ArrayScoring):
    """The heuristic (exactly :class:`~hot_envs.agents.heuristic_karten.HeisseKartenHeuristic`)
    deciding many games at once (:class:`~hot_envs.agents.arrays.ArrayScoring`)."""

    heuristic = True

    def candidates(self, games: ArrayHeisseKarten, which: Any) -> tuple[np.ndarray, ...]:
        which = game_indices(games, which, ArrayHeisseKarten)
        if (games._current[which] < 0).any():
            raise ValueError("a game in which is over: nobody is to move")
        game = ViewGame(games.table, games._current, games.players)
        return _candidates_of(which, game, record(_WORK), self.code, self.agent.tolerance)


class ArrayStyle(ArrayHeuristic):
    """A style of :mod:`~hot_envs.agents.styles_karten` deciding many games at once."""

    heuristic = False


class ViewGame(NamedTuple):
    """Games' records with the kernels' per-game arrays, the seat to move and the seat count:
    one game as a seat's view holds it (:func:`view_game`), or an array engine's."""

    table: np.ndarray
    current: np.ndarray
    players: np.ndarray


def view_game(view: dict[str, Any]) -> ViewGame:
    """A one-game record of ``view``'s position: the viewing seat's hand (a bit set), the trick
    and the round's played cards (HK-5); nothing the seat cannot see. Each thread has its own
    record, rewritten at each call (making one anew costs as much as the decision): valid until
    the thread's next call."""
    scratch = _SCRATCH.__dict__
    if "game" not in scratch:
        table = record(GAME)
        words = table.view(np.ndarray).view(np.int64)
        scratch["game"] = ViewGame(table, np.zeros(1, np.int64), np.zeros(1, np.int64))
        scratch["words"], scratch["work"] = words, record(_WORK)
    game, words = scratch["game"], scratch["words"]
    words[: _PLAYED_CARD + NUM_CARDS] = 0  # the hands up to the played cards: what a view fills
    bits = 0
    for card in view["hand"]:
        bits |= 1 << (card - 1)  # HK-1.2
    words[_HANDS + view["player"]] = bits
    trick = view["trick"]
    if trick:
        words[_TRICK_LEN] = len(trick)
        words[_TRICK : _TRICK + len(trick)] = [card for _, card in trick]
    played = view["played"]
    if played:
        words[_PLAYED_LEN] = len(played)
        words[_PLAYED_CARD : _PLAYED_CARD + len(played)] = [card for _, card in played]
    current = view["current_player"]
    game.current[0] = -1 if current is None else current
    game.players[0] = view["num_players"]
    return game


_SCRATCH = threading.local()  # each thread's one-game record and scratch
# Where the fields a view fills lie among a record's int64 words (all before "played_seat").
_HANDS, _TRICK_LEN, _PLAYED_LEN, _TRICK, _PLAYED_CARD = (
    GAME.fields[name][1] // 8
    for name in ("hands", "trick_len", "played_len", "trick", "played_card")
)
assert GAME.fields["played_seat"][1] // 8 == _PLAYED_CARD + NUM_CARDS


def view_top(view: dict[str, Any], code: int, tolerance: float) -> np.ndarray:
    """The best-scored legal actions (ascending) of agent ``code`` (:data:`HEURISTIC` or a
    style's) for the seat to move in ``view``'s position."""
    _, top, counts = _candidates_of(_FIRST, view_game(view), _SCRATCH.work, code, tolerance)
    return top[0, : counts[0, 1]]


def view_policy_input(observation: np.ndarray, view: dict[str, Any]) -> np.ndarray:
    """The packed policy input of ``view``'s seat (``features.policy_input``)."""
    game = view_game(view)
    out = np.empty((1, SPEC.input_size), dtype=np.float32)
    observations = np.asarray(observation, dtype=np.float32).reshape(1, _OBSERVATION)
    seats = np.array([view["player"]], dtype=np.int64)
    _fill(_FIRST, seats, observations, out, *game, _SCRATCH.work)
    return out[0]


def _candidates_of(which, game: ViewGame, work, code: int, tolerance: float) -> tuple:
    """``(legal, top, counts)`` (``ScoringAgent.draw_many``) of agent ``code`` in games
    ``which`` (each with a seat to move)."""
    k = len(which)
    legal = np.empty((k, NUM_CARDS), dtype=np.int64)
    top = np.empty((k, NUM_CARDS), dtype=np.int64)
    counts = np.empty((k, 2), dtype=np.int64)  # legal moves, best-scored moves
    _candidates(which, *game, work, code, float(tolerance), legal, top, counts)
    return legal, top, counts


# -- kernels -------------------------------------------------------------------------------------


@kernel
def _trick_value(base, keeps, later, share, mean, stays, below):
    """Expected points for us, and the chance that we take the trick, for a trick holding
    ``base`` points after our card with ``later`` players still to play. ``keeps``: our card
    beats the trick's cards so far; ``mean``: the unseen cards' mean value; ``stays``: the
    chance that one of them does not beat our card; ``below``: the mean value of those below
    it. Points another player takes count ``-share`` each. ``float(stays) ** float(later)``
    is the C library's pow (numba's power by an int multiplies and may round otherwise)."""
    expected = base + later * mean
    if not keeps:
        return -share * expected, 0.0
    chance = float(stays) ** float(later)
    ours = base + later * below
    theirs = expected - chance * ours
    return chance * ours - share * theirs, chance


@kernel
def _score_hand(r, seat, n, w):
    """The numbers of each card ``k + 1`` of ``seat``'s hand in game ``r`` into
    ``w.numbers[k]``: the heuristic's score, the share of unseen cards beating it, its value
    now, its value usually, the chance to take the trick (those three 0 on a lead), and the
    card counter's expected points for this trick alone (a lead too). The unseen cards are
    those neither in the hand nor played this round (HK-5); ``w.count``/``w.total`` get their
    prefix counts and value sums over the cards in trick-rank order (HK-3.2). Returns the
    trick's points so far and its highest rank."""
    count, total, out = w.count, w.total, w.numbers
    bits = r.hands[seat]
    seen = bits
    for i in range(r.played_len):
        seen |= 1 << (r.played_card[i] - 1)
    count[0] = 0
    total[0] = 0
    for slot in range(1, NUM_CARDS + 1):
        card = _BY_RANK[slot - 1]
        fresh = not seen >> (card - 1) & 1
        count[slot] = count[slot - 1] + fresh
        total[slot] = total[slot - 1] + (_VALUE[card] if fresh else 0)
    unseen = count[NUM_CARDS]
    mean = total[NUM_CARDS] / unseen if unseen else 0.0
    length = r.trick_len
    base = 0
    best = 0
    for i in range(length):
        base += _VALUE[r.trick[i]]
        best = max(best, _RANK[r.trick[i]])
    share = 1.0 / (n - 1)
    later = n - 1 - length
    for k in range(NUM_CARDS):
        if not bits >> k & 1:
            continue
        card = k + 1  # HK-1.2
        rank = _RANK[card]
        value = _VALUE[card]
        beaten = (unseen - count[_BELOW[rank + 1]]) / unseen if unseen else 0.0
        stays = 1.0 - beaten
        below_count = count[_BELOW[rank]]
        below = total[_BELOW[rank]] / below_count if below_count else 0.0
        now, chance = _trick_value(base + value, rank > best, later, share, mean, stays, below)
        out[k, 1] = beaten
        out[k, 5] = now
        if length == 0:
            out[k, 0] = _LEAD[card]
            out[k, 2] = 0.0
            out[k, 3] = 0.0
            out[k, 4] = 0.0
            continue
        usual, _ = _trick_value(value, True, n - 1, share, mean, stays, below)
        out[k, 0] = now - KEEP * usual - _TEMPO[n] * chance
        out[k, 2] = now
        out[k, 3] = usual
        out[k, 4] = chance
    return base, best


@kernel
def _card_scores(which, current, players, table, work, out):
    """``out[j, card - 1]``: the score of each hand card of game ``which[j]``'s seat to move."""
    w = work[0]
    for j in range(which.shape[0]):
        b = which[j]
        seat = current[b]
        if seat < 0:
            continue
        _score_hand(table[b], seat, players[b], w)
        bits = table[b].hands[seat]
        for k in range(NUM_CARDS):
            if bits >> k & 1:
                out[j, k] = w.numbers[k, 0]


@kernel
def _candidates(which, table, current, players, work, code, tolerance, legal, top, counts):
    """``ScoringAgent.draw_many``'s candidates of agent ``code`` per decision: ``legal[j, :c]``
    the ``c`` legal actions ascending (HK-3.1: the hand, as the view lists it), ``top[j, :t]``
    the best-scored of them, ``counts[j]`` = (c, t); a forced move is its own top. The
    heuristic (``code`` :data:`HEURISTIC`) and the card counter keep the scores within
    ``tolerance`` of the best; the other styles choose one card: 0 the lowest; 1 leading the
    highest trick rank, following the lowest rank that beats the trick (HK-3.2), else the
    lowest; 2 leading the lowest rank, following the highest rank under the trick's best,
    else the lowest."""
    w = work[0]
    column = 0 if code == HEURISTIC else 5  # the card counter's expected points
    for j in range(which.shape[0]):
        b = which[j]
        r = table[b]
        seat = current[b]
        bits = r.hands[seat]
        c = 0
        for k in range(NUM_CARDS):
            if bits >> k & 1:
                legal[j, c] = k
                c += 1
        counts[j, 0] = c
        counts[j, 1] = 1
        top[j, 0] = legal[j, 0]  # a forced move, and the low-card dumper's choice
        if c == 1 or code == LOW_DUMPER:
            continue
        if code in (HEURISTIC, CARD_COUNTER):
            _score_hand(r, seat, players[b], w)
            points = w.numbers
            best = points[legal[j, 0], column]
            for i in range(1, c):
                best = max(best, points[legal[j, i], column])
            threshold = best - tolerance
            t = 0
            for i in range(c):
                if points[legal[j, i], column] >= threshold:
                    top[j, t] = legal[j, i]
                    t += 1
            counts[j, 1] = t
            continue
        best_rank = 0
        for i in range(r.trick_len):
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
        if r.trick_len == 0:
            top[j, 0] = high if code == TRICK_TAKER else low
        elif code == TRICK_TAKER:
            top[j, 0] = over if over >= 0 else low
        else:
            top[j, 0] = under if under >= 0 else low


@kernel
def _fill(which, seats, observations, out, table, current, players, work):
    """``features.policy_input`` of each decision into ``out[j]``: the observation, then for
    each hand card of the seat to move (ascending, HK-3.1) its feature row in its slot, then
    the ids (−1 past the legal ones). Each float64 column rounds to float32 once; the score
    columns (the score / 50, its gap to the best / 50 clipped to −4 … 0, "is best", the legal
    actions' share of the slots) compute in float32 after the float32 scores."""
    w = work[0]
    numbers, scores = w.numbers, w.scores
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
        base, best_rank = _score_hand(r, seat, n, w)
        length = r.trick_len
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
        threshold = np.float32(best - np.float32(TOLERANCE))
        for i in range(slot):
            f = _OBSERVATION + i * _FEATURES
            row[f + 17] = np.float32(scores[i] / fifty)
            gap = np.float32(np.float32(scores[i] - best) / fifty)
            row[f + 18] = -4.0 if gap < -4.0 else (0.0 if gap > 0.0 else gap)
            row[f + 19] = 1.0 if scores[i] >= threshold else 0.0


__all__ = [
    "SPEC",
    "ArrayHeuristic",
    "ArrayStyle",
    "ViewGame",
    "card_scores",
    "fill_policy_input",
    "view_game",
    "view_policy_input",
    "view_top",
]
