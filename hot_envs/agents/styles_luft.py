"""Heiße Luft players of plain, clearly different styles, for the opponent suite
(docs/evaluation.md). Each follows one simple idea a human player might have, written from the
rules (HL-3 … HL-6 in docs/rules.md), not tuned against any trained policy. All see only their
own view and share :class:`~hot_envs.agents.base.ScoringAgent` (a seeded generator, an optional
share ``epsilon`` of random moves, ties broken at random).

Their specs: ``beginner`` (:class:`BeginnerAdvice`), ``stage-finisher``
(:class:`GreedyStageFinisher`), ``trophy-rusher`` (:class:`TrophyRusher`) and ``high-hoarder``
(:class:`HighCardHoarder`). Every one claims a trophy whenever it can (HL-6) and, when stuck
(HL-3.4), throws the cards its style values least. Each decides through the kernels of
:mod:`hot_envs.agents.array_luft` (its ``code`` there), one game from its view or many at once
(:class:`~hot_envs.agents.array_luft.ArrayStyle`), with the same moves and draws.
"""

from __future__ import annotations

from hot_envs.agents.base import KernelAgent


class BeginnerAdvice(KernelAgent):
    """Follows a beginner's advice, in this order: finish a stage it will surely win (the bigger
    stage first); never finish a stage it would lose while it has another move; throw its low
    cards onto its side of a stage it will lose anyway (the opponent's side is full and no card
    left could save it); otherwise put good cards on its own side — low cards in a lowland, high
    ones on a mountain — and spoil the opponent's side only when that is a clearly better fit.
    Stuck, it throws its middling cards (5 to 9, nearest 7 first); it claims the dearest
    trophy."""

    game = "heisse-luft"
    code = 0  # its code in the kernels


class GreedyStageFinisher(KernelAgent):
    """Always works on the stage nearest completion: finishing a stage it wins comes first
    (the bigger the better), then any move on the stage with the fewest open slots — its own side
    with the card that suits the terrain, or the opponent's side with the card that spoils it.
    It finishes a stage it would lose only when forced to. Stuck, it throws its middling cards;
    it claims the dearest trophy."""

    game = "heisse-luft"
    code = 1  # its code in the kernels


class TrophyRusher(KernelAgent):
    """Rushes one trophy: the free suit whose price it has paid the largest share of (HL-1.4;
    cheaper suits first on ties, so spades at the start). Stages carrying that suit's prizes are
    all it cares about: it puts good cards on its own side there, spoils the opponent's side
    there, and wins them as soon as it can; other stages get only its spare moves. Claims at
    once, the rushed suit first; keeps the rushed suit's cards when stuck."""

    game = "heisse-luft"
    code = 2  # its code in the kernels


class HighCardHoarder(KernelAgent):
    """Hoards its high cards (J, Q, K): plays its lowest card that fits, where it fits best (a
    low card on its own lowland side or on the opponent's mountain side); a high card only to
    win a stage with it, or when no lower card fits. When stuck it throws its low cards; it
    claims the dearest trophy."""

    game = "heisse-luft"
    code = 3  # its code in the kernels
