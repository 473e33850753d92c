"""The Heiße Luft heuristic, the opponent suite's styles and the action-scoring policy's input:
one implementation, compiled kernels over the arrays of
:class:`~hot_envs.batched.heisse_luft.ArrayHeisseLuft`.

A kernel reads what the seat to move may know (HL-8) from a game's record — its hand, the
stages' sides, prizes and terrain, the discard pile, the opponent's shown cards and hand size,
the prize cards and trophies — and computes:

* :class:`ArrayHeuristic`: the heuristic (:mod:`hot_envs.agents.heuristic_luft`, whose
  docstring gives the strategy) deciding many games at once, choosing what its ``act``
  chooses and drawing the same numbers from its generator, decision after decision;
* :class:`ArrayStyle`: each style of the opponent suite (:mod:`hot_envs.agents.styles_luft`)
  the same way;
* :func:`fill_policy_input`: the packed rows of an action-scoring policy
  (:func:`~hot_envs.agents.features.policy_input`);
* :func:`play_scores`: the heuristic's score of every legal placement (HL-3.1).

One decision from a view (the agents' ``act``, ``policy_input``) runs the same kernels on a
one-game record that :func:`view_game` writes from the view alone (the hidden cards — the
opponent's unshown hand, the piles — stay empty).

The agents break ties among scores within ``tolerance`` of the best, so the arithmetic is kept
fixed: sums of four terms left to right, ``erf`` and ``**`` the C library's (an integer power
taken as a float one), the float32 feature columns rounded where the layout says (each float64
number once; the difference ``after − now`` and the score columns after each float32
operation). The rare exchange (HL-3.4) and trophy (HL-6) decisions are decided in the kernels
too.
"""

from __future__ import annotations

import functools
import math
import threading
from typing import Any

import numpy as np

from hot_envs.agents.arrays import (
    HEURISTIC,
    ArrayScoring,
    game_indices,
    policy_input_args,
    record,
)
from hot_envs.agents.features import SPECS
from hot_envs.agents.styles_luft import (
    BeginnerAdvice,
    GreedyStageFinisher,
    HighCardHoarder,
    TrophyRusher,
)
from hot_envs.batched.heisse_luft import GAME as RECORD
from hot_envs.batched.heisse_luft import MAX_SIDE, ArrayHeisseLuft
from hot_envs.batched.jit import kernel
from hot_envs.heisse_luft.facts import (
    CARD_INDEX,
    CARD_SUIT,
    CARD_VALUE,
    CLAIM_TROPHY,
    EXCHANGE,
    EXCHANGE_DONE,
    EXCHANGE_PICK,
    LOWLAND,
    MAX_EXCHANGE,
    MOUNTAIN,
    NUM_ACTIONS,
    NUM_CARDS,
    NUM_STAGES,
    PHASES,
    PLAY,
    STOP_CLAIMING,
    SUIT_SIZES,
    SUITS,
    THREE_FOR_ONE,
    TROPHIES_TO_WIN,
    TROPHY_PRICE,
)

GAME = "heisse-luft"
SPEC = SPECS[GAME]
"""The packed layout :func:`fill_policy_input` writes (observation | slots × features | ids)."""

# The heuristic's weights (heuristic_luft's docstring), tuned in heuristic-against-heuristic
# matches.
SHARE_POWER = 1.5  # trophy progress: (share of the price held) ** SHARE_POWER
PRIZE_WEIGHT = 0.01  # every prize card held (the HL-7.2 tie-break)
BLOCKED_FACTOR = 1 / 6  # stake left to a stage that cannot be completed now
KEEP_COST = 0.03  # cost of spending an Ace or a King (less for less extreme cards)
MIN_SPREAD = 0.5  # variance floor while slots are open
MIDDLE = 7  # the middle card value
KEEP_IN_EXCHANGE = 5  # cards this far from the middle (A, 2, Q, K) are kept when stuck
TOLERANCE = 1e-12  # the heuristic's: scores this close to the best count as equally good
# The styles' numbers (styles_luft's docstring).
MAX_VALUE = 13
HIGH = 11  # J, Q, K: the cards the hoarder keeps

# The styles' codes in the kernels, as their classes set them (the heuristic's is HEURISTIC).
BEGINNER, STAGE_FINISHER = BeginnerAdvice.code, GreedyStageFinisher.code
TROPHY_RUSHER, HIGH_HOARDER = TrophyRusher.code, HighCardHoarder.code

_OBSERVATION = SPEC.observation_size
_SLOTS, _FEATURES = SPEC.slots, SPEC.size  # 64 placements at most: 8 cards × 4 stages × 2 sides
_IDS = _OBSERVATION + _SLOTS * _FEATURES  # where the action ids start in a packed row
_KIND_PLAY, _KIND_PICK, _KIND_DONE, _KIND_CLAIM, _KIND_STOP = range(5)  # feature columns 0-4

_SUIT = np.array(CARD_SUIT, dtype=np.int64)  # HL-1.1 by card
_VALUE = np.array(CARD_VALUE, dtype=np.int64)
_SUIT_START = np.array([CARD_SUIT.index(s) for s in range(4)], dtype=np.int64)
_SUIT_SIZE = np.array(SUIT_SIZES, dtype=np.int64)
_PRICE = np.array(TROPHY_PRICE, dtype=np.int64)  # HL-1.4
# keep(card): KEEP_COST for an Ace or a King, less nearer the middle.
_KEEP_COSTS = tuple(KEEP_COST * ((v - MIDDLE) / (MIDDLE - 1)) ** 2 for v in CARD_VALUE)
_KEEP = np.array(_KEEP_COSTS, dtype=np.float64)
_DISTANCE = np.abs(_VALUE - MIDDLE)  # a card's distance from the middle value


# The float32 feature columns of a placement, by card or by sum.
_VALUE_13 = (np.asarray(CARD_VALUE, dtype=np.float32) / 13).astype(np.float32)  # column 10
_SUM_52 = (np.arange(64, dtype=np.float32) / 52).astype(np.float32)  # columns 21-24, by sum
_KEEP_32 = np.asarray(_KEEP_COSTS, dtype=np.float32) / KEEP_COST  # column 35, by card
_TOLERANCE_32 = np.float32(TOLERANCE)  # "is best": best − tolerance in float32
# An exchange's and a trophy decision's columns: float64 numbers rounded once.
_VALUE_13_64 = np.array([v / 13 for v in CARD_VALUE], dtype=np.float32)  # column 10
_KEEP_64 = np.array([k / KEEP_COST for k in _KEEP_COSTS], dtype=np.float32)  # column 35
_PICKED_4 = np.array([k / 4 for k in range(MAX_EXCHANGE + 1)], dtype=np.float32)  # column 36
_THROW_RANK = np.array([1.0 - k / 4 for k in range(MAX_EXCHANGE)], dtype=np.float32)  # 37
_PRICE_7 = np.array([p / 7 for p in TROPHY_PRICE], dtype=np.float32)  # column 38


