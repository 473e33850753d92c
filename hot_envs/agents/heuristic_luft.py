"""A rule-based Heiße Luft player that sees only its own view (RULES HL-8).

Strategy — the seed's "Tipps für Einsteiger" turned into one scoring function:

**Play** (HL-3.2). Every legal placement is scored as

    score = stake(stage) × (P(win stage) after the card − P(win stage) now) − keep(card)

and the best score is played (exact ties broken by the agent's generator).

* *P(win stage)* comes from the expected final difference of the two sides' sums, oriented so
  that positive is good for us (higher on a mountain, lower in a lowland): the cards already
  there plus, for every slot still empty, the mean of that suit's cards that are not on a stage.
  The spread is the sum of those suits' variances; P = Φ(difference / spread). A card that
  completes the stage decides it exactly, and a tie goes to us because our card is the last one
  placed (HL-4.3) — "close stages on your terms". So low cards go to our lowland side and high
  cards to our mountain side, and a King on the opponent's lowland side or an Ace on their
  mountain side spoils it: all four are the same move towards a better difference. When every
  move hurts (HL-3.3 must play), the least harmful one is chosen: a middling card, or a stage
  that matters little.
* *stake(stage)*: how much the stage's prizes advance our trophies plus how much they would
  advance the opponent's (a stage we lose is a stage they win). Trophy progress is measured by
  :func:`potential`: trophies held, plus for the two most advanced suits still free the share of
  the price held (three-for-one counted: each prize of an awarded suit is a third of a card,
  HL-6.2), plus a little for the other suits and for every prize card (the HL-7.2 tie-break).
  Cheap trophies come first by themselves: a spade is a quarter of a trophy, a heart a seventh.
  A prize that completes the second trophy makes the stake as large as the game.
* *Suit counting*: a stage that needs more cards of a suit than are left off the stages (after
  the stages nearer completion have taken theirs) is blocked; its stake is cut to a sixth, so
  cards are not wasted on it (and a forced card may be dumped there).
* *keep(card)*: a small cost for spending an extreme card (Ace, King, 2, Queen), which is
  "worth gold at the right stage"; among equal moves the middling card goes first.

**Exchange** (HL-3.4, no card fits). Keep the extreme cards, throw the middling ones: the cards
are ranked by distance from 7, and the four closest are thrown, but an Ace, 2, Queen or King only
if fewer than one card would go otherwise. If no card of a suit any stage needs is still unseen,
drawing cannot help: throw only the single worst card.

**Trophies** (HL-6). Claim whenever possible: a trophy is never lost, its cards still count for
HL-7.2, and waiting lets the opponent take the suit (two trophies win at once, HL-7.1). Among
several claims, take the one that leaves us the best potential. The one documented reason not to
claim: the claim would award a suit whose prizes, three for one, let the opponent claim their
second trophy right after (HL-6.4 lets the other player claim next) — unless the claim itself is
our second trophy.

``epsilon`` is the probability of a uniformly random legal move instead (for curricula).
"""

from __future__ import annotations

from math import erf, sqrt
from typing import Any

import numpy as np

from hot_envs.agents.base import legal_actions
from hot_envs.engine import Seed, make_rng
from hot_envs.heisse_luft.facts import (
    CARD_INDEX,
    CARD_SUIT,
    CARD_VALUE,
    CLAIM_TROPHY,
    EXCHANGE_DONE,
    EXCHANGE_PICK,
    LOWLAND,
    MAX_EXCHANGE,
    NUM_CARDS,
    STOP_CLAIMING,
    SUITS,
    TERRAINS,
    THREE_FOR_ONE,
    TROPHIES_TO_WIN,
    TROPHY_PRICE,
)

SUIT_OF_LETTER = {letter: i for i, letter in enumerate(SUITS)}
NUM_PLAY_ACTIONS = EXCHANGE_PICK

# Weights of the strategy (tuned by heuristic-against-heuristic matches).
OTHER_SUITS_WEIGHT = 0.0  # potential of suits beyond the two most advanced ones
SHARE_POWER = 1.5  # progress towards a trophy: (share of its price held) ** SHARE_POWER
PRIZE_WEIGHT = 0.01  # every prize card held (HL-7.2 tie-break)
BLOCKED_FACTOR = 1 / 6  # stake left to a stage that cannot be completed now
KEEP_COST = 0.03  # cost of spending an Ace or a King (less for less extreme cards)
MIN_SPREAD = 0.5  # variance floor while slots remain open
MIDDLE = 7  # the middle card value; distance from it is a card's worth for the exchange
KEEP_IN_EXCHANGE = 5  # cards this far from the middle (A, 2, Q, K) are kept when stuck


