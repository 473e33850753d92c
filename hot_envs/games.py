"""The games by name, for the CLI and scripts: ``heisse-luft`` and ``heisse-karten``."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType


@dataclass(frozen=True)
class Game:
    name: str  # CLI name, e.g. "heisse-luft"
    engine_module: str  # has State, encode, action_mask, LAYOUT, NUM_ACTIONS
    env_module: str  # has env(), raw_env

    @property
    def engine(self) -> ModuleType:
        return importlib.import_module(self.engine_module)

    @property
    def env(self) -> ModuleType:
        return importlib.import_module(self.env_module)


GAMES = {
    game.name: game
    for game in (
        Game("heisse-luft", "hot_envs.heisse_luft", "hot_envs.heisse_luft_v0"),
        Game("heisse-karten", "hot_envs.heisse_karten", "hot_envs.heisse_karten_v0"),
    )
}


def get_game(name: str) -> Game:
    """The game called ``name``; ``heisse-luft``, ``heisse_luft``, ``heisse_luft_v0`` all work."""
    key = name.lower().replace("_", "-").removesuffix("-v0")
    if key not in GAMES:
        raise ValueError(f"unknown game {name!r}; choose one of {sorted(GAMES)}")
    return GAMES[key]
