"""The games by name, for the CLI and scripts: ``heisse-luft`` and ``heisse-karten``.

A :class:`Game` describes one: its names, its modules, how many players it takes and how many
actions it has, so code above the engines asks the description instead of checking names.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from numbers import Integral
from types import ModuleType
from typing import Any


@dataclass(frozen=True)
class Game:
    """One game: names, modules and player range."""

    name: str  # CLI name, e.g. "heisse-luft"
    title: str  # e.g. "Heiße Luft"
    engine_module: str  # has State, encode, action_mask, LAYOUT, NUM_ACTIONS
    env_module: str  # has env(), raw_env
    min_players: int
    max_players: int

    @property
    def engine(self) -> ModuleType:
        return importlib.import_module(self.engine_module)

    @property
    def env(self) -> ModuleType:
        return importlib.import_module(self.env_module)

    @property
    def players(self) -> range:
        """The player counts the game takes."""
        return range(self.min_players, self.max_players + 1)

    @property
    def num_actions(self) -> int:
        """The size of the game's ``Discrete`` action space."""
        return self.engine.NUM_ACTIONS

    def check_players(self, players: Any) -> int:
        """``players`` as an int if the game takes that many, else ``ValueError``."""
        if (
            not isinstance(players, bool)
            and isinstance(players, Integral)
            and players in self.players
        ):
            return int(players)
        raise ValueError(f"{self.title} is {self.describe_players()}, not {players!r}")

    def describe_players(self) -> str:
        """``a 2-player game`` or ``a game for 2–6 players``."""
        if self.min_players == self.max_players:
            return f"a {self.min_players}-player game"
        return f"a game for {self.min_players}–{self.max_players} players"

    def options(self, players: int | None = None, options: Mapping[str, Any] | None = None) -> dict:
        """Engine options for ``State.new``: ``options`` plus the player count (checked) where
        the game lets you choose one."""
        options = dict(options or {})
        if players is not None:
            players = self.check_players(players)
            if self.min_players != self.max_players:
                options["num_players"] = players
        return options


GAMES = {
    game.name: game
    for game in (
        Game("heisse-luft", "Heiße Luft", "hot_envs.heisse_luft", "hot_envs.heisse_luft_v0", 2, 2),
        Game(
            "heisse-karten",
            "Heiße Karten",
            "hot_envs.heisse_karten",
            "hot_envs.heisse_karten_v0",
            2,
            6,
        ),
    )
}


def get_game(name: str) -> Game:
    """The game called ``name``; ``heisse-luft``, ``heisse_luft``, ``heisse_luft_v0`` all work."""
    key = name.lower().replace("_", "-").removesuffix("-v0")
    if key not in GAMES:
        raise ValueError(f"unknown game {name!r}; choose one of {sorted(GAMES)}")
    return GAMES[key]