def potential(
    held: list[int], trophies: int, awarded: list[int], three_for_one: bool = True
) -> float:
    """A player's trophy progress: 2.0 means two trophies (the game is won, HL-7.1).

    ``held``: prize cards by suit (outside trophies); ``trophies``: how many the player holds;
    ``awarded``: suits whose trophy is taken (by anybody).
    """
    if trophies >= TROPHIES_TO_WIN:
        return float(TROPHIES_TO_WIN)
    spare = sum(held[s] for s in awarded) / THREE_FOR_ONE if three_for_one else 0.0
    shares = sorted(
        (
            min(1.0, (held[s] + spare) / TROPHY_PRICE[s]) ** SHARE_POWER
            for s in range(4)
            if s not in awarded
        ),
        reverse=True,
    )
    # Suits that could be claimed right away count fully; two such suits win the game.
    ready = sum(1 for share in shares if share >= 1.0)
    if trophies + ready >= TROPHIES_TO_WIN:
        return float(TROPHIES_TO_WIN)
    slots = TROPHIES_TO_WIN - trophies
    return (
        trophies
        + sum(shares[:slots])
        + OTHER_SUITS_WEIGHT * sum(shares[slots:])
        + PRIZE_WEIGHT * sum(held)
    )


def _phi(z: float) -> float:
    return 0.5 * (1.0 + erf(z / sqrt(2.0)))


class _Table:
    """The parts of a view the strategy uses, as small ints (cards by index 0–39)."""

    def __init__(self, view: dict[str, Any]) -> None:
        me = self.me = view["player"]
        opp = 1 - me
        self.hand = [CARD_INDEX[c] for c in view["hand"]]
        self.three_for_one = view["options"]["three_for_one"]
        self.held = [[view["prizes_won"][p][s] for s in SUITS] for p in (0, 1)]
        self.trophies = [[SUIT_OF_LETTER[s] for s in view["trophies"][p]] for p in (0, 1)]
        self.awarded = self.trophies[0] + self.trophies[1]
        on_stage = [False] * NUM_CARDS
        self.stages: list[dict[str, Any] | None] = []
        for stage in view["stages"]:
            if not stage["in_play"]:
                self.stages.append(None)
                continue
            need = [0] * 4
            for s in stage["prizes"]:
                need[SUIT_OF_LETTER[s]] += 1
            sides = []
            for p in (me, opp):
                cards = [CARD_INDEX[c] for c in stage["sides"][p]]
                missing = need[:]
                for c in cards:
                    on_stage[c] = True
                    missing[CARD_SUIT[c]] -= 1
                sides.append((sum(CARD_VALUE[c] for c in cards), missing))
            self.stages.append(
                {
                    "sign": -1 if TERRAINS.index(stage["terrain"]) == LOWLAND else 1,
                    "prizes": [SUIT_OF_LETTER[s] for s in stage["prizes"]],
                    "need": need,
                    "sums": (sides[0][0], sides[1][0]),
                    "missing": (sides[0][1], sides[1][1]),
                }
            )
        # Suit statistics of the cards not on a stage (hands, piles): what can still fill slots.
        values: list[list[int]] = [[], [], [], []]
        for c in range(NUM_CARDS):
            if not on_stage[c]:
                values[CARD_SUIT[c]].append(CARD_VALUE[c])
        self.supply = [len(v) for v in values]
        self.mean = [sum(v) / len(v) if v else MIDDLE for v in values]
        self.var = [
            sum((x - m) ** 2 for x in v) / len(v) if v else 0.0
            for v, m in zip(values, self.mean, strict=True)
        ]
        self.unseen = self._unseen(view, on_stage)
        self.discard = [CARD_INDEX[c] for c in view["discard_pile"]]
        self.opponent_known = [CARD_INDEX[c] for c in view["known_opponent_cards"]]
        self.opponent_hidden = view["opponent_hand_size"] - len(self.opponent_known)
        self.base: tuple[float, float] | None = None

    def _unseen(self, view: dict[str, Any], on_stage: list[bool]) -> list[int]:
        """Cards we have not seen: not ours, not on a stage, not discarded, not revealed."""
        seen = on_stage[:]
        for code in (*view["hand"], *view["discard_pile"], *view["known_opponent_cards"]):
            seen[CARD_INDEX[code]] = True
        return [c for c in range(NUM_CARDS) if not seen[c]]

    def potential(self, player: int, extra: list[int] | None = None) -> float:
        """``player``'s :func:`potential`, with the prize suits ``extra`` added."""
        held = self.held[player]
        if extra:
            held = held[:]
            for s in extra:
                held[s] += 1
        return potential(held, len(self.trophies[player]), self.awarded, self.three_for_one)

    def stake(self, prizes: list[int]) -> float:
        """What a stage is worth: our potential gain if we win it plus the opponent's if they
        do (a stage we lose is a stage they win)."""
        if self.base is None:
            self.base = (self.potential(self.me), self.potential(1 - self.me))
        return (
            self.potential(self.me, prizes)
            - self.base[0]
            + self.potential(1 - self.me, prizes)
            - self.base[1]
        )

    def blocked(self) -> list[bool]:
        """HL-3.1 with suit counting: stages nearer completion take the cards first."""
        order = sorted(
            (i for i, st in enumerate(self.stages) if st),
            key=lambda i: sum(self.stages[i]["missing"][0]) + sum(self.stages[i]["missing"][1]),
        )
        left = self.supply[:]
        blocked = [False] * len(self.stages)
        for i in order:
            m0, m1 = self.stages[i]["missing"]
            demand = [a + b for a, b in zip(m0, m1, strict=True)]
            if any(d > n for d, n in zip(demand, left, strict=True)):
                blocked[i] = True
            else:
                left = [n - d for n, d in zip(left, demand, strict=True)]
        return blocked


