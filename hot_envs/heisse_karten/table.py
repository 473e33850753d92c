"""What a Heiße Karten position shows, as :class:`hot_envs.heisse_karten.state.State` keeps it:
the fields and results that the text (:mod:`~hot_envs.heisse_karten.render`) reads. A protocol,
so that the text works on the state without importing its module, which imports it. Cards are
the ids of :mod:`hot_envs.heisse_karten.facts`."""

from __future__ import annotations

from typing import Any, Protocol


class Table(Protocol):
    num_players: int
    options: dict[str, Any]
    current_player: int | None  # None once the match is over
    leader: int
    hands: list[list[int]]  # sorted
    trick: list[int]  # in play order
    played: list[tuple[int, int]]  # (seat, card) so far this round
    set_aside: list[int]
    scores: list[int]
    totals: list[int]
    round: int  # 0-based

    @property
    def draw_pile_size(self) -> int: ...

    def winners(self) -> list[int]: ...

    def returns(self) -> list[float]: ...
