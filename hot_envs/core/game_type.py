"""The description of one game (:class:`Game`), declared once by each game folder's ``spec``.

Cross-game code (agents, pictures, web table, terminal, training) asks a game's description
instead of testing its name. The description names the parts above the engine (heuristic,
pictures, web moves …) as entry-point strings, ``"package.module:attribute"``, imported on first
use (:meth:`Game.load`), so a game folder never imports the layers above it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from numbers import Integral
from types import ModuleType
from typing import Any


def resolve(entry: str) -> Any:
    """The object an entry-point string ``"package.module:attribute"`` names."""
    module, _, attribute = entry.partition(":")
    value: Any = importlib.import_module(module)
    for part in attribute.split(".") if attribute else ():
        value = getattr(value, part)
    return value


@dataclass(frozen=True)
class Game:
    """One game: names, modules, player range and every per-game part cross-game code needs.

    Strings ending in an entry point (``module:attribute``) are imported lazily by :meth:`load`.
    """

    name: str  # CLI name, e.g. "heisse-luft"
    title: str  # e.g. "Heiße Luft"
    engine_module: str  # has State, encode, action_mask, LAYOUT, NUM_ACTIONS
    env_module: str  # has env(), raw_env
    min_players: int
    max_players: int
    # ``Game.shaping(view, seat)``: Φ of the reward shaping from ``seat``'s view (engine layer).
    shaping: Callable[[dict[str, Any], int], float] | None = None
    heuristic: str = ""  # entry point of the heuristic agent class (seed, epsilon=…)
    styles: Mapping[str, str] = field(default_factory=dict)  # style spec → agent class entry
    search: Mapping[str, Any] = field(default_factory=dict)  # the ``search`` spec's settings
    search_simulations: int = 500  # SearchAgent's default rollouts a decision
    features: str = ""  # entry point: (view, legal) → action feature rows
    batched: str = ""  # entry point: the game's array engine class (hot_envs.batched)
    arrays: str = ""  # module: ArrayHeuristic, fill_policy_input on the game's array engine
    feature_shape: str = ""  # entry point: (slots, features per action)
    anchor_columns: str = ""  # entry point: the feature columns an anchor reads (AnchorColumns)
    picture: str = ""  # entry point: draw(view, spectator) → PIL image
    picture_shot: tuple = ()  # (options, deal seed, moves) of the documentation's frame
    guide: Mapping[str, Any] = field(default_factory=dict)  # terminal: numbered, syntax, legend
    suite: tuple = ()  # (agent spec, pool, style[, costly]) of the opponent suite
    web_move: str = ""  # entry point: (action, player) → the web table's move dict
    web_event: str = ""  # entry point: (before, mover, action, after) → event dict or None
    web_state_bytes: int = 0  # a web table's state and its `last`, in bytes
    checkpoint: str = ""  # the shipped checkpoint's name (an agent spec)
    learning_speed: int = 0  # rough env steps a second of the default training config
    # About how long an arena run's kernels (the engine's, the agents', the policy input's) take
    # to compile on two cores with an empty numba cache (docs/benchmarks.md, "Rule-based agents
    # one game at a time"): the arena's one line on a first run says so.
    compile_seconds: int = 0

    @property
    def key(self) -> str:
        """The engine's own name, e.g. ``heisse_luft`` (a view's ``"game"``)."""
        return self.engine_module.rpartition(".")[2]

    @property
    def engine(self) -> ModuleType:
        return importlib.import_module(self.engine_module)

    @property
    def env(self) -> ModuleType:
        return importlib.import_module(self.env_module)

    def load(self, attribute: str) -> Any:
        """The object the entry point in field ``attribute`` names (imported on first use)."""
        entry = getattr(self, attribute)
        if not entry:
            raise ValueError(f"{self.title} has no {attribute}")
        return resolve(entry)

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