class HeisseLuftHeuristic:
    """Rule-based Heiße Luft player (strategy in the module docstring). Same seed ⇒ same
    actions; ``epsilon`` is the chance of a uniformly random legal move."""

    def __init__(self, seed: Seed = None, epsilon: float = 0.0) -> None:
        if not 0.0 <= epsilon <= 1.0:
            raise ValueError(f"epsilon must be in [0, 1], not {epsilon!r}")
        self.seed = seed
        self.epsilon = epsilon
        self.rng = make_rng(seed)

    def reset(self) -> None:
        """Nothing is remembered between moves: the view holds all the agent uses."""

    def act(self, observation: dict[str, np.ndarray], view: dict[str, Any]) -> int:
        legal = legal_actions(observation, view)
        if len(legal) == 1:
            return int(legal[0])
        if self.epsilon and self.rng.random() < self.epsilon:
            return int(legal[self.rng.integers(len(legal))])
        table = _Table(view)
        if legal[0] < NUM_PLAY_ACTIONS:
            scores = play_scores(table, legal)
        elif legal[0] < CLAIM_TROPHY:
            return exchange_action(table, view, legal)
        else:
            scores = trophy_scores(table, legal)
        best = max(scores)
        top = [a for a, s in zip(legal, scores, strict=True) if s >= best - 1e-12]
        return int(top[self.rng.integers(len(top))] if len(top) > 1 else top[0])


# ---------------------------------------------------------------------- play


def _win_chance(diff: float, spread: float, open_slots: int) -> float:
    """P(we win) from the expected oriented difference; exact once no slot is open (our card
    is the last one, so a tie is ours, HL-4.3)."""
    if open_slots == 0:
        return 1.0 if diff > -1e-9 else 0.0
    return _phi(diff / sqrt(max(spread, MIN_SPREAD)))


def play_scores(table: _Table, legal: list[int]) -> list[float]:
    """The score of every play action in ``legal`` (module docstring)."""
    blocked = table.blocked()
    per_stage = []
    for i, st in enumerate(table.stages):
        if st is None:
            per_stage.append(None)
            continue
        sign, mean, var = st["sign"], table.mean, table.var
        (own_sum, opp_sum), (own_missing, opp_missing) = st["sums"], st["missing"]
        diff = sign * (
            own_sum
            - opp_sum
            + sum(n * mean[s] for s, n in enumerate(own_missing))
            - sum(n * mean[s] for s, n in enumerate(opp_missing))
        )
        spread = sum(
            (a + b) * var[s] for s, (a, b) in enumerate(zip(own_missing, opp_missing, strict=True))
        )
        open_slots = sum(own_missing) + sum(opp_missing)
        stake = table.stake(st["prizes"]) * (BLOCKED_FACTOR if blocked[i] else 1.0)
        now = _win_chance(diff, spread, open_slots)
        per_stage.append((sign, diff, spread, open_slots, stake, now))
    scores = []
    for action in legal:
        card, slot = divmod(action, 8)
        stage, side = divmod(slot, 2)
        sign, diff, spread, open_slots, stake, now = per_stage[stage]
        suit, value = CARD_SUIT[card], CARD_VALUE[card]
        shift = sign * (value - table.mean[suit])
        if open_slots == 1:  # the card completes the stage: the result is exact
            own_sum, opp_sum = table.stages[stage]["sums"]
            own_sum, opp_sum = (
                (own_sum + value, opp_sum) if side == 0 else (own_sum, opp_sum + value)
            )
            after = _win_chance(sign * (own_sum - opp_sum), 0.0, 0)
        elif open_slots == 2:
            after = _last_slot_chance(table, stage, card, side)
        else:
            after = _win_chance(
                diff + shift if side == 0 else diff - shift,
                spread - table.var[suit],
                open_slots - 1,
            )
        extreme = abs(value - MIDDLE) / (MIDDLE - 1)
        scores.append(stake * (after - now) - KEEP_COST * extreme * extreme)
    return scores


