"""Heiße Karten players of plain, clearly different styles, for the opponent suite
(docs/evaluation.md). Each follows one simple idea a human player might have, written from the
rules (HK-3, HK-4 in docs/rules.md), not tuned against any trained policy. All see only their own
view, play at every table size (2–6) and share :class:`~hot_envs.agents.base.ScoringAgent`: a
seeded generator, an optional share ``epsilon`` of random moves, ties broken at random.

======================  ==========================================================================
spec                    how it plays
======================  ==========================================================================
``low-dumper``          always plays its lowest card (by number), whatever the trick
``trick-taker``         takes every trick it can: the cheapest card that beats the trick so far;
                        leads its strongest card
``trick-avoider``       never takes a trick it can avoid: the biggest card that stays under the
                        trick's best; leads its weakest card
``card-counter``        counts the cards (the view's ``played``) and plays the card with the most
                        expected points for this trick alone, no thought for later tricks
======================  ==========================================================================

Each also decides many games of the array engine at once, with the same moves and draws:
:class:`hot_envs.agents.array_karten.ArrayStyle` (through
:func:`hot_envs.agents.arrays.as_array_agent`), the arena's batches and the training driver.
"""

from __future__ import annotations

from typing import Any

from hot_envs.agents.base import ScoringAgent
from hot_envs.agents.heuristic_karten import Unseen, trick_value
from hot_envs.heisse_karten.facts import CARD_VALUE, TRICK_RANK


def _cards(legal: list[int]) -> list[int]:
    return [action + 1 for action in legal]  # HK-1.2 action k - 1 plays card k


def _trick_best(view: dict[str, Any]) -> int:
    """The trick rank to beat (HK-3.2), 0 for an empty trick."""
    return max((TRICK_RANK[card] for _, card in view["trick"]), default=0)


class LowCardDumper(ScoringAgent):
    """Plays its lowest card by number, every time — a player who gets rid of small cards first
    and keeps the big ones for later, without looking at the trick. Low odd cards cost little
    (HK-1.1), low even cards gain little."""

    def choose(self, view: dict[str, Any], legal: list[int]) -> int:
        return min(legal)


class GreedyTrickTaker(ScoringAgent):
    """Wants every trick: following, it plays the cheapest card that beats the trick so far
    (HK-3.2: the lowest-ranked winner), and only when none does, its weakest card. Leading, it
    plays its strongest card (the highest black, else the highest red). It does not ask what the
    trick is worth, nor what later players hold."""

    def choose(self, view: dict[str, Any], legal: list[int]) -> int:
        cards = _cards(legal)
        if not view["trick"]:
            return max(cards, key=TRICK_RANK.__getitem__) - 1
        best = _trick_best(view)
        winners = [card for card in cards if TRICK_RANK[card] > best]
        pool = winners or cards
        return min(pool, key=TRICK_RANK.__getitem__) - 1


class TrickAvoider(ScoringAgent):
    """Never takes a trick it can avoid: following, it plays the strongest card that stays under
    the trick's best card (so big red cards go onto other players' tricks, HK-3.2); when every
    card would beat the trick, its weakest one. Leading, it plays its weakest card (the lowest
    red if it has one), which any later card beats."""

    def choose(self, view: dict[str, Any], legal: list[int]) -> int:
        cards = _cards(legal)
        if not view["trick"]:
            return min(cards, key=TRICK_RANK.__getitem__) - 1
        best = _trick_best(view)
        under = [card for card in cards if TRICK_RANK[card] < best]
        if under:
            return max(under, key=TRICK_RANK.__getitem__) - 1
        return min(cards, key=TRICK_RANK.__getitem__) - 1


class CardCounter(ScoringAgent):
    """Counts cards: from the view's ``played`` and its own hand it knows which cards are still
    unseen (HK-5), treats each later player's card as one drawn from those, and plays the card
    with the best expected points *for this trick* — its own points if it takes the trick, minus
    a 1/(N − 1) share of the points another player takes (HK-4.2: only the winner counts). It
    gives no thought to later tricks: it spends a high black card on any trick that pays now."""

    def choose(self, view: dict[str, Any], legal: list[int]) -> int:
        return self.best(legal, expected_points(view, _cards(legal)))


def expected_points(view: dict[str, Any], cards: list[int]) -> list[float]:
    """Each card's expected points for this trick alone (:class:`CardCounter`), with the later
    players' cards drawn from the unseen ones."""
    n = view["num_players"]
    share = 1.0 / (n - 1)
    trick = [card for _, card in view["trick"]]
    base = sum(CARD_VALUE[card] for card in trick)
    best = _trick_best(view)
    later = n - 1 - len(trick)
    unseen = Unseen(view)
    points = []
    for card in cards:
        rank = TRICK_RANK[card]
        stays = 1.0 - unseen.beaten(rank)
        value, _ = trick_value(
            base + CARD_VALUE[card],
            rank > best,
            later,
            share,
            unseen.mean,
            stays,
            unseen.mean_below(rank),
        )
        points.append(value)
    return points