# A decision's scratch, one record made in Python (no kernel compiles an allocation): per stage
# from our side (side 0 ours) its sign (+1 mountain, −1 lowland, 0 out of play), open slots,
# sums, missing slots by side and suit, and terms (expected difference, spread, stake, P now);
# per suit the mean and variance of its cards on no stage, and their count; the exchange's
# throw; the legal actions, their numbers (stake, P now, P after, score) and float32 scores.
_WORK = np.dtype(
    [
        ("sign", np.int64, NUM_STAGES),
        ("slots", np.int64, NUM_STAGES),
        ("sums", np.int64, (NUM_STAGES, 2)),
        ("missing", np.int64, (NUM_STAGES, 2, 4)),
        ("terms", np.float64, (NUM_STAGES, 4)),
        ("supply", np.float64, (2, 4)),
        ("count", np.int64, 4),
        ("throw", np.int64, NUM_CARDS),
        ("actions", np.int64, _SLOTS),
        ("numbers", np.float64, (_SLOTS, 4)),
        ("scores", np.float32, _SLOTS),
    ]
)


# -- the calls -------------------------------------------------------------------------------------


def play_scores(games: ArrayHeisseLuft, which: Any) -> np.ndarray:
    """float64 ``(k, 366)``: row ``j`` holds, for game ``which[j]`` where its seat to move is
    placing a card (HL-3.1), the heuristic's score of each legal play action in its column,
    NaN elsewhere (rows of games in another phase or over are all NaN)."""
    which = game_indices(games, which, ArrayHeisseLuft)
    out = np.full((len(which), NUM_ACTIONS), np.nan)
    _play_scores(which, games.table, bool(games.options["three_for_one"]), record(_WORK), out)
    return out


def fill_policy_input(
    games: ArrayHeisseLuft, which: Any, seats: Any, observations: Any, out: np.ndarray
) -> None:
    """:func:`hot_envs.agents.arrays.fill_policy_input` on Heiße Luft's array engine: a seat
    not to move has no legal actions (its row the observation and −1 ids)."""
    args = policy_input_args(games, which, seats, observations, out, ArrayHeisseLuft)
    three_for_one = bool(games.options["three_for_one"])
    _fill(*args, out, games.table, three_for_one, record(_WORK))


class ArrayHeuristic(ArrayScoring):
    """The heuristic (exactly :class:`~hot_envs.agents.heuristic_luft.HeisseLuftHeuristic`)
    deciding many games at once (:class:`~hot_envs.agents.arrays.ArrayScoring`)."""

    heuristic = True

    def candidates(self, games: ArrayHeisseLuft, which: Any) -> tuple[np.ndarray, ...]:
        which = game_indices(games, which, ArrayHeisseLuft)
        three_for_one = bool(games.options["three_for_one"])
        tolerance, work = self.agent.tolerance, record(_WORK)
        return _candidates_of(which, games.table, three_for_one, self.code, tolerance, work)


class ArrayStyle(ArrayHeuristic):
    """A style of :mod:`~hot_envs.agents.styles_luft` deciding many games at once."""

    heuristic = False


def view_game(view: dict[str, Any]) -> tuple[np.ndarray, bool]:
    """A one-game record of ``view``'s position (a one-row table of the engine's kind) and
    whether three cards of an awarded suit count as one (HL-6.2): the viewing seat's hand,
    the opponent's hand size and shown cards, the stages, the discard pile, the prize cards,
    the trophies and the exchange's picks — nothing the seat cannot see (HL-8). Each thread
    has its own table, rewritten at each call (valid until the thread's next call); only the
    words the view fills are written, each stage's from a cache."""
    scratch = _SCRATCH.__dict__
    if "table" not in scratch:
        scratch["table"], scratch["work"] = record(RECORD), record(_WORK)
        scratch["words"] = scratch["table"].view(np.ndarray).view(np.int64)
    words = scratch["words"]
    words[:] = 0
    me = view["player"]
    current = view["current_player"]
    head = [-1 if current is None else current, PHASES.index(view["phase"]), 0, 0, 0, 0, 0, 0]
    head[2 + me] = _bits(view["hand"])  # hands
    head[4 + me] = len(view["hand"])  # hand_size
    head[5 - me] = view["opponent_hand_size"]
    head[7 - me] = _bits(view["known_opponent_cards"])  # revealed
    words[:8] = head
    discard = view["discard_pile"]
    if discard:
        words[_AT["discard_size"]] = len(discard)
        words[_AT["discard"] : _AT["discard"] + len(discard)] = [CARD_INDEX[c] for c in discard]
    selection = view["exchange_selection"]
    if selection:
        words[_AT["selection_size"]] = len(selection)
        at = _AT["selection"]
        words[at : at + len(selection)] = [CARD_INDEX[code] for code in selection]
    won, trophies = view["prizes_won"], view["trophies"]
    players = [won[p][letter] for p in (0, 1) for letter in SUITS]  # won
    players += _NO_TROPHIES  # paid (not read), trophies, trophy_count, owner
    for p in (0, 1):
        players[_TROPHY_COUNT + p] = len(trophies[p])
        for k, letter in enumerate(trophies[p]):
            suit = SUITS.index(letter)
            players[_TROPHIES + 4 * p + k] = suit
            players[_OWNER + suit] = p
    words[_AT["won"] : _AT["won"] + len(players)] = players
    first, second, third, fourth = [
        _stage_words(
            s,
            stage["in_play"],
            stage["terrain"],
            tuple(stage["prizes"]),
            *map(tuple, stage["sides"]),
        )
        for s, stage in enumerate(view["stages"])
    ]
    block = words[_STAGES : _STAGES + len(first)]
    np.add(first, second, out=block)
    block += third
    block += fourth
    return scratch["table"], bool(view["options"]["three_for_one"])


