"""A rule-based Heiße Luft player that sees only its own view (HL-8, docs/rules.md).

Strategy — the rulebook's "Tipps für Einsteiger" (tips for beginners) turned into one scoring
function.

**Play** (HL-3.2). Every legal placement is scored as

    score = stake(stage) × (P(we win the stage) after the card − P now) − keep(card)

and the best score is played (exact ties broken by the agent's generator).

* *P(we win the stage)* comes from the expected final difference of the two sides' sums,
  oriented so that positive is good for us (higher on a mountain, lower in a lowland): the cards
  already there plus, for every open slot, the mean of that suit's cards that are not on a
  stage; the spread is the sum of those suits' variances, and P = Φ(difference / spread). So low
  cards go to our lowland side and high cards to our mountain side, and a King on the opponent's
  lowland side or an Ace on their mountain side spoils it: all four are the same move towards a
  better difference. When every move hurts (HL-3.3 must play), the least harmful one is chosen.
* *Close stages on your terms.* A card that completes a stage decides it exactly, and a tie is
  ours because our card is the last one placed (HL-4.3). A card that leaves one open slot hands
  the opponent the choice: they complete the stage if they hold a card that wins it for them (a
  tie is then theirs) — certain if such a card was revealed to us, else by the chance that their
  unknown cards hold one; otherwise we complete it when a card that wins for us comes along (now,
  if we hold one).
* *stake(stage)*: how much the stage's prizes advance our trophies plus how much they would
  advance the opponent's (a stage we lose is a stage they win). Trophy progress is
  :func:`potential`: trophies held plus, for the suits still free that are nearest to their price
  (as many as trophies are still missing for the win), (share of the price held) ** 1.5 — the
  power makes the last cards of a trophy worth more than the first, so we finish what we start.
  Three-for-one counts (each prize of an awarded suit is a third of a card, HL-6.2). Cheap
  trophies come first by themselves: a spade is a quarter of a trophy, a heart a seventh. A prize
  that completes the second trophy makes the stake as large as the game (HL-7.1).
* *Count suits*: a stage that needs more cards of a suit than are left off the stages (after the
  stages nearer completion have taken theirs) is blocked; its stake is cut to a sixth, so cards
  are not wasted on it (and a forced card may be dumped there).
* *keep(card)*: a small cost for spending an extreme card (Ace, King, 2, Queen), which is "worth
  gold at the right stage"; among equal moves the middling card goes first.

**Exchange** (HL-3.4, no card fits). Keep the extreme cards, throw the middling ones: up to four
cards at most four away from 7 (3 to J) go, nearest to 7 first; if none, the single card nearest
to 7. If no card of a suit any stage needs is still unseen, drawing cannot help: throw only the
single worst card.

**Trophies** (HL-6). Claim whenever possible: a trophy is never lost, its cards still count for
HL-7.2, and waiting lets the opponent take the suit. Among several claims, take the one that
leaves us the best potential against the opponent's. The one reason not to claim: the claim
awards a suit whose prizes, three for one, would let the opponent claim their second trophy right
after (HL-6.4 lets the other player claim next) — unless the claim itself is our second trophy.

The weights below were tuned in heuristic-against-heuristic matches. ``epsilon`` is the
probability of a uniformly random legal move instead (for curricula).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache, lru_cache
from math import erf, sqrt
from typing import Any

from hot_envs.agents.base import ScoringAgent
from hot_envs.heisse_luft.facts import (
    CARD_INDEX,
    CARD_SUIT,
    CARD_VALUE,
    CLAIM_TROPHY,
    EXCHANGE_DONE,
    EXCHANGE_PICK,
    MAX_EXCHANGE,
    NUM_CARDS,
    STOP_CLAIMING,
    SUIT_VALUES,
    SUITS,
    THREE_FOR_ONE,
    TROPHIES_TO_WIN,
    TROPHY_PRICE,
    claimable_trophies,
    trophy_payment,
)

SUIT_OF_LETTER = {letter: i for i, letter in enumerate(SUITS)}

SHARE_POWER = 1.5  # trophy progress: (share of the price held) ** SHARE_POWER
PRIZE_WEIGHT = 0.01  # every prize card held (the HL-7.2 tie-break)
BLOCKED_FACTOR = 1 / 6  # stake left to a stage that cannot be completed now
KEEP_COST = 0.03  # cost of spending an Ace or a King (less for less extreme cards)
MIN_SPREAD = 0.5  # variance floor while slots are open
MIDDLE = 7  # the middle card value
KEEP_IN_EXCHANGE = 5  # cards this far from the middle (A, 2, Q, K) are kept when stuck


def added(values: Iterable[float]) -> float:
    """``values`` added left to right, as ``sum`` did before Python 3.12 (whose ``sum`` of floats
    compensates rounding): the heuristic's numbers are the same on every Python and in the
    array kernels (:mod:`hot_envs.agents.array_luft`), which add in this order."""
    total = 0.0
    for value in values:
        total += value
    return total


def potential(
    held: Sequence[int], trophies: int, awarded: Sequence[int], three_for_one: bool = True
) -> float:
    """A player's trophy progress; 2.0 means two trophies, the game won (HL-7.1).

    ``held``: prize cards by suit (outside trophies); ``trophies``: how many the player holds;
    ``awarded``: suits whose trophy is taken, by anybody.
    """
    return _potential(tuple(held), trophies, tuple(awarded), three_for_one)


@lru_cache(maxsize=1 << 14)
def _potential(
    held: tuple[int, ...], trophies: int, awarded: tuple[int, ...], three_for_one: bool
) -> float:
    """:func:`potential`, cached: rollouts ask for the same few prize counts again and again."""
    if trophies >= TROPHIES_TO_WIN:
        return float(TROPHIES_TO_WIN)
    spare = sum(held[s] for s in awarded) / THREE_FOR_ONE if three_for_one else 0.0
    shares = sorted(
        (min(1.0, (held[s] + spare) / TROPHY_PRICE[s]) for s in range(4) if s not in awarded),
        reverse=True,
    )
    missing = TROPHIES_TO_WIN - trophies
    if sum(1 for share in shares if share >= 1.0) >= missing:
        return float(TROPHIES_TO_WIN)  # enough trophies ready to claim: the game is won
    return trophies + added(x**SHARE_POWER for x in shares[:missing]) + PRIZE_WEIGHT * sum(held)


class _Stage:
    """One stage in play, from our side: ``sums`` and ``missing`` (open slots by suit) are
    (ours, theirs); ``sign`` is +1 on a mountain, −1 in a lowland (HL-4.2)."""

    __slots__ = ("sign", "prizes", "sums", "missing", "open_slots")

    def __init__(self, sign: int, prizes: list[int], sums: list[int], missing: list[list[int]]):
        self.sign, self.prizes, self.sums, self.missing = sign, prizes, sums, missing
        self.open_slots = sum(missing[0]) + sum(missing[1])


_SUIT_START = tuple(CARD_SUIT.index(s) for s in range(4))  # the first card index of each suit
_SUIT_BITS = tuple((1 << len(values)) - 1 for values in SUIT_VALUES)


@cache
def _suit_supply(suit: int, on_stage: int) -> tuple[int, float, float]:
    """The number, mean value and variance of the cards of ``suit`` not on a stage
    (``on_stage``: a bit mask over the suit's cards). Cached, at most 2**13 masks per suit."""
    values = [v for i, v in enumerate(SUIT_VALUES[suit]) if not on_stage >> i & 1]
    if not values:
        return 0, MIDDLE, 0.0
    mean = sum(values) / len(values)
    return len(values), mean, sum((x - mean) ** 2 for x in values) / len(values)


@lru_cache(maxsize=1 << 14)
def _read_stage(
    terrain: str, prizes: tuple[str, ...], ours: tuple[str, ...], theirs: tuple[str, ...]
) -> tuple[_Stage, int]:
    """A stage in play from our side (the view's codes), and its cards as a bit mask. Cached:
    the positions of a search share most stages, and nothing changes a _Stage once made."""
    suits = [SUIT_OF_LETTER[s] for s in prizes]
    sums, missing, on_stage = [0, 0], [[0] * 4, [0] * 4], 0
    for j, side in enumerate((ours, theirs)):
        for s in suits:
            missing[j][s] += 1
        for c in map(CARD_INDEX.__getitem__, side):
            on_stage |= 1 << c
            sums[j] += CARD_VALUE[c]
            missing[j][CARD_SUIT[c]] -= 1
    sign = 1 if terrain == "mountain" else -1
    return _Stage(sign, suits, sums, missing), on_stage


@lru_cache(maxsize=1 << 14)
def _stake(
    ours: tuple[tuple[int, ...], int],
    theirs: tuple[tuple[int, ...], int],
    awarded: tuple[int, ...],
    three_for_one: bool,
    prizes: tuple[int, ...],
) -> float:
    """:meth:`_Table.stake` for players holding ``(prizes by suit, trophies)``, cached: a
    search meets the same prize counts and stages again and again."""

    def potential_with(player: tuple[tuple[int, ...], int], extra: tuple[int, ...]) -> float:
        held = list(player[0])
        for s in extra:
            held[s] += 1
        return potential(held, player[1], awarded, three_for_one)

    mine = potential_with(ours, prizes) - potential_with(ours, ())
    return mine + potential_with(theirs, prizes) - potential_with(theirs, ())


class _Table:
    """The parts of a view the strategy uses, as small ints (cards by index 0–39)."""

    def __init__(self, view: dict[str, Any]) -> None:
        me = self.me = view["player"]
        self.hand = [CARD_INDEX[c] for c in view["hand"]]
        self.three_for_one = view["options"]["three_for_one"]
        self.held = [[view["prizes_won"][p][s] for s in SUITS] for p in (0, 1)]
        self.trophies = [[SUIT_OF_LETTER[s] for s in view["trophies"][p]] for p in (0, 1)]
        self.awarded = self.trophies[0] + self.trophies[1]
        on_stage = 0  # the cards on the stages, as a bit mask
        self.stages: list[_Stage | None] = []
        for stage in view["stages"]:
            if not stage["in_play"]:
                self.stages.append(None)
                continue
            sides = stage["sides"]
            st, cards = _read_stage(
                stage["terrain"], tuple(stage["prizes"]), tuple(sides[me]), tuple(sides[1 - me])
            )
            self.stages.append(st)
            on_stage |= cards
        # What can still fill slots: the cards not on a stage (hands and piles), by suit.
        self.supply, self.mean, self.var = zip(
            *(_suit_supply(s, on_stage >> _SUIT_START[s] & _SUIT_BITS[s]) for s in range(4)),
            strict=True,
        )
        self.discard = [CARD_INDEX[c] for c in view["discard_pile"]]
        self.opponent_known = [CARD_INDEX[c] for c in view["known_opponent_cards"]]
        self.opponent_hidden = view["opponent_hand_size"] - len(self.opponent_known)
        seen = on_stage
        for c in (*self.hand, *self.discard, *self.opponent_known):
            seen |= 1 << c
        self.unseen = [c for c in range(NUM_CARDS) if not seen >> c & 1]
        self._players: tuple | None = None  # the arguments of _stake but the prizes
        self._by_suit: dict[int, tuple[list[int], ...]] = {}

    def of_suit(self, suit: int) -> tuple[list[int], ...]:
        """The cards of ``suit`` that the opponent showed, that are unseen, that are unseen or
        discarded, and that are in our hand (cached per suit)."""
        if suit not in self._by_suit:
            known, unseen, discard, hand = (
                [c for c in cards if CARD_SUIT[c] == suit]
                for cards in (self.opponent_known, self.unseen, self.discard, self.hand)
            )
            self._by_suit[suit] = known, unseen, unseen + discard, hand
        return self._by_suit[suit]

    def stake(self, prizes: Sequence[int]) -> float:
        """Our potential gain if we win these prizes plus the opponent's if they do."""
        if self._players is None:
            me, opp = self.me, 1 - self.me
            self._players = (
                (tuple(self.held[me]), len(self.trophies[me])),
                (tuple(self.held[opp]), len(self.trophies[opp])),
                tuple(self.awarded),
                self.three_for_one,
            )
        return _stake(*self._players, tuple(prizes))

    def blocked(self) -> list[bool]:
        """Suit counting (HL-3.1): stages nearer completion take the cards first."""
        order = sorted((st.open_slots, i) for i, st in enumerate(self.stages) if st)
        left = list(self.supply)
        blocked = [False] * len(self.stages)
        for _, i in order:
            ours, theirs = self.stages[i].missing
            demand = [ours[s] + theirs[s] for s in range(4)]
            if any(demand[s] > left[s] for s in range(4)):
                blocked[i] = True
            else:
                left = [left[s] - demand[s] for s in range(4)]
        return blocked


class HeisseLuftHeuristic(ScoringAgent):
    """Rule-based Heiße Luft player (strategy in the module docstring). Same seed ⇒ same
    actions; ``epsilon`` is the chance of a uniformly random legal move."""

    tolerance = 1e-12

    def choose(self, view: dict[str, Any], legal: list[int]) -> int:
        table = _Table(view)
        if legal[0] < EXCHANGE_PICK:
            return self.best(legal, play_scores(table, legal))
        if legal[0] < CLAIM_TROPHY:
            return exchange_action(table, view, legal)
        return self.best(legal, trophy_scores(table, legal))


# ---------------------------------------------------------------------- play


def _chance(diff: float, spread: float) -> float:
    """Φ(diff / spread): P(we win) from the expected oriented difference and its variance."""
    return 0.5 * (1.0 + erf(diff / sqrt(2.0 * max(spread, MIN_SPREAD))))


def _keep(value: int) -> float:
    """keep(card) of the module docstring: KEEP_COST for an Ace or a King, less nearer 7."""
    extreme = (value - MIDDLE) / (MIDDLE - 1)
    return KEEP_COST * extreme * extreme


_KEEP = tuple(map(_keep, CARD_VALUE))  # by card


def play_scores(table: _Table, legal: list[int]) -> list[float]:
    """The score of every play action in ``legal`` (module docstring)."""
    return scores_of_terms(legal, play_terms(table, legal))


def scores_of_terms(legal: list[int], terms: list[tuple[float, float, float]]) -> list[float]:
    """score = stake × (P after − P now) − keep(card), from :func:`play_terms`."""
    return [
        stake * (after - now) - _KEEP[action >> 3]
        for action, (stake, now, after) in zip(legal, terms, strict=True)
    ]


def play_terms(table: _Table, legal: list[int]) -> list[tuple[float, float, float]]:
    """The terms of every play action's score: the stage's ``stake`` (cut when blocked),
    P(we win the stage) ``now`` and ``after`` the card (module docstring)."""
    mean, var = table.mean, table.var
    blocked = table.blocked()
    per_stage: list[tuple | None] = []
    for i, st in enumerate(table.stages):
        if st is None:
            per_stage.append(None)
            continue
        ours, theirs = st.missing
        expected = st.sums[0] - st.sums[1]
        expected += added((ours[s] - theirs[s]) * mean[s] for s in range(4))
        spread = added((ours[s] + theirs[s]) * var[s] for s in range(4))
        stake = table.stake(st.prizes) * (BLOCKED_FACTOR if blocked[i] else 1.0)
        diff = st.sign * expected
        per_stage.append((diff, spread, stake, _chance(diff, spread), st.open_slots - 1))
    terms = []
    for action in legal:
        card, stage, side = action >> 3, action >> 1 & 3, action & 1  # side 0: ours, 1: theirs
        st = table.stages[stage]
        diff, spread, stake, now, left = per_stage[stage]
        suit, value = CARD_SUIT[card], CARD_VALUE[card]
        if left == 0:  # the card completes the stage: exact, and a tie is ours (HL-4.3)
            final = st.sums[0] - st.sums[1] + (value if side == 0 else -value)
            after = 1.0 if st.sign * final >= 0 else 0.0
        elif left == 1:
            after = last_slot_chance(table, st, card, side)
        else:
            shift = st.sign * (value - mean[suit])
            after = _chance(diff + shift if side == 0 else diff - shift, spread - var[suit])
        terms.append((stake, now, after))
    return terms


def last_slot_chance(table: _Table, st: _Stage, card: int, side: int) -> float:
    """P(we win) a stage left with one open slot after we place ``card`` on ``side`` (0 ours,
    1 theirs), the opponent to move (module docstring, "close stages on your terms")."""
    sums = st.sums[:]
    sums[side] += CARD_VALUE[card]
    missing = [st.missing[0][:], st.missing[1][:]]
    missing[side][CARD_SUIT[card]] -= 1
    slot_side = 0 if any(missing[0]) else 1
    suit = missing[slot_side].index(1)
    diff = st.sign * (sums[0] - sums[1])
    to_slot = st.sign if slot_side == 0 else -st.sign  # how a card on the slot moves diff

    def theirs(c: int) -> bool:  # they complete: a tie is theirs
        return diff + to_slot * CARD_VALUE[c] <= 0

    def ours(c: int) -> bool:  # we complete: a tie is ours
        return diff + to_slot * CARD_VALUE[c] >= 0

    known, unseen, pool, hand = table.of_suit(suit)  # only cards of the slot's suit fit
    if any(map(theirs, known)):
        return 0.0
    p_theirs = 0.0
    if table.unseen and table.opponent_hidden:
        bad = sum(map(theirs, unseen)) / len(table.unseen)
        p_theirs = 1.0 - (1.0 - bad) ** table.opponent_hidden
    if any(ours(c) for c in hand if c != card):
        return 1.0 - p_theirs
    good = sum(map(ours, pool)) / len(pool) if pool else 0.0
    return (1.0 - p_theirs) * good


# ---------------------------------------------------------------------- exchange


def exchange_cards(table: _Table) -> list[int]:
    """The cards to throw when stuck (module docstring), worst first."""
    hand = sorted(table.hand, key=lambda c: (abs(CARD_VALUE[c] - MIDDLE), c))
    wanted = {
        s for st in table.stages if st for s in range(4) if st.missing[0][s] + st.missing[1][s]
    }
    if not any(CARD_SUIT[c] in wanted for c in table.unseen):
        return hand[:1]
    junk = [c for c in hand if abs(CARD_VALUE[c] - MIDDLE) < KEEP_IN_EXCHANGE]
    return (junk or hand[:1])[:MAX_EXCHANGE]


def exchange_action(table: _Table, view: dict[str, Any], legal: list[int]) -> int:
    """The next pick of :func:`exchange_cards`, or "exchange done" once all are chosen."""
    chosen = {CARD_INDEX[c] for c in view["exchange_selection"]}
    for card in exchange_cards(table):
        if card not in chosen and EXCHANGE_PICK + card in legal:
            return EXCHANGE_PICK + card
    return EXCHANGE_DONE if EXCHANGE_DONE in legal else int(legal[0])


# ---------------------------------------------------------------------- trophies


def trophy_scores(table: _Table, legal: list[int]) -> list[float]:
    """Claim (the best claim) rather than stop, unless the claim hands the opponent the game."""
    me, opp = table.me, 1 - table.me
    mine, theirs = len(table.trophies[me]), len(table.trophies[opp])
    opp_held = table.held[opp]
    scores = []
    for action in legal:
        if action == STOP_CLAIMING:
            scores.append(0.0)
            continue
        suit = action - CLAIM_TROPHY
        if mine + 1 >= TROPHIES_TO_WIN:
            scores.append(10.0)  # our second trophy: the game is won (HL-7.1)
            continue
        awarded = [*table.awarded, suit]
        opens_their_win = (
            theirs + 1 >= TROPHIES_TO_WIN
            and claimable_trophies(opp_held, awarded, table.three_for_one)
            and not claimable_trophies(opp_held, table.awarded, table.three_for_one)
        )
        if opens_their_win:
            scores.append(-1.0)
            continue
        payment = trophy_payment(table.held[me], suit, table.awarded)
        held = [h - n for h, n in zip(table.held[me], payment, strict=True)]
        ours = potential(held, mine + 1, awarded, table.three_for_one)
        scores.append(1.0 + ours - potential(opp_held, theirs, awarded, table.three_for_one))
    return scores
