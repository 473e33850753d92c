"""What a Heiße Luft position holds: :class:`Table`, the fields of
:class:`hot_envs.heisse_luft.state.State` without its rules, which the text
(:mod:`~hot_envs.heisse_luft.render`) and the dict formats (:mod:`~hot_envs.heisse_luft.serialize`)
read and write without importing the state's module, which imports them. Cards, suits and phases
are the ids of :mod:`hot_envs.heisse_luft.facts`; piles keep their top card last."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hot_envs.core.engine import ChanceSource
from hot_envs.heisse_luft.facts import NUM_STAGES, PLAY, START_TERRAIN


def _per_stage(make: Callable[[], Any]) -> Any:
    """A field's default: one ``make()`` per stage."""
    return field(default_factory=lambda: [make() for _ in range(NUM_STAGES)])


def _per_seat(make: Callable[[], Any]) -> Any:
    """A field's default: one ``make()`` per seat."""
    return field(default_factory=lambda: [make(), make()])


@dataclass(slots=True, eq=False, repr=False)
class Table:
    """An empty table, made with the options and the chance source, until a deal or a state dict
    fills it."""

    options: dict[str, Any]
    _rng: ChanceSource
    phase: int = PLAY
    current_player: int | None = 0  # None once the game is over
    hands: list[list[int]] = _per_seat(list)  # sorted
    draw_pile: list[int] = field(default_factory=list)
    discard_pile: list[int] = field(default_factory=list)
    prize_deck: list[int] = field(default_factory=list)  # suits
    in_play: list[bool] = field(default_factory=lambda: [True] * NUM_STAGES)
    terrain: list[int] = field(default_factory=lambda: list(START_TERRAIN))
    prizes: list[list[int]] = _per_stage(list)  # the prize cards' suits
    need: list[list[int]] = _per_stage(lambda: [0] * 4)  # by suit: the cards each side needs
    sides: list[list[list[int]]] = _per_stage(lambda: [[], []])  # by seat: the cards played
    have: list[list[list[int]]] = _per_stage(lambda: [[0] * 4, [0] * 4])  # by seat and suit
    sums: list[list[int]] = _per_stage(lambda: [0, 0])  # by seat: the values played
    last_player: list[int | None] = field(default_factory=lambda: [None] * NUM_STAGES)
    prizes_won: list[list[int]] = _per_seat(lambda: [0] * 4)  # by suit
    trophy_cards: list[list[int]] = _per_seat(lambda: [0] * 4)  # by suit: paid for trophies
    trophies: list[list[int]] = _per_seat(list)  # suits
    pass_streak: int = 0
    turn: int = 0
    exchange_selection: list[int] = field(default_factory=list)
    revealed: list[set[int]] = _per_seat(set)  # hand cards the other seat has seen
    trophy_winner: int | None = None
    asking_winner: bool = True
    winner: int | str | None = None
    _rng_shared: bool = False
    _legal: list[int] | None = None
