"""The games by name, for the CLI and scripts: ``heisse-luft`` and ``heisse-karten``.

Each game folder declares its :class:`Game` once (``hot_envs.<game>.spec.GAME``); this registry
collects them, so code above the engines asks the description instead of checking names.
"""

from __future__ import annotations

from hot_envs.core.game_type import Game, resolve
from hot_envs.heisse_karten.spec import GAME as HEISSE_KARTEN
from hot_envs.heisse_luft.spec import GAME as HEISSE_LUFT

__all__ = ["DEFAULT_GAME", "GAMES", "Game", "get_game", "resolve"]

GAMES = {game.name: game for game in (HEISSE_LUFT, HEISSE_KARTEN)}
DEFAULT_GAME = HEISSE_LUFT.name  # what an env, a policy or a run plays when not told


def get_game(name: str) -> Game:
    """The game called ``name``; ``heisse-luft``, ``heisse_luft``, ``heisse_luft_v0`` all work."""
    key = name.lower().replace("_", "-").removesuffix("-v0")
    if key not in GAMES:
        raise ValueError(f"unknown game {name!r}; choose one of {sorted(GAMES)}")
    return GAMES[key]
