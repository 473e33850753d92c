"""Heiße Luft players of plain, clearly different styles, for the opponent suite
(docs/evaluation.md). Each follows one simple idea a human player might have, written from the
rules (HL-3 … HL-6 in docs/rules.md), not tuned against any trained policy. All see only their
own view and share :class:`~hot_envs.agents.base.ScoringAgent` (a seeded generator, an optional
share ``epsilon`` of random moves, ties broken at random).

======================  ==========================================================================
spec                    how it plays
======================  ==========================================================================
``beginner``            simple beginner's advice: finish a stage it will surely win, never finish
                        one it loses, throw low cards onto stages it will lose anyway, else good
                        cards on its own side (low in lowland, high on mountains)
``stage-finisher``      always works on the stage nearest completion, finishing stages as soon as
                        it wins them
``trophy-rusher``       picks the free trophy it is nearest to and plays only for the stages that
                        carry its suit
``high-hoarder``        keeps its high cards (J, Q, K): plays its lowest card that fits, a high
                        one only to win a stage or when nothing else fits
======================  ==========================================================================

Every one claims a trophy whenever it can (HL-6) and, when stuck (HL-3.4), throws the cards its
style values least.

Each also decides many games of the array engine at once, with the same moves and draws:
:class:`hot_envs.agents.array_luft.ArrayStyle` (through
:func:`hot_envs.agents.arrays.as_array_agent`), the arena's batches and the training driver.
"""

from __future__ import annotations

from dataclasses import dataclass
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
    STOP_CLAIMING,
    SUITS,
    TROPHY_PRICE,
)

MAX_VALUE = 13
HIGH = 11  # J, Q, K: the cards the hoarder keeps


@dataclass
class Stage:
    """A stage in play from the mover's side: index 0 is ours, 1 the opponent's."""

    sign: int  # +1 mountain (higher wins), −1 lowland (lower wins), HL-4.2
    prizes: list[int]  # prize suits
    sums: list[int]
    missing: list[list[int]]  # open slots by suit, per side (HL-3.1)

    @property
    def open_slots(self) -> int:
        return sum(self.missing[0]) + sum(self.missing[1])


def read_stages(view: dict[str, Any]) -> list[Stage | None]:
    """The view's stages from the mover's side; ``None`` for a stage out of play."""
    me = view["player"]
    stages: list[Stage | None] = []
    for stage in view["stages"]:
        if not stage["in_play"]:
            stages.append(None)
            continue
        prizes = [SUITS.index(s) for s in stage["prizes"]]
        sums, missing = [0, 0], [[0] * 4, [0] * 4]
        for j, side in enumerate((stage["sides"][me], stage["sides"][1 - me])):
            for s in prizes:
                missing[j][s] += 1
            for card in map(CARD_INDEX.__getitem__, side):
                sums[j] += CARD_VALUE[card]
                missing[j][CARD_SUIT[card]] -= 1
        sign = 1 if stage["terrain"] == "mountain" else -1
        stages.append(Stage(sign, prizes, sums, missing))
    return stages


def placement(action: int) -> tuple[int, int, int]:
    """(card, stage 0–3, side 0 ours / 1 theirs) of a play action (docs/rules.md, action ids)."""
    return action >> 3, action >> 1 & 3, action & 1


def completion(st: Stage, card: int, side: int) -> int:
    """+1 if ``card`` on ``side`` completes the stage and wins it for us (a tie is ours: we
    place the last card, HL-4.3), −1 if it completes it and loses, 0 if the stage stays open."""
    if st.open_slots != 1:
        return 0
    diff = st.sums[0] - st.sums[1] + (CARD_VALUE[card] if side == 0 else -CARD_VALUE[card])
    return 1 if st.sign * diff >= 0 else -1


def fit(st: Stage, card: int, side: int) -> float:
    """How good ``card`` is on ``side`` by the terrain alone, 0–1: on our side low cards suit a
    lowland and high cards a mountain; on the opponent's side the reverse spoils their sum."""
    value = CARD_VALUE[card] / MAX_VALUE
    good_high = (st.sign > 0) == (side == 0)
    return value if good_high else 1.0 - value


def surely_lost(st: Stage, view: dict[str, Any]) -> bool:
    """The opponent's side is complete and even the best cards of the suits our side still
    needs (among those not on a stage) cannot reach a tie."""
    if any(st.missing[1]):
        return False
    on_stage = {c for stage in view["stages"] for side in stage["sides"] for c in side}
    best = st.sums[0]
    for suit, count in enumerate(st.missing[0]):
        if not count:
            continue
        values = sorted(
            CARD_VALUE[c]
            for code, c in CARD_INDEX.items()
            if CARD_SUIT[c] == suit and code not in on_stage
        )
        if len(values) < count:
            return True  # the suit cannot even fill our side now
        best += sum(values[-count:]) if st.sign > 0 else sum(values[:count])
    return st.sign * (best - st.sums[1]) < 0


