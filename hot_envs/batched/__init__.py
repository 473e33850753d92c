"""Games in arrays: many games of one kind stepped at once by compiled kernels.

>>> from hot_envs import batched
>>> games = batched.make("heisse-karten", num_games=4, num_players=3)
>>> games.reset(seed=0)
>>> games.legal_mask().shape, games.observe().shape
((4, 48), (4, 670))

``make(game, num_games, **options)`` takes a game's name and the options its ``env()`` takes;
the contract is :class:`~hot_envs.batched.base.ArrayGames` (docs/environments.md, "Games in
arrays").
"""

from __future__ import annotations

from typing import Any

from hot_envs.batched.base import MAX_GAMES, ArrayGames
from hot_envs.batched.jit import COMPILED
from hot_envs.core.games import get_game

__all__ = ["COMPILED", "MAX_GAMES", "ArrayGames", "make"]


def make(game: str, num_games: int, **options: Any) -> ArrayGames:
    """``num_games`` games of ``game`` (``"heisse-luft"`` or ``"heisse-karten"``; ``heisse_luft``
    and ``heisse_luft_v0`` work too) with the options its ``env()`` takes; not dealt yet: call
    ``reset(seed)``."""
    return get_game(game).load("batched")(num_games, **options)