_AT = {name: RECORD.fields[name][1] // 8 for name in RECORD.names}  # int64 offsets
_SCRATCH = threading.local()  # each thread's one-game table and scratch, rewritten each time
assert [_AT[name] for name in ("current", "phase", "hands", "hand_size", "revealed")] == [
    0, 1, 2, 4, 6
]  # fmt: skip
# The players' words from "won" on: won, paid, trophies (in the order claimed), trophy_count,
# owner (−1: free), as offsets from "won".
_TROPHIES, _TROPHY_COUNT, _OWNER = (
    _AT[n] - _AT["won"] for n in ("trophies", "trophy_count", "owner")
)
_NO_TROPHIES = [0] * (_OWNER - 8) + [-1] * 4
# The stages' words: in_play, terrain, prizes, need, sides, side_size, have, sums, one block.
_STAGE_FIELDS = ("in_play", "terrain", "prizes", "need", "sides", "side_size", "have", "sums")
_STAGES = _AT["in_play"]
_STAGE_BLOCK = _AT["last"] - _STAGES
_IN_PLAY, _TERRAIN, _PRIZES, _NEED, _SIDES, _SIDE_SIZE, _HAVE, _SUMS = (
    _AT[name] - _STAGES for name in _STAGE_FIELDS
)
assert RECORD.names[RECORD.names.index("in_play") : RECORD.names.index("sums") + 1] == _STAGE_FIELDS


def _bits(codes: list[str]) -> int:
    """The cards ``codes`` as a bit set of card indices."""
    bits = 0
    for code in codes:
        bits |= 1 << CARD_INDEX[code]
    return bits


@functools.lru_cache(maxsize=1 << 14)
def _stage_words(
    s: int,
    in_play: bool,
    terrain: str,
    prizes: tuple[str, ...],
    first: tuple[str, ...],
    second: tuple[str, ...],
) -> np.ndarray:
    """Stage ``s``'s words of the record's stage block (the other stages' words 0): in play,
    terrain, prizes, the suits it needs, each seat's cards, their count, suits and sum.
    Cached: the positions of a game, and a search's, share most stages."""
    words = [0] * _STAGE_BLOCK  # one list made an array at the end: quicker
    suits = [SUITS.index(letter) for letter in prizes]
    words[_IN_PLAY + s] = int(in_play)
    words[_TERRAIN + s] = MOUNTAIN if terrain == "mountain" else LOWLAND
    at = _PRIZES + MAX_SIDE * s
    words[at : at + len(suits)] = suits
    for suit in suits:
        words[_NEED + 4 * s + suit] += 1
    for seat, codes in enumerate((first, second)):
        side = 2 * s + seat
        at = _SIDES + MAX_SIDE * side
        total = 0
        for k, code in enumerate(codes):
            card = CARD_INDEX[code]
            words[at + k] = card
            words[_HAVE + 4 * side + CARD_SUIT[card]] += 1
            total += CARD_VALUE[card]
        words[_SIDE_SIZE + side] = len(codes)
        words[_SUMS + side] = total
    array = np.array(words, dtype=np.int64)
    array.flags.writeable = False
    return array


_FIRST = np.zeros(1, dtype=np.int64)  # "game 0" of a one-game record


def view_top(view: dict[str, Any], code: int, tolerance: float) -> np.ndarray:
    """The best-scored legal actions (ascending) of agent ``code`` (:data:`HEURISTIC` or a
    style's) for the seat to move in ``view``'s position."""
    table, three_for_one = view_game(view)
    work = _SCRATCH.work
    if code != HEURISTIC or view["current_player"] is None:
        _, top, counts = _candidates_of(_FIRST, table, three_for_one, code, tolerance, work)
        return top[0, : counts[0, 1]]
    n = _view_decision(view)(table, 0, three_for_one, work)
    top = np.empty(n, dtype=np.int64)
    return top[: _top(n, work, float(tolerance), top)]


def view_policy_input(observation: np.ndarray, view: dict[str, Any]) -> np.ndarray:
    """The packed policy input of ``view``'s seat (``features.policy_input``)."""
    table, three_for_one = view_game(view)
    out = np.zeros(SPEC.input_size, dtype=np.float32)
    out[:_OBSERVATION] = observation
    out[_IDS:] = -1.0
    if view["current_player"] == view["player"]:
        work = _SCRATCH.work
        _rows(out, table, 0, _view_decision(view)(table, 0, three_for_one, work), work)
    return out


def _view_decision(view: dict[str, Any]) -> Any:
    """The kernel of the view's decision, a placement or another, called from Python: a first
    decision compiles only its kind, and numba optimises a kernel's callees again with it (a
    level less is a first decision faster)."""
    return _placements if view["phase"] == PHASES[PLAY] else _other_decision


def _candidates_of(which, table, three_for_one, code, tolerance, work) -> tuple[np.ndarray, ...]:
    """``(legal, top, counts)`` (``ScoringAgent.draw_many``) of agent ``code`` in games
    ``which``; a game that is over is a ``ValueError``. The heuristic and the styles have a
    kernel each: a heuristic's first decision compiles only its own."""
    k = len(which)
    legal = np.empty((k, _SLOTS), dtype=np.int64)
    top = np.empty((k, _SLOTS), dtype=np.int64)
    counts = np.empty((k, 2), dtype=np.int64)  # legal moves, best-scored moves
    tolerance = float(tolerance)
    if code == HEURISTIC:
        over = _best(which, table, three_for_one, tolerance, work, legal, top, counts)
    else:
        over = _style_best(which, table, three_for_one, code, tolerance, work, legal, top, counts)
    if over >= 0:
        raise ValueError(f"game {which[over]} is over: nobody is to move")
    return legal, top, counts


# -- kernels: the heuristic -----------------------------------------------------------------------


@kernel
def _potential(h0, h1, h2, h3, trophies, awarded, three_for_one):
    """A player's trophy progress (2.0: two trophies, the game won) from prize cards
    ``h0..h3`` by suit (outside trophies), ``trophies`` held and the ``awarded`` suits as a bit
    set (heuristic_luft's docstring): HL-6.2 three cards of an awarded suit count as one (a
    suit's share of its price, at most 1, to the power SHARE_POWER: the C library's pow);
    HL-7.1 two trophies (or enough ready to claim) win. Only the two largest shares count (at
    most two trophies are missing), added largest first."""
    if trophies >= TROPHIES_TO_WIN:
        return float(TROPHIES_TO_WIN)
    held = (h0, h1, h2, h3)
    spare = 0  # the awarded suits' prize cards, a third of a card each
    if three_for_one:
        for s in range(4):
            if awarded >> s & 1:
                spare += held[s]
    first = second = -1.0  # the largest share, then the second (−1: none)
    first_power = second_power = 0.0
    ready = 0
    for s in range(4):
        if awarded >> s & 1:
            continue
        share = min(1.0, (held[s] + spare / THREE_FOR_ONE) / _PRICE[s])
        power = share**SHARE_POWER
        if share >= 1.0:
            ready += 1
        if share > first:
            second, second_power = first, first_power
            first, first_power = share, power
        elif share > second:
            second, second_power = share, power
    missing = TROPHIES_TO_WIN - trophies
    if ready >= missing:
        return float(TROPHIES_TO_WIN)  # enough trophies ready to claim: the game is won
    progress = 0.0
    if first >= 0.0:
        progress += first_power
    if missing >= 2 and second >= 0.0:
        progress += second_power
    return trophies + progress + PRIZE_WEIGHT * (h0 + h1 + h2 + h3)


@kernel
def _chance(diff, spread):
    """P(we win) from the expected oriented difference and its variance: Φ(diff / spread),
    with the C library's erf."""
    return 0.5 * (1.0 + math.erf(diff / math.sqrt(2.0 * max(spread, MIN_SPREAD))))


@kernel
def _awarded(r):
    """The suits whose trophies are taken, a bit set (an int64: a literal 0 would type the
    callers' arguments apart)."""
    awarded = np.int64(0)
    for suit in range(4):
        if r.owner[suit] >= 0:
            awarded |= 1 << suit
    return awarded


@kernel
def _stages(r, me, w):
    """Each stage of game ``r`` from seat ``me``'s side (side 0 ours) into ``w``: its sign
    (HL-4.2: +1 mountain, −1 lowland, 0 out of play), sums, missing slots by side and suit and
    their number. Returns the cards on the stages, a bit set (a stage out of play holds none,
    HL-5.2)."""
    sign, slots, sums, missing = w.sign, w.slots, w.sums, w.missing
    # each field read once: its every access would be typed and lowered anew
    in_play, terrain, need, have = r.in_play, r.terrain, r.need, r.have
    stage_sums, side_size, sides = r.sums, r.side_size, r.sides
    on_stage = np.int64(0)
    for s in range(NUM_STAGES):
        if not in_play[s]:
            sign[s] = 0
            continue
        sign[s] = 1 if terrain[s] == MOUNTAIN else -1
        open_slots = 0
        for j in range(2):
            side = me ^ j
            sums[s, j] = stage_sums[s, side]
            for suit in range(4):
                m = need[s, suit] - have[s, side, suit]
                missing[s, j, suit] = m
                open_slots += m
            for k in range(side_size[s, side]):
                on_stage |= np.int64(1) << sides[s, side, k]
        slots[s] = open_slots
    return on_stage


@kernel
def _read_table(r, me, three_for_one, w):
    """What the heuristic reads from seat ``me``'s view of game ``r`` (HL-8) into ``w``
    (:data:`_WORK`), each stage from our side: its sign (HL-4.2), sums, missing slots and their
    number, and its terms (heuristic_luft's docstring); per suit, of its cards on no stage
    (what can still fill slots), their mean value (the middle one if none), variance and
    count. A stage's stake is our potential's gain plus the opponent's (:func:`_potential`),
    cut to a sixth when suit counting blocks it (HL-3.1: the stages with fewer open slots,
    then the lower ones, take the cards off the stages first). Returns the bit sets of our
    hand, the discard pile, the opponent's shown cards (HL-3.4) and the unseen cards, the
    number unseen and the opponent's hidden cards."""
    opp = 1 - me
    sign, slots, sums, missing, terms = w.sign, w.slots, w.sums, w.missing, w.terms
    supply, count, need = w.supply, w.count, r.need
    on_stage = _stages(r, me, w)
    for suit in range(4):  # ascending values, summed left to right
        start, end = _SUIT_START[suit], _SUIT_START[suit] + _SUIT_SIZE[suit]
        n = 0
        total = 0
        for c in range(start, end):
            if not on_stage >> c & 1:
                n += 1
                total += _VALUE[c]
        count[suit] = n
        mean = total / n if n else float(MIDDLE)
        spread = 0.0
        for c in range(start, end):
            if not on_stage >> c & 1:
                spread += (_VALUE[c] - mean) * (_VALUE[c] - mean)
        supply[0, suit] = mean
        supply[1, suit] = spread / n if n else 0.0
    awarded = _awarded(r)
    mine, theirs = r.won[me], r.won[opp]
    ours_t, theirs_t = r.trophy_count[me], r.trophy_count[opp]
    ours_now = _potential(mine[0], mine[1], mine[2], mine[3], ours_t, awarded, three_for_one)
    theirs_now = _potential(
        theirs[0], theirs[1], theirs[2], theirs[3], theirs_t, awarded, three_for_one
    )
    left = count  # the supply by suit, taken stage by stage (used up here)
    taken = 0  # the stages counted so far, a bit set
    for _ in range(NUM_STAGES):
        s = -1  # the next stage in play by (open slots, index)
        for x in range(NUM_STAGES):
            if sign[x] != 0 and not taken >> x & 1 and (s < 0 or slots[x] < slots[s]):
                s = x
        if s < 0:
            break
        taken |= 1 << s
        blocked = False
        for suit in range(4):
            if missing[s, 0, suit] + missing[s, 1, suit] > left[suit]:
                blocked = True
        if not blocked:
            for suit in range(4):
                left[suit] -= missing[s, 0, suit] + missing[s, 1, suit]
        p = need[s]  # the stage's prizes by suit, to the winner
        a0, a1, a2, a3 = mine[0] + p[0], mine[1] + p[1], mine[2] + p[2], mine[3] + p[3]
        b0, b1, b2, b3 = theirs[0] + p[0], theirs[1] + p[1], theirs[2] + p[2], theirs[3] + p[3]
        gain = _potential(a0, a1, a2, a3, ours_t, awarded, three_for_one) - ours_now
        stake = gain + _potential(b0, b1, b2, b3, theirs_t, awarded, three_for_one) - theirs_now
        lean = 0.0  # sums of four terms, left to right
        for suit in range(4):
            lean += (missing[s, 0, suit] - missing[s, 1, suit]) * supply[0, suit]
        spread = 0.0
        for suit in range(4):
            spread += (missing[s, 0, suit] + missing[s, 1, suit]) * supply[1, suit]
        diff = sign[s] * ((sums[s, 0] - sums[s, 1]) + lean)
        terms[s, 0] = diff
        terms[s, 1] = spread
        terms[s, 2] = stake * (BLOCKED_FACTOR if blocked else 1.0)
        terms[s, 3] = _chance(diff, spread)
    hand = r.hands[me]
    discard = np.int64(0)
    for k in range(r.discard_size):
        discard |= np.int64(1) << r.discard[k]
    known = r.revealed[opp]
    seen = on_stage | hand | discard | known
    unseen = np.int64(0)
    unseen_count = 0
    shown = 0
    for c in range(NUM_CARDS):
        if not seen >> c & 1:
            unseen |= np.int64(1) << c
            unseen_count += 1
        shown += known >> c & 1
    return hand, discard, known, unseen, unseen_count, r.hand_size[opp] - shown


@kernel
def _last_slot(card, side, s, w, hand, discard, known, unseen, count, hidden):
    """P(we win) stage ``s`` left with one open slot after we place ``card`` on ``side`` (0
    ours), the opponent to move. They complete it if they can win it (HL-4.3: a tie is then
    theirs) — surely with a shown card that does, else by the chance that their hidden cards
    hold one; otherwise we complete it with a card that wins for us. The power is the C
    library's of two doubles, as Python's float ** int."""
    sign, sums, missing = w.sign, w.sums, w.missing
    value = _VALUE[card]
    played = _SUIT[card]
    ours_sum = sums[s, 0] + (value if side == 0 else 0)
    theirs_sum = sums[s, 1] + (value if side == 1 else 0)
    slot_side = 1
    for x in range(4):
        if missing[s, 0, x] - (1 if side == 0 and x == played else 0) != 0:
            slot_side = 0
    suit = 0
    for x in range(4):
        if missing[s, slot_side, x] - (1 if side == slot_side and x == played else 0) == 1:
            suit = x
            break
    diff = sign[s] * (ours_sum - theirs_sum)
    to_slot = sign[s] if slot_side == 0 else -sign[s]  # how a card on the slot moves diff
    bad = 0  # unseen cards of the slot's suit that win the stage for them
    good = 0  # unseen or discarded ones that win it for us
    pool = 0
    ours_in_hand = False
    start = _SUIT_START[suit]
    for c in range(start, start + _SUIT_SIZE[suit]):
        final = diff + to_slot * _VALUE[c]
        if known >> c & 1 and final <= 0:
            return 0.0
        if unseen >> c & 1 and final <= 0:
            bad += 1
        if (unseen | discard) >> c & 1:
            pool += 1
            if final >= 0:
                good += 1
        if hand >> c & 1 and c != card and final >= 0:
            ours_in_hand = True
    p_theirs = 0.0
    if count and hidden:
        p_theirs = 1.0 - (1.0 - bad / count) ** float(hidden)
    if ours_in_hand:
        return 1.0 - p_theirs
    chance = good / pool if pool else 0.0
    return (1.0 - p_theirs) * chance


@kernel
def _decision(t, g, three_for_one, work):
    """The legal actions of the seat to move in game ``g`` of table ``t``, ascending by action
    id as the view lists them, into ``w.actions[:n]`` (``w = work[0]``, :data:`_WORK`), and
    ``w.numbers[i, 3]`` the heuristic's score of each: a placement's (:func:`_placements`), 1
    for the exchange pick or "done" that the heuristic's exchange takes
    (:func:`_exchange_choice`) and 0 for the others, a trophy decision's
    :func:`_trophy_scores`. Returns ``n``."""
    if t[g].phase == PLAY:
        return _placements(t, g, three_for_one, work)
    return _other_decision(t, g, three_for_one, work)


@kernel
def _placements(t, g, three_for_one, work):
    """:func:`_decision` where the seat to move is placing a card (HL-3.1: a hand card on a
    side of a stage in play that lacks a card of its suit), ``w.numbers[i]`` = (stake, P now,
    P after, score)."""
    r, w = t[g], work[0]
    me = r.current
    hand, discard, known, unseen, unseen_count, hidden = _read_table(r, me, three_for_one, w)
    sign, slots, sums, missing, terms = w.sign, w.slots, w.sums, w.missing, w.terms
    supply, actions, numbers = w.supply, w.actions, w.numbers
    n = 0
    for card in range(NUM_CARDS):
        if not hand >> card & 1:
            continue
        suit = _SUIT[card]
        value = _VALUE[card]
        for s in range(NUM_STAGES):
            if sign[s] == 0:
                continue
            diff, spread, stake, now = terms[s, 0], terms[s, 1], terms[s, 2], terms[s, 3]
            left = slots[s] - 1
            for side in range(2):
                if missing[s, side, suit] <= 0:
                    continue
                if left == 0:  # the card completes the stage: exact, a tie ours (HL-4.3)
                    final = sums[s, 0] - sums[s, 1] + (value if side == 0 else -value)
                    after = 1.0 if sign[s] * final >= 0 else 0.0
                elif left == 1:
                    args = (hand, discard, known, unseen, unseen_count, hidden)
                    after = _last_slot(card, side, s, w, *args)
                else:
                    shift = sign[s] * (value - supply[0, suit])
                    moved = diff + shift if side == 0 else diff - shift
                    after = _chance(moved, spread - supply[1, suit])
                actions[n] = 8 * card + 2 * s + side
                numbers[n, 0] = stake
                numbers[n, 1] = now
                numbers[n, 2] = after
                numbers[n, 3] = stake * (after - now) - _KEEP[card]
                n += 1
    return n


@kernel
def _other_decision(t, g, three_for_one, work):
    """:func:`_decision` in an exchange (HL-3.4) or a trophy decision (HL-6)."""
    r, w = t[g], work[0]
    me = r.current
    actions, numbers = w.actions, w.numbers
    n = _other_legal(r, me, three_for_one, actions)
    if r.phase != EXCHANGE:
        _trophy_scores(r, me, three_for_one, w, n)
        return n
    hand, _, _, unseen, _, _ = _read_table(r, me, three_for_one, w)
    m = _exchange_throw(hand, unseen, w)
    choice = _exchange_choice(w.throw, m, actions, n)
    for i in range(n):
        numbers[i, 3] = 1.0 if actions[i] == choice else 0.0
    return n


@kernel
def _exchange_throw(hand, unseen, w):
    """The heuristic's throw (HL-3.4, no card fits): the hand by distance from 7, then card;
    the cards at most four from 7 go, at most four of them, else the one nearest 7 — only that
    one when no unseen card is of a suit some stage still needs. ``w.throw[:m]``, then −1;
    returns m."""
    sign, missing, throw = w.sign, w.missing, w.throw
    m = 0
    for card in range(NUM_CARDS):  # the hand, inserted by (|value − 7|, card)
        if not hand >> card & 1:
            continue
        k = m
        while k > 0 and _DISTANCE[throw[k - 1]] > _DISTANCE[card]:
            throw[k] = throw[k - 1]
            k -= 1
        throw[k] = card
        m += 1
    wanted = 0  # the suits some stage in play misses, as a bit set
    for s in range(NUM_STAGES):
        if sign[s] != 0:
            for suit in range(4):
                if missing[s, 0, suit] + missing[s, 1, suit]:
                    wanted |= 1 << suit
    hope = False
    for card in range(NUM_CARDS):
        if unseen >> card & 1 and wanted >> _SUIT[card] & 1:
            hope = True
    junk = 0
    if hope:
        for k in range(m):
            if _DISTANCE[throw[k]] < KEEP_IN_EXCHANGE:
                throw[junk] = throw[k]  # in order: the kept cards are skipped
                junk += 1
    m = min(junk, MAX_EXCHANGE) if junk else min(m, 1)
    throw[m] = -1
    return m


@kernel
def _exchange_choice(throw, m, legal, n):
    """An exchange move: the next card of ``throw[:m]`` not picked yet (a legal pick, HL-3.4),
    else "done" once something is picked, else the first legal action."""
    for k in range(m):
        for i in range(n):
            if legal[i] == EXCHANGE_PICK + throw[k]:
                return legal[i]
    for i in range(n):
        if legal[i] == EXCHANGE_DONE:
            return EXCHANGE_DONE
    return legal[0]


@kernel
def _claims(held, awarded, three_for_one):
    """The free trophies that prize cards ``held`` pay for, a bit set (``claimable_trophies``):
    HL-6.1 with its own suit, HL-6.2 three cards of an ``awarded`` suit for each missing."""
    spare = 0
    if three_for_one:
        for suit in range(4):
            if awarded >> suit & 1:
                spare += held[suit] // THREE_FOR_ONE
    claims = 0
    for suit in range(4):
        if not awarded >> suit & 1 and held[suit] + spare >= _PRICE[suit]:
            claims |= 1 << suit
    return claims


@kernel
def _trophy_scores(r, me, three_for_one, w, n):
    """The heuristic's trophy scores (HL-6) of ``w.actions[:n]`` into ``w.numbers[:n, 3]``:
    stop 0; our second trophy 10 (HL-7.1); −1 for a claim whose awarded suit lets the opponent
    pay for their second trophy three for one (HL-6.2) where they could not before; else 1 +
    our potential after paying (``trophy_payment``: its own suit first, then three of the
    awarded suit held most, ties ♥ ♦ ♣ ♠) − theirs."""
    opp = 1 - me
    legal, numbers = w.actions, w.numbers
    mine, theirs = r.trophy_count[me], r.trophy_count[opp]
    held, their_held = r.won[me], r.won[opp]
    awarded = _awarded(r)
    left = w.count  # the prize cards left after paying
    for i in range(n):
        if legal[i] == STOP_CLAIMING:
            numbers[i, 3] = 0.0
            continue
        suit = legal[i] - CLAIM_TROPHY
        if mine + 1 >= TROPHIES_TO_WIN:
            numbers[i, 3] = 10.0
            continue
        after = awarded | 1 << suit
        if (
            theirs + 1 >= TROPHIES_TO_WIN
            and _claims(their_held, after, three_for_one)
            and not _claims(their_held, awarded, three_for_one)
        ):
            numbers[i, 3] = -1.0
            continue
        for x in range(4):
            left[x] = held[x]
        own = min(left[suit], _PRICE[suit])
        left[suit] -= own
        for _ in range(_PRICE[suit] - own):
            source, most = -1, -1
            for x in range(4):
                if awarded >> x & 1 and left[x] > most:
                    source, most = x, left[x]
            left[source] -= THREE_FOR_ONE
        ours = _potential(left[0], left[1], left[2], left[3], mine + 1, after, three_for_one)
        h0, h1, h2, h3 = their_held[0], their_held[1], their_held[2], their_held[3]
        numbers[i, 3] = 1.0 + ours - _potential(h0, h1, h2, h3, theirs, after, three_for_one)


@kernel
def _other_legal(r, p, three_for_one, legal):
    """The legal actions of an exchange or trophy decision, ascending as the view lists them:
    HL-3.4 a hand card not picked yet, "done" after one pick; HL-6.1/6.2 each free trophy the
    player can pay for (three for one counting), then "stop" (HL-6.4). Returns their number."""
    n = 0
    if r.phase == EXCHANGE:
        hand = r.hands[p]
        for c in range(NUM_CARDS):
            if not hand >> c & 1:
                continue
            picked = False
            for k in range(r.selection_size):
                if r.selection[k] == c:
                    picked = True
            if not picked:
                legal[n] = EXCHANGE_PICK + c
                n += 1
        if r.selection_size > 0:
            legal[n] = EXCHANGE_DONE
            n += 1
        return n
    claims = _claims(r.won[p], _awarded(r), three_for_one)
    for suit in range(4):
        if claims >> suit & 1:
            legal[n] = CLAIM_TROPHY + suit
            n += 1
    legal[n] = STOP_CLAIMING
    return n + 1


# -- kernels: the calls ---------------------------------------------------------------------------


@kernel
def _play_scores(which, t, three_for_one, work, out):
    """``out[j, action]``: the score of each legal placement in game ``which[j]``."""
    w = work[0]
    for j in range(which.shape[0]):
        r = t[which[j]]
        if r.current >= 0 and r.phase == PLAY:
            for i in range(_placements(t, which[j], three_for_one, work)):
                out[j, w.actions[i]] = w.numbers[i, 3]


@kernel
def _best(which, t, three_for_one, tolerance, work, legal, top, counts):
    """``ScoringAgent.best`` but its draw, per decision: ``legal[j, :c]`` the ``c`` legal
    actions ascending (as the view lists them), ``top[j, :b]`` those scoring at least the best
    score less ``tolerance``, ``counts[j]`` = (c, b). The exchange's one choice scores 1, the
    rest 0, so it is its own top, as ``choose`` takes it without a draw. Returns the first
    ``j`` whose game is over (nothing decided), else −1."""
    for j in range(which.shape[0]):
        if t[which[j]].current < 0:
            return j
    actions = work[0].actions
    for j in range(which.shape[0]):
        n = _decision(t, which[j], three_for_one, work)
        for i in range(n):
            legal[j, i] = actions[i]
        counts[j, 0] = n
        counts[j, 1] = _top(n, work, tolerance, top[j])
    return -1


@kernel
def _top(n, work, tolerance, top):
    """The actions of ``w.actions[:n]`` whose score ``w.numbers[i, 3]`` is at least the best
    less ``tolerance``, in order, into ``top``; returns their number."""
    actions, numbers = work[0].actions, work[0].numbers
    best = numbers[0, 3]
    for i in range(1, n):
        best = max(best, numbers[i, 3])
    threshold = best - tolerance
    b = 0
    for i in range(n):
        if numbers[i, 3] >= threshold:
            top[b] = actions[i]
            b += 1
    return b


# -- kernels: the styles ----------------------------------------------------------------------


@kernel
def _surely_lost(s, sign, sums, missing, on_stage):
    """Whether the opponent's side of stage ``s`` is complete and even the best cards of the
    suits our side still needs, among those on no stage, cannot reach a tie."""
    for suit in range(4):
        if missing[s, 1, suit] != 0:
            return False
    best = sums[s, 0]
    for suit in range(4):
        need = missing[s, 0, suit]
        if need == 0:
            continue
        free = 0  # the suit's cards on no stage, lowest value first (HL-1.1: ascending ids)
        for c in range(_SUIT_START[suit], _SUIT_START[suit] + _SUIT_SIZE[suit]):
            free += not on_stage >> c & 1
        if free < need:
            return True  # the suit cannot even fill our side now
        skip = free - need if sign[s] > 0 else 0  # the highest ``need`` or the lowest
        k = 0
        for c in range(_SUIT_START[suit], _SUIT_START[suit] + _SUIT_SIZE[suit]):
            if on_stage >> c & 1:
                continue
            if skip <= k < skip + need:
                best += _VALUE[c]
            k += 1
    return sign[s] * (best - sums[s, 1]) < 0


@kernel
def _rush_target(r, me):
    """The trophy rusher's target: the free suit whose price the player has paid the largest
    share of (HL-1.4), the cheaper on ties; every suit when none is free."""
    free = 0
    for suit in range(4):
        if r.owner[suit] < 0:
            free |= 1 << suit
    if free == 0:
        free = 15
    target = -1
    best = 0.0
    for suit in range(4):
        if not free >> suit & 1:
            continue
        share = r.won[me, suit] / _PRICE[suit]
        if target < 0 or share > best or (share == best and _PRICE[suit] < _PRICE[target]):
            target, best = suit, share
    return target


@kernel
def _throw(style, hand, target, throw):
    """The cards style ``style`` throws when stuck (HL-3.4), first to last, into ``throw``;
    returns their number: the middling cards (5 to 9, nearest 7 first), the rusher all but its
    suit's (nearest 7 first), the hoarder its cards under 7 (lowest first). Sorts are stable
    over the hand in ascending card order, as the view lists it."""
    n = 0
    for c in range(NUM_CARDS):
        if not hand >> c & 1:
            continue
        if style == TROPHY_RUSHER and _SUIT[c] == target:
            continue
        key = _VALUE[c] if style == HIGH_HOARDER else _DISTANCE[c]
        i = n
        while i > 0:  # insertion sort: stable
            other = throw[i - 1]
            if (_VALUE[other] if style == HIGH_HOARDER else _DISTANCE[other]) <= key:
                break
            throw[i] = other
            i -= 1
        throw[i] = c
        n += 1
    if style == TROPHY_RUSHER:  # the rusher keeps its suit: the rest, or the hand's first card
        if n == 0:
            for c in range(NUM_CARDS):
                if hand >> c & 1:
                    throw[0] = c
                    return 1
        return n
    kept = 0
    for i in range(n):
        value = _VALUE[throw[i]]
        if (style == HIGH_HOARDER and value < 7) or (style != HIGH_HOARDER and 5 <= value <= 9):
            throw[kept] = throw[i]
            kept += 1
    return kept if kept else min(n, 1)


@kernel
def _style_best(which, t, three_for_one, style, tolerance, work, legal, top, counts):
    """:func:`_best` for style ``style`` (its class's ``code``): a placement (HL-3.1) scored
    as the style plays (styles_luft's docstring), ties within ``tolerance`` kept; an exchange
    (HL-3.4) the first card of :func:`_throw` not picked yet, else "done"; a trophy (HL-6)
    the style's claim (the rusher its suit, the others the dearest)."""
    for j in range(which.shape[0]):
        if t[which[j]].current < 0:
            return j
    w = work[0]
    sign, slots, sums, missing = w.sign, w.slots, w.sums, w.missing
    actions, numbers = w.actions, w.numbers
    for j in range(which.shape[0]):
        r = t[which[j]]
        me = r.current
        target = _rush_target(r, me) if style == TROPHY_RUSHER else -1
        if r.phase != PLAY:
            n = _other_legal(r, me, three_for_one, legal[j])
            if r.phase == EXCHANGE:
                m = min(_throw(style, r.hands[me], target, w.throw), MAX_EXCHANGE)
                choice = _exchange_choice(w.throw, m, legal[j], n)
            elif style == TROPHY_RUSHER:  # the rushed suit first, else the first claim
                choice = legal[j, 0]
                for a in range(n - 1):
                    if legal[j, a] == CLAIM_TROPHY + target:
                        choice = legal[j, a]
            else:  # the dearest trophy (the first of equal price)
                choice = legal[j, 0]
                for a in range(1, n - 1):
                    if _PRICE[legal[j, a] - CLAIM_TROPHY] > _PRICE[choice - CLAIM_TROPHY]:
                        choice = legal[j, a]
            counts[j, 0] = n
            counts[j, 1] = 1
            top[j, 0] = choice
            continue
        on_stage = _stages(r, me, w)
        hand = r.hands[me]
        n = 0
        for card in range(NUM_CARDS):
            if not hand >> card & 1:
                continue
            value = _VALUE[card]
            for s in range(NUM_STAGES):
                if sign[s] == 0:
                    continue
                for side in range(2):
                    if missing[s, side, _SUIT[card]] <= 0:
                        continue
                    done = 0  # +1 the card completes the stage and wins it (a tie ours,
                    if slots[s] == 1:  # HL-4.3), −1 it completes it and loses
                        diff = sums[s, 0] - sums[s, 1] + (value if side == 0 else -value)
                        done = 1 if sign[s] * diff >= 0 else -1
                    fit = value / MAX_VALUE  # how good the card is there by the terrain, 0–1
                    if (sign[s] > 0) != (side == 0):
                        fit = 1.0 - fit
                    if style == BEGINNER:
                        if done != 0:
                            score = 100.0 + (s + 1) if done > 0 else -100.0
                        elif side == 0 and _surely_lost(s, sign, sums, missing, on_stage):
                            score = 20.0 + MAX_VALUE - value  # low cards to waste
                        else:
                            score = 10.0 * fit - (3.0 if side else 0.0)
                    elif style == STAGE_FINISHER:
                        if done != 0:
                            score = 1000.0 + (s + 1) if done > 0 else -1000.0
                        else:
                            score = -10.0 * slots[s] + 5.0 * fit
                    elif style == TROPHY_RUSHER:
                        prizes = 0
                        for k in range(s + 1):
                            prizes += r.prizes[s, k] == target
                        weight = 1.0 + 3.0 * prizes
                        if done != 0:
                            score = 50.0 * weight * done
                        else:
                            score = weight * fit * (1.0 if side == 0 else 0.8)
                    else:  # HIGH_HOARDER
                        score = -value + 3.0 * fit + 40.0 * done
                        if value >= HIGH and done <= 0:
                            score -= 30.0
                    actions[n] = 8 * card + 2 * s + side
                    numbers[n, 3] = score
                    legal[j, n] = actions[n]
                    n += 1
        counts[j, 0] = n
        counts[j, 1] = _top(n, work, tolerance, top[j])
    return -1


# -- kernels: the policy input --------------------------------------------------------------------


@kernel
def _fill(which, seats, observations, out, t, three_for_one, work):
    """``features.policy_input`` of each decision into ``out[j]``: the observation, then for
    each legal action (ascending) its feature row in its slot, then the ids (−1 past the
    legal ones)."""
    for j in range(which.shape[0]):
        g = which[j]
        row = out[j]
        for x in range(_OBSERVATION):  # loops: numba compiles slice copies' general code slowly
            row[x] = observations[j, x]
        for x in range(_OBSERVATION, _IDS):
            row[x] = 0.0
        for x in range(_IDS, _IDS + _SLOTS):
            row[x] = -1.0
        if seats[j] == t[g].current:
            _rows(row, t, g, _decision(t, g, three_for_one, work), work)


@kernel
def _rows(row, t, g, n, work):
    """The feature rows and ids of the ``n`` legal actions of :func:`_decision` of game ``g``
    (in ``work``) into the packed input ``row``. Each float64 column rounds to float32 once;
    the difference ``after − now`` and the score columns (the score clipped to −2 … 10, its gap
    to the best clipped to −2 … 0, "is best", the legal actions' share of the slots) compute
    in float32 after the float32 values."""
    r, w = t[g], work[0]
    actions, numbers, scores = w.actions, w.numbers, w.scores
    for i in range(n):
        action = actions[i]
        f = _OBSERVATION + i * _FEATURES
        if r.phase == PLAY:
            _play_row(row, f, r, action, w, i)
        elif r.phase == EXCHANGE:
            _exchange_row(row, f, r, action, w.throw)
        elif action == STOP_CLAIMING:
            row[f + _KIND_STOP] = 1.0
        else:
            suit = action - CLAIM_TROPHY
            row[f + _KIND_CLAIM] = 1.0
            row[f + 6 + suit] = 1.0
            row[f + 38] = _PRICE_7[suit]
        row[_IDS + i] = action
        scores[i] = numbers[i, 3]
    best = scores[0]
    for i in range(1, n):
        best = max(best, scores[i])
    threshold = best - _TOLERANCE_32
    for i in range(n):
        f = _OBSERVATION + i * _FEATURES
        score = scores[i]
        gap = score - best
        row[f + 5] = n / _SLOTS
        row[f + 31] = -2.0 if score < -2.0 else (10.0 if score > 10.0 else score)
        row[f + 32] = -2.0 if gap < -2.0 else (0.0 if gap > 0.0 else gap)
        row[f + 33] = 1.0 if score >= threshold else 0.0


@kernel
def _play_row(row, f, r, action, w, i):
    """The feature row of placement ``i`` of :func:`_placements`: the card, the stage and
    side, the stage's terrain, prizes, sums before and after, open slots left, and the terms
    (stake, P now, P after)."""
    sign, slots, sums, numbers = w.sign, w.slots, w.sums, w.numbers
    card, s, side = action >> 3, action >> 1 & 3, action & 1
    value = _VALUE[card]
    left = slots[s] - 1
    row[f + _KIND_PLAY] = 1.0
    row[f + 6 + _SUIT[card]] = 1.0
    row[f + 10] = _VALUE_13[card]
    row[f + 11 + s] = 1.0
    row[f + 15] = side
    row[f + 16] = 1.0 if sign[s] > 0 else 0.0
    for suit in range(4):
        row[f + 17 + suit] = r.need[s, suit] * 0.25
    row[f + 21] = _SUM_52[sums[s, 0]]
    row[f + 22] = _SUM_52[sums[s, 1]]
    row[f + 23] = _SUM_52[sums[s, 0] + (value if side == 0 else 0)]
    row[f + 24] = _SUM_52[sums[s, 1] + (value if side == 1 else 0)]
    row[f + 25] = left / 8
    row[f + 26] = 1.0 if left == 0 else 0.0
    row[f + 27] = 1.0 if left == 1 else 0.0
    now = np.float32(numbers[i, 1])
    after = np.float32(numbers[i, 2])
    row[f + 28] = numbers[i, 0]
    row[f + 29] = now
    row[f + 30] = after
    row[f + 34] = after - now
    row[f + 35] = _KEEP_32[card]


@kernel
def _exchange_row(row, f, r, action, throw):
    """The feature row of an exchange pick or "done" (its score: 1 for the heuristic's
    choice): the picks so far, the card and its keep cost, and where the heuristic's throw
    ranks it."""
    row[f + 36] = _PICKED_4[r.selection_size]
    if action == EXCHANGE_DONE:
        row[f + _KIND_DONE] = 1.0
        return
    card = action - EXCHANGE_PICK
    row[f + _KIND_PICK] = 1.0
    row[f + 6 + _SUIT[card]] = 1.0
    row[f + 10] = _VALUE_13_64[card]
    row[f + 35] = _KEEP_64[card]
    k = 0
    while throw[k] >= 0:
        if throw[k] == card:
            row[f + 37] = _THROW_RANK[k]
        k += 1


__all__ = ["SPEC", "ArrayHeuristic", "ArrayStyle", "fill_policy_input", "play_scores"]