class _Style(ScoringAgent):
    """Shared moves: claim a trophy whenever possible (HL-6.1), and when stuck throw the cards
    :meth:`throw` names (HL-3.4); :meth:`play_scores` scores the placements."""

    def choose(self, view: dict[str, Any], legal: list[int]) -> int:
        if legal[0] < EXCHANGE_PICK:
            stages = read_stages(view)
            return self.best(legal, self.play_scores(view, stages, legal))
        if legal[0] < CLAIM_TROPHY:
            hand = [CARD_INDEX[c] for c in view["hand"]]
            chosen = {CARD_INDEX[c] for c in view["exchange_selection"]}
            for card in self.throw(view, hand)[:MAX_EXCHANGE]:
                if card not in chosen and EXCHANGE_PICK + card in legal:
                    return EXCHANGE_PICK + card
            return EXCHANGE_DONE if EXCHANGE_DONE in legal else int(legal[0])
        claims = [a for a in legal if a != STOP_CLAIMING]
        return self.claim(view, claims) if claims else STOP_CLAIMING

    def play_scores(
        self, view: dict[str, Any], stages: list[Stage | None], legal: list[int]
    ) -> list[float]:
        raise NotImplementedError

    def throw(self, view: dict[str, Any], hand: list[int]) -> list[int]:
        """The cards to exchange, first to last (at most four are used)."""
        middling = sorted(hand, key=lambda c: abs(CARD_VALUE[c] - 7))
        return [c for c in middling if 5 <= CARD_VALUE[c] <= 9] or middling[:1]

    def claim(self, view: dict[str, Any], claims: list[int]) -> int:
        """The trophy to claim among ``claims``: the dearest one (it is the hardest to get)."""
        return max(claims, key=lambda a: TROPHY_PRICE[a - CLAIM_TROPHY])


class BeginnerAdvice(_Style):
    """Follows a beginner's advice, in this order: finish a stage it will surely win (the bigger
    stage first); never finish a stage it would lose while it has another move; throw its low
    cards onto its side of a stage it will lose anyway (the opponent's side is full and no card
    left could save it); otherwise put good cards on its own side — low cards in a lowland, high
    ones on a mountain — and spoil the opponent's side only when that is a clearly better fit."""

    def play_scores(
        self, view: dict[str, Any], stages: list[Stage | None], legal: list[int]
    ) -> list[float]:
        scores = []
        for action in legal:
            card, i, side = placement(action)
            st = stages[i]
            done = completion(st, card, side)
            if done:
                scores.append(100.0 + len(st.prizes) if done > 0 else -100.0)
            elif side == 0 and surely_lost(st, view):
                scores.append(20.0 + MAX_VALUE - CARD_VALUE[card])  # low cards to waste
            else:
                scores.append(10.0 * fit(st, card, side) - (3.0 if side else 0.0))
        return scores


class GreedyStageFinisher(_Style):
    """Always works on the stage nearest completion: finishing a stage it wins comes first
    (the bigger the better), then any move on the stage with the fewest open slots — its own side
    with the card that suits the terrain, or the opponent's side with the card that spoils it.
    It finishes a stage it would lose only when forced to."""

    def play_scores(
        self, view: dict[str, Any], stages: list[Stage | None], legal: list[int]
    ) -> list[float]:
        scores = []
        for action in legal:
            card, i, side = placement(action)
            st = stages[i]
            done = completion(st, card, side)
            if done:
                scores.append(1000.0 + len(st.prizes) if done > 0 else -1000.0)
            else:
                scores.append(-10.0 * st.open_slots + 5.0 * fit(st, card, side))
        return scores


class TrophyRusher(_Style):
    """Rushes one trophy: the free suit whose price it has paid the largest share of (HL-1.4;
    cheaper suits first on ties, so spades at the start). Stages carrying that suit's prizes are
    all it cares about: it puts good cards on its own side there, spoils the opponent's side
    there, and wins them as soon as it can; other stages get only its spare moves. Claims at
    once, the rushed suit first; keeps the rushed suit's cards when stuck."""

    def target(self, view: dict[str, Any]) -> int:
        me = view["player"]
        owned = {SUITS.index(s) for p in view["trophies"] for s in p}
        held = view["prizes_won"][me]
        free = [s for s in range(4) if s not in owned] or list(range(4))
        return max(free, key=lambda s: (held[SUITS[s]] / TROPHY_PRICE[s], -TROPHY_PRICE[s]))

    def play_scores(
        self, view: dict[str, Any], stages: list[Stage | None], legal: list[int]
    ) -> list[float]:
        target = self.target(view)
        scores = []
        for action in legal:
            card, i, side = placement(action)
            st = stages[i]
            weight = 1.0 + 3.0 * st.prizes.count(target)
            done = completion(st, card, side)
            if done:
                scores.append(50.0 * weight * done)
            else:
                scores.append(weight * fit(st, card, side) * (1.0 if side == 0 else 0.8))
        return scores

    def throw(self, view: dict[str, Any], hand: list[int]) -> list[int]:
        target = self.target(view)
        others = [c for c in hand if CARD_SUIT[c] != target]
        return sorted(others, key=lambda c: abs(CARD_VALUE[c] - 7)) or hand[:1]

    def claim(self, view: dict[str, Any], claims: list[int]) -> int:
        target = CLAIM_TROPHY + self.target(view)
        return target if target in claims else claims[0]


class HighCardHoarder(_Style):
    """Hoards its high cards (J, Q, K): plays its lowest card that fits, where it fits best (a
    low card on its own lowland side or on the opponent's mountain side); a high card only to
    win a stage with it, or when no lower card fits. When stuck it throws its low cards."""

    def play_scores(
        self, view: dict[str, Any], stages: list[Stage | None], legal: list[int]
    ) -> list[float]:
        scores = []
        for action in legal:
            card, i, side = placement(action)
            st = stages[i]
            value = CARD_VALUE[card]
            done = completion(st, card, side)
            score = -value + 3.0 * fit(st, card, side) + 40.0 * done
            if value >= HIGH and done <= 0:
                score -= 30.0
            scores.append(score)
        return scores

    def throw(self, view: dict[str, Any], hand: list[int]) -> list[int]:
        low = sorted(hand, key=lambda c: CARD_VALUE[c])
        return [c for c in low if CARD_VALUE[c] < 7] or low[:1]
