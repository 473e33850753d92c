"""Heiße Karten players of plain, clearly different styles, for the opponent suite
(docs/evaluation.md). Each follows one simple idea a human player might have, written from the
rules (HK-3, HK-4 in docs/rules.md), not tuned against any trained policy. All see only their own
view, play at every table size (2–6) and share :class:`~hot_envs.agents.base.ScoringAgent`: a
seeded generator, an optional share ``epsilon`` of random moves, ties broken at random.

Their specs: ``low-dumper`` (:class:`LowCardDumper`), ``trick-taker``
(:class:`GreedyTrickTaker`), ``trick-avoider`` (:class:`TrickAvoider`) and ``card-counter``
(:class:`CardCounter`). Each decides through the kernels of :mod:`hot_envs.agents.array_karten`
(its ``code`` there), one game from its view or many at once
(:class:`~hot_envs.agents.array_karten.ArrayStyle`), with the same moves and draws.
"""

from __future__ import annotations

from hot_envs.agents.base import KernelAgent


class LowCardDumper(KernelAgent):
    """Plays its lowest card by number, every time — a player who gets rid of small cards first
    and keeps the big ones for later, without looking at the trick. Low odd cards cost little
    (HK-1.1), low even cards gain little."""

    game = "heisse-karten"
    code = 0  # its code in the kernels


class GreedyTrickTaker(KernelAgent):
    """Wants every trick: following, it plays the cheapest card that beats the trick so far
    (HK-3.2: the lowest-ranked winner), and only when none does, its weakest card. Leading, it
    plays its strongest card (the highest black, else the highest red). It does not ask what the
    trick is worth, nor what later players hold."""

    game = "heisse-karten"
    code = 1  # its code in the kernels


class TrickAvoider(KernelAgent):
    """Never takes a trick it can avoid: following, it plays the strongest card that stays under
    the trick's best card (so big red cards go onto other players' tricks, HK-3.2); when every
    card would beat the trick, its weakest one. Leading, it plays its weakest card (the lowest
    red if it has one), which any later card beats."""

    game = "heisse-karten"
    code = 2  # its code in the kernels


class CardCounter(KernelAgent):
    """Counts cards: from the view's ``played`` and its own hand it knows which cards are still
    unseen (HK-5), treats each later player's card as one drawn from those, and plays the card
    with the best expected points *for this trick* — its own points if it takes the trick, minus
    a 1/(N − 1) share of the points another player takes (HK-4.2: only the winner counts). It
    gives no thought to later tricks: it spends a high black card on any trick that pays now."""

    game = "heisse-karten"
    code = 3  # its code in the kernels
