"""What a Heiße Luft position holds, as :class:`hot_envs.heisse_luft.state.State` keeps it: the
fields that the text (:mod:`~hot_envs.heisse_luft.render`) and the dict formats
(:mod:`~hot_envs.heisse_luft.serialize`) read and write. A protocol, so that those modules work
on the state without importing its module, which imports them. Cards, suits and phases are the
ids of :mod:`hot_envs.heisse_luft.facts`; piles keep their top card last."""

from __future__ import annotations

from typing import Any, Protocol


class Table(Protocol):
    options: dict[str, Any]
    phase: int
    current_player: int | None
    hands: list[list[int]]  # sorted
    draw_pile: list[int]
    discard_pile: list[int]
    prize_deck: list[int]  # suits
    in_play: list[bool]  # by stage
    terrain: list[int]
    prizes: list[list[int]]  # by stage, the prize cards' suits
    need: list[list[int]]  # by stage and suit: the cards each side needs
    sides: list[list[list[int]]]  # by stage and seat: the cards played
    have: list[list[list[int]]]  # by stage, seat and suit: how many
    sums: list[list[int]]  # by stage and seat: the values played
    last_player: list[int | None]  # by stage
    prizes_won: list[list[int]]  # by seat and suit
    trophy_cards: list[list[int]]  # by seat and suit: prize cards paid for trophies
    trophies: list[list[int]]  # by seat: suits
    pass_streak: int
    turn: int
    exchange_selection: list[int]
    revealed: list[set[int]]  # by seat: hand cards the other seat has seen
    trophy_winner: int | None
    asking_winner: bool
    winner: int | str | None

    def legal_actions(self) -> list[int]: ...

    def is_terminal(self) -> bool: ...
