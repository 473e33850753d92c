"""Our agents as OpenSpiel bots: :func:`bot` seats any agent spec (docs/agents.md) at an OpenSpiel
table, so that ``open_spiel.python.algorithms.evaluate_bots`` and OpenSpiel's examples play
them.

The bot gives its agent exactly what our own tables give it (``hot_envs.agents.base.decide``):
the environment's observation dict and the engine's view of the bot's seat, never more.
"""

from __future__ import annotations

from typing import Any

import pyspiel

from hot_envs.agents import make_agent
from hot_envs.agents.base import Agent, decide
from hot_envs.core.engine import Seed
from hot_envs.openspiel.games import GAME_NAMES as _GAMES


class AgentBot(pyspiel.Bot):
    """A ``pyspiel.Bot`` that plays ``agent`` in seat ``player`` of one of our games."""

    def __init__(self, agent: Agent, game: Any, player: int) -> None:
        pyspiel.Bot.__init__(self)
        self.agent = agent
        self.player = player
        self._engine = game.engine

    def step(self, state: Any) -> int:
        if state.current_player() != self.player:
            raise ValueError(
                f"this bot plays seat {self.player}, not seat {state.current_player()}"
            )
        return decide(self.agent, self._engine, state.engine, self.player)

    def restart_at(self, state: Any) -> None:
        reset = getattr(self.agent, "reset", None)
        if reset is not None:
            reset()

    def inform_action(self, state: Any, player_id: int, action: int) -> None:
        """Our agents read each position afresh from its view: nothing to remember."""

    def provides_policy(self) -> bool:
        return False


def bot(spec: str, game: Any, player: int, seed: Seed = None) -> AgentBot:
    """The agent ``spec`` names (``heuristic``, ``heisse_karten_v0``, ``search:200``, …) as a
    ``pyspiel.Bot`` for seat ``player`` of ``game`` (``python_heisse_luft`` or
    ``python_heisse_karten``, a game object or its name)."""
    if isinstance(game, str):
        game = pyspiel.load_game(game)
    name = game.get_type().short_name
    if name not in _GAMES:
        raise ValueError(f"{name!r} is not one of our games ({', '.join(_GAMES)})")
    if isinstance(player, bool) or not isinstance(player, int):
        raise ValueError(f"player must be a seat number, not {player!r}")
    if not 0 <= player < game.num_players():
        raise ValueError(f"player must be a seat of {game.num_players()}, not {player}")
    return AgentBot(make_agent(spec, _GAMES[name], seed=seed), game, player)