# ---------------------------------------------------------------------- exchange


def exchange_cards(table: _Table) -> list[int]:
    """The cards to throw when stuck (module docstring), worst first."""
    hand = sorted(table.hand, key=lambda c: (abs(CARD_VALUE[c] - MIDDLE), c))
    wanted = {s for st in table.stages if st for s in range(4) if any(m[s] for m in st["missing"])}
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


def _pay(held: list[int], suit: int, awarded: list[int]) -> list[int]:
    """``held`` after paying for ``suit``'s trophy in HL-6.2's payment order."""
    held = held[:]
    own = min(held[suit], TROPHY_PRICE[suit])
    held[suit] -= own
    for _ in range(TROPHY_PRICE[suit] - own):
        source = max(awarded, key=lambda s: (held[s], -s))
        held[source] -= THREE_FOR_ONE
    return held


def _can_claim(held: list[int], suit: int, awarded: list[int], three_for_one: bool) -> bool:
    if suit in awarded:
        return False
    cards = held[suit]
    if three_for_one:
        cards += sum(held[s] // THREE_FOR_ONE for s in awarded)
    return cards >= TROPHY_PRICE[suit]


def trophy_scores(table: _Table, legal: list[int]) -> list[float]:
    """Claim (the best claim) rather than stop, unless the claim hands the opponent the game."""
    me, opp = table.me, 1 - table.me
    mine = len(table.trophies[me])
    scores = []
    for action in legal:
        if action == STOP_CLAIMING:
            scores.append(0.0)
            continue
        suit = action - CLAIM_TROPHY
        if mine + 1 >= TROPHIES_TO_WIN:
            scores.append(10.0)
            continue
        awarded = [*table.awarded, suit]
        held = _pay(table.held[me], suit, table.awarded)
        opp_held = table.held[opp]
        if (
            len(table.trophies[opp]) + 1 >= TROPHIES_TO_WIN
            and not any(
                _can_claim(opp_held, s, table.awarded, table.three_for_one) for s in range(4)
            )
            and any(_can_claim(opp_held, s, awarded, table.three_for_one) for s in range(4))
        ):
            scores.append(-1.0)
            continue
        after = potential(held, mine + 1, awarded, table.three_for_one)
        their = potential(opp_held, len(table.trophies[opp]), awarded, table.three_for_one)
        scores.append(1.0 + after - their)
    return scores


def _last_slot_chance(table: _Table, stage: int, card: int, side: int) -> float:
    """P(we win) a stage left with one open slot after we place ``card`` on ``side``, the
    opponent to move: they complete it if they hold a card that wins it for them (a tie is
    theirs then, HL-4.3); otherwise we complete it when a card that wins for us comes along."""
    st = table.stages[stage]
    sign = st["sign"]
    sums = list(st["sums"])
    sums[side] += CARD_VALUE[card]
    missing = [st["missing"][0][:], st["missing"][1][:]]
    missing[side][CARD_SUIT[card]] -= 1
    slot_side = 0 if any(missing[0]) else 1
    suit = missing[slot_side].index(1)
    diff = sign * (sums[0] - sums[1])
    to_slot = sign if slot_side == 0 else -sign  # how a card value on the slot moves diff

    def ours(c: int) -> bool:
        return diff + to_slot * CARD_VALUE[c] >= 0  # we complete: a tie is ours

    def theirs(c: int) -> bool:
        return diff + to_slot * CARD_VALUE[c] <= 0  # they complete: a tie is theirs

    if any(CARD_SUIT[c] == suit and theirs(c) for c in table.opponent_known):
        return 0.0
    unseen = [c for c in table.unseen if CARD_SUIT[c] == suit]
    hidden = table.opponent_hidden
    p_theirs = 0.0
    if unseen and hidden:
        bad = sum(1 for c in unseen if theirs(c))
        p_theirs = 1.0 - (1.0 - bad / len(table.unseen)) ** hidden
    if any(CARD_SUIT[c] == suit and ours(c) for c in table.hand if c != card):
        return 1.0 - p_theirs
    pool = unseen + [c for c in table.discard if CARD_SUIT[c] == suit]
    good = sum(1 for c in pool if ours(c)) / len(pool) if pool else 0.0
    return (1.0 - p_theirs) * good
